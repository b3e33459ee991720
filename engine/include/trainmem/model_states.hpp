// Model states per GPU: parameters, gradients and optimizer states (the seed's lower bound).
//
// The seed, "单卡 DDP 估算" and "ZeRO / FSDP 切分公式":
//   DDP     N (b_p + b_g + b_o)
//   ZeRO-1  N (b_p + b_g + b_o / D)
//   ZeRO-2  N (b_p + (b_g + b_o) / D)          (= FSDP SHARD_GRAD_OP)
//   ZeRO-3  N (b_p + b_g + b_o) / D             (= FSDP FULL_SHARD)
// D is the sharding degree: the data-parallel size times the context-parallel size (Megatron's
// distributed optimizer and FSDP2 both shard over dp x cp), or sharding_group_size under
// HYBRID_SHARD. Routed experts shard over D / EP (expert data parallel). Frozen parameters have
// no gradients or optimizer states; ZeRO-3/FSDP still shard them. Offloaded states leave the GPU.
// All values in bytes, for the most loaded GPU.
#pragma once

#include "trainmem/parameter_layout.hpp"
#include "trainmem/precision.hpp"

#include <vector>

namespace trainmem {

struct ModelStateBytes {
  double parameters = 0;
  double gradients = 0;
  double optimizer_states = 0;
  double total() const { return parameters + gradients + optimizer_states; }
};

struct ModelStates {
  ModelStateBytes gpu;       // resident on the most loaded GPU
  ModelStateBytes offloaded;  // the same GPU's share moved to CPU or NVMe
  RankParameters params;      // parameters that GPU holds before ZeRO sharding
};

// Bytes per element of frozen base weights: QLoRA linear weights are 4-bit plus quantization
// constants (absmax per 64 weights, fp32; with double quantization 8-bit absmax plus one fp32
// constant per 256 blocks: QLoRA paper, Dettmers et al. 2023, §3 "Double Quantization").
double qlora_weight_bytes_per_param(const QloraSettings& q);

// The data-parallel sharding degree D for dense parameters (see above).
double sharding_degree(const ParallelSettings& p);

// Model states of each pipeline stage's most loaded GPU (index = stage).
std::vector<ModelStates> model_states(const TrainingSetup& setup, const ResolvedPrecision& precision);

}  // namespace trainmem
