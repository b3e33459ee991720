// Model states per GPU: parameters, gradients and optimizer states (the lower bound of a training
// step's memory). docs/memory-model.md, "Model states", derives each rule.
//
// ZeRO paper (Rajbhandari et al. 2020, §5 and Figure 1), with b_p, b_g, b_o bytes per parameter:
//   DDP     N (b_p + b_g + b_o)
//   ZeRO-1  N (b_p + b_g + b_o / D)
//   ZeRO-2  N (b_p + (b_g + b_o) / D)          (= FSDP SHARD_GRAD_OP)
//   ZeRO-3  N (b_p + b_g + b_o) / D             (= FSDP FULL_SHARD)
// D is the sharding degree: the data-parallel size times the context-parallel size (Megatron's
// distributed optimizer and FSDP2 both shard over dp x cp), or sharding_group_size under
// HYBRID_SHARD. Routed experts shard over D / EP (expert data parallel). Frozen parameters have
// no gradients or optimizer states; ZeRO-3/FSDP still shard them. Offloaded states leave the GPU.
// Framework rules on top:
//  - DeepSpeed ZeRO 1-3 add an fp32 gradient for the optimizer partition, 4N/D (stage_1_and_2.py
//    step()): ZeRO-1 2N + 2N + 16N/D, ZeRO-2 2N + 18N/D with bf16 AdamW. It exists in the
//    optimizer step only (step_only_gradients).
//  - FSDP1 (use_orig_params=True) keeps one flat parameter per wrapped layer: a layer holding any
//    trainable parameter (LoRA adapters beside frozen weights) has gradients for all of it.
//  - Gradient accumulation under no_sync (gradient_sync = last_micro_batch) keeps full, unsharded
//    gradients in the reduce dtype until the last micro-batch, at ZeRO-2/3 and FSDP too; FSDP
//    frees them with that micro-batch's reduce-scatter, before the optimizer step.
//  - Megatron's CPU optimizer offload keeps the fp32 main-grad buffer on the GPU.
//  - DeepSpeed ZeRO-3 counts the largest module, gathered, and its gradient as model states
//    (ModelStateBytes::gathered_module_parameters).
// All values in bytes, for the most loaded GPU.
#pragma once

#include "trainmem/parameter_layout.hpp"
#include "trainmem/precision.hpp"

#include <optional>
#include <vector>

namespace trainmem {

struct ModelStateBytes {
  double parameters = 0;
  double gradients = 0;
  double optimizer_states = 0;
  double step_only_gradients = 0;  // part of `gradients` alive in the optimizer step only
  // Part of `gradients` alive in forward and backward only: under FSDP, no_sync's unsharded
  // gradients beyond the sharded ones, which the last micro-batch's reduce-scatter consumes and
  // frees before the optimizer step (torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py
  // FSDPParamGroup.post_backward: unsharded_accumulated_grad = None; FSDP1 frees the unsharded
  // flat gradient after its reduce-scatter).
  double accumulation_only_gradients = 0;
  // DeepSpeed ZeRO-3's working set, part of `parameters` and `gradients` as DeepSpeed's own
  // estimator counts it (deepspeed/runtime/zero/stage3.py @v0.13.5,
  // estimate_zero3_model_states_mem_needs: largest_layer_memory = 4 x largest_layer_params, on
  // the GPU whatever is offloaded): the largest module gathered in the parameter dtype
  // (Architecture::largest_layer_module, or the embedding or head), wherever ZeRO-3 gathers (more
  // than one rank, or the parameters offloaded), alive in forward and backward; and the gradient
  // autograd gives it in that dtype before ZeRO-3 copies it into the reduce bucket, alive in
  // backward only (estimate.cpp prices each in its phases).
  double gathered_module_parameters = 0;
  double gathered_module_gradient = 0;
  double total() const { return parameters + gradients + optimizer_states; }
};

struct ModelStates {
  ModelStateBytes gpu;       // resident on the most loaded GPU
  ModelStateBytes offloaded;  // the same GPU's share moved to CPU or NVMe
  RankParameters params;      // parameters that GPU holds before ZeRO sharding
};

// Bytes per element of frozen base weights: QLoRA linear weights are 4-bit plus quantization
// constants (absmax per 64 weights, fp32; with double quantization 8-bit absmax plus one fp32
// constant per 256 blocks: QLoRA paper, Dettmers et al. 2023, §3 "Double Quantization"); under
// HQQ, nbits packed plus a scale and a zero per group in `loaded`, the dtype the model is loaded
// in (transformers passes it as HQQLinear's compute_dtype).
double qlora_weight_bytes_per_param(const QloraSettings& q, Dtype loaded);
// The packed weights' part of it, bytes per weight.
double quantized_storage_bytes_per_weight(const QloraSettings& q);
// The quantization constants' part of it (0 for int8), bytes per weight.
double qlora_constant_bytes_per_param(const QloraSettings& q, Dtype loaded);
// Gradient elements per frozen nn.Linear weight in an FSDP1 flat parameter: a flat parameter's
// gradient has its numel, and under QLoRA a 4-bit weight enters it packed, two weights a byte, in
// the float quant_storage the other parameters share (bitsandbytes nn/modules.py Params4bit and
// functional.py quantize_4bit, v0.43: ceil(n / 2) bytes viewed as quant_storage), so
// 0.5 B / frozen_bytes elements per weight; 1 otherwise.
double flat_gradient_elements_per_frozen_linear_weight(const TrainingSetup& s, Dtype frozen);

// The precision LoRA/QLoRA adapters train in where they are held in a dtype of their own
// (lora.adapter_dtype given, or PEFT's fp32 upcast): that dtype for weights and gradients, and
// with fp32 adapters fp32 optimizer states and no master copy; nullopt where they follow the
// precision block like any trainable weight, or the method has none.
std::optional<ResolvedPrecision> adapter_precision(const TrainingSetup& s, const ResolvedPrecision& precision);

// Bytes per element of the adapters at adapter_precision; nullopt where it is.
std::optional<BytesPerParam> adapter_bytes_per_param(const TrainingSetup& s, const ResolvedPrecision& precision);

// The data-parallel sharding degree D for dense parameters (see above).
double sharding_degree(const ParallelSettings& p);

// Model states of each pipeline stage's most loaded GPU (index = stage).
std::vector<ModelStates> model_states(const TrainingSetup& setup, const ResolvedPrecision& precision);

}  // namespace trainmem
