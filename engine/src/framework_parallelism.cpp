#include "trainmem/framework_parallelism.hpp"

#include <algorithm>

#include "trainmem/estimate.hpp"
#include "trainmem/framework_defaults.hpp"

namespace trainmem {

FrameworkParallelism framework_parallelism(const TrainingSetup& s) {
  const std::vector<int> fsdp_stages = {0, 2, 3};
  switch (s.framework) {
    case Framework::megatron: return {true, true, ContextParallelKind::ring, {0, 1}};
    case Framework::torchtitan: return {true, true, ContextParallelKind::ring, fsdp_stages};
    case Framework::torchtune: return {s.method == Method::full, false, ContextParallelKind::ring, fsdp_stages};
    case Framework::deepspeed: return {false, false, ContextParallelKind::ulysses, {0, 1, 2, 3}};
    case Framework::hf_trainer:
      return {false, false, std::nullopt,
              sharding_engine(s) == ShardingEngine::deepspeed ? std::vector<int>{0, 1, 2, 3} : fsdp_stages};
    case Framework::fsdp: return {false, false, std::nullopt, fsdp_stages};
  }
  return {};
}

std::vector<int> accepted_zero_stages(const TrainingSetup& s) {
  std::vector<int> accepted;
  TrainingSetup at = s;
  for (int stage : framework_parallelism(s).zero_stages) {
    at.parallel.zero_stage = stage;
    // A stage the framework's own code refuses beside the rest of the layout (ZeRO-3 beside
    // DeepSpeed's AutoTP or expert parallelism) is not accepted either.
    if (validate(at).empty() && !adds_fields_beyond_framework(s, at)) accepted.push_back(stage);
  }
  return accepted;
}

bool adapters_available(Framework f) { return f != Framework::torchtitan && f != Framework::megatron; }

bool adapters_would_help(const TrainingSetup& s) {
  return (s.method == Method::full || s.method == Method::freeze) && adapters_available(s.framework);
}

bool selective_checkpointing_available(Framework f) {
  return f == Framework::megatron || f == Framework::torchtitan || f == Framework::torchtune;
}

std::vector<std::string> fields_beyond_framework(const TrainingSetup& s) {
  // What each can run at all in a current release, wider than what the search proposes:
  //  - Megatron-LM: context parallelism of either kind (--cp-comm-type p2p, a2a, allgather, a2a+p2p).
  //  - DeepSpeed (and a trainer that drives it): AutoTP training at ZeRO 0-2 (deepspeedai/DeepSpeed
  //    v0.16.4, "tensor_parallel": {"autotp_size"}); Ulysses sequence parallelism; no pipeline
  //    parallelism for a transformers model (runtime/pipe/engine.py runs a PipelineModule).
  //  - FSDP engines (torchtitan, torchtune, plain FSDP, accelerate): DTensor tensor and ring context
  //    parallelism (accelerate's ParallelismConfig over FSDP2); no ZeRO-1 (FSDP's strategies shard
  //    parameters and gradients together, or gradients alone, or nothing).
  //  - Pipeline parallelism: Megatron-LM, torchtitan and plain PyTorch (torch.distributed.pipelining);
  //    not torchtune's recipes, DeepSpeed around a transformers model or the Hugging Face Trainer.
  //  - Adapters: not torchtitan or Megatron-LM; torchtune's LoRA recipes assert tensor_parallel_dim 1.
  //  - Optimizer offload: a sharding engine's (below), torchtune's or Megatron-LM's.
  const ParallelSettings& p = s.parallel;
  const bool deepspeed = s.framework == Framework::deepspeed ||
                         (s.framework == Framework::hf_trainer && sharding_engine(s) == ShardingEngine::deepspeed);
  const bool fsdp_engine = !deepspeed && s.framework != Framework::megatron;
  std::vector<std::string> fields;
  if (uses_adapters(s.method) && !adapters_available(s.framework)) fields.push_back("method");
  const bool tensor = deepspeed ? p.zero_stage <= 2 : !(s.framework == Framework::torchtune && uses_adapters(s.method));
  if (p.tensor_parallel_size > 1 && !tensor) fields.push_back("parallel.tensor_parallel_size");
  const bool pipeline = s.framework == Framework::megatron || s.framework == Framework::torchtitan || s.framework == Framework::fsdp;
  if (p.pipeline_parallel_size > 1 && !pipeline) fields.push_back("parallel.pipeline_parallel_size");
  if (p.context_parallel_size > 1 && s.framework != Framework::megatron &&
      p.context_parallel_kind != (deepspeed ? ContextParallelKind::ulysses : ContextParallelKind::ring))
    fields.push_back("parallel.context_parallel_kind");
  if (fsdp_engine && p.world_size > 1 && p.zero_stage == 1) fields.push_back("parallel.zero_stage");
  // Optimizer offload belongs to a sharding engine: DeepSpeed's ZeRO-Offload (its ZeRO optimizer,
  // which runtime/engine.py builds only at stage 1 or above), FSDP's CPUOffload, Megatron-LM's CPU
  // optimizer (--optimizer-cpu-offload needs --use-precision-aware-optimizer, which OptimizerConfig
  // allows only with the distributed optimizer, its ZeRO-1). Without one (plain DDP, DeepSpeed or
  // Megatron-LM at stage 0) nothing moves the states; torchtune's single-device
  // CPUOffloadOptimizer (torchao) is its own.
  if (p.offload_optimizer != OffloadTarget::none && p.zero_stage == 0 && s.framework != Framework::torchtune)
    fields.push_back("parallel.offload_optimizer");
  // DeepSpeed's MoE layer, which expert parallelism needs, refuses ZeRO-3 (runtime/engine.py:
  // "MoE not supported with Stage 3").
  if (deepspeed && p.zero_stage == 3 && p.expert_parallel_size > 1) fields.push_back("parallel.expert_parallel_size");
  return fields;
}

bool adds_fields_beyond_framework(const TrainingSetup& before, const TrainingSetup& after) {
  const std::vector<std::string> was = fields_beyond_framework(before), is = fields_beyond_framework(after);
  return std::any_of(is.begin(), is.end(), [&](const std::string& f) { return std::find(was.begin(), was.end(), f) == was.end(); });
}

}  // namespace trainmem
