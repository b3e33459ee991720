// The estimate output's `resolved` block (docs/api.md, "Output (estimate)"): every input the
// estimate used, keyed by its document path, with the value the engine used and where that value
// came from: "input" (the document gave it), "framework default (source)" (the framework's own
// default, with the file or configuration it is read from), or "engine default" (the engine's
// choice where no framework decides). The config importer's provenance uses the same strings, with
// "read from FILE:key" for a value it read.
#include "documents.hpp"
#include "enum_names.hpp"
#include "trainmem/framework_defaults.hpp"
#include "trainmem/loss_memory.hpp"
#include "trainmem/pipeline_split.hpp"
#include "trainmem/precision.hpp"
#include "trainmem/vision_activations.hpp"

namespace trainmem::json_io {

namespace {

using json = nlohmann::json;

constexpr const char* kEngineDefault = "engine default";

std::string framework_default(const std::string& source) { return "framework default (" + source + ")"; }

// A path's value in the document when it is there and not null.
bool given(const json& doc, const std::string& path) {
  const json* v = &doc;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!v->is_object() || !v->contains(key)) return false;
    v = &(*v)[key];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return !v->is_null();
}

class Resolved {
 public:
  explicit Resolved(const json& doc) : doc_(doc) {}
  // Adds `path` with `value`: "input" when the document gave it, else `default_origin`.
  void add(const std::string& path, json value, const std::string& default_origin) {
    out_[path] = {{"value", std::move(value)}, {"origin", given(doc_, path) ? std::string("input") : default_origin}};
  }
  // Adds `path` with `value` and its origin as worked out by the caller.
  void set(const std::string& path, json value, const std::string& origin) {
    out_[path] = {{"value", std::move(value)}, {"origin", origin}};
  }
  json take() { return std::move(out_); }

 private:
  const json& doc_;
  json out_ = json::object();
};

const char* framework_label(Framework f) { return name_of(kFrameworks, f); }

std::string checkpointing_origin(const TrainingSetup& s) {
  if (s.framework == Framework::torchtune)
    return framework_default("torchtune recipe configs: enable_activation_checkpointing: True in most");
  if (s.framework == Framework::hf_trainer && s.method == Method::qlora)
    return framework_default("PEFT prepare_model_for_kbit_training(use_gradient_checkpointing=True)");
  if (s.framework == Framework::hf_trainer) return framework_default("transformers TrainingArguments.gradient_checkpointing = False");
  return kEngineDefault;
}

// transformers' from_pretrained without attn_implementation (architectures/transformers_attention.cpp).
std::string attention_origin(const TrainingSetup& s) {
  if (s.framework != Framework::hf_trainer || !s.model.architecture) return kEngineDefault;
  switch (s.model.architecture->transformers_attention) {
    case TransformersAttention::sdpa: return framework_default("transformers from_pretrained: sdpa since v4.36");
    case TransformersAttention::sdpa_eager_advised:
      return framework_default("transformers from_pretrained: sdpa since v4.36; the modeling file advises eager for training");
    case TransformersAttention::eager_only: return framework_default("transformers from_pretrained: eager, the model has no SDPA path");
    case TransformersAttention::unknown: break;
  }
  return std::string(kEngineDefault) + " (the model's own code picks its kernel)";
}

std::string loss_origin(const TrainingSetup& s) {
  if (s.use_liger_kernel && liger_applies(s) && !s.rlhf)
    return framework_default("Liger-Kernel apply_liger_kernel_to_<model_type>: fused_linear_cross_entropy=True");
  switch (s.framework) {
    case Framework::torchtune: return framework_default("torchtune configs: CEWithChunkedOutputLoss, 8 chunks (pytorch/torchtune#1390)");
    case Framework::megatron: return framework_default("Megatron vocab-parallel cross-entropy, fp32 in place");
    case Framework::hf_trainer: return framework_default("transformers loss_utils.py ForCausalLMLoss: fp32 upcast of the full logits");
    default: return kEngineDefault;
  }
}

// The loops that keep the model output referenced (framework_defaults.cpp).
std::string held_logits_origin(const TrainingSetup& s) {
  return s.framework == Framework::deepspeed ? framework_default("DeepSpeed-Chat step1_supervised_finetuning/main.py: outputs = model(**batch); model.backward(outputs.loss)")
                                             : framework_default("accelerate examples/nlp_example.py: outputs = model(**batch); accelerator.backward(outputs.loss)");
}

std::string optimizer_implementation_origin(const TrainingSetup& s) {
  switch (s.framework) {
    case Framework::hf_trainer: return framework_default("HF Trainer adamw_torch: torch AdamW's foreach path (transformers v4.32-v4.55)");
    case Framework::fsdp: return framework_default("torch.optim.AdamW default foreach path");
    case Framework::torchtune: return framework_default("torchtune configs: optimizer fused: True");
    case Framework::torchtitan: return framework_default("torchtitan optimizer config: implementation fused");
    case Framework::deepspeed: return framework_default("DeepSpeed FusedAdam");
    case Framework::megatron: return framework_default("Megatron Apex/TE FusedAdam");
  }
  return kEngineDefault;
}

std::string sharding_engine_origin(const TrainingSetup& s) {
  switch (s.framework) {
    case Framework::deepspeed: return framework_default("DeepSpeed ZeRO");
    case Framework::megatron: return framework_default("Megatron distributed optimizer");
    case Framework::torchtune: return framework_default("torchtune recipes since v0.2: FSDP2 fully_shard");
    case Framework::torchtitan: return framework_default("torchtitan parallelize.py apply_fsdp: FSDP2 fully_shard");
    case Framework::fsdp: return framework_default("accelerate FullyShardedDataParallel (FSDP1)");
    case Framework::hf_trainer: return framework_default("HF Trainer: DDP, or FSDP1 through its fsdp argument");
  }
  return kEngineDefault;
}

std::string zero_grad_origin(const TrainingSetup& s) {
  switch (s.framework) {
    case Framework::hf_trainer:
      return framework_default("transformers trainer.py: model.zero_grad(set_to_none=True) after each step, for every PyTorch "
                               "version since huggingface/transformers#22136");
    case Framework::torchtune: return framework_default("torchtune recipes: optimizer.zero_grad(set_to_none=True)");
    default: return framework_default("PyTorch >= 2.0 zero_grad() sets gradients to None (pytorch/pytorch#92731)");
  }
}

std::string gradient_sync_origin(const TrainingSetup& s) {
  switch (s.framework) {
    case Framework::hf_trainer:
      return framework_default("accelerate Accelerator.accumulate: no_sync under DDP and FSDP, not under DeepSpeed ZeRO >= 2");
    case Framework::fsdp: return framework_default("accelerate no_sync during accumulation");
    case Framework::megatron: return framework_default("Megatron reduces its main-grad buffer once per step");
    default: return framework_default(std::string(framework_label(s.framework)) + " reduces after every backward");
  }
}

// accelerate's FSDP upcast of the trainable parameters (precision.hpp).
const std::string kAccelerateUpcast = framework_default(
    "accelerate v0.30+ under FSDP with mixed precision upcasts trainable parameters to fp32, which are the master copy, with fp32 "
    "gradients: huggingface/accelerate#2674");

std::string master_weights_origin(const TrainingSetup& s, const ResolvedPrecision& p) {
  if (s.framework == Framework::torchtune) return framework_default("torchtune recipes train in pure bf16: no fp32 master copy");
  if (p.trainable_upcast_to_fp32) return kAccelerateUpcast;
  if (p.param_dtype == Dtype::fp32) return std::string(kEngineDefault) + " (the fp32 weights are the master copy)";
  return framework_default("mixed precision keeps an fp32 master copy: Rajbhandari et al. 2020, §3.1");
}

std::string grad_dtype_origin(const TrainingSetup& s, const ResolvedPrecision& p) {
  if (p.trainable_upcast_to_fp32) return kAccelerateUpcast;
  if (sharding_engine(s) != ShardingEngine::megatron && s.precision.param_dtype == Dtype::fp8)
    return std::string(kEngineDefault) + " (bf16 under fp8 weights: FP8 training computes gradients in 16 or 32 bits, precision.cpp)";
  switch (sharding_engine(s)) {
    case ShardingEngine::megatron: return framework_default("Megatron fp32 main gradients, docs dist_optimizer.md");
    case ShardingEngine::deepspeed:
      return framework_default("DeepSpeed: gradients in the model dtype (runtime/engine.py get_data_types), fp32 copy of the "
                               "optimizer's partition in the step");
    default: return std::string(kEngineDefault) + " (the parameter dtype)";
  }
}

json compile_value(const TrainingSetup& s) {
  if (!s.compile) return false;
  return compile_scope(s) == CompileScope::blocks ? "blocks" : "blocks_and_loss";
}

// compile: false | true | "blocks" | "blocks_and_loss"; `true` leaves the scope to the framework.
std::string compile_origin(const TrainingSetup& s, const json& doc) {
  if (!given(doc, "compile")) return kEngineDefault;
  if (!s.compile || !doc["compile"].is_boolean()) return "input";
  if (s.framework == Framework::torchtitan)
    return framework_default("torchtitan compile.components [\"model\", \"loss\"], pytorch/torchtitan#1608; the loss compiled since #1033");
  if (s.framework == Framework::torchtune && compile_scope(s) == CompileScope::blocks)
    return framework_default("torchtune training.compile_loss: the recipe drops the compiled torch.nn.CrossEntropyLoss");
  return framework_default(std::string(framework_label(s.framework)) + " compiles the loss with the model");
}

void add_model(Resolved& r, const TrainingSetup& s) {
  if (!s.model.preset.empty()) r.add("model.preset", s.model.preset, kEngineDefault);
  else if (s.model.architecture) r.add("model.hf_config", s.model.architecture->model_type, kEngineDefault);
  else r.add("model.num_parameters", s.model.num_parameters, kEngineDefault);
}

void add_method(Resolved& r, const TrainingSetup& s) {
  r.add("method", name_of(kMethods, s.method), kEngineDefault);
  if (uses_adapters(s.method)) {
    r.add("lora.r", s.lora.r, kEngineDefault);
    const Architecture* a = s.model.architecture ? &*s.model.architecture : nullptr;
    const std::string type = a ? a->model_type : "";
    json targets = s.lora.target_pattern ? json(*s.lora.target_pattern)
                   : !s.lora.target_modules.empty() || !a ? json(s.lora.target_modules)
                                                          : json(a->default_lora_targets);
    r.add("lora.target_modules", targets,
          !a ? std::string(kEngineDefault) + " (a parameter count has no modules to target: the adapters are not priced)"
          : a->peft_default_targets ? framework_default("PEFT TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING for " + type)
                                    : std::string(kEngineDefault) + " (PEFT has no default for " + type + ")");
    if (!s.lora.modules_to_save.empty()) r.add("lora.modules_to_save", s.lora.modules_to_save, kEngineDefault);
    r.add("lora.use_dora", s.lora.use_dora, framework_default("PEFT LoraConfig use_dora = False"));
    r.add("lora.lora_dropout", s.lora.lora_dropout, framework_default("PEFT LoraConfig lora_dropout = 0.0"));
    r.add("lora.adapter_dtype", name_of(kTrainingDtypes, adapter_dtype(s)),
          peft_upcasts_adapters(s) ? framework_default("PEFT >= 0.12 get_peft_model(autocast_adapter_dtype=True): 16-bit adapters upcast to fp32")
                                   : std::string(kEngineDefault) + " (the trainable weights' precision.param_dtype)");
  }
  if (s.method == Method::qlora && trains_transformers_model(s.framework))
    r.add("qlora.quant_method", name_of(kQuantMethods, s.qlora.quant_method),
          std::string(kEngineDefault) + " (bitsandbytes, as transformers' BitsAndBytesConfig loads a QLoRA base)");
  if (qlora_through_hqq(s)) {
    r.add("qlora.nbits", s.qlora.nbits, framework_default("transformers HqqConfig nbits = 4"));
    r.add("qlora.group_size", s.qlora.group_size, framework_default("transformers HqqConfig group_size = 64"));
    r.add("qlora.axis", s.qlora.axis, framework_default("transformers HqqConfig axis = None, set to 1"));
  } else if (s.method == Method::qlora) {
    r.add("qlora.quant_type", name_of(kQuantTypes, s.qlora.quant_type), kEngineDefault);
    const bool int8 = s.qlora.quant_type == Dtype::int8;
    if (!int8) r.add("qlora.double_quant", s.qlora.double_quant, kEngineDefault);  // 4-bit only
    if (qlora_through_bitsandbytes(s))
      r.add("qlora.saves_base_inputs", s.qlora.saves_base_inputs.value_or(false),
            framework_default(int8 ? "bitsandbytes >= 0.45.0: MatMul8bitLt keeps no int8 copy of a frozen weight's input, "
                                     "bitsandbytes-foundation/bitsandbytes#1401"
                                   : "bitsandbytes >= 0.43.2: MatMul4Bit keeps (None, B), bitsandbytes-foundation/bitsandbytes#1270"));
  }
  if (s.method == Method::freeze) r.add("freeze.trainable_layers", s.freeze_trainable_layers, kEngineDefault);
}

void add_precision(Resolved& r, const TrainingSetup& s) {
  const ResolvedPrecision p = resolve_precision(s);
  r.add("precision.param_dtype", name_of(kTrainingDtypes, p.param_dtype),
        p.trainable_upcast_to_fp32 ? std::string(kEngineDefault) + " (the dtype loaded; accelerate holds the trainable weights in fp32, bytes_per_param)"
                                   : std::string(kEngineDefault));
  r.add("precision.compute_dtype", name_of(kTrainingDtypes, p.compute_dtype), std::string(kEngineDefault) + " (the parameter dtype)");
  r.add("precision.grad_dtype", name_of(kTrainingDtypes, p.grad_dtype), grad_dtype_origin(s, p));
  r.add("precision.master_weights", p.master_weights, master_weights_origin(s, p));
  r.add("precision.optimizer", name_of(kOptimizers, p.optimizer), kEngineDefault);
  r.add("precision.optimizer_state_dtype", name_of(kStateDtypes, p.optimizer_state_dtype),
        s.framework != Framework::torchtune  ? std::string(kEngineDefault)
        : bitsandbytes_32bit_states(p.optimizer) ? framework_default("bitsandbytes optim_bits=32: fp32 states")
                                                : framework_default("torchtune: states in the parameter dtype"));
  r.add("precision.optimizer_in_backward", s.precision.optimizer_in_backward, kEngineDefault);
  r.add("precision.optimizer_implementation", name_of(kOptimizerImplementations, optimizer_implementation(s)),
        optimizer_implementation_origin(s));
  r.add("precision.fp8_compute", s.precision.fp8_compute, kEngineDefault);
}

void add_batch_and_activations(Resolved& r, const TrainingSetup& s, const json& doc) {
  r.add("batch.micro_batch_size", s.batch.micro_batch_size, kEngineDefault);
  r.add("batch.seq_length", s.batch.seq_length.value_or(4096),
        std::string(kEngineDefault) + (s.model.seq_length_default ? " (the preset's usual training length)" : ""));
  r.add("batch.gradient_accumulation_steps", s.batch.gradient_accumulation_steps, kEngineDefault);
  const Architecture* a = s.model.architecture ? &*s.model.architecture : nullptr;
  if (a)
    r.add("batch.padding", name_of(kPadding, s.batch.padding.value_or(Padding::max_length)),
          std::string(kEngineDefault) + " (every sequence seq_length tokens long: the longest batch)");
  if (a && a->encoder_decoder)
    r.add("batch.decoder_seq_length", s.batch.decoder_seq_length.value_or(s.batch.seq_length.value_or(4096)),
          std::string(kEngineDefault) + " (batch.seq_length)");
  if (!a) return;  // the rest shapes activations, which need an architecture
  r.add("activation_checkpointing", name_of(kCheckpointing, s.activation_checkpointing), checkpointing_origin(s));
  if (s.activation_checkpointing == Checkpointing::selective)
    r.add("selective_policy", name_of(kSelective, s.selective_policy),
          s.framework == Framework::torchtitan
              ? framework_default("torchtitan train_configs/*.toml: selective_ac_option = \"op\" (op-level SAC)")
              : std::string(kEngineDefault) + " (Megatron-LM's selective recompute: the core attention)");
  if (s.activation_checkpointing != Checkpointing::none)
    r.add("checkpointed_layers", s.checkpointed_layers.value_or(a->num_hidden_layers()), std::string(kEngineDefault) + " (every layer)");
  r.add("activation_offload", s.activation_offload, kEngineDefault);
  r.add("use_liger_kernel", s.use_liger_kernel, kEngineDefault);
  if (!engine_keeps_gradients(s))
    r.add("zero_grad_set_to_none", s.zero_grad_set_to_none.value_or(true), zero_grad_origin(s));
  r.add("attention", name_of(kAttention, s.attention), attention_origin(s));
  const FrameworkBehaviour b = framework_behaviour(s);
  const LossImplementation loss = s.loss.implementation.value_or(default_loss(s));
  r.add("loss.implementation", name_of(kLoss, loss), loss_origin(s));
  r.add("loss.logits_fp32", s.loss.logits_fp32.value_or(b.logits_fp32), loss_origin(s));
  if (loss == LossImplementation::chunked) r.add("loss.num_chunks", s.loss.num_chunks.value_or(kDefaultLossChunks), loss_origin(s));
  else if (loss == LossImplementation::fused && s.loss.num_chunks) r.add("loss.num_chunks", *s.loss.num_chunks, loss_origin(s));
  const HeldLogits held = held_logits(s, b, loss);
  const bool held_given_none = s.loss.held_logits == HeldLogits::none;
  if (loss == LossImplementation::fused && !held_given_none)
    r.set("loss.held_logits", name_of(kHeldLogits, held), std::string(kEngineDefault) + " (a fused loss returns no logits)");
  else r.add("loss.held_logits", name_of(kHeldLogits, held), held == HeldLogits::none ? std::string(kEngineDefault) : held_logits_origin(s));
  r.set("compile", compile_value(s), compile_origin(s, doc));
  r.add("make_vocab_size_divisible_by", make_vocab_size_divisible_by(s),
        s.framework == Framework::megatron ? framework_default("megatron/training/arguments.py --make-vocab-size-divisible-by 128")
                                           : std::string(kEngineDefault) + " (no padding)");
}

void add_parallel(Resolved& r, const TrainingSetup& s) {
  const ParallelSettings& p = s.parallel;
  r.add("parallel.world_size", p.world_size, std::string(kEngineDefault) + " (data x tensor x pipeline x context parallel)");
  r.add("parallel.gpus_per_node", p.gpus_per_node, kEngineDefault);
  r.add("parallel.data_parallel_size", p.data_parallel_size,
        std::string(kEngineDefault) + " (world_size / (tensor x pipeline x context parallel))");
  const bool fsdp_native = s.framework == Framework::torchtune || s.framework == Framework::torchtitan || s.framework == Framework::fsdp;
  r.add("parallel.zero_stage", p.zero_stage,
        fsdp_native && p.world_size > 1 ? framework_default("FSDP FULL_SHARD on more than one GPU") : std::string(kEngineDefault) + " (DDP)");
  if (p.sharding_group_size) r.add("parallel.sharding_group_size", *p.sharding_group_size, kEngineDefault);
  r.add("parallel.tensor_parallel_size", p.tensor_parallel_size, kEngineDefault);
  if (p.tensor_parallel_size > 1) {
    r.add("parallel.sequence_parallel", p.sequence_parallel, kEngineDefault);
    r.add("parallel.tp_comm_overlap", p.tp_comm_overlap, std::string(kEngineDefault) + " (Megatron --tp-comm-overlap off)");
  }
  r.add("parallel.pipeline_parallel_size", p.pipeline_parallel_size, kEngineDefault);
  if (p.pipeline_parallel_size > 1) {
    r.add("parallel.pipeline_schedule", name_of(kSchedules, p.pipeline_schedule), kEngineDefault);
    r.add("parallel.virtual_pipeline_stages", p.virtual_pipeline_stages, kEngineDefault);
    if (s.model.architecture) {
      const PipelineSplit split = pipeline_split(s, s.model.architecture->num_hidden_layers());
      if (split.error_code.empty())
        r.add("parallel.pipeline_layers", split.chunk_layers,
              std::string(kEngineDefault) + " (the framework's split of the layers over the pipeline chunks, "
              "engine/include/trainmem/pipeline_split.hpp)");
    }
  }
  r.add("parallel.context_parallel_size", p.context_parallel_size, kEngineDefault);
  const bool moe = s.model.architecture && s.model.architecture->active_params() < s.model.architecture->total_params();
  if (moe) {
    r.add("parallel.expert_parallel_size", p.expert_parallel_size, kEngineDefault);
    r.add("parallel.expert_tensor_parallel_size", expert_tensor_parallel_size(s),
          framework_default("Megatron-Core: --expert-tensor-parallel-size defaults to tensor_parallel_size"));
  }
  r.add("parallel.offload_optimizer", name_of(kOffload, p.offload_optimizer), kEngineDefault);
  r.add("parallel.offload_param", name_of(kOffload, p.offload_param), kEngineDefault);
  const ShardingEngine engine = sharding_engine(s);
  r.add("parallel.sharding_engine", name_of(kShardingEngines, engine), sharding_engine_origin(s));
  if (p.zero_stage == 3 && engine != ShardingEngine::deepspeed)
    r.add("parallel.reshard_after_forward", p.reshard_after_forward, framework_default("FSDP reshard_after_forward = True"));
  if (p.zero_stage >= 2 && engine == ShardingEngine::fsdp && s.method != Method::full)
    r.add("parallel.use_orig_params", p.use_orig_params.value_or(true),
          framework_default("accelerate fsdp_use_orig_params = True, Lightning FSDPStrategy use_orig_params=True"));
  if (p.zero_stage == 3 && engine == ShardingEngine::deepspeed)
    r.add("parallel.zero3_max_live_parameters", p.zero3_max_live_parameters,
          framework_default("DeepSpeed zero/config.py stage3_max_live_parameters = 1e9"));
  if (p.data_parallel_size > 1) r.add("parallel.gradient_sync", name_of(kGradientSync, gradient_sync(s)), gradient_sync_origin(s));
}

void add_gpu_and_overhead(Resolved& r, const TrainingSetup& s, const Estimate& e) {
  if (s.gpu) {
    const bool catalog = !s.gpu->id.empty();
    const std::string from_catalog = "catalog (catalog/gpus/" + s.gpu->id + ".json)";
    r.add("gpu", catalog ? json(s.gpu->id) : json("custom"), kEngineDefault);
    r.add("gpu.memory_bytes", s.gpu->memory_bytes, from_catalog);
    r.add("gpu.usable_bytes", s.gpu->usable_bytes ? json(*s.gpu->usable_bytes) : json(nullptr),
          catalog && s.gpu->usable_bytes ? from_catalog : std::string(kEngineDefault) + " (none: the whole device)");
    if (e.per_gpu.cuda_context)
      r.add("gpu.cuda_context_bytes", bytes_value(*e.per_gpu.cuda_context),
            catalog && s.gpu->cuda_context_bytes ? from_catalog : std::string(kEngineDefault) + " (512 MiB)");
  }
  if (s.model.architecture)
    r.add("overhead.fragmentation_fraction", s.fragmentation_fraction, std::string(kEngineDefault) + " (10 % of allocated)");
}

void add_checkpoint_and_rlhf(Resolved& r, const TrainingSetup& s) {
  const CheckpointSettings& c = s.checkpoint;
  r.add("checkpoint.save", c.save == CheckpointSave::full_state ? "full_state" : c.save == CheckpointSave::weights ? "weights" : "adapter",
        kEngineDefault);
  r.add("checkpoint.keep_last", c.keep_last, kEngineDefault);
  if (uses_adapters(s.method))
    r.add("checkpoint.exclude_frozen_parameters", c.exclude_frozen_parameters,
          framework_default("DeepSpeed save_checkpoint(exclude_frozen_parameters=True), PEFT save_pretrained"));
  if (!s.rlhf) return;
  const RlhfSettings& rl = *s.rlhf;
  r.add("rlhf.algorithm", rl.algorithm == RlhfAlgorithm::dpo ? "dpo" : rl.algorithm == RlhfAlgorithm::ppo ? "ppo" : "grpo", kEngineDefault);
  r.add("rlhf.reference.method", rl.reference == ReferenceModel::none ? "none" : rl.reference == ReferenceModel::shared_base ? "shared_base" : "frozen",
        std::string(kEngineDefault) + " (a LoRA/QLoRA policy's own base with adapters disabled, as TRL runs a PEFT model; else a frozen copy)");
  if (rl.algorithm != RlhfAlgorithm::dpo) {
    r.add("rlhf.rollout.max_new_tokens", rl.max_new_tokens, kEngineDefault);
    r.add("rlhf.rollout.num_generations", rl.algorithm == RlhfAlgorithm::grpo ? rl.num_generations : 1, kEngineDefault);
    r.add("rlhf.rollout.colocated", rl.colocated, kEngineDefault);
    if (rl.colocated) r.add("rlhf.rollout.use_vllm", rl.use_vllm, framework_default("TRL GRPOConfig use_vllm = False: transformers' generate"));
    if (rl.use_vllm && rl.colocated) {
      r.add("rlhf.rollout.vllm_gpu_memory_utilization", rl.vllm_gpu_memory_utilization,
            framework_default("TRL GRPOConfig vllm_gpu_memory_utilization = 0.3"));
      r.add("rlhf.rollout.vllm_enable_sleep_mode", rl.vllm_enable_sleep_mode, framework_default("TRL GRPOConfig vllm_enable_sleep_mode = False"));
    }
  }
  if (rl.algorithm == RlhfAlgorithm::ppo) r.add("rlhf.critic.method", name_of(kMethods, rl.critic_method), kEngineDefault);
}

// A vision-language model's image settings (vision_parameters.hpp, vision_activations.hpp).
void add_multimodal(Resolved& r, const TrainingSetup& s) {
  const Architecture* a = s.model.architecture ? &*s.model.architecture : nullptr;
  if (!a || !a->vision) return;
  const MultimodalSettings& m = s.multimodal;
  r.add("multimodal.freeze_vision_tower", m.freeze_vision_tower,
        std::string(kEngineDefault) + " (LLaVA's stage-2 recipe and TRL's VLM fine-tuning keep the tower frozen)");
  r.add("multimodal.freeze_projector", m.freeze_projector, kEngineDefault);
  r.add("multimodal.images_per_sample", m.images_per_sample, kEngineDefault);
  bool assumed = false;
  const auto [h, w] = priced_image_size(s, *a->vision, &assumed);
  r.add("multimodal.image_size", json::array({h, w}),
        assumed ? std::string(kEngineDefault) + " (the config states no image size)" : std::string("read from config.json:vision_config.image_size"));
}

}  // namespace

json resolved_inputs(const json& doc, const TrainingSetup& s, const Estimate& e) {
  Resolved r(doc);
  add_model(r, s);
  r.add("framework", framework_label(s.framework), kEngineDefault);
  add_method(r, s);
  add_precision(r, s);
  add_batch_and_activations(r, s, doc);
  r.add("model_loading", name_of(kLoading, s.model_loading), kEngineDefault);
  add_parallel(r, s);
  add_gpu_and_overhead(r, s, e);
  add_checkpoint_and_rlhf(r, s);
  add_multimodal(r, s);
  return r.take();
}

}  // namespace trainmem::json_io
