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
  // Frozen nn.Linear weights (the part QLoRA stores in 4 or 8 bits; weights held as raw parameters,
  // gpt-oss's experts, are not, nor Conv1D weights under HQQ), a subset of the two frozen counts.
  double frozen_linear_weights = 0;
  // LoRA/DoRA adapter parameters on this GPU (a subset of the trainable counts; which modules get
  // them: lora_targeting.hpp).
  double adapter = 0;
  // Linear layers' weights and biases on this GPU, adapters and the LM head included (a tied head
  // counts the embedding it multiplies by): what torch.autocast casts to the compute dtype, since
  // linear and conv are on its lower-precision list and embedding and the norms' ops are not
  // (pytorch v2.4 docs/source/amp.rst, "Autocast Op Reference").
  double linear_params = 0;
  // The LM head's part of linear_params (on the last pipeline stage).
  double head_linear_params = 0;
  // Parameters of the layers that hold any trainable parameter, plus trainable parameters outside
  // the layers: what FSDP1's flat parameters (one per wrapped layer, use_orig_params=True) carry
  // gradients for, frozen weights included.
  double trainable_units = 0;
  // The frozen nn.Linear weights among trainable_units: under QLoRA FSDP flattens them as
  // bitsandbytes packs them (model_states.cpp).
  double unit_frozen_linear_weights = 0;
  // The largest single transformer layer as one FSDP unit: its trainable parameters (its adapters
  // under LoRA; the embedding's and head's adapters count as units too), and, of the layers holding
  // any trainable parameter, the largest one's parameters
  // with the frozen nn.Linear weights among them (what FSDP1's flat parameter carries gradients
  // for). The gradient of one unit is what backward holds unsharded before its reduce-scatter
  // (transient_buffers.cpp).
  double largest_layer_trainable = 0;
  double largest_unit_with_gradients = 0;
  double largest_unit_frozen_linear_weights = 0;
  // The largest single layer on this GPU, what FSDP or ZeRO-3 gathers as one unit: its parameters
  // (routed experts split over expert parallelism and the expert TP size, the rest over TP, as
  // above; its adapters included), and its frozen nn.Linear weights among them (QLoRA's storage).
  double largest_layer = 0;
  double largest_layer_frozen_linear_weights = 0;
  double total() const { return dense_trainable + dense_frozen + expert_trainable + expert_frozen; }
  double trainable() const { return dense_trainable + expert_trainable; }
};

// Whole-model counts: total parameters (base model) and trainable parameters for the method.
struct ParameterCounts {
  std::int64_t total = 0;      // base model parameters
  std::int64_t trainable = 0;  // what the optimizer updates (adapters for LoRA/QLoRA)
  std::int64_t adapter = 0;    // LoRA/DoRA parameters (0 for full/freeze)
};
ParameterCounts count_parameters(const TrainingSetup& setup);

// Layers of each pipeline stage per layer group: counts[stage][group], from the model chunks of
// pipeline_split (chunk k on stage k mod pipeline_parallel_size).
std::vector<std::vector<std::int64_t>> stage_layer_counts(const Architecture& a, const TrainingSetup& setup);

// Parameters held by each pipeline stage's most loaded GPU (index = stage).
std::vector<RankParameters> stage_parameters(const TrainingSetup& setup);

// The expert-data-parallel group that ZeRO shards routed experts over, given the dense sharding
// degree (data x context parallel, or the HYBRID_SHARD group): the ranks of one pipeline stage
// divided by EP x expert TP, i.e. dense_degree x TP / (EP x ETP) (Megatron-LM
// parallel_state.initialize_model_parallel: expert data parallel = world / (PP x EP x ETP)).
double expert_sharding_degree(const ParallelSettings& p, double dense_degree);

}  // namespace trainmem
