// Bytes per parameter for weights, gradients and optimizer states (the seed's b_p, b_g, b_o),
// resolved from the precision settings, the optimizer and the framework's defaults.
//
// Sources: the seed, "Bytes per Parameter" and "Full Fine-tuning 的模型状态" (16 bytes/param for
// bf16 + AdamW + fp32 master); ZeRO paper (Rajbhandari et al. 2020, §3.1, "16Ψ"); Megatron-LM
// docs/user-guide/features/dist_optimizer.md and DeepSpeed's estimators (fp32 gradients, 18 bytes).
#pragma once

#include "trainmem/architecture.hpp"
#include "trainmem/training_setup.hpp"

namespace trainmem {

// The precision settings with every framework default filled in.
struct ResolvedPrecision {
  Dtype param_dtype = Dtype::bf16;
  Dtype grad_dtype = Dtype::bf16;
  Dtype compute_dtype = Dtype::bf16;  // activations and matmuls
  bool master_weights = true;  // an fp32 master copy exists (only when param_dtype is not fp32)
  Dtype optimizer_state_dtype = Dtype::fp32;
  Optimizer optimizer = Optimizer::adamw;
};

ResolvedPrecision resolve_precision(const Precision& given, Framework framework);

// Per trainable parameter, in bytes.
struct BytesPerParam {
  double param = 0;      // b_p: the training copy of the weights
  double grad = 0;       // b_g
  double optimizer = 0;  // b_o: optimizer moments plus the fp32 master copy
  double total() const { return param + grad + optimizer; }
};

// Optimizer moments only (no master copy), bytes per trainable parameter.
// `arch` refines the factored (Adafactor) and 8-bit (bitsandbytes min_8bit_size) cases; without it
// every tensor is taken as a large matrix.
double optimizer_moment_bytes_per_param(const ResolvedPrecision& p, const Architecture* arch);

// b_p, b_g, b_o for a trainable parameter.
BytesPerParam trainable_bytes_per_param(const ResolvedPrecision& p, const Architecture* arch);

// Number of optimizer moments the optimizer keeps per parameter (AdamW 2, Lion/momentum 1, SGD 0).
int optimizer_moment_count(Optimizer o);

}  // namespace trainmem
