// Checkpoint disk budget (docs/memory-model.md, "Checkpoints"): M_checkpoint ≈ N (b_p + b_o) + metadata
// for a resumable full training state; inference weights only; or a LoRA adapter only. Bytes.
//
// Sharded saves (DeepSpeed ZeRO, FSDP SHARDED_STATE_DICT / torch.distributed.checkpoint) write
// one file set per rank: optimizer states split over the sharding group, weights written whole by
// rank 0 below ZeRO-3 (DeepSpeed mp_rank_00_model_states.pt) and split at ZeRO-3 (16-bit model
// shards plus fp32 optimizer shards per rank, zero_pp_rank_*). An HF Trainer run on DeepSpeed also
// writes the Hugging Face weights (or adapter) beside DeepSpeed's state.
#pragma once

#include <optional>

#include "trainmem/parameter_layout.hpp"
#include "trainmem/precision.hpp"

namespace trainmem {

struct CheckpointBudget {
  // Null where a part is unknown: adapters on a bare parameter count have no known size.
  std::optional<double> training_state_bytes;  // the resumable state, all ranks' files together
  std::optional<double> largest_rank_bytes;    // the biggest single rank's files of that state
  double inference_weights_bytes = 0;  // weights only (safetensors), in checkpoint.weights_dtype
  std::optional<double> adapter_bytes; // LoRA/QLoRA adapter only (adapter_model.safetensors)
  std::optional<double> bytes_per_checkpoint;  // what one save writes, per checkpoint.save
  std::optional<double> keep_last_bytes;       // keep_last x bytes_per_checkpoint
  std::optional<std::int64_t> checkpoints_that_fit;  // with checkpoint.free_disk_bytes
};

CheckpointBudget checkpoint_budget(const TrainingSetup& s, const ResolvedPrecision& p, const ParameterCounts& counts,
                                   const BytesPerParam& trainable_bytes);

}  // namespace trainmem
