#include "trainmem/checkpoint.hpp"

#include <algorithm>
#include <cmath>

#include "trainmem/framework_defaults.hpp"
#include "trainmem/model_states.hpp"

namespace trainmem {

namespace {
// Per-rank trainer metadata: scheduler, RNG and dataloader state (HF Trainer rng_state_<rank>.pth
// ~15 KB, scheduler.pt and trainer_state.json a few KB), rounded up to 16 KiB.
constexpr double kMetadataBytesPerRank = 16.0 * 1024;
}  // namespace

CheckpointBudget checkpoint_budget(const TrainingSetup& s, const ResolvedPrecision& p, const ParameterCounts& counts,
                                   const BytesPerParam& b) {
  CheckpointBudget c;
  const double total = static_cast<double>(counts.total);
  const double trainable = static_cast<double>(counts.trainable);
  const double adapter = static_cast<double>(counts.adapter);
  const bool adapters = uses_adapters(s.method);
  // Base-model parameters that do not train (all of them for LoRA/QLoRA, the frozen layers for freeze).
  const double frozen = std::max(0.0, total - (trainable - adapter));
  const double frozen_bytes_per_param =
      s.method == Method::qlora ? qlora_weight_bytes_per_param(s.qlora, p.param_dtype) : dtype_bytes(p.param_dtype);
  const double ranks = static_cast<double>(s.parallel.world_size);

  // accelerate's FSDP upcast (precision.hpp) leaves fp32 weights to save.
  const Dtype weights_dtype = s.checkpoint.weights_dtype.value_or(p.trainable_upcast_to_fp32 ? Dtype::fp32 : p.param_dtype);
  c.inference_weights_bytes = total * dtype_bytes(weights_dtype);
  // Adapters on a bare parameter count have no known size: no adapter figure (docs/api.md, `method`).
  if (adapters && s.model.architecture) c.adapter_bytes = adapter * dtype_bytes(adapter_dtype(s));

  // The resumable state holds the adapters and their optimizer states: unknown on a count.
  if (!adapters || s.model.architecture) {
    const bool keep_frozen = !(adapters && s.checkpoint.exclude_frozen_parameters);
    // torchtitan keeps its parameters in fp32 under FSDP2's MixedPrecisionPolicy (param_dtype
    // bf16 is the dtype of the gathered compute copies, torchtitan/models/llama3/infra/parallelize.py
    // apply_fsdp): the fp32 parameter is the master copy, and its distributed checkpoint holds it
    // with the Adam moments, 4 + 8 bytes per parameter, no 16-bit copy beside it.
    const bool master_is_weight = s.framework == Framework::torchtitan && p.master_weights && p.param_dtype != Dtype::fp32;
    const double master = master_is_weight ? dtype_bytes(Dtype::fp32) : 0.0;
    const double weights = trainable * (master_is_weight ? master : b.param) + (keep_frozen ? frozen * frozen_bytes_per_param : 0.0);
    const double optimizer = trainable * (b.optimizer - master);
    double state = weights + optimizer + kMetadataBytesPerRank * ranks;
    const double shard = s.parallel.zero_stage >= 1 ? sharding_degree(s.parallel) : 1.0;
    const double weight_shard = s.parallel.zero_stage >= 3 ? shard : 1.0;
    double largest = weights / weight_shard + optimizer / shard + kMetadataBytesPerRank;
    // A trainer that fronts DeepSpeed saves the Hugging Face weights (save_model: the model, or the
    // adapter, in its dtype; gathered to rank 0 under ZeRO-3 with stage3_gather_16bit_weights_on_model_save)
    // beside DeepSpeed's own state (global_step*/: 16-bit model states, sharded at ZeRO-3, and fp32
    // optimizer shards per rank): transformers trainer.py _save_checkpoint.
    if (s.framework == Framework::hf_trainer && sharding_engine(s) == ShardingEngine::deepspeed) {
      const double hf_weights = adapters ? c.adapter_bytes.value_or(0.0) : c.inference_weights_bytes;
      state += hf_weights;
      largest += hf_weights;
    }
    c.training_state_bytes = state;
    c.largest_rank_bytes = largest;
  }

  switch (s.checkpoint.save) {
    case CheckpointSave::full_state: c.bytes_per_checkpoint = c.training_state_bytes; break;
    case CheckpointSave::weights: c.bytes_per_checkpoint = c.inference_weights_bytes; break;
    case CheckpointSave::adapter: c.bytes_per_checkpoint = c.adapter_bytes; break;
  }
  if (c.bytes_per_checkpoint) c.keep_last_bytes = *c.bytes_per_checkpoint * static_cast<double>(s.checkpoint.keep_last);
  if (s.checkpoint.free_disk_bytes && c.bytes_per_checkpoint && *c.bytes_per_checkpoint > 0)
    c.checkpoints_that_fit =
        static_cast<std::int64_t>(std::floor(static_cast<double>(*s.checkpoint.free_disk_bytes) / *c.bytes_per_checkpoint));
  return c;
}

}  // namespace trainmem
