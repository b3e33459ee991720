// Cross-field checks of a TrainingSetup (single fields are range-checked by the document parser).
#include <algorithm>
#include <set>
#include <string>

#include "trainmem/estimate.hpp"
#include "trainmem/framework_defaults.hpp"
#include "trainmem/lora_targeting.hpp"
#include "trainmem/pipeline_split.hpp"
#include "trainmem/rlhf.hpp"
#include "trainmem/multimodal_checks.hpp"
#include "trainmem/number_text.hpp"
#include "trainmem/vision_parameters.hpp"
#include "trainmem/work_meter.hpp"

namespace trainmem {

namespace {
std::string str(std::int64_t v) { return std::to_string(v); }

void check_divides(Errors& e, std::int64_t divisor, std::int64_t value, const std::string& field,
                   const std::string& what) {
  if (divisor > 0 && value % divisor != 0)
    e.push_back({error_code::not_divisible, field, field + " = " + str(divisor) + " must divide " + what + " = " + str(value),
                 {{"divisor", static_cast<double>(divisor)}, {"of", what}, {"value", static_cast<double>(value)}}});
}
}  // namespace

// The models of an RLHF job are checked like single runs; their errors point at their block.
void validate_rlhf(const TrainingSetup& s, Errors& e) {
  const RlhfSettings& rl = *s.rlhf;
  const bool generates = rl.algorithm != RlhfAlgorithm::dpo;
  if (generates && s.model.architecture) {
    const Architecture& a = *s.model.architecture;
    if (!a.vocab_logits)
      e.push_back({error_code::inconsistent, "model", "PPO/GRPO generate completions: the policy must be a language model with a vocabulary head",
                   {{"reason", "policy_not_language_model"}}});
    const std::int64_t total = s.batch.seq_length.value_or(0) + rl.max_new_tokens;
    if (a.learned_positions && total > a.max_position_embeddings)
      e.push_back({error_code::out_of_range, "rlhf.rollout.max_new_tokens",
                   "seq_length + max_new_tokens = " + str(total) + " exceeds the policy's " + str(a.max_position_embeddings) +
                       " learned positions",
                   {{"value", str(total)}, {"limit", static_cast<double>(a.max_position_embeddings)}}});
  }
  // TRL GRPOConfig.__post_init__ (trl/trainer/grpo_config.py, huggingface/trl f2cd577): the
  // advantages compare at least 2 completions per prompt. (Its generation batch holding whole
  // prompt groups is a warning: grpo_partial_prompt_groups, explain.cpp.)
  if (rl.algorithm == RlhfAlgorithm::grpo && rl.num_generations < 2)
    e.push_back({error_code::out_of_range, "rlhf.rollout.num_generations",
                 "rlhf.rollout.num_generations = " + str(rl.num_generations) +
                     ": GRPO compares at least 2 completions per prompt (TRL GRPOConfig refuses fewer)",
                 {{"value", str(rl.num_generations)}, {"limit", 2.0}}});
  // Colocated vLLM takes a fraction of the device's memory: without a device it has no size.
  if (uses_colocated_vllm(s) && !s.gpu)
    e.push_back({error_code::missing_field, "gpu",
                 "rlhf.rollout.use_vllm colocated: vLLM takes vllm_gpu_memory_utilization of the device's memory, so a gpu is needed",
                 {{"reason", "vllm_needs_gpu"}}});
  auto check = [&](const char* role, const std::optional<ModelSpec>& model) {
    if (!model || rl.algorithm != RlhfAlgorithm::ppo) return;
    TrainingSetup sub = s;
    sub.rlhf.reset();
    sub.model = *model;
    sub.method = Method::full;
    if (generates) sub.batch.seq_length = s.batch.seq_length.value_or(0) + rl.max_new_tokens;
    for (const auto& err : validate(sub))
      e.push_back({err.code, std::string("rlhf.") + role + ".model", std::string("(") + role + " model) " + err.message, err.params});
  };
  check("reward", rl.reward_model);
  check("critic", rl.critic_model);
}

Errors validate(const TrainingSetup& s) {
  Errors e;
  if (s.rlhf) validate_rlhf(s, e);
  const ParallelSettings& p = s.parallel;
  const std::int64_t model_parallel = p.tensor_parallel_size * p.pipeline_parallel_size * p.context_parallel_size;
  if (p.world_size % model_parallel != 0) {
    e.push_back({error_code::not_divisible, "parallel.world_size",
                 "parallel.world_size = " + str(p.world_size) + " is not a multiple of tensor x pipeline x context parallel = " +
                     str(p.tensor_parallel_size) + " x " + str(p.pipeline_parallel_size) + " x " + str(p.context_parallel_size) +
                     " = " + str(model_parallel),
                 {{"world_size", static_cast<double>(p.world_size)}, {"model_parallel", static_cast<double>(model_parallel)}}});
  } else if (p.data_parallel_size * model_parallel != p.world_size) {
    e.push_back({error_code::inconsistent, "parallel.data_parallel_size",
                 "parallel.data_parallel_size = " + str(p.data_parallel_size) + " but world_size / (tp x pp x cp) = " +
                     str(p.world_size) + " / " + str(model_parallel) + " = " + str(p.world_size / model_parallel),
                 {{"reason", "data_parallel_mismatch"}, {"value", static_cast<double>(p.data_parallel_size)},
                  {"world_size", static_cast<double>(p.world_size)}, {"model_parallel", static_cast<double>(model_parallel)}}});
  }
  const std::int64_t shard_group = p.data_parallel_size * p.context_parallel_size;
  if (p.sharding_group_size) {
    if (p.zero_stage == 0)
      e.push_back({error_code::inconsistent, "parallel.sharding_group_size",
                   "parallel.sharding_group_size (HYBRID_SHARD) needs parallel.zero_stage 1, 2 or 3, got 0",
                   {{"reason", "hybrid_shard_needs_zero"}}});
    check_divides(e, *p.sharding_group_size, shard_group, "parallel.sharding_group_size",
                  "data_parallel_size x context_parallel_size");
  }
  if (p.offload_param != OffloadTarget::none && p.zero_stage != 3)
    e.push_back({error_code::inconsistent, "parallel.offload_param",
                 "parameter offload needs parallel.zero_stage 3 (ZeRO-Infinity / FSDP CPU offload), got " + str(p.zero_stage),
                 {{"reason", "offload_param_needs_zero3"}, {"zero_stage", static_cast<double>(p.zero_stage)}}});
  if (p.tp_comm_overlap && !(p.sequence_parallel && p.tensor_parallel_size > 1))
    e.push_back({error_code::inconsistent, "parallel.tp_comm_overlap",
                 "parallel.tp_comm_overlap needs tensor_parallel_size > 1 with sequence_parallel (Megatron: "
                 "\"Tensor parallel communication/GEMM overlap can happen only when sequence parallelism is enabled\")",
                 {{"reason", "tp_comm_overlap_needs_sequence_parallel"}}});
  if (p.virtual_pipeline_stages > 1 && p.pipeline_schedule != PipelineSchedule::interleaved_1f1b)
    e.push_back({error_code::inconsistent, "parallel.virtual_pipeline_stages",
                 "parallel.virtual_pipeline_stages > 1 needs pipeline_schedule \"interleaved_1f1b\"",
                 {{"reason", "virtual_stages_need_interleaved"}}});
  if (s.batch.seq_length) check_divides(e, p.context_parallel_size, *s.batch.seq_length, "parallel.context_parallel_size", "batch.seq_length");
  // Ring attention passes key/value blocks between ranks inside a fused kernel (Megatron's context
  // parallelism runs Transformer Engine's fused attention; torchtitan's runs SDPA's flash and
  // memory-efficient backends): eager attention's score matrix has no such form. Ulysses splits
  // heads and runs any attention on the whole sequence.
  if (p.context_parallel_size > 1 && p.context_parallel_kind == ContextParallelKind::ring && s.attention == AttentionImplementation::eager)
    e.push_back({error_code::inconsistent, "attention",
                 "attention \"eager\" cannot run ring context parallelism (context_parallel_size = " + str(p.context_parallel_size) +
                     "): ring attention needs a fused kernel (\"flash\", \"flash3\" or \"sdpa\"); or use context_parallel_kind \"ulysses\"",
                 {{"reason", "ring_context_parallel_needs_fused_attention"}, {"value", static_cast<double>(p.context_parallel_size)}}});
  // The device holds the CUDA context (given, or the 512 MiB default) and, beside it, what the
  // framework can allocate: a usable figure is what is left once the context is made.
  if (s.gpu) {
    const double device = static_cast<double>(s.gpu->device_total_bytes.value_or(s.gpu->memory_bytes));
    const double context = cuda_context_bytes(s);
    const std::string shown_context = str(static_cast<std::int64_t>(context)) + (s.gpu->cuda_context_bytes ? "" : ", the default");
    if (s.gpu->has_cuda_context && context >= device)
      e.push_back({error_code::inconsistent, s.gpu->cuda_context_bytes ? "gpu.cuda_context_bytes" : "gpu.memory_bytes",
                   "the CUDA context (" + shown_context + ") is not below the device's " + str(static_cast<std::int64_t>(device)) +
                       " bytes" + (s.gpu->cuda_context_bytes ? "" : ": give gpu.cuda_context_bytes"),
                   {{"reason", "context_not_below_memory"}, {"context", context}, {"limit", device}}});
    else if (s.gpu->usable_bytes && static_cast<double>(*s.gpu->usable_bytes) + context > device)
      e.push_back({error_code::inconsistent, "gpu.usable_bytes",
                   "gpu.usable_bytes = " + str(*s.gpu->usable_bytes) + " plus the CUDA context (" + shown_context +
                       ") exceeds the device's " + str(static_cast<std::int64_t>(device)) +
                       " bytes: usable_bytes is what the framework can allocate after the context (at most " +
                       str(static_cast<std::int64_t>(device - context)) + " here; or give gpu.cuda_context_bytes)",
                   {{"reason", "usable_and_context_above_memory"}, {"value", static_cast<double>(*s.gpu->usable_bytes)},
                    {"context", context}, {"limit", device}}});
  }
  // The global batch (micro-batch x data parallel x accumulation, in sequences) is an exact JSON
  // number only up to 2^53; beyond it the product would wrap, and no trainer runs such a batch.
  const double global_batch = static_cast<double>(s.batch.micro_batch_size) * static_cast<double>(p.data_parallel_size) *
                              static_cast<double>(s.batch.gradient_accumulation_steps);
  if (global_batch > kMaxExactInteger) {
    const char* field = s.batch.gradient_accumulation_steps > 1 ? "batch.gradient_accumulation_steps" : "batch.micro_batch_size";
    e.push_back({error_code::out_of_range, field,
                 std::string(field) + ": the global batch (micro_batch_size x data parallel x gradient_accumulation_steps = " +
                     str(s.batch.micro_batch_size) + " x " + str(p.data_parallel_size) + " x " +
                     str(s.batch.gradient_accumulation_steps) + ") exceeds 2^53 sequences",
                 {{"reason", "global_batch_above_2_53"}, {"limit", kMaxExactInteger}}});
  }
  // Stepping each parameter as its gradient is computed leaves no gradient to accumulate
  // (torchtune's recipes raise on optimizer_in_bwd with gradient_accumulation_steps > 1).
  if (s.precision.optimizer_in_backward && s.batch.gradient_accumulation_steps > 1)
    e.push_back({error_code::inconsistent, "precision.optimizer_in_backward",
                 "precision.optimizer_in_backward steps each parameter during backward, so there is no gradient to "
                 "accumulate: it needs batch.gradient_accumulation_steps 1, got " + str(s.batch.gradient_accumulation_steps),
                 {{"reason", "optimizer_in_backward_with_accumulation"}, {"value", static_cast<double>(s.batch.gradient_accumulation_steps)}}});

  // QLoRA runs its matmuls in 16 or 32 bits: bitsandbytes dequantizes the base to
  // bnb_4bit_compute_dtype (fp16, bf16 or fp32; LLM.int8() to fp16), HQQ and torchao's NF4 linear
  // to the model's dtype, in which the weights left unquantized and the adapters train too.
  if (s.method == Method::qlora) {
    const char* dequantized = "the quantized base is dequantized to 16 or 32 bits for every matmul (bitsandbytes' compute dtype, "
                              "HQQ's compute dtype, torchao's NF4 linear)";
    const struct {
      bool fp8;
      const char* field;
      const char* said;
      const char* why;
    } fp8_settings[] = {
        {s.precision.compute_dtype == Dtype::fp8, "precision.compute_dtype", " \"fp8\"", dequantized},
        {s.precision.fp8_compute, "precision.fp8_compute", "", dequantized},
        {s.precision.param_dtype == Dtype::fp8, "precision.param_dtype", " \"fp8\"",
         "the weights QLoRA leaves unquantized (embeddings, norms, head) and the adapters train in 16 or 32 bits"},
    };
    for (const auto& f : fp8_settings)
      if (f.fp8)
        e.push_back({error_code::inconsistent, f.field,
                     std::string(f.field) + f.said + " cannot go with method \"qlora\": " + f.why, {{"reason", "qlora_fp8"}}});
  }

  // LLM.int8() bases are bitsandbytes' (transformers' load_in_8bit); torchtune's and the other
  // frameworks' own models quantize to 4 bits only (torchtune: torchao NF4).
  if (s.method == Method::qlora && s.qlora.quant_type == Dtype::int8 && !qlora_through_bitsandbytes(s))
    e.push_back({error_code::inconsistent, "qlora.quant_type",
                 "qlora.quant_type \"int8\" is bitsandbytes' LLM.int8() base (transformers' load_in_8bit): it needs "
                 "framework hf_trainer, fsdp or deepspeed",
                 {{"reason", "int8_needs_bitsandbytes"}}});
  // FSDP flattens and ZeRO-3 partitions the frozen weights too, which an int8 base cannot join
  // (bitsandbytes' FSDP support is the 4-bit quant_storage).
  if (s.method == Method::qlora && s.qlora.quant_type == Dtype::int8 && qlora_through_bitsandbytes(s) && shards_frozen_weights(s))
    e.push_back({error_code::inconsistent, "qlora.quant_type",
                 "qlora.quant_type \"int8\" cannot be sharded: FSDP and ZeRO-3 take 4-bit bases only (bitsandbytes' "
                 "quant_storage); use zero_stage 0-2 under DeepSpeed, or DDP",
                 {{"reason", "int8_not_sharded"}}});
  // HQQ quantizes inside transformers' from_pretrained (HqqConfig), and LLaMA-Factory refuses it
  // under ZeRO-3 and FSDP ("HQQ quantization is incompatible with DeepSpeed ZeRO-3 or FSDP",
  // src/llamafactory/model/model_utils/quantization.py @13e73887): HQQLinear's packed weights and
  // meta are no parameters those engines could shard.
  if (qlora_through_hqq(s) && !trains_transformers_model(s.framework))
    e.push_back({error_code::inconsistent, "qlora.quant_method",
                 "qlora.quant_method \"hqq\" quantizes through transformers' HqqConfig: it needs framework hf_trainer, fsdp "
                 "or deepspeed (the other frameworks build their own models, which HQQ does not load)",
                 {{"reason", "hqq_needs_transformers"}}});
  else if (qlora_through_hqq(s) && shards_frozen_weights(s))
    e.push_back({error_code::inconsistent, "qlora.quant_method",
                 "qlora.quant_method \"hqq\" cannot be sharded: FSDP and ZeRO-3 cannot shard HQQ's quantized linears; use "
                 "zero_stage 0-2 under DeepSpeed, or DDP",
                 {{"reason", "hqq_not_sharded"}}});
  // HQQ groups each weight whole: Quantizer.quantize asserts that group_size divides its element
  // count (hqq/core/quantize.py @e0b1d00). The first weight it converts that the size does not divide.
  if (qlora_through_hqq(s) && s.model.architecture) {
    const Architecture& a = *s.model.architecture;
    const std::int64_t group = s.qlora.group_size;
    bool reported = false;
    auto check = [&](const std::vector<Linear>& linears) {
      for (const auto& l : linears)
        if (!reported && quantizer_converts(l, true) && l.weight_params() % group != 0) {
          check_divides(e, group, l.weight_params(), "qlora.group_size", l.name + "'s weight (in x out)");
          reported = true;
        }
    };
    for (const auto& g : a.layers) check(g.linears);
    // A vision tower's and its projector's linears are nn.Linear modules HQQ converts too.
    if (a.vision) {
      for (const auto& g : a.vision->layers) check(g.linears);
      check(a.vision->projector);
    }
  }
  if (s.checkpoint.save == CheckpointSave::adapter && s.method != Method::lora && s.method != Method::qlora)
    e.push_back({error_code::inconsistent, "checkpoint.save",
                 "checkpoint.save \"adapter\" needs method \"lora\" or \"qlora\"", {{"reason", "adapter_save_needs_lora"}}});
  if (!s.model.architecture) {
    // LoRA and QLoRA on a bare count price the frozen base alone (warning adapters_need_architecture);
    // freezing counts layers, which a bare count does not have.
    if (s.method == Method::freeze)
      e.push_back({error_code::missing_field, "model",
                   "method \"freeze\" needs the architecture (it counts layers): give model.preset or model.hf_config, not only num_parameters",
                   {{"reason", "method_needs_architecture"}}});
    if (uses_adapters(s.method) && s.checkpoint.save == CheckpointSave::adapter)
      e.push_back({error_code::missing_field, "model",
                   "checkpoint.save \"adapter\" writes the adapters, whose size needs the architecture: give model.preset or "
                   "model.hf_config, not only num_parameters",
                   {{"reason", "adapter_size_needs_architecture"}}});
    if (p.expert_parallel_size > 1)
      e.push_back({error_code::inconsistent, "parallel.expert_parallel_size",
                   "parallel.expert_parallel_size > 1 needs a mixture-of-experts architecture",
                   {{"reason", "experts_needed"}, {"value", static_cast<double>(p.expert_parallel_size)}}});
    return e;
  }

  const Architecture& a = *s.model.architecture;
  std::int64_t experts = 0;
  for (const auto& g : a.layers) {
    check_divides(e, p.tensor_parallel_size, g.attention.num_attention_heads, "parallel.tensor_parallel_size",
                  "num_attention_heads");
    check_divides(e, p.tensor_parallel_size, g.attention.num_key_value_heads, "parallel.tensor_parallel_size",
                  "num_key_value_heads");
    experts = std::max(experts, g.mlp.num_local_experts);
    if (s.framework == Framework::megatron) {
      // Megatron splits each MLP's width over its tensor-parallel ranks and asserts it divides
      // (megatron/core/tensor_parallel/layers.py, ColumnParallelLinear: output_size_per_partition =
      // divide(output_size, world_size); megatron/core/utils.py divide). Experts split over the expert
      // tensor-parallel size (TP where it is not given).
      const std::int64_t expert_tp = p.expert_tensor_parallel_size.value_or(p.tensor_parallel_size);
      if (g.mlp.intermediate_size > 0)
        check_divides(e, p.tensor_parallel_size, g.mlp.intermediate_size, "parallel.tensor_parallel_size", "intermediate_size");
      if (g.mlp.shared_intermediate_size > 0)
        check_divides(e, p.tensor_parallel_size, g.mlp.shared_intermediate_size, "parallel.tensor_parallel_size",
                      "shared_expert_intermediate_size");
      if (g.mlp.num_local_experts > 0 && g.mlp.moe_intermediate_size > 0)
        check_divides(e, expert_tp, g.mlp.moe_intermediate_size,
                      p.expert_tensor_parallel_size ? "parallel.expert_tensor_parallel_size" : "parallel.tensor_parallel_size",
                      "each expert's intermediate size");
    }
    if (!e.empty()) break;
  }
  const PipelineSplit split = pipeline_split(s, a.num_hidden_layers());
  if (!split.error_message.empty()) e.push_back({split.error_code, split.error_field, split.error_message, split.error_params});
  if (p.context_parallel_size > 1 && p.context_parallel_kind == ContextParallelKind::ulysses) {
    // DeepSpeed-Ulysses swaps the sequence split for a head split: every rank needs whole heads.
    for (const auto& g : a.layers) {
      const std::int64_t heads = g.attention.num_attention_heads / p.tensor_parallel_size;
      const std::int64_t kv = std::max<std::int64_t>(1, g.attention.num_key_value_heads / p.tensor_parallel_size);
      if (heads % p.context_parallel_size != 0 || kv % p.context_parallel_size != 0) {
        e.push_back({error_code::not_divisible, "parallel.context_parallel_kind",
                     "context_parallel_kind \"ulysses\" splits heads over context_parallel_size = " +
                         str(p.context_parallel_size) + ": it must divide the attention heads (" + str(heads) +
                         ") and key/value heads (" + str(kv) + ") on each tensor-parallel rank; use \"ring\"",
                     {{"divisor", static_cast<double>(p.context_parallel_size)},
                      {"of", heads % p.context_parallel_size != 0 ? "num_attention_heads / tensor_parallel_size" : "num_key_value_heads / tensor_parallel_size"},
                      {"value", static_cast<double>(heads % p.context_parallel_size != 0 ? heads : kv)}}});
        break;
      }
    }
  }
  if (p.expert_tensor_parallel_size) {
    if (experts == 0)
      e.push_back({error_code::inconsistent, "parallel.expert_tensor_parallel_size",
                   "parallel.expert_tensor_parallel_size needs a mixture-of-experts architecture",
                   {{"reason", "experts_needed"}, {"value", static_cast<double>(*p.expert_tensor_parallel_size)}}});
    const std::int64_t stage_ranks = shard_group * p.tensor_parallel_size;
    const std::int64_t expert_group = p.expert_parallel_size * *p.expert_tensor_parallel_size;
    if (stage_ranks % expert_group != 0)
      e.push_back({error_code::not_divisible, "parallel.expert_tensor_parallel_size",
                   "expert_parallel_size x expert_tensor_parallel_size = " + str(p.expert_parallel_size) + " x " +
                       str(*p.expert_tensor_parallel_size) + " must divide the ranks of one pipeline stage (data x "
                       "context x tensor parallel = " + str(stage_ranks) + ")",
                   {{"divisor", static_cast<double>(expert_group)}, {"of", "data_parallel_size x context_parallel_size x tensor_parallel_size"},
                    {"value", static_cast<double>(stage_ranks)}}});
  }
  if (p.expert_parallel_size > 1) {
    if (experts == 0)
      e.push_back({error_code::inconsistent, "parallel.expert_parallel_size",
                   "parallel.expert_parallel_size = " + str(p.expert_parallel_size) + " but the model has no routed experts",
                   {{"reason", "experts_needed"}, {"value", static_cast<double>(p.expert_parallel_size)}}});
    else
      check_divides(e, p.expert_parallel_size, experts, "parallel.expert_parallel_size", "num_local_experts");
    if (!p.expert_tensor_parallel_size)
      check_divides(e, p.expert_parallel_size, shard_group, "parallel.expert_parallel_size",
                    "data_parallel_size x context_parallel_size");
  }
  validate_images(s, e);
  if (a.learned_positions && s.batch.seq_length && *s.batch.seq_length > a.max_position_embeddings)
    e.push_back({error_code::out_of_range, "batch.seq_length",
                 "batch.seq_length = " + str(*s.batch.seq_length) + " exceeds the model's learned position table of " +
                     str(a.max_position_embeddings) + " positions",
                 {{"value", str(*s.batch.seq_length)}, {"limit", static_cast<double>(a.max_position_embeddings)}}});
  if (s.checkpointed_layers && *s.checkpointed_layers > a.num_hidden_layers())
    e.push_back({error_code::out_of_range, "checkpointed_layers",
                 "checkpointed_layers = " + str(*s.checkpointed_layers) + " exceeds num_hidden_layers = " + str(a.num_hidden_layers()),
                 {{"value", str(*s.checkpointed_layers)}, {"limit", static_cast<double>(a.num_hidden_layers())}}});
  // Freeze tuning with no trainable layer trains only a vision-language model's projector or
  // vision tower (LLaVA's first stage); with neither, nothing has a gradient and backward fails.
  if (s.method == Method::freeze && s.freeze_trainable_layers == 0 &&
      !(a.vision && (!s.multimodal.freeze_projector || !s.multimodal.freeze_vision_tower)))
    e.push_back({error_code::inconsistent, "freeze.trainable_layers",
                 "freeze.trainable_layers = 0 leaves nothing to train" +
                     std::string(a.vision ? " (the projector and the vision tower are frozen too)" : "") +
                     ": train at least one layer",
                 {{"reason", "nothing_trains"}}});
  if (s.method == Method::freeze && s.freeze_trainable_layers > a.num_hidden_layers())
    e.push_back({error_code::out_of_range, "freeze.trainable_layers",
                 "freeze.trainable_layers = " + str(s.freeze_trainable_layers) + " exceeds num_hidden_layers = " +
                     str(a.num_hidden_layers()),
                 {{"value", str(s.freeze_trainable_layers)}, {"limit", static_cast<double>(a.num_hidden_layers())}}});
  if (uses_adapters(s.method)) {
    const LoraTargeting lora(a, s.lora);
    e.append(lora.errors());
    if (!lora.errors().empty()) return e;  // over a limit or a bad pattern: nothing was matched
    // The model's linear module names, once; each target is one match over them, reported once.
    std::set<std::string> linear_names;
    std::vector<std::string> names;  // in the model's order
    std::string list;
    for (const auto& g : a.layers)
      for (const auto& l : g.linears)
        if (linear_names.insert(l.name).second) {
          names.push_back(l.name);
          list += (list.empty() ? "" : ", ") + l.name;
        }
    std::set<std::string> reported;
    for (const auto& t : s.lora.target_modules) {
      work_meter::add(1);
      if (!reported.insert(t).second || lora.names_a_module(t) || vision_tower_names_module(s, t)) continue;
      if (e.full()) {  // counted, not listed: no suggestion to compute
        e.push_back({error_code::unknown_value, "lora.target_modules", ""});
        continue;
      }
      const std::string near = closest_match(t, names);
      e.push_back({error_code::unknown_value, "lora.target_modules",
                   "lora.target_modules: \"" + excerpt(t) + "\" is not a linear module of this model (" + list + ")" +
                       (near.empty() ? "" : "; did you mean \"" + near + "\"?"),
                   near.empty() ? Params{{"value", excerpt(t)}, {"allowed", list}} : Params{{"value", excerpt(t)}, {"allowed", list}, {"suggestion", near}}});
    }
    for (const auto layer : s.lora.layers_to_transform)
      if (layer < 0 || layer >= a.num_hidden_layers())
        e.push_back({error_code::out_of_range, "lora.layers_to_transform",
                     "lora.layers_to_transform: layer " + str(layer) + " is outside 0 to " + str(a.num_hidden_layers() - 1),
                     {{"value", str(layer)}, {"min", 0.0}, {"max", static_cast<double>(a.num_hidden_layers() - 1)}}});
    if (e.empty() && !lora.targets_anything() && !vision_tower_targeted(s))
      e.push_back({error_code::inconsistent, "lora.target_modules",
                   "lora: no module of this model is targeted (target_modules, exclude_modules and layers_to_transform "
                   "leave nothing); PEFT refuses such a config",
                   {{"reason", "lora_targets_nothing"}}});
  }
  return e;
}

}  // namespace trainmem
