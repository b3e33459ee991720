#include "trainmem/explain.hpp"

#include "trainmem/multimodal_checks.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "trainmem/cublas_workspaces.hpp"
#include "trainmem/framework_defaults.hpp"
#include "trainmem/framework_parallelism.hpp"
#include "trainmem/message_codes.hpp"
#include "trainmem/number_text.hpp"
#include "trainmem/precision.hpp"
#include "trainmem/rlhf.hpp"

namespace trainmem {

namespace {

std::string number(double v);

// 1234567 -> "1,234,567"; beyond what an integer holds, scientific notation.
std::string grouped(double v) {
  if (!(std::fabs(v) < 1e18)) return number(v);
  const long long n = std::llround(v);
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (n < 0 ? "-" : "") + out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string bytes(double v) { return grouped(v) + " B"; }

// "1 layer", "32 layers": a count with its noun, singular for exactly one.
std::string counted(double n, const char* one, const char* many) { return number(n) + " " + (n == 1 ? one : many); }

const char* method_name(Method m) {
  switch (m) {
    case Method::full: return "full";
    case Method::lora: return "LoRA";
    case Method::qlora: return "QLoRA";
    case Method::freeze: return "freeze";
  }
  return "";
}

const char* checkpointing_name(Checkpointing c) {
  switch (c) {
    case Checkpointing::none: return "no recompute";
    case Checkpointing::selective: return "selective recompute";
    case Checkpointing::full: return "full recompute";
  }
  return "";
}

// The part of a model state DeepSpeed ZeRO-3 adds for its largest module (model_states.hpp), or
// nothing where there is none.
std::string gathered_module_clause(double bytes_of_it, const std::string& what) {
  if (bytes_of_it <= 0) return "";
  return "; includes " + what + " (" + bytes(bytes_of_it) +
         ", a model state as DeepSpeed's estimator counts it: stage3.py estimate_zero3_model_states_mem_needs)";
}

}  // namespace

std::vector<Warning> estimate_warnings(const TrainingSetup& s, const Estimate& e) {
  std::vector<Warning> warnings;
  std::vector<Warning>& w = warnings;
  const Architecture* arch = s.model.architecture ? &*s.model.architecture : nullptr;
  const bool paged = is_paged(e.precision.optimizer);
  hardware_warnings(s, e, w);
  if (!s.ignored_fields.empty()) {
    // params.fields: each field's paths with its reason, as the message has them; params.paths:
    // the paths alone, which any language can show.
    std::string list, paths;
    for (const IgnoredField& f : s.ignored_fields) {
      std::string named;
      for (const std::string& path : f.paths) named += (named.empty() ? "" : ", ") + path;
      list += (list.empty() ? "" : "; ") + named + " (" + f.reason + ")";
      paths += (paths.empty() ? "" : ", ") + named;
    }
    w.push_back({warning_code::ignored_fields, "given but without effect for this setup: " + list, {{"fields", list}, {"paths", paths}}});
  }
  if (arch && uses_adapters(s.method) && s.lora.target_modules.empty() &&
      !s.lora.target_pattern && !arch->peft_default_targets) {
    std::string list;
    for (const auto& t : arch->default_lora_targets) list += (list.empty() ? "" : ", ") + t;
    w.push_back({warning_code::lora_targets_assumed,
                 "PEFT has no default target_modules for model_type \"" + arch->model_type +
                     "\" and refuses a LoraConfig without them; this estimate assumed [" + list + "]: give lora.target_modules",
                 {{"model_type", arch->model_type}, {"targets", list}}});
  }
  if (arch && !arch->layout_assumptions.empty()) {
    std::string text;
    for (const auto& a : arch->layout_assumptions) text += (text.empty() ? "" : "; ") + a;
    w.push_back({warning_code::generic_layout, text,
                 {{"model_type", arch->model_type}, {"assumptions", text}, {"parameters", static_cast<double>(arch->total_params())}}});
  }
  if (arch && !arch->learned_positions && arch->max_position_embeddings > 0 && s.batch.seq_length &&
      *s.batch.seq_length > arch->max_position_embeddings)
    w.push_back({warning_code::beyond_context,
                 "seq_length " + std::to_string(*s.batch.seq_length) + " exceeds max_position_embeddings " +
                     std::to_string(arch->max_position_embeddings) + ": the model needs context extension (e.g. RoPE scaling)",
                 {{"seq_length", static_cast<double>(*s.batch.seq_length)},
                  {"max_position_embeddings", static_cast<double>(arch->max_position_embeddings)}}});
  if (arch && arch->encoder_decoder && (s.attention == AttentionImplementation::flash || s.attention == AttentionImplementation::flash3))
    w.push_back({warning_code::flash_unsupported,
                 "Hugging Face's T5 adds a relative position bias to the scores, which FlashAttention "
                 "kernels do not take: expect eager or sdpa attention (choose attention \"eager\")",
                 {{"model_type", arch->model_type}}});
  // An adapter larger than the model it adapts trains more parameters than full fine-tuning would:
  // LoRA's point is a low rank (Hu et al. 2021, "LoRA", Section 7.2: ranks 1 to 64 suffice).
  if (uses_adapters(s.method) && e.parameters.adapter > e.parameters.total)
    w.push_back({warning_code::lora_rank_exceeds_model,
                 "lora.r = " + std::to_string(s.lora.r) + " gives " + grouped(static_cast<double>(e.parameters.adapter)) +
                     " adapter parameters, more than the model's " + grouped(static_cast<double>(e.parameters.total)) +
                     ": a rank this high trains more than full fine-tuning (typical ranks are 8 to 256)",
                 {{"r", static_cast<double>(s.lora.r)},
                  {"adapter_parameters", static_cast<double>(e.parameters.adapter)},
                  {"parameters", static_cast<double>(e.parameters.total)}}});
  multimodal_warnings(s, e, w);
  if (!arch)
    w.push_back({warning_code::model_states_only,
                          "only a parameter count was given: activations, buffers and the peak need an architecture "
                          "(model.preset or model.hf_config); the figures are the model-state lower bound"});
  // LoRA and QLoRA on a bare count (the policy's, or a PPO critic's): the frozen base alone, every
  // weight at the quantized width under QLoRA (a lower bound: embeddings, norms and head stay 16-bit).
  const bool critic_adapters_unsized = s.rlhf && s.rlhf->critic_model && uses_adapters(s.rlhf->critic_method) &&
                                       !s.rlhf->critic_model->architecture;
  if ((!arch && uses_adapters(s.method)) || critic_adapters_unsized)
    w.push_back({warning_code::adapters_need_architecture,
                 "LoRA on a parameter count: the adapters, their gradients and optimizer states are not counted (their size "
                 "needs the architecture); under QLoRA every weight is priced at the quantized width, although embeddings, "
                 "norms and the output head stay 16-bit"});
  // A checkpoint stored quantized (GPTQ, AWQ, FP8, MXFP4, ...): training its weights needs them
  // de-quantized, and LoRA over it keeps the base as stored; the estimate prices the weights in the
  // training dtype. QLoRA prices a quantized base already.
  if (arch && !arch->checkpoint_quantization.empty() && s.method != Method::qlora)
    w.push_back({warning_code::quantized_checkpoint,
                 "the checkpoint is stored quantized (quantization_config.quant_method \"" + arch->checkpoint_quantization +
                     "\"); its weights are priced in the training dtype" +
                     (uses_adapters(s.method) ? " though LoRA keeps the quantized base as stored (method \"qlora\" prices a 4-bit or int8 base)"
                                              : ", as a de-quantized copy"),
                 {{"quant_method", arch->checkpoint_quantization},
                  {"method", uses_adapters(s.method) ? "lora" : s.method == Method::freeze ? "freeze" : "full"}}});
  // A layout beyond what the framework's own code offers is priced as stated, and said to be so.
  for (const std::string& field : fields_beyond_framework(s))
    w.push_back({warning_code::layout_beyond_framework,
                 field + ": the framework's own code does not offer this for the setup (" +
                     "engine/include/trainmem/framework_parallelism.hpp); it is priced as stated",
                 {{"field", field}}});
  if (s.parallel.zero_stage >= 1 && arch)
    w.push_back({warning_code::zero_does_not_shard_activations,
                          "ZeRO/FSDP shard parameters, gradients and optimizer states, not activations: activations "
                          "shrink only with micro-batch, sequence length, checkpointing or sequence/context parallelism"});
  if (s.batch.gradient_accumulation_steps > 1)
    w.push_back({warning_code::global_batch_does_not_set_memory,
                 "gradient accumulation raises the global batch (" + std::to_string(e.global_batch_size) +
                     ") without raising activations: memory follows the micro-batch",
                 {{"global_batch_size", static_cast<double>(e.global_batch_size)}}});
  if (paged)
    w.push_back({warning_code::paged_optimizer,
                          "paged optimizer states live in CUDA unified memory, outside the allocator's counts: they page "
                          "out to host RAM under pressure instead of failing, so they are not in peak_allocated"});
  if (e.precision.optimizer == Optimizer::adamw_8bit || e.precision.optimizer == Optimizer::paged_adamw_8bit)
    w.push_back({warning_code::eight_bit_small_tensors,
                 "bitsandbytes keeps 32-bit state for tensors under 4096 elements (min_8bit_size)",
                 {{"min_8bit_size", 4096.0}}});
  if (const auto weights = vllm_weight_bytes(s); weights && vllm_share_below_weights(s, e))
    w.push_back({warning_code::vllm_share_below_weights,
                 "rlhf.rollout.vllm_gpu_memory_utilization " + number_text(s.rlhf->vllm_gpu_memory_utilization) + " gives vLLM " +
                     bytes(*e.rollout_vllm_bytes) + ", less than the policy's " + bytes(*weights) + " of weights: vLLM cannot load the model (raise the share, or run vLLM as a server)",
                 {{"share", s.rlhf->vllm_gpu_memory_utilization}, {"bytes", *e.rollout_vllm_bytes}, {"weights", *weights}}});
  // TRL GRPOConfig.__post_init__ (trl/trainer/grpo_config.py, huggingface/trl f2cd577) refuses a
  // generation batch (per_device_train_batch_size x processes x steps_per_generation, by default
  // gradient_accumulation_steps) that splits a prompt's group of num_generations completions.
  if (s.rlhf && s.rlhf->algorithm == RlhfAlgorithm::grpo) {
    const std::int64_t n = s.rlhf->num_generations;
    const std::int64_t batch = generated_sequences(s) * s.parallel.world_size;
    if (n > 0 && batch % n != 0)
      w.push_back({warning_code::grpo_partial_prompt_groups,
                   "TRL refuses this GRPO run: its generation batch (TRL's default steps_per_generation, the accumulation steps), "
                   "micro_batch_size x world_size x gradient_accumulation_steps = " +
                       std::to_string(s.batch.micro_batch_size) + " x " + std::to_string(s.parallel.world_size) + " x " +
                       std::to_string(s.batch.gradient_accumulation_steps) + " = " + std::to_string(batch) +
                       " completions, must hold whole groups of rlhf.rollout.num_generations = " + std::to_string(n),
                   {{"num_generations", static_cast<double>(n)}, {"generation_batch", static_cast<double>(batch)},
                    {"micro_batch_size", static_cast<double>(s.batch.micro_batch_size)}, {"world_size", static_cast<double>(s.parallel.world_size)},
                    {"gradient_accumulation_steps", static_cast<double>(s.batch.gradient_accumulation_steps)}}});
  }
  if (s.precision.fp8_compute)
    w.push_back({warning_code::fp8_not_a_saving,
                          "FP8 training keeps weights, gradients and optimizer states in higher precision and adds FP8 "
                          "copies: it does not shrink memory (TransformerEngine#1429)"});
  if (s.precision.param_dtype == Dtype::fp8 && !s.precision.grad_dtype && e.precision.grad_dtype == Dtype::bf16)
    w.push_back({warning_code::fp8_weights_bf16_gradients,
                 "precision.param_dtype fp8 prices FP8-only weights (Transformer Engine fp8_model_init) with bf16 "
                 "gradients: FP8 training computes gradients in 16 or 32 bits (set precision.grad_dtype to change "
                 "them); for FP8 matmuls over 16-bit weights set precision.fp8_compute instead"});
  // Sharded over the data-parallel (and context-parallel) ranks: one rank writes one whole shard.
  if (arch && s.parallel.zero_stage >= 1 && s.parallel.data_parallel_size * s.parallel.context_parallel_size > 1)
    w.push_back({warning_code::sharded_checkpoint_resume,
                          "ZeRO/FSDP checkpoints are sharded per rank: resuming on a different GPU count needs a "
                          "conversion (e.g. DeepSpeed zero_to_fp32, torch.distributed.checkpoint resharding)"});
  return warnings;
}

std::vector<Explanation> explain(const TrainingSetup& s, const Estimate& e) {
  std::vector<Explanation> out;
  const PerGpu& g = e.per_gpu;
  const int zero = s.parallel.zero_stage;
  const std::string d = number(e.sharding_degree);
  const std::string shard_p = zero >= 3 ? " / D " + d : "";
  const std::string shard_g = zero >= 2 ? " / D " + d : "";
  const std::string shard_o = zero >= 1 ? " / D " + d : "";
  const char* zero_source =
      "ZeRO paper (Rajbhandari et al. 2020, §5): M_DDP = N (b_p + b_g + b_o); ZeRO-1/2/3 divide b_o, b_g, b_p by D; "
      "docs/memory-model.md, \"Model states\"";

  // An RLHF job holds several models (per_gpu_models): each formula is the policy's, and the other
  // models' shares are added to reach the job's total.
  const auto of_job = [&](double ModelBudget::*field, double total) {
    if (e.per_gpu_models.empty()) return bytes(total);
    double policy = 0;
    std::string others;
    for (const ModelBudget& m : e.per_gpu_models) {
      if (m.role == "policy") policy = m.*field;
      else if (m.*field > 0) others += " + " + m.role + " " + bytes(m.*field);
    }
    return bytes(policy) + (others.empty() ? std::string() : " (policy)" + others + " = " + bytes(total));
  };
  out.push_back({"parameters",
                 grouped(e.gpu_parameters) + " params on this GPU (" + method_name(s.method) + ")" + shard_p + " -> " + of_job(&ModelBudget::parameters, g.parameters) +
                     "; trainable at b_p = " + number(e.bytes_per_param.param) + " B/param" +
                     (s.method != Method::qlora ? ""
                      : qlora_through_hqq(s) && e.gpu_quantized_weights == 0 ? std::string(", no weight HQQ converts (it takes torch.nn.Linear modules only)")
                      : qlora_through_hqq(s) ? ", frozen linear weights at " + std::to_string(s.qlora.nbits) + " bits (HQQ) + a scale and a zero per " +
                                                   std::to_string(s.qlora.group_size) + " weights"
                      : s.qlora.quant_type == Dtype::int8 ? ", frozen linear weights at 8 bits (LLM.int8)"
                                                          : ", frozen linear weights at 4 bits + quantization constants") +
                     (s.parallel.zero_stage == 3 && s.parallel.offload_param != OffloadTarget::none ? " (offloaded: the shard is on the host)" : "") +
                     gathered_module_clause(e.gathered_module_bytes, e.per_gpu_models.empty() ? "the largest module, gathered for compute"
                                                                                             : "the policy's largest module, gathered for compute"),
                 zero_source});
  std::string gradient_rule;
  if (e.bytes_per_param.optimizer_gradient > 0)
    gradient_rule += "; includes DeepSpeed's fp32 gradient of the optimizer partition (" +
                     number(e.bytes_per_param.optimizer_gradient) + " B/param" + shard_o + ", optimizer step only" +
                     // model_states.cpp: ZeRO-3 steps one sub-group (sub_group_size, 1e9 elements) at a time.
                     (s.parallel.zero_stage == 3 ? ", one sub-group of at most 1e9 elements at a time under ZeRO-3" : "") + ")";
  if (s.parallel.zero_stage >= 2 && s.batch.gradient_accumulation_steps > 1 && gradient_sync(s) == GradientSync::last_micro_batch) {
    // model_states.cpp: FSDP accumulates in its reduce dtype (the compute dtype) and frees them with
    // the last micro-batch's reduce-scatter.
    const ShardingEngine engine = sharding_engine(s);
    const bool fsdp = engine == ShardingEngine::fsdp || engine == ShardingEngine::fsdp2;
    const double reduce_bytes = dtype_bytes(fsdp ? e.precision.compute_dtype : e.precision.grad_dtype);
    gradient_rule += "; no_sync accumulation keeps them unsharded until the last micro-batch, all " +
                     grouped(e.gpu_trainable_parameters) + " x " + number(reduce_bytes) + " B" +
                     (fsdp ? " (the reduce dtype; freed before the optimizer step)" : "");
  }
  if (fsdp1_whole_unit_gradients(s) && s.method != Method::full)
    gradient_rule += "; FSDP1 flat parameters: whole layers that hold a trainable parameter";
  gradient_rule += gathered_module_clause(e.gathered_module_gradient_bytes,
                                          std::string(e.per_gpu_models.empty() ? "the" : "the policy's") +
                                              " largest module's gradient before ZeRO-3 copies it into its reduce bucket");
  out.push_back({"gradients",
                 grouped(e.gpu_trainable_parameters) + " trainable params x b_g " + number(e.bytes_per_param.grad) + " B" + shard_g +
                     gradient_rule + " = " + of_job(&ModelBudget::gradients, g.gradients) +
                     // model_states.cpp: ZeRO-Offload keeps the gradient partition on the host with the optimizer.
                     (s.parallel.offload_optimizer != OffloadTarget::none && sharding_engine(s) != ShardingEngine::megatron
                          ? " (offloaded with the optimizer: the partition is on the host)"
                          : ""),
                 "ZeRO paper (Rajbhandari et al. 2020, §5); DeepSpeed stage_1_and_2.py step(); accelerate accumulate/no_sync; "
                 "docs/memory-model.md, \"Model states\""});
  // The trainable weights' precision: the adapters' own where they have one (fp32 adapters keep no master).
  const ResolvedPrecision base_precision = resolve_precision(s);
  const ResolvedPrecision precision = adapter_precision(s, base_precision).value_or(base_precision);
  out.push_back({"optimizer_states",
                 grouped(e.gpu_trainable_parameters) + " trainable params x b_o " + number(e.bytes_per_param.optimizer) +
                     (precision.master_weights && !precision.trainable_upcast_to_fp32 ? " B (moments + fp32 master)" : " B (moments)") + shard_o + " = " + of_job(&ModelBudget::optimizer_states, g.optimizer_states) +
                     (s.parallel.offload_optimizer != OffloadTarget::none ? " (offloaded: not on the GPU)" : ""),
                 "ZeRO paper (Rajbhandari et al. 2020, §3.1): 16 bytes/param for mixed-precision Adam; docs/memory-model.md, "
                 "\"Bytes per parameter\""});
  if (g.activations) {
    // An RLHF job's activations are its policy's, on the sequences the algorithm trains it on
    // (DPO: chosen and rejected; PPO, GRPO: prompt + completion).
    const BatchSettings trained = s.rlhf ? rlhf_policy_setup(s).batch : s.batch;
    out.push_back({"activations",
                   counted(e.layers_on_gpu, "layer", "layers") + " x " + bytes(g.activations_per_layer.value_or(0)) + " saved per layer (" +
                       checkpointing_name(s.activation_checkpointing) + ", micro-batch " + std::to_string(trained.micro_batch_size) +
                       ", seq " + std::to_string(trained.seq_length.value_or(0)) + ") x " + counted(e.micro_batches_in_flight, "micro-batch", "micro-batches") +
                       " in flight + head inputs = " + bytes(*g.activations) +
                       "; ZeRO/FSDP do not shard activations",
                   "Korthikanti et al. 2022, Table 2: s b h (34 + 5 a s / h) per GPT layer; per-tensor for this architecture "
                   "(trainmem activations lists them)"});
  }
  if (g.temporary_buffers) {
    std::string parts = "logits and loss (and logits the training loop holds, loss.held_logits), ZeRO-3/FSDP gathered layers, "
                        "gradient buckets, optimizer-step copies";
    if (const double workspaces = cublas_workspace_bytes(s); workspaces > 0)
      parts += ", cuBLAS workspaces (" + bytes(workspaces) +
               (s.framework == Framework::megatron ? ": PyTorch's two and Transformer Engine's)" : ": PyTorch's two)");
    if (base_precision.autocast_over_fp32_weights) parts += ", autocast's " + std::string(dtype_name(base_precision.compute_dtype)) + " copies of the linear weights";
    if (s.method == Method::qlora)
      parts += qlora_through_hqq(s) ? (e.gpu_quantized_weights > 0 ? ", one HQQ weight dequantizing (three copies in the loaded dtype)" : "")
               : s.qlora.quant_type == Dtype::int8 ? ", one dequantized int8 weight (backward)" : ", one dequantized 4-bit weight";
    if (e.rollout_vllm_bytes) parts += ", colocated vLLM's pool (rollout_vllm_bytes) where the phase holds it";
    out.push_back({"temporary_buffers", bytes(*g.temporary_buffers) + " alive at the " + g.peak_phase + " peak: " + parts,
                   "docs/memory-model.md, \"Buffers\" and \"Activations\" (torch FSDP notes, DeepSpeed zero/config.py, "
                   "torch/optim/adamw.py, transformers ForCausalLMLoss, torch autocast_mode.cpp cached_cast, "
                   "ATen CublasHandlePool.cpp)"});
  }
  if (g.fragmentation && g.peak_allocated) {
    // With colocated vLLM its pool, one block it sizes itself, is left out of the share (rlhf.cpp).
    const std::string base = e.rollout_vllm_bytes ? "(peak_allocated - colocated vLLM's pool where the peak holds it)" : "peak_allocated";
    out.push_back({"fragmentation",
                   "caching allocator: rounding " + bytes(g.allocator_rounding.value_or(0)) + ", new segments for requests no cached block fits (" +
                       (s.batch.padding == Padding::longest ? "the longest batch's tensors after shorter batches', " : "") + "optimizer-step temporaries) " +
                       bytes(g.allocator_cache.value_or(0)) + ", at least " + base + " x " + number(s.fragmentation_fraction) +
                       " = " + bytes(g.allocator_uncertainty.value_or(0)) + " -> reserved minus allocated " + bytes(*g.fragmentation),
                   "PyTorch c10/cuda/CUDACachingAllocator.cpp (512 B rounding, 2/20 MiB segments, split above 1 MiB, "
                   "best-fit reuse of cached blocks); PyTorch docs/source/notes/cuda.rst, \"expandable_segments\" (batches of changing size); docs/memory-model.md, \"Reserved memory\""});
  }
  if (g.cuda_context) {
    out.push_back({"cuda_context", bytes(*g.cuda_context) + " per process (catalog figure for the GPU, or 512 MiB)",
                   "pytorch/pytorch#107667 (300-600 MiB with lazy loading)"});
  }
  if (g.userbuffers) {
    out.push_back({"userbuffers",
                   bytes(*g.userbuffers) + " of Transformer Engine userbuffers for --tp-comm-overlap: 12 buffers of seq_length x " +
                       "micro_batch_size / context_parallel_size x hidden_size (8 all-gather buffers in " +
                       (s.precision.fp8_compute ? "1 byte (FP8)" : "2 bytes (bf16)") +
                       ", 4 reduce-scatter buffers in 2 bytes) and the communicator's flags, outside the caching allocator",
                   "Megatron-LM megatron/training/initialize.py _initialize_tp_communicators; TransformerEngine "
                   "transformer_engine/pytorch/module/base.py initialize_ub (v2.7-v2.9); docs/memory-model.md, \"Userbuffers\""});
  }
  return out;
}

}  // namespace trainmem
