#include "trainmem/transient_buffers.hpp"

#include <algorithm>

#include "trainmem/activations.hpp"
#include "trainmem/communication.hpp"

namespace trainmem {

namespace {

// Context parallelism's communication buffers, for the attention layer in flight (the widest one):
//  - ring (Transformer Engine AttnFuncWithCPAndKVP2P, the p2p ring of Megatron-LM's CP; torchtitan's
//    ring attention): the key/value block being sent and the one being received, b x s/cp tokens of
//    kv_heads x (head_dim + v_head_dim) each; backward also passes the key/value gradient blocks,
//    accumulated in fp32.
//  - ulysses (DeepSpeed deepspeed/sequence/layer.py DistributedAttention, _SeqAllToAll): each
//    all-to-all's output next to its input, for q, k and v ([b, s/cp, heads] to [b, s, heads/cp]);
//    backward the same for their gradients.
// Elements x bytes per GPU, split by tensor parallelism (heads).
struct CpBuffers {
  double forward = 0, backward = 0;
};
CpBuffers context_parallel_buffers(const TrainingSetup& s, const Architecture& a, double A) {
  CpBuffers b;
  const double cp = static_cast<double>(s.parallel.context_parallel_size);
  if (cp <= 1) return b;
  const double tp = static_cast<double>(s.parallel.tensor_parallel_size);
  const double tokens = static_cast<double>(s.batch.micro_batch_size) * static_cast<double>(s.batch.seq_length.value_or(4096)) / cp;
  for (const auto& g : a.layers) {
    const AttentionShape& at = g.attention;
    const double kv = static_cast<double>(at.num_key_value_heads) * static_cast<double>(at.head_dim + at.v_head_dim);
    const double q = static_cast<double>(at.num_attention_heads) * static_cast<double>(at.head_dim);
    if (s.parallel.context_parallel_kind == ContextParallelKind::ring) {
      b.forward = std::max(b.forward, 2 * tokens * kv * A / tp);
      b.backward = std::max(b.backward, 2 * tokens * kv * A / tp + 2 * tokens * kv * 4.0 / tp);
    } else {
      b.forward = std::max(b.forward, tokens * (q + kv) * A / tp);
      b.backward = std::max(b.backward, tokens * (q + kv) * A / tp);
    }
  }
  return b;
}

constexpr double kHfPrefetchShare = 0.9;  // of hidden_size^2, the HF Trainer's "auto" prefetch
// Full-size weights alive while HQQ's PyTorch backend dequantizes one (mobiusml/hqq
// hqq/core/quantize.py @e0b1d00 Quantizer.dequantize: W_r = unpack(W_q); ((W_r - zero) * scale)).
constexpr double kHqqDequantizeCopies = 3;

}  // namespace

DeepSpeedBuckets deepspeed_buckets(const TrainingSetup& s) {
  DeepSpeedBuckets b;
  if (s.framework != Framework::hf_trainer || !s.model.architecture) return b;
  const double h = static_cast<double>(s.model.architecture->hidden_size);
  b.reduce = h * h;
  b.prefetch = kHfPrefetchShare * h * h;
  return b;
}

namespace {

// The largest single parameter tensor on this GPU's TP shard (elements): what a for-loop optimizer
// works on at a time.
double largest_tensor(const TrainingSetup& s, double rank_trainable) {
  if (!s.model.architecture) return rank_trainable / 32.0;
  const Architecture& a = *s.model.architecture;
  const double tp = static_cast<double>(s.parallel.tensor_parallel_size);
  double largest = static_cast<double>(a.largest_embedding_or_head_params()) / tp;
  for (const auto& g : a.layers)
    for (const auto& l : g.linears)
      largest = std::max(largest, static_cast<double>(l.weight_params()) / (l.tp_sharded ? tp : 1.0));
  return std::min(largest, rank_trainable);
}

// The linear parameters (weights and biases) of the largest layer on this GPU's TP shard (elements).
double largest_layer_linear_params(const Architecture& a, double tp) {
  double largest = 0;
  for (const auto& g : a.layers) {
    double linear = 0;
    for (const auto& l : g.linears) linear += static_cast<double>(l.params()) / (l.tp_sharded ? tp : 1.0);
    largest = std::max(largest, linear);
  }
  return largest;
}

// Bytes per parameter of what FSDP and ZeRO-3 gather: the compute dtype, except QLoRA's frozen linear
// weights, gathered as their 4-bit storage with its quantization constants: torchao's NF4Tensor
// hands FSDP2 its quantized data and scalers (torchao/dtypes/nf4tensor.py @0598012,
// fsdp_pre_all_gather), and bitsandbytes packs 4-bit weights into a float quant_storage that FSDP
// shards and gathers as it is (bitsandbytes docs/source/fsdp_qlora.md; PEFT runs DeepSpeed ZeRO-3
// QLoRA the same way, docs/source/accelerate/deepspeed.md).
struct GatherBytes {
  double A, quantized;  // per parameter: the compute dtype, and frozen linear weights
  double of(double linear_weights, double others) const { return linear_weights * quantized + others * A; }
};

// Temporaries of one optimizer step over `elements` trainable parameters in its partition.
double optimizer_step_temporaries(const TrainingSetup& s, const ResolvedPrecision& p, double elements, double rank_trainable) {
  if (!adam_family(p.optimizer)) return 0.0;  // bitsandbytes and paged optimizers are fused kernels
  const double state = dtype_bytes(p.optimizer_state_dtype);
  switch (optimizer_implementation(s)) {
    case OptimizerImplementation::foreach: return elements * state;
    case OptimizerImplementation::for_loop: return std::min(elements, largest_tensor(s, rank_trainable)) * state;
    case OptimizerImplementation::fused: return 0.0;
  }
  return 0.0;
}
}  // namespace

TransientBuffers transient_buffers(const TrainingSetup& s, const ResolvedPrecision& p, const ModelStates& states,
                                   const FrameworkBehaviour& f, Dtype compute) {
  TransientBuffers b;
  const double A = dtype_bytes(compute);
  const double grad_bytes = dtype_bytes(p.grad_dtype);
  // Under accelerate's fp32 upcast (precision.hpp) FSDP computes and reduce-scatters the unsharded
  // gradients in its MixedPrecision reduce_dtype, the compute dtype (accelerate
  // utils/dataclasses.py FullyShardedDataParallelPlugin.set_mixed_precision: reduce_dtype = dtype).
  const double unsharded_grad_bytes = p.trainable_upcast_to_fp32 ? A : grad_bytes;
  const int zero = s.parallel.zero_stage;
  const double dp = sharding_degree(s.parallel);
  const double rank_params = states.params.total();  // this GPU's parameters before ZeRO sharding
  const double rank_trainable = states.params.trainable();
  const double tp = static_cast<double>(s.parallel.tensor_parallel_size);
  const ShardingEngine engine = sharding_engine(s);
  const bool deepspeed = engine == ShardingEngine::deepspeed;
  const bool param_offload = s.parallel.offload_param != OffloadTarget::none;

  // The unit gathered at a time: the largest layer on this GPU (its routed experts those of this
  // GPU's expert-parallel rank: torchtitan shards them over the data-parallel ranks within one
  // expert-parallel group, DeepSpeed-MoE over the expert-data-parallel group), or the embedding or
  // head on its TP shard.
  const RankParameters& r = states.params;
  double embedding_unit = 0;
  double unit = 0;
  if (s.model.architecture) {
    embedding_unit = static_cast<double>(s.model.architecture->largest_embedding_or_head_params()) / tp;
    unit = std::max(r.largest_layer, embedding_unit);
  } else {
    unit = rank_params / 32.0;  // parameter count only: assume ~32 equal layers
  }
  unit = std::min(unit, rank_params);
  // The same in bytes, with QLoRA's frozen linear weights at their 4-bit storage. bitsandbytes'
  // quantization constants stay whole on every rank (model_states.cpp) and are never gathered;
  // torchao's NF4Tensor gathers its scalers with the data.
  GatherBytes bytes{A, A};
  if (s.method == Method::qlora)
    bytes.quantized = qlora_weight_bytes_per_param(s.qlora, p.param_dtype) - (qlora_through_bitsandbytes(s) ? qlora_constant_bytes_per_param(s.qlora, p.param_dtype) : 0.0);
  const double rank_bytes = bytes.of(states.params.frozen_linear_weights, rank_params - states.params.frozen_linear_weights);
  const double layer_bytes = bytes.of(r.largest_layer_frozen_linear_weights, r.largest_layer - r.largest_layer_frozen_linear_weights);
  const double unit_bytes = s.model.architecture ? std::min(std::max(layer_bytes, embedding_unit * A), rank_bytes) : unit * A;

  // One unit's unsharded gradient, elements: with adapters its trainable parameters (FSDP2 shards
  // per parameter and frozen ones get no gradient; PEFT wraps LoRA modules as units of their own
  // under FSDP1 with use_orig_params false), under FSDP1's flat parameters (use_orig_params true)
  // the whole layer holding them; a trainable module outside the layers (PEFT modules_to_save) is
  // a unit of its own.
  double gradient_unit = std::min(unit, rank_trainable);
  if (uses_adapters(s.method)) {
    const double outside_layers = rank_trainable - r.adapter;
    const double layer = fsdp1_whole_unit_gradients(s)
                             ? r.largest_unit_with_gradients - r.largest_unit_frozen_linear_weights *
                                                                   (1.0 - flat_gradient_elements_per_frozen_linear_weight(s, p.param_dtype))
                             : r.largest_layer_trainable;
    gradient_unit = std::max(layer, outside_layers);
  }

  if (zero == 3 && (dp > 1 || param_offload)) {
    if (deepspeed) {
      // Bucket sizes count elements of the stored tensors (QLoRA's packed 4-bit storage included).
      const DeepSpeedBuckets buckets = deepspeed_buckets(s);
      // The largest module among them is a model state as DeepSpeed counts it (model_states.hpp).
      const double live = std::max(0.0, std::max(std::min(s.parallel.zero3_max_live_parameters * A, rank_bytes), unit_bytes) -
                                            states.gpu.gathered_module_parameters);
      const double prefetch = std::min(buckets.prefetch * A, rank_bytes);
      b.forward = live + prefetch;
      b.backward = live + prefetch;
      // ZeRO-3 allocates its reduce bucket when the optimizer is built, under contiguous_gradients
      // (DeepSpeed's default), and keeps it: reduce_bucket_size elements however few parameters
      // train (stage3.py _setup_for_real_optimizer: bucket.buffer = torch.empty(
      // self.reduce_bucket_size, ...), v0.13.5 and edaa722).
      b.persistent = buckets.reduce * grad_bytes;
    } else {
      // Backward holds two units gathered and two units' unsharded gradients (the one computed and
      // the one reduce-scattering).
      b.forward = s.parallel.reshard_after_forward ? 2 * unit_bytes : rank_bytes;
      b.backward = 2 * unit_bytes + 2 * gradient_unit * unsharded_grad_bytes;
    }
  } else if (zero >= 1 && dp > 1) {
    if (deepspeed) {
      const DeepSpeedBuckets buckets = deepspeed_buckets(s);
      // ZeRO-1/2 allocate reduce_bucket_size elements when backward starts, however few
      // parameters train, and a second buffer under overlap_comm (stage_1_and_2.py: backward at
      // v0.13.5, setup_buckets at edaa722: buf_0, and buf_1 "if self.overlap_comm"); they are
      // freed after the step (_release_ipg_buffers).
      b.backward = buckets.reduce * grad_bytes * (overlaps_data_parallel(s) ? 2.0 : 1.0);
      b.optimizer_step = std::min(buckets.allgather, rank_params) * A;
    } else if (zero == 2) {
      b.backward = gradient_unit * grad_bytes;  // one unit's reduce-scatter input
    }
  } else if (zero == 0 && s.parallel.world_size > 1 && f.ddp_bucket_copy) {
    b.persistent = rank_trainable * grad_bytes;
  }

  // Autocast (16-bit compute over fp32 weights, ResolvedPrecision::autocast_over_fp32_weights)
  // caches a 16-bit copy of every weight it casts until the forward's autocast region ends (pytorch
  // v2.4 aten/src/ATen/autocast_mode.cpp, cached_cast; the HF Trainer's region holds the forward and
  // the loss): the linear layers' parameters (RankParameters::linear_params) but QLoRA's 4-bit
  // weights, which bitsandbytes dequantizes itself (below). Autograd keeps the copies the linears
  // saved through backward, the loss's included, except in checkpointed layers: their forward saved
  // none, and each recompute casts its own layer's linears again (torch/utils/checkpoint.py restores
  // the autocast state), one layer at a time. The head is never recomputed.
  if (p.autocast_over_fp32_weights) {
    const double cast = states.params.linear_params - (s.method == Method::qlora ? states.params.frozen_linear_weights : 0.0);
    const double head = std::min(states.params.head_linear_params, cast);
    const bool full = s.activation_checkpointing == Checkpointing::full && s.model.architecture;
    const double recomputed = full ? checkpointed_share(s, *s.model.architecture) : 0.0;
    const double recompute_cast = recomputed > 0 ? std::min(largest_layer_linear_params(*s.model.architecture, tp), cast - head) : 0.0;
    b.saved_weight_copies = ((cast - head) * (1 - recomputed) + head) * A;
    b.forward += cast * A;
    b.backward += b.saved_weight_copies + recompute_cast * A;
  }

  // QLoRA dequantizes one 4-bit weight at a time to the compute dtype for its matmul (bitsandbytes
  // dequantize_4bit; the QLoRA paper §3): a workspace of the largest linear layer, in forward and
  // again in backward; an HQQ base as well (HQQLinear.matmul dequantizes the whole weight for the
  // forward and again for the input gradient, mobiusml/hqq hqq/core/quantize.py @e0b1d00). An
  // 8-bit base multiplies its int8 weight directly in forward
  // (int8_mixed_scaled_mm; igemmlt before v0.45) and dequantizes it for the input gradient
  // (MatMul8bitLt.backward: state.CB.to(dtype_A, copy=True)): backward only.
  if (s.method == Method::qlora && s.model.architecture) {
    const bool hqq = qlora_through_hqq(s);
    double largest = 0;
    for (const auto& g : s.model.architecture->layers)
      for (const auto& l : g.linears)
        if (quantizer_converts(l, hqq)) largest = std::max(largest, static_cast<double>(l.weight_params()) / (l.tp_sharded ? tp : 1.0));
    // HQQ's default PyTorch backend (transformers sets no other) dequantizes as
    // ((unpacked - zero) * scale): the unpacked weight, the difference and the product are alive
    // together, three weights in HQQLinear's compute_dtype, the dtype loaded (Quantizer.dequantize).
    const double dequantized = hqq ? kHqqDequantizeCopies * dtype_bytes(p.param_dtype) : A;
    if (s.qlora.quant_type != Dtype::int8) b.forward += largest * dequantized;
    b.backward += largest * dequantized;
  }

  // FP8 training (Transformer Engine) keeps, for every linear layer, an FP8 copy of the weight and
  // its transpose (Hopper's FP8 GEMMs need the column-wise copy for the data gradient), one byte per
  // element each, cached across micro-batches (transformer_engine/pytorch/module/linear.py: _Linear
  // takes weight_fp8 and weight_t_fp8; TE docs "Handling transposes"; NVIDIA/TransformerEngine#1429).
  // With FP8 parameters (param_dtype fp8: TE's fp8_model_init, which Megatron's --fp8-param-gather
  // turns on, "Keep the compute param in fp8 (do not use any other intermediate dtype)",
  // megatron/training/arguments.py) the row-wise FP8 data is the parameter itself, priced in the
  // model states: only the transpose is cached beside it.
  if (s.precision.fp8_compute) {
    // The layers' linears on this GPU (RankParameters::linear_params without the head; their biases,
    // under 0.1 % of them, counted too).
    const double layer_linears = states.params.linear_params - states.params.head_linear_params;
    const double copies_per_weight = s.precision.param_dtype == Dtype::fp8 ? 1.0 : 2.0;  // column-wise, and row-wise
    b.persistent += copies_per_weight * layer_linears / (zero == 3 ? dp : 1.0);
  }

  if (s.model.architecture) {
    const CpBuffers cp = context_parallel_buffers(s, *s.model.architecture, A);
    b.forward += cp.forward;
    b.backward += cp.backward;
  }

  // Stepping in backward frees each gradient in its post-accumulate-grad hook, which runs "after all
  // gradients for a tensor have been accumulated" (torch.Tensor.register_post_accumulate_grad_hook;
  // torchtune training/memory.py register_optim_in_bwd_hooks). A head tied to the embedding (torchtune
  // modules/tied_linear.py TiedLinear: F.linear on tok_embeddings.weight) is one parameter used
  // twice: the head's gradient, computed at the end of the loss's backward, waits for the
  // embedding's, computed last, so vocab x hidden gradient elements stay alive through every
  // layer's backward. Counted over the loss's backward too, whose peak can come before the head's
  // gradient exists: an upper bound there. One unsharded GPU only.
  if (s.precision.optimizer_in_backward && s.method == Method::full && s.model.architecture &&
      s.model.architecture->tie_word_embeddings && dp == 1 && tp == 1 && s.parallel.pipeline_parallel_size == 1)
    b.tied_head_gradient = static_cast<double>(s.model.architecture->embedding_params) * grad_bytes;

  const bool offloaded = s.parallel.offload_optimizer != OffloadTarget::none;
  if (!offloaded && !s.precision.optimizer_in_backward) {
    const double opt_shard = zero >= 1 ? dp : 1.0;
    const double partition = rank_trainable / opt_shard;
    b.optimizer_step += optimizer_step_temporaries(s, p, partition, rank_trainable);
    if (p.master_weights && grad_bytes < kFp32Bytes && optimizer_moment_count(p.optimizer) > 0 && !p.fp32_gradient_partition)
      b.optimizer_step += partition * kFp32Bytes;
  }
  return b;
}

}  // namespace trainmem
