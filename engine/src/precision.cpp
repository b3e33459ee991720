#include "trainmem/precision.hpp"

#include "trainmem/framework_defaults.hpp"

namespace trainmem {

namespace {
// bitsandbytes 8-bit optimizers: 1-byte state per element, one fp32 absmax per 256-element
// block (bitsandbytes/optim/optimizer.py, Optimizer8bit with block_wise=True, blocksize 256).
constexpr double kEightBitStateBytes = 1.0;
constexpr double kEightBitBlockSize = 256.0;
constexpr double kEightBitAbsmaxBytes = 4.0;
// Tensors with fewer elements than this keep 32-bit state (bitsandbytes min_8bit_size = 4096).
constexpr std::int64_t kMin8BitSize = 4096;

bool is_eight_bit(Optimizer o) {
  return o == Optimizer::adamw_8bit || o == Optimizer::paged_adamw_8bit;
}

// Elements of Adafactor's second-moment state for a model: rows + cols per matrix, full size for
// vectors (Shazeer & Stern 2018, §3; transformers' Adafactor, factored for ndim >= 2).
double adafactor_state_elements(const Architecture& arch) {
  double elements = 0;
  const double h = static_cast<double>(arch.hidden_size);
  // Embedding and head matrices: vocab rows + hidden cols.
  if (arch.embedding_params > 0) elements += static_cast<double>(arch.vocab_size) + h;
  if (arch.lm_head_params > 0) elements += static_cast<double>(arch.vocab_size) + h;
  elements += static_cast<double>(arch.position_embedding_params > 0 ? arch.position_embedding_params / arch.hidden_size + arch.hidden_size : 0);
  elements += static_cast<double>(arch.embedding_norm_params + arch.final_norm_params + arch.head_other_params);
  for (const auto& g : arch.layers) {
    double per_layer = static_cast<double>(g.other_params);
    for (const auto& l : g.linears) {
      per_layer += static_cast<double>(l.copies) *
                   static_cast<double>(l.in_features + l.out_features + (l.bias ? l.out_features : 0));
    }
    for (const auto& n : g.norms) per_layer += static_cast<double>(n.params());
    elements += per_layer * static_cast<double>(g.count);
  }
  return elements;
}

// Fraction of a model's parameters in tensors below bitsandbytes' min_8bit_size.
double small_tensor_fraction(const Architecture& arch) {
  double small = 0;
  for (const auto& g : arch.layers) {
    double per_layer = 0;
    for (const auto& n : g.norms)
      if (n.size < kMin8BitSize) per_layer += static_cast<double>(n.params());
    for (const auto& l : g.linears) {
      if (l.bias && l.out_features < kMin8BitSize) per_layer += static_cast<double>(l.out_features * l.copies);
      if (l.weight_params() < kMin8BitSize) per_layer += static_cast<double>(l.weight_params() * l.copies);
    }
    small += per_layer * static_cast<double>(g.count);
  }
  if (arch.hidden_size < kMin8BitSize)
    small += static_cast<double>(arch.final_norm_params + arch.embedding_norm_params);
  const double total = static_cast<double>(arch.total_params());
  return total > 0 ? small / total : 0.0;
}
}  // namespace

bool peft_upcasts_adapters(const TrainingSetup& s) {
  if (!s.unstated.adapter_dtype || !trains_transformers_model(s.framework)) return false;
  const Dtype param = resolve_precision(s).param_dtype;
  return param == Dtype::bf16 || param == Dtype::fp16;
}

Dtype adapter_dtype(const TrainingSetup& s) {
  if (!s.unstated.adapter_dtype) return s.lora.adapter_dtype;
  return peft_upcasts_adapters(s) ? Dtype::fp32 : resolve_precision(s).param_dtype;
}

ResolvedPrecision resolve_precision(const TrainingSetup& s) {
  const Precision& given = s.precision;
  const Framework framework = s.framework;
  const ShardingEngine engine = sharding_engine(s);
  ResolvedPrecision p;
  p.optimizer = given.optimizer;
  p.param_dtype = given.param_dtype.value_or(Dtype::bf16);
  p.compute_dtype = given.compute_dtype.value_or(p.param_dtype == Dtype::fp8 ? Dtype::bf16 : p.param_dtype);
  // torchtune trains in pure bf16: no fp32 master copy, optimizer states in the parameter dtype
  // (torchtune recipes, e.g. recipes/full_finetune_single_device.py, dtype: bf16).
  const bool pure_low_precision = framework == Framework::torchtune;
  p.master_weights = given.master_weights.value_or(!pure_low_precision);
  if (p.param_dtype == Dtype::fp32) p.master_weights = false;  // the weights are the master copy
  // Megatron keeps fp32 main gradients (dist_optimizer.md: 18 bytes/param with AdamW). FP8
  // weights never mean FP8 gradients: Transformer Engine's FP8-only weights (fp8_model_init,
  // NVIDIA/TransformerEngine transformer_engine/pytorch/fp8.py: the optimizer's master weights hold
  // the high-precision copy) get their weight gradient from a GEMM that writes the activation dtype
  // (transformer_engine/pytorch/module/linear.py _Linear.backward, out_dtype=ctx.activation_dtype;
  // fp32 main_grad with fuse_wgrad_accumulation); torchao's float8 training (pytorch/ao
  // torchao/float8/README.md, Float8Linear) keeps weights and gradients in high precision and casts
  // to float8 inside the matmuls only. bf16 gradients, with warning fp8_weights_bf16_gradients.
  const Dtype gradient_default = p.param_dtype == Dtype::fp8 ? Dtype::bf16 : p.param_dtype;
  p.grad_dtype = given.grad_dtype.value_or(engine == ShardingEngine::megatron ? Dtype::fp32 : gradient_default);
  // DeepSpeed over 16-bit gradients with an fp32 master: the fp32 gradient of the optimizer's
  // partition (ZeRO 1-3), or of every parameter without ZeRO (runtime/fp16/fused_optimizer.py
  // step(): the flat 16-bit gradients .to(fp32)).
  p.fp32_gradient_partition = engine == ShardingEngine::deepspeed && p.master_weights && dtype_bytes(p.grad_dtype) < kFp32Bytes;
  // bitsandbytes' 32-bit optimizers keep fp32 states whatever the parameters' dtype, so a
  // PagedAdamW under torchtune holds 8 bytes/param, not the parameter dtype's 4.
  const bool states_in_param_dtype = pure_low_precision && !bitsandbytes_32bit_states(p.optimizer);
  p.optimizer_state_dtype =
      given.optimizer_state_dtype.value_or(states_in_param_dtype ? p.param_dtype : Dtype::fp32);
  const bool fsdp_casts = (engine == ShardingEngine::fsdp || engine == ShardingEngine::fsdp2) && s.parallel.zero_stage >= 1;
  // accelerate's FSDP upcast (accelerate_fsdp_upcasts, ResolvedPrecision::trainable_upcast_to_fp32).
  // Mixed precision is on when 16-bit compute runs over weights with a master copy; a master_weights
  // given false is pure 16-bit training (accelerate's mixed_precision "no"), which keeps the loaded
  // dtype, and so does a grad_dtype given in 16 bits (accelerate before v0.30). Priced at full sharding, where the fp32
  // shard is all that persists (SHARD_GRAD_OP's unsharded 16-bit copy through backward stays priced
  // as b_p beside the master shard), and for full fine-tuning: with adapters or frozen layers FSDP1's
  // flat parameters may mix frozen and trainable weights, and accelerate upcasts whole flat
  // parameters that require grad. (Under FSDP2, accelerate v1.6 to v1.12 cast the whole model to
  // fp32, frozen base included; v1.13 upcasts only what requires grad, huggingface/accelerate#3848:
  // the rule follows v1.13.)
  const bool accelerate_loop = framework == Framework::hf_trainer || framework == Framework::fsdp;
  const bool sixteen_bit_gradients = given.grad_dtype && dtype_bytes(*given.grad_dtype) == 2;
  const FsdpUpcastFacts facts{accelerate_loop, fsdp_casts, s.method == Method::full, dtype_bytes(p.param_dtype) == 2,
                              p.master_weights && dtype_bytes(p.compute_dtype) == 2 && !sixteen_bit_gradients};
  if (accelerate_fsdp_upcasts(facts) && s.parallel.zero_stage == 3) {
    p.trainable_upcast_to_fp32 = true;
    p.grad_dtype = Dtype::fp32;
  }
  p.autocast_over_fp32_weights = p.param_dtype == Dtype::fp32 && dtype_bytes(p.compute_dtype) < kFp32Bytes &&
                                 s.parallel.zero_stage < 3 && !fsdp_casts;
  return p;
}

int optimizer_moment_count(Optimizer o) {
  switch (o) {
    case Optimizer::adamw:
    case Optimizer::adam:
    case Optimizer::adamw_8bit:
    case Optimizer::paged_adamw:
    case Optimizer::paged_adamw_8bit: return 2;
    case Optimizer::lion:
    case Optimizer::sgd_momentum: return 1;
    case Optimizer::sgd: return 0;
    case Optimizer::adafactor: return 1;  // factored second moment, see below
  }
  return 0;
}

bool bitsandbytes_32bit_states(Optimizer o) { return o == Optimizer::paged_adamw || o == Optimizer::lion; }

double optimizer_moment_bytes_per_param(const ResolvedPrecision& p, const Architecture* arch) {
  const double state_bytes = dtype_bytes(p.optimizer_state_dtype);
  if (p.optimizer == Optimizer::adafactor) {
    if (arch == nullptr || arch->total_params() == 0) return 0.0;  // factored: negligible per param
    return adafactor_state_elements(*arch) * state_bytes / static_cast<double>(arch->total_params());
  }
  const int moments = optimizer_moment_count(p.optimizer);
  if (is_eight_bit(p.optimizer)) {
    const double eight_bit = moments * (kEightBitStateBytes + kEightBitAbsmaxBytes / kEightBitBlockSize);
    const double small = arch ? small_tensor_fraction(*arch) : 0.0;
    return (1.0 - small) * eight_bit + small * moments * kFp32Bytes;
  }
  return moments * state_bytes;
}

BytesPerParam trainable_bytes_per_param(const ResolvedPrecision& p, const Architecture* arch) {
  BytesPerParam b;
  b.param = p.trainable_upcast_to_fp32 ? kFp32Bytes : dtype_bytes(p.param_dtype);
  b.grad = dtype_bytes(p.grad_dtype);
  // Upcast trainable weights are their own fp32 master copy.
  b.optimizer = optimizer_moment_bytes_per_param(p, arch) + (p.master_weights && !p.trainable_upcast_to_fp32 ? kFp32Bytes : 0.0);
  b.optimizer_gradient = p.fp32_gradient_partition ? kFp32Bytes : 0.0;
  return b;
}

}  // namespace trainmem
