// Which parameters the most loaded GPU holds, and which of them train.
//
// Tensor parallelism splits the large matrices (Megatron column/row parallel) and the vocabulary
// (vocab-parallel embedding and head); norms and routers are replicated on every TP rank
// (cli99/llm-analysis#27, fix PR #28). Pipeline parallelism gives each stage a contiguous run of
// layers, the embeddings to the first stage and the final norm and head to the last; a tied
// embedding is held on both (Megatron-LM, shared embedding). Expert parallelism splits routed
// experts. Counts are elements (parameters), per GPU, before ZeRO/FSDP sharding.
#pragma once

#include <cstdint>
#include <vector>

#include "trainmem/training_setup.hpp"

namespace trainmem {

struct RankParameters {
  // Parameters outside routed experts (sharded by ZeRO over the data-parallel group).
  double dense_trainable = 0;
  double dense_frozen = 0;
  // Routed-expert parameters (sharded by ZeRO over the expert-data-parallel group, D / EP).
  double expert_trainable = 0;
  double expert_frozen = 0;
  // Frozen linear weights (the part QLoRA stores in 4 bits), a subset of the two frozen counts.
  double frozen_linear_weights = 0;
  // LoRA/DoRA adapter parameters on this GPU (a subset of the trainable counts).
  double adapter = 0;
  // Parameters of the layers that hold any trainable parameter, plus trainable parameters outside
  // the layers: what FSDP1's flat parameters (one per wrapped layer, use_orig_params=True) carry
  // gradients for, frozen weights included.
  double trainable_units = 0;
  double total() const { return dense_trainable + dense_frozen + expert_trainable + expert_frozen; }
  double trainable() const { return dense_trainable + expert_trainable; }
};

// LoRA parameters a linear gets: r * (in + out) per copy (Hu et al. 2021, §4.1), plus DoRA's
// magnitude vector of out_features (Liu et al. 2024, §4.1).
std::int64_t lora_params_for(const Linear& linear, const LoraSettings& lora);
// True when PEFT would wrap this module for the given target_modules ("all-linear" wraps every
// linear except the output head, PEFT tuners_utils.py).
bool lora_targets(const Linear& linear, const std::vector<std::string>& target_modules);

// Whole-model counts: total parameters (base model) and trainable parameters for the method.
struct ParameterCounts {
  std::int64_t total = 0;      // base model parameters
  std::int64_t trainable = 0;  // what the optimizer updates (adapters for LoRA/QLoRA)
  std::int64_t adapter = 0;    // LoRA/DoRA parameters (0 for full/freeze)
};
ParameterCounts count_parameters(const TrainingSetup& setup);

// Layers of each pipeline stage per layer group: counts[stage][group]. Stage i holds the layers
// with index in [ceil(i L / p), ceil((i + 1) L / p)) (an even split, contiguous, in order).
std::vector<std::vector<std::int64_t>> stage_layer_counts(const Architecture& a, std::int64_t pipeline_parallel_size);

// Parameters held by each pipeline stage's most loaded GPU (index = stage).
std::vector<RankParameters> stage_parameters(const TrainingSetup& setup);

}  // namespace trainmem
