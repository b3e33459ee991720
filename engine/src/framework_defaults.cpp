#include "trainmem/framework_defaults.hpp"

#include <algorithm>
#include <iterator>

namespace trainmem {

bool qlora_through_bitsandbytes(const TrainingSetup& s) {
  return s.method == Method::qlora && trains_transformers_model(s.framework) && s.qlora.quant_method == QuantMethod::bitsandbytes;
}

bool qlora_through_hqq(const TrainingSetup& s) {
  return s.method == Method::qlora && s.qlora.quant_method == QuantMethod::hqq;
}

bool quantizer_converts(const Linear& l, bool hqq) { return l.nn_linear && !(hqq && l.conv1d); }

bool liger_applies(const TrainingSetup& s) {
  if (!trains_transformers_model(s.framework) || !s.model.architecture) return false;
  static const char* const kLigerModelTypes[] = {
      "deepseek_v4", "gemma", "gemma2", "gemma3_text", "gemma3", "gemma4_text", "gemma4", "glm4", "glm4v", "glm4v_moe", "gpt_oss",
      "internvl", "llama", "llama4_text", "llama4", "llava", "granite", "mllama", "mllama_text_model", "ministral", "mistral",
      "mixtral", "nemotron", "olmo2", "pixtral", "olmo3", "qwen2", "qwen3", "qwen3_moe", "qwen2_vl", "qwen2_vl_text", "qwen2_5_vl",
      "qwen2_5_vl_text", "qwen3_next", "qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text", "qwen3_vl", "qwen3_vl_text",
      "qwen3_vl_moe", "qwen3_vl_moe_text", "smollm3", "phi3", "paligemma", "falcon_h1", "smolvlm", "hunyuan_v1_dense",
      "hunyuan_v1_moe", "exaone4"};
  const std::string& type = s.model.architecture->model_type;
  return std::any_of(std::begin(kLigerModelTypes), std::end(kLigerModelTypes), [&](const char* t) { return type == t; });
}

namespace {

// The loss a framework's loop computes when the document names none (torchtune's configs:
// CEWithChunkedOutputLoss; the others the full logits), before Liger's kernels replace it.
LossImplementation framework_loss(Framework f) {
  return f == Framework::torchtune ? LossImplementation::chunked : LossImplementation::full;
}

}  // namespace

LossImplementation default_loss(const TrainingSetup& s) {
  if (!s.rlhf || !s.use_liger_kernel) return framework_behaviour(s).loss;
  TrainingSetup without = s;
  without.use_liger_kernel = false;
  return framework_behaviour(without).loss;
}

FrameworkBehaviour framework_behaviour(const TrainingSetup& s) {
  FrameworkBehaviour b;
  b.loss = framework_loss(s.framework);
  switch (s.framework) {
    case Framework::hf_trainer:
    case Framework::torchtitan:
    case Framework::torchtune:
      break;
    case Framework::fsdp:
      b.held_logits = HeldLogits::compute_dtype;
      break;
    case Framework::deepspeed:
      b.held_logits = HeldLogits::compute_dtype;
      break;
    case Framework::megatron:
      b.unfused_rms_norm = false;
      b.fused_softmax = true;
      b.unfused_gated_activation = false;
      b.python_plain_activation = false;
      b.in_place_loss = true;
      break;
  }
  // DeepSpeed reduces through its own buckets and Megatron into its contiguous main-grad buffer:
  // no DDP bucket copy.
  const bool own_buffers = engine_keeps_gradients(s);
  if (own_buffers) b.ddp_bucket_copy = false;
  b.gradients_freed_between_steps = !own_buffers && s.zero_grad_set_to_none.value_or(true);
  if (s.compile) {
    b.compiled_loss = compile_scope(s) == CompileScope::blocks_and_loss;
    b.unfused_rms_norm = false;
    b.unfused_gated_activation = false;
    b.python_plain_activation = false;
  }
  if (s.use_liger_kernel && liger_applies(s)) {
    // Liger-Kernel's defaults (linkedin/Liger-Kernel src/liger_kernel/transformers/monkey_patch.py
    // @ead96b6, apply_liger_kernel_to_llama: rms_norm, swiglu, rope and
    // fused_linear_cross_entropy True). LigerRMSNormFunction keeps its input and the fp32 rstd per
    // row (ops/rms_norm.py @43c5fe1: save_for_backward(X, W, RSTD)); LigerSiLUMulFunction keeps
    // gate and up and recomputes silu(gate) in backward (ops/swiglu.py @3baaa6b); the fused linear
    // cross-entropy never builds the full logits.
    b.unfused_rms_norm = false;
    b.unfused_gated_activation = false;
    b.in_place_gated_backward = true;
    b.loss = LossImplementation::fused;
  }
  return b;
}

bool engine_keeps_gradients(const TrainingSetup& s) {
  const ShardingEngine engine = sharding_engine(s);
  return engine == ShardingEngine::deepspeed || engine == ShardingEngine::megatron;
}

ShardingEngine sharding_engine(const TrainingSetup& s) {
  if (s.parallel.sharding_engine) return *s.parallel.sharding_engine;
  switch (s.framework) {
    case Framework::deepspeed: return ShardingEngine::deepspeed;
    case Framework::megatron: return ShardingEngine::megatron;
    case Framework::torchtune:
    case Framework::torchtitan: return ShardingEngine::fsdp2;
    case Framework::fsdp: return ShardingEngine::fsdp;
    case Framework::hf_trainer: return ShardingEngine::fsdp;
  }
  return ShardingEngine::fsdp;
}

bool shards_frozen_weights(const TrainingSetup& s) {
  const ShardingEngine engine = sharding_engine(s);
  return s.parallel.zero_stage == 3 || ((engine == ShardingEngine::fsdp || engine == ShardingEngine::fsdp2) && s.parallel.zero_stage >= 2);
}

bool fsdp1_whole_unit_gradients(const TrainingSetup& s) {
  const bool adapters = uses_adapters(s.method);
  return sharding_engine(s) == ShardingEngine::fsdp && s.parallel.zero_stage >= 2 && s.parallel.use_orig_params.value_or(true) &&
         !(s.framework == Framework::hf_trainer && adapters);
}

GradientSync gradient_sync(const TrainingSetup& s) {
  if (s.parallel.gradient_sync) return *s.parallel.gradient_sync;
  // The DeepSpeed engine, whichever trainer drives it (accelerate leaves the accumulation to it),
  // reduces every micro-batch only where ZeRO partitions the gradients (stage >= 2); below that
  // "only at gradient accumulation boundaries" (deepspeed/runtime/engine.py @v0.13.5,
  // allreduce_gradients).
  if (sharding_engine(s) == ShardingEngine::deepspeed)
    return s.parallel.zero_stage >= 2 ? GradientSync::every_micro_batch : GradientSync::last_micro_batch;
  switch (s.framework) {
    case Framework::hf_trainer:
    case Framework::fsdp:
    case Framework::megatron: return GradientSync::last_micro_batch;
    case Framework::torchtune:
    case Framework::torchtitan:
    case Framework::deepspeed: return GradientSync::every_micro_batch;
  }
  return GradientSync::every_micro_batch;
}

CompileScope compile_scope(const TrainingSetup& s) {
  if (s.compile_scope) return *s.compile_scope;
  switch (s.framework) {
    case Framework::torchtune: {
      // torchtune's own losses (chunked, and the fused linear loss) are compiled in place; a plain
      // torch.nn.CrossEntropyLoss only where the recipe keeps compile_loss's returned wrapper.
      const bool own_loss = s.loss.implementation.value_or(framework_loss(s.framework)) != LossImplementation::full;
      const bool lora_single_device = uses_adapters(s.method) && s.parallel.world_size == 1;
      return own_loss || lora_single_device ? CompileScope::blocks_and_loss : CompileScope::blocks;
    }
    default: return CompileScope::blocks_and_loss;
  }
}

OptimizerImplementation optimizer_implementation(const TrainingSetup& s) {
  if (s.precision.optimizer_implementation) return *s.precision.optimizer_implementation;
  return s.framework == Framework::hf_trainer || s.framework == Framework::fsdp ? OptimizerImplementation::foreach
                                                                                : OptimizerImplementation::fused;
}

AttentionImplementation default_attention(const TrainingSetup& s) {
  if (s.framework != Framework::hf_trainer || !s.model.architecture) return AttentionImplementation::flash;
  switch (s.model.architecture->transformers_attention) {
    case TransformersAttention::sdpa:
    case TransformersAttention::sdpa_eager_advised: return AttentionImplementation::sdpa;
    case TransformersAttention::eager_only: return AttentionImplementation::eager;
    case TransformersAttention::unknown: break;
  }
  return AttentionImplementation::flash;
}

std::int64_t make_vocab_size_divisible_by(const TrainingSetup& s) {
  if (s.make_vocab_size_divisible_by) return *s.make_vocab_size_divisible_by;
  return s.framework == Framework::megatron ? 128 : 1;
}

std::int64_t padded_vocab_size(const TrainingSetup& s, std::int64_t vocab_size) {
  // Only Megatron (or a document that names the divisor) pads; other frameworks keep the vocabulary.
  if (s.framework != Framework::megatron && !s.make_vocab_size_divisible_by) return vocab_size;
  const std::int64_t multiple = make_vocab_size_divisible_by(s) * s.parallel.tensor_parallel_size;
  if (multiple <= 1) return vocab_size;
  return (vocab_size + multiple - 1) / multiple * multiple;
}

std::int64_t expert_tensor_parallel_size(const TrainingSetup& s) {
  return s.parallel.expert_tensor_parallel_size.value_or(s.parallel.tensor_parallel_size);
}

int default_zero_stage(Framework f, std::int64_t world_size) {
  const bool fsdp_native = f == Framework::torchtune || f == Framework::torchtitan || f == Framework::fsdp;
  return fsdp_native && world_size > 1 ? 3 : 0;
}

SelectivePolicy default_selective_policy(Framework f) {
  return f == Framework::torchtitan ? SelectivePolicy::op_level : SelectivePolicy::attention_core;
}

Checkpointing default_checkpointing(Framework f, Method m) {
  if (f == Framework::torchtune) return Checkpointing::full;
  if (m == Method::qlora && f == Framework::hf_trainer) return Checkpointing::full;
  return Checkpointing::none;
}

}  // namespace trainmem
