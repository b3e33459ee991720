// Make it fit: when a setup does not fit (or is borderline), single changes to the document that
// lower the peak, each re-estimated with its own band and verdict, ranked by the bytes they save
// (docs/api.md, `suggestions`). A change is a JSON merge patch (RFC 7396) of the input document.
// A change is offered only where the setup's framework offers it and it is not already on: no
// ZeRO stage without data-parallel ranks to shard over, no LoRA under frameworks without adapters,
// no selective recompute where the framework has none (framework_parallelism.hpp),
// no bitsandbytes optimizer under DeepSpeed or Megatron, no vLLM setting without colocated vLLM; a
// change the engine rejects, or one that makes the setup unrunnable on its device or beyond its
// framework, is dropped.
#include <algorithm>
#include <cmath>

#include "documents.hpp"
#include "trainmem/explain.hpp"
#include "trainmem/framework_defaults.hpp"
#include "trainmem/framework_parallelism.hpp"
#include "trainmem/rlhf.hpp"
#include "trainmem/uncertainty.hpp"

namespace trainmem::json_io {

namespace {

using json = nlohmann::json;

struct Candidate {
  std::string code;  // what the change is, for the page's words: checkpointing, chunked_loss, ...
  json change;       // merge patch of the document
  json params;       // the values its words name
};

bool bitsandbytes_available(Framework f) {
  return f == Framework::hf_trainer || f == Framework::torchtune || f == Framework::fsdp;
}

std::vector<Candidate> candidates(const json& doc, const TrainingSetup& s) {
  std::vector<Candidate> out;
  const bool arch = s.model.architecture.has_value();
  const ParallelSettings& p = s.parallel;
  const ShardingEngine engine = sharding_engine(s);
  if (arch && s.activation_checkpointing != Checkpointing::full)
    out.push_back({"checkpointing", {{"activation_checkpointing", "full"}}, {{"policy", "full"}}});
  if (arch && s.activation_checkpointing == Checkpointing::none && selective_checkpointing_available(s.framework))
    out.push_back({"checkpointing", {{"activation_checkpointing", "selective"}}, {{"policy", "selective"}}});
  const LossImplementation loss = s.loss.implementation.value_or(framework_behaviour(s).loss);
  if (arch && loss == LossImplementation::full && s.framework != Framework::megatron) {
    // torchtune ships a chunked loss (CEWithChunkedOutputLoss); elsewhere a fused linear
    // cross-entropy kernel (Liger's, transformers' use_liger_kernel) never builds the logits.
    if (s.framework == Framework::torchtune)
      out.push_back({"chunked_loss", {{"loss", {{"implementation", "chunked"}}}}, json::object()});
    else
      out.push_back({"fused_loss", {{"loss", {{"implementation", "fused"}}}}, json::object()});
  }
  // Liger's kernels where they apply to this model (its RMSNorm, SwiGLU and fused loss together).
  if (arch && !s.use_liger_kernel && liger_applies(s)) out.push_back({"liger_kernel", {{"use_liger_kernel", true}}, json::object()});
  if (adam_family(s.precision.optimizer) && bitsandbytes_available(s.framework) && p.offload_optimizer == OffloadTarget::none) {
    out.push_back({"eight_bit_optimizer", {{"precision", {{"optimizer", "adamw_8bit"}}}}, {{"optimizer", "adamw_8bit"}}});
    out.push_back({"paged_optimizer", {{"precision", {{"optimizer", "paged_adamw_8bit"}}}}, {{"optimizer", "paged_adamw_8bit"}}});
  }
  if (s.framework == Framework::torchtune && !s.precision.optimizer_in_backward && s.batch.gradient_accumulation_steps == 1 &&
      s.method == Method::full)
    out.push_back({"optimizer_in_backward", {{"precision", {{"optimizer_in_backward", true}}}}, json::object()});
  // ZeRO stages shard over the data-parallel ranks: nothing to shard over on one rank. The stages
  // the framework's own configuration offers (framework_parallelism.hpp: FSDP has no ZeRO-1,
  // Megatron's distributed optimizer is its ZeRO-1) that the document's rules accept (an int8 or
  // HQQ base refuses ZeRO-3): the next one above the setup's, and the highest.
  if (p.data_parallel_size > 1) {
    std::vector<int> accepted = accepted_zero_stages(s);
    accepted.erase(accepted.begin(), std::upper_bound(accepted.begin(), accepted.end(), p.zero_stage));
    std::vector<int> stages;
    if (!accepted.empty()) stages.push_back(accepted.front());
    if (accepted.size() > 1) stages.push_back(accepted.back());
    for (int stage : stages) out.push_back({"zero_stage", {{"parallel", {{"zero_stage", stage}}}}, {{"zero_stage", stage}}});
  }
  // More GPUs shrink what is sharded; twice the ranks, with half the accumulation when that keeps
  // the global batch.
  if (p.zero_stage >= 1 && p.data_parallel_size > 1) {
    json parallel = {{"world_size", p.world_size * 2}};
    if (doc.contains("parallel") && doc["parallel"].is_object() && doc["parallel"].contains("data_parallel_size") &&
        !doc["parallel"]["data_parallel_size"].is_null())
      parallel["data_parallel_size"] = p.data_parallel_size * 2;
    json change = {{"parallel", parallel}};
    if (s.batch.gradient_accumulation_steps % 2 == 0)
      change["batch"] = {{"gradient_accumulation_steps", s.batch.gradient_accumulation_steps / 2}};
    out.push_back({"more_gpus", change, {{"world_size", p.world_size * 2}}});
  }
  if (arch && s.batch.micro_batch_size > 1) {
    const std::int64_t micro = s.batch.micro_batch_size % 2 == 0 ? s.batch.micro_batch_size / 2 : 1;
    const std::int64_t accumulation = s.batch.gradient_accumulation_steps * (s.batch.micro_batch_size / micro);
    out.push_back({"smaller_micro_batch",
                   {{"batch", {{"micro_batch_size", micro}, {"gradient_accumulation_steps", accumulation}}}},
                   {{"micro_batch_size", micro}, {"gradient_accumulation_steps", accumulation}}});
  }
  constexpr std::int64_t kShortestSuggested = 512;
  if (arch && s.batch.seq_length && *s.batch.seq_length >= 2 * kShortestSuggested)
    out.push_back({"shorter_sequence", {{"batch", {{"seq_length", *s.batch.seq_length / 2}}}}, {{"seq_length", *s.batch.seq_length / 2}}});
  if (arch && adapters_available(s.framework)) {
    if (s.method == Method::full || s.method == Method::freeze) out.push_back({"lora", {{"method", "lora"}}, json::object()});
    if (s.method != Method::qlora && bitsandbytes_available(s.framework)) out.push_back({"qlora", {{"method", "qlora"}}, json::object()});
  }
  // Optimizer offload: DeepSpeed ZeRO-Offload (stage >= 1; stage 2 on one GPU), FSDP's CPUOffload
  // (parameters, gradients and the step on the host, at full shard), Megatron's CPU optimizer.
  if (p.offload_optimizer == OffloadTarget::none) {
    if (engine == ShardingEngine::deepspeed) {
      json parallel = {{"offload_optimizer", "cpu"}};
      if (p.zero_stage == 0) parallel["zero_stage"] = 2;
      out.push_back({"offload_optimizer", {{"parallel", parallel}}, json::object()});
    } else if ((engine == ShardingEngine::fsdp || engine == ShardingEngine::fsdp2) && (p.zero_stage == 3 || p.data_parallel_size > 1)) {
      out.push_back({"offload_fsdp", {{"parallel", {{"zero_stage", 3}, {"offload_param", "cpu"}, {"offload_optimizer", "cpu"}}}},
                     json::object()});
    } else if (engine == ShardingEngine::megatron && p.zero_stage >= 1) {
      out.push_back({"offload_optimizer", {{"parallel", {{"offload_optimizer", "cpu"}}}}, json::object()});
    }
  }
  // Adapters under FSDP1 with use_orig_params=True share their layers' flat parameters, which then
  // carry gradients for the frozen weights too; with False they are units of their own (PEFT's
  // FSDP-QLoRA guide sets fsdp_use_orig_params: false; docs/memory-model.md, "FSDP1").
  if (uses_adapters(s.method) && fsdp1_whole_unit_gradients(s))
    out.push_back({"adapter_units", {{"parallel", {{"use_orig_params", false}}}}, json::object()});
  // Gradients reduced on every micro-batch where accelerate's no_sync keeps them whole through the
  // accumulation (FSDP at SHARD_GRAD_OP or FULL_SHARD under the HF Trainer or accelerate):
  // accelerate's GradientAccumulationPlugin(sync_each_batch=True) (utils/dataclasses.py, "can reduce
  // memory requirements when using gradient accumulation with distributed training").
  if ((s.framework == Framework::hf_trainer || s.framework == Framework::fsdp) &&
      (engine == ShardingEngine::fsdp || engine == ShardingEngine::fsdp2) && p.zero_stage >= 2 &&
      s.batch.gradient_accumulation_steps > 1 && gradient_sync(s) == GradientSync::last_micro_batch)
    out.push_back({"gradient_sync", {{"parallel", {{"gradient_sync", "every_micro_batch"}}}}, json::object()});
  if (arch && !s.activation_offload && s.framework == Framework::torchtune)
    out.push_back({"activation_offload", {{"activation_offload", true}}, json::object()});
  // GRPO with vLLM in the training processes (TRL vllm_mode "colocate"): release its pool while the
  // policy trains (vllm_enable_sleep_mode), give it the share its weights and generation batch
  // need, or move it to a server on GPUs of its own (vllm_mode "server": trl vllm-serve).
  if (uses_colocated_vllm(s) && s.gpu) {
    const auto rollout = [](json fields) { return json{{"rlhf", {{"rollout", std::move(fields)}}}}; };
    if (!s.rlhf->vllm_enable_sleep_mode)
      out.push_back({"vllm_sleep_mode", rollout({{"vllm_enable_sleep_mode", true}}), json::object()});
    const std::optional<double> share = vllm_share_for_generation_batch(s);
    if (share && *share < s.rlhf->vllm_gpu_memory_utilization)
      out.push_back({"vllm_memory_share", rollout({{"vllm_gpu_memory_utilization", *share}}), {{"vllm_gpu_memory_utilization", *share}}});
    out.push_back({"vllm_server", rollout({{"colocated", false}}), json::object()});
  }
  return out;
}

struct Judged {
  Estimate estimate;
  std::optional<Verdict> verdict;
};

// Whether `after` is a setup the original could not call runnable before: a reason it cannot run on
// its device that `before` lacks (a TPU runs no bitsandbytes or Liger kernel), or a field beyond
// what its framework runs that `before` lacks (ZeRO-3 beside DeepSpeed's AutoTP, LoRA beside
// torchtune's tensor parallelism).
bool newly_unrunnable(const TrainingSetup& before, const Estimate& before_estimate, const TrainingSetup& after, const Estimate& after_estimate) {
  const auto gained = [](const std::vector<std::string>& was, const std::vector<std::string>& is) {
    return std::any_of(is.begin(), is.end(), [&](const std::string& x) { return std::find(was.begin(), was.end(), x) == was.end(); });
  };
  return gained(cannot_run_codes(before, before_estimate), cannot_run_codes(after, after_estimate)) ||
         adds_fields_beyond_framework(before, after);
}

// The estimate and verdict of a document, or nothing when the engine rejects it or the change
// makes the setup one its device or framework cannot run.
std::optional<Judged> judge(const json& doc, const TrainingSetup& original, const Estimate& original_estimate) {
  Errors errors;
  const TrainingSetup s = read_setup(doc, errors);
  if (!errors.empty() || !validate(s).empty()) return std::nullopt;
  Judged j{estimate(s), std::nullopt};
  if (!j.estimate.per_gpu.peak || !std::isfinite(*j.estimate.per_gpu.peak)) return std::nullopt;
  if (newly_unrunnable(original, original_estimate, s, j.estimate)) return std::nullopt;
  j.verdict = judge_verdict(s, j.estimate, uncertainty_band(s, j.estimate));
  return j;
}

}  // namespace

json suggestions(const json& doc, const TrainingSetup& s, const Estimate& e, const json& verdict) {
  json out = json::array();
  if (verdict != "does_not_fit" && verdict != "borderline") return out;
  if (!e.per_gpu.peak) return out;
  struct Ranked {
    Candidate c;
    Judged j;
    double saved;
  };
  std::vector<Ranked> ranked;
  for (auto& c : candidates(doc, s)) {
    json changed = doc;
    changed.merge_patch(c.change);
    if (changed == doc) continue;  // already on
    auto j = judge(changed, s, e);
    if (!j) continue;  // impossible for this setup
    // The difference of the two peaks as the documents write them (whole bytes), so that the input's
    // peak less the suggestion's peak is saved_bytes exactly.
    const double saved = std::round(*e.per_gpu.peak) - std::round(*j->estimate.per_gpu.peak);
    if (saved <= 0) continue;
    ranked.push_back({std::move(c), std::move(*j), saved});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) { return a.saved > b.saved; });
  for (const auto& r : ranked)
    out.push_back({{"code", r.c.code},
                   {"change", r.c.change},
                   {"params", r.c.params},
                   {"peak", bytes_value(*r.j.estimate.per_gpu.peak)},
                   {"saved_bytes", bytes_value(r.saved)},
                   {"verdict", r.j.verdict ? json(verdict_name(*r.j.verdict)) : json(nullptr)}});
  return out;
}

}  // namespace trainmem::json_io
