// TrainingSetup -> an axolotl YAML snippet with the settings that matter for memory (axolotl 0.18.0
// key names: src/axolotl/utils/schemas/config.py, training.py, peft.py, fsdp.py, trl.py). The inverse
// of engine/src/import/axolotl_reader.cpp; a DeepSpeed setup is written inline under `deepspeed`
// (axolotl accepts a path or the config itself) by the DeepSpeed exporter.
#include "export_formats.hpp"
#include "trainmem/lora_targeting.hpp"
#include "trainmem/framework_defaults.hpp"
#include "trainmem/loss_memory.hpp"
#include "trainmem/precision.hpp"

namespace trainmem::export_detail {

namespace {

// The document's optimizer -> transformers OptimizerNames, which axolotl passes on as `optim`.
const char* optimizer_name(const TrainingSetup& s) {
  switch (s.precision.optimizer) {
    // transformers OptimizerNames: adamw_torch is torch.optim.AdamW with its default (foreach on
    // CUDA), adamw_torch_fused passes fused=True (trainer.py get_optimizer_cls_and_kwargs).
    case Optimizer::adamw:
      return optimizer_implementation(s) == OptimizerImplementation::fused ? "adamw_torch_fused" : "adamw_torch";
    case Optimizer::adamw_8bit: return "adamw_bnb_8bit";
    case Optimizer::paged_adamw: return "paged_adamw_32bit";
    case Optimizer::paged_adamw_8bit: return "paged_adamw_8bit";
    case Optimizer::adafactor: return "adafactor";
    case Optimizer::sgd: return "sgd";
    case Optimizer::lion: return "lion_32bit";
    default: return nullptr;
  }
}

}  // namespace

ExportResult export_axolotl(const TrainingSetup& s, const std::string& hf_model_id) {
  ExportResult out;
  ConfigValue& c = out.config;
  const ResolvedPrecision p = resolve_precision(s);
  out.carried = {"batch.micro_batch_size", "batch.gradient_accumulation_steps", "batch.seq_length", "method",
                 "precision.param_dtype", "precision.compute_dtype", "activation_checkpointing", "activation_offload",
                 "attention", "compile", "precision.fp8_compute", "checkpoint.keep_last", "parallel.tensor_parallel_size",
                 "parallel.context_parallel_size"};
  // axolotl's trainer is the HF Trainer's subclass: an axolotl file reads back as hf_trainer.
  if (s.framework == Framework::hf_trainer) out.carried.push_back("framework");
  else out.not_expressible.emplace_back("framework", "axolotl trains with the HF Trainer's loop");

  // axolotl requires base_model, a Hugging Face id or a local folder (utils/schemas/model.py
  // ModelInputConfig). A model with none (num_parameters only, an hf_config without _name_or_path)
  // is listed instead of guessed: the snippet has no base_model, and its axolotl-only keys
  // (micro_batch_size, sequence_len) still make it read back as axolotl (docs/import.md).
  if (!hf_model_id.empty()) {
    c.set("base_model", hf_model_id);
    out.carried.push_back("model");
  } else {
    out.not_expressible.emplace_back("model", "the model has no Hugging Face id (a catalog preset's, or an hf_config's _name_or_path): "
                                              "axolotl requires base_model; add it to the snippet before training");
  }
  c.set("micro_batch_size", s.batch.micro_batch_size);
  c.set("gradient_accumulation_steps", s.batch.gradient_accumulation_steps);
  if (s.batch.seq_length) c.set("sequence_len", *s.batch.seq_length);
  // Every batch at sequence_len is pad_to_sequence_len; the collator's default pads each batch to
  // its longest sample (core/builders/causal.py).
  out.carried.push_back("batch.padding");
  if (s.batch.padding.value_or(Padding::max_length) == Padding::max_length) c.set("pad_to_sequence_len", true);

  // Adapters (utils/schemas/peft.py; loaders/model.py fixes QLoRA at nf4 with double quantization,
  // and loads an 8-bit base for adapter lora with load_in_8bit).
  if (uses_adapters(s.method)) {
    out.carried.push_back("lora");
    const bool int8 = s.method == Method::qlora && s.qlora.quant_type == Dtype::int8;
    c.set("adapter", s.method == Method::qlora && !int8 ? "qlora" : "lora");
    if (s.method == Method::qlora && s.qlora.saves_base_inputs.value_or(false))
      out.not_expressible.emplace_back("qlora.saves_base_inputs", "an older bitsandbytes's kernels, which axolotl's file does not choose");
    if (int8) {
      c.set("load_in_8bit", true);
      out.carried.push_back("qlora");
    } else if (s.method == Method::qlora) {
      c.set("load_in_4bit", true);
      out.carried.push_back("qlora");
      if (s.qlora.quant_method == QuantMethod::hqq)
        out.not_expressible.emplace_back("qlora.quant_method", "HQQ, which axolotl's file does not choose: it quantizes with bitsandbytes");
      else if (s.qlora.quant_type != Dtype::nf4 || !s.qlora.double_quant)
        out.not_expressible.emplace_back("qlora", "axolotl quantizes to nf4 with double quantization");
    }
    c.set("lora_r", s.lora.r);
    c.set("lora_dropout", s.lora.lora_dropout);
    // The targets the estimate priced: with none given, the family's PEFT defaults.
    const std::vector<std::string>& targets =
        s.model.architecture ? effective_target_modules(*s.model.architecture, s.lora) : s.lora.target_modules;
    const bool all_linear = targets.size() == 1 && targets[0] == "all-linear";
    if (all_linear) {
      c.set("lora_target_linear", true);
    } else if (s.lora.target_pattern) {
      c.set("lora_target_modules", *s.lora.target_pattern);
    } else if (!targets.empty()) {
      ConfigValue::Array names;
      for (const auto& m : targets) names.emplace_back(m);
      c.set("lora_target_modules", ConfigValue(std::move(names)));
    } else {
      out.not_expressible.emplace_back("lora.target_modules", "axolotl needs the target modules named (or lora_target_linear)");
    }
    if (!s.lora.modules_to_save.empty()) {
      ConfigValue::Array names;
      for (const auto& m : s.lora.modules_to_save) names.emplace_back(m);
      c.set("lora_modules_to_save", ConfigValue(std::move(names)));
    }
    if (s.lora.use_dora) c.set("peft_use_dora", true);
    if (!s.lora.layers_to_transform.empty()) {
      ConfigValue::Array layers;
      for (auto l : s.lora.layers_to_transform) layers.emplace_back(l);
      c.set("peft_layers_to_transform", ConfigValue(std::move(layers)));
    }
    if (!s.lora.exclude_modules.empty() || s.lora.exclude_pattern || !s.lora.rank_pattern.empty())
      out.not_expressible.emplace_back("lora", "axolotl's LoRA keys name no excluded modules and no rank pattern by module");
    // PEFT upcasts adapters to fp32 unless peft_autocast_adapter_dtype is false (they then keep
    // the weights' dtype). Over an 8-bit base they stay fp32 either way: bitsandbytes' int8
    // weights carry no compute dtype to move them to (huggingface/peft#2893, v0.19.0).
    if (adapter_dtype(s) != Dtype::fp32) {
      if (int8) {
        out.not_expressible.emplace_back("lora.adapter_dtype", "PEFT keeps the adapters over an 8-bit base in fp32");
      } else {
        c.set("peft_autocast_adapter_dtype", false);
        if (adapter_dtype(s) != p.param_dtype)
          out.not_expressible.emplace_back("lora.adapter_dtype", "without the fp32 upcast, adapters take the weights' dtype");
      }
    }
  } else if (s.method == Method::freeze) {
    out.not_expressible.emplace_back("method", "axolotl freezes by parameter patterns (unfrozen_parameters), not by a layer count");
  }

  // Precision: bf16 loads bf16 weights and computes in bf16; fp16 likewise in fp16; bf16 false
  // with no other flag trains in fp32 (utils/config/__init__.py resolve_dtype). A quantized base
  // outside DeepSpeed and FSDP (the file written below has neither) then goes through PEFT's
  // prepare_model_for_kbit_training (loaders/model.py), which casts the weights left unquantized
  // to fp32 while the compute stays in the loaded dtype: the flag follows the compute dtype there.
  const bool kbit_prepared = s.method == Method::qlora && s.parallel.zero_stage == 0;
  const Dtype loaded = kbit_prepared ? p.compute_dtype : p.param_dtype;
  // A full fine-tune under FSDP with 16-bit compute: accelerate upcasts the trained weights to fp32
  // under mixed precision (huggingface/accelerate#2674), a master copy, which the engine gives an
  // imported file by its own rule. bf16 "full" trains bf16 weights without mixed precision
  // (core/builders/base.py _configure_precision_settings passes bf16_full_eval alone): no upcast.
  const ShardingEngine engine = sharding_engine(s);
  const bool fsdp_sharded = (engine == ShardingEngine::fsdp || engine == ShardingEngine::fsdp2) && s.parallel.zero_stage > 0;
  const bool sixteen_bit_compute = dtype_bytes(p.compute_dtype) == 2;
  const bool pure_bf16 = fsdp_sharded && s.method == Method::full && sixteen_bit_compute && loaded == Dtype::bf16 && !p.master_weights;
  if (pure_bf16) c.set("bf16", "full");
  else if (loaded == Dtype::bf16) c.set("bf16", true);
  else if (loaded == Dtype::fp16) { c.set("bf16", false); c.set("fp16", true); }
  else if (loaded == Dtype::fp32) c.set("bf16", false);
  else out.not_expressible.emplace_back("precision.param_dtype", "axolotl loads the weights in bf16, fp16 or fp32");
  if (kbit_prepared && p.param_dtype != Dtype::fp32)
    out.not_expressible.emplace_back("precision.param_dtype", "axolotl casts the weights around a quantized base to fp32 "
                                                              "(prepare_model_for_kbit_training) outside DeepSpeed and FSDP");
  if (p.compute_dtype != loaded)
    out.not_expressible.emplace_back("precision.compute_dtype", "axolotl computes in the dtype it loads the weights in");
  if (s.precision.fp8_compute) c.set("fp8", true);
  // A run loaded in 16 bits outside DeepSpeed and FSDP trains in 16 bits: the HF Trainer keeps no
  // fp32 master copy, whatever the optimizer and method, and in a full run torch's optimizers keep
  // their states in the parameters' dtype (torch/optim/adamw.py zeros_like). A setup with a master
  // copy or (full, torch optimizer) fp32 states cannot be written so; under FSDP (above) the upcast
  // copy, or bf16 "full" without it.
  const bool deepspeed_sharded = engine == ShardingEngine::deepspeed && s.parallel.zero_stage > 0;
  // axolotl's loop is the HF Trainer's, so accelerate's rule applies whatever the document's framework;
  // the file runs mixed precision wherever it computes in 16 bits and is not bf16 "full".
  const bool fsdp_upcasts = accelerate_fsdp_upcasts({true, fsdp_sharded, s.method == Method::full,
                                                     p.param_dtype == Dtype::bf16 || p.param_dtype == Dtype::fp16,
                                                     sixteen_bit_compute && !pure_bf16});
  const bool torch_optimizer = s.precision.optimizer == Optimizer::adamw || s.precision.optimizer == Optimizer::adam ||
                               s.precision.optimizer == Optimizer::sgd || s.precision.optimizer == Optimizer::sgd_momentum;
  if (fsdp_upcasts) {
    // The upcast weights are the master copy, and torch's optimizers keep states like them (fp32).
    if (p.master_weights) out.carried.push_back("precision.master_weights");
    else out.not_expressible.emplace_back("precision.master_weights", "under FSDP with bf16 or fp16 compute, accelerate upcasts the trained weights to fp32");
    if (torch_optimizer && p.optimizer_state_dtype == Dtype::fp32) out.carried.push_back("precision.optimizer_state_dtype");
    else if (torch_optimizer) out.not_expressible.emplace_back("precision.optimizer_state_dtype", "torch's optimizers keep their states in the dtype of the weights, fp32 after accelerate's FSDP upcast");
  } else if (!deepspeed_sharded && (p.param_dtype == Dtype::bf16 || p.param_dtype == Dtype::fp16)) {
    if (p.master_weights)
      out.not_expressible.emplace_back("precision.master_weights", "axolotl loads the weights in 16 bits and the HF Trainer keeps no fp32 master copy");
    else
      out.carried.push_back("precision.master_weights");
    if (s.method == Method::full && torch_optimizer) {
      if (p.optimizer_state_dtype != p.param_dtype)
        out.not_expressible.emplace_back("precision.optimizer_state_dtype", "torch's optimizers keep their states in the weights' 16-bit dtype");
      else
        out.carried.push_back("precision.optimizer_state_dtype");
    }
  }

  if (const char* o = optimizer_name(s)) {
    c.set("optimizer", o);
    out.carried.push_back("precision.optimizer");
    if (s.precision.optimizer == Optimizer::adamw) out.carried.push_back("precision.optimizer_implementation");
  } else {
    out.not_expressible.emplace_back("precision.optimizer", "no transformers or axolotl optimizer name for it");
  }
  if (s.precision.optimizer_implementation == OptimizerImplementation::for_loop)
    out.not_expressible.emplace_back("precision.optimizer_implementation", "transformers' optimizer names pick fused or foreach");

  if (s.activation_checkpointing == Checkpointing::selective)
    out.not_expressible.emplace_back("activation_checkpointing", "axolotl's gradient_checkpointing recomputes whole layers");
  // axolotl refuses activation_offloading without gradient_checkpointing (utils/schemas/validation.py
  // check_activation_offloading_wo_gc), and with both it recomputes the layers and offloads their
  // inputs, for LoRA/QLoRA too (loaders/model.py _configure_embedding_dtypes enables the model's
  // checkpointing for an adapter; _apply_activation_checkpointing re-wraps a full run).
  const bool recompute = s.activation_checkpointing != Checkpointing::none;
  c.set("gradient_checkpointing", recompute);
  if (s.activation_offload && recompute) {
    c.set("activation_offloading", true);
  } else if (s.activation_offload) {
    out.not_expressible.emplace_back("activation_offload", "axolotl offloads activations around recomputed layers only "
                                                           "(activation_offloading requires gradient_checkpointing)");
  }
  c.set("attn_implementation", s.attention == AttentionImplementation::flash    ? "flash_attention_2"
                               : s.attention == AttentionImplementation::flash3 ? "flash_attention_3"
                               : s.attention == AttentionImplementation::sdpa   ? "sdpa"
                                                                                : "eager");
  if (s.use_liger_kernel && liger_applies(s)) {
    // LigerPlugin applies each kernel its flag names (integrations/liger/args.py); the fused linear
    // cross-entropy is the loss use_liger_kernel defaults to.
    ConfigValue::Array plugins;
    plugins.emplace_back("axolotl.integrations.liger.LigerPlugin");
    c.set("plugins", ConfigValue(std::move(plugins)));
    c.set("liger_rope", true);
    c.set("liger_rms_norm", true);
    c.set("liger_glu_activation", true);
    const LossImplementation loss = s.loss.implementation.value_or(LossImplementation::fused);
    c.set("liger_fused_linear_cross_entropy", loss == LossImplementation::fused);
    out.carried.push_back("use_liger_kernel");
    // Without the fused loss the plugin leaves the model's own (full) loss.
    if (s.loss.implementation && loss != LossImplementation::chunked) out.carried.push_back("loss.implementation");
  }
  if (s.loss.implementation == LossImplementation::fused && !(s.use_liger_kernel && liger_applies(s))) {
    // Cut cross-entropy never materialises the logits (integrations/cut_cross_entropy).
    ConfigValue::Array plugins;
    plugins.emplace_back("axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin");
    c.set("plugins", ConfigValue(std::move(plugins)));
    c.set("cut_cross_entropy", true);
    out.carried.push_back("loss.implementation");
  } else if (s.loss.implementation == LossImplementation::chunked) {
    c.set("chunked_cross_entropy", true);
    c.set("chunked_cross_entropy_num_chunks", s.loss.num_chunks.value_or(kDefaultLossChunks));
    out.carried.push_back("loss.implementation");
    out.carried.push_back("loss.num_chunks");
  }
  if (s.compile) c.set("torch_compile", true);
  if (s.checkpoint.keep_last > 1) c.set("save_total_limit", s.checkpoint.keep_last);
  if (s.parallel.tensor_parallel_size > 1) c.set("tensor_parallel_size", s.parallel.tensor_parallel_size);
  if (s.parallel.context_parallel_size > 1) c.set("context_parallel_size", s.parallel.context_parallel_size);

  // Sharding.
  const bool sharded = s.parallel.zero_stage > 0;
  if (engine == ShardingEngine::deepspeed && sharded) {
    ExportResult ds = export_deepspeed(s);
    c.set("deepspeed", ds.config);
    for (const auto& f : ds.carried)
      if (f.rfind("parallel.", 0) == 0) out.carried.push_back(f);
    for (const auto& n : ds.not_expressible)
      if (n.first.rfind("parallel.", 0) == 0) out.not_expressible.push_back(n);
  } else if ((engine == ShardingEngine::fsdp || engine == ShardingEngine::fsdp2) && sharded) {
    out.carried.insert(out.carried.end(), {"parallel.sharding_engine", "parallel.zero_stage", "parallel.offload_optimizer",
                                           "parallel.offload_param", "parallel.reshard_after_forward"});
    // axolotl 0.18.0 (axolotl-ai-cloud/axolotl@067b021) validates fsdp_config as FSDPConfig
    // (src/axolotl/utils/schemas/fsdp.py): its only sharding key is reshard_after_forward, a bool,
    // and a sharding_strategy key is not a field (dropped). core/builders/base.py passes
    // TrainingArguments(fsdp_config=..., fsdp=cfg.fsdp or True). transformers 5.14.1 (axolotl's pin,
    // pyproject.toml) training_args.py _process_fsdp_args hands an FSDP2 plugin
    // fsdp_config["reshard_after_forward"] as a bool, and its _apply_legacy_fsdp_to_config turns the
    // deprecated `fsdp: [shard_grad_op]` list into FSDP1's SHARD_GRAD_OP (gradients and optimizer
    // states sharded, parameters whole: zero_stage 2).
    if (engine == ShardingEngine::fsdp2) {
      if (s.parallel.zero_stage != 3)
        out.not_expressible.emplace_back("parallel.zero_stage", "FSDP2 shards parameters, gradients and optimizer states (stage 3)");
    } else if (s.parallel.zero_stage == 2) {
      ConfigValue::Array options;
      options.emplace_back("shard_grad_op");
      c.set("fsdp", ConfigValue(std::move(options)));
    } else if (s.parallel.zero_stage == 1) {
      out.not_expressible.emplace_back("parallel.zero_stage", "FSDP has no optimizer-only sharding (ZeRO-1)");
    }
    c.set("fsdp_version", engine == ShardingEngine::fsdp2 ? 2 : 1);
    ConfigValue f = ConfigValue::object();
    const bool offload = s.parallel.offload_param != OffloadTarget::none;
    note_joint_offload(out, s.parallel, offload, "FSDP offloads parameters, gradients and the optimizer step to the CPU together");
    f.set("offload_params", offload);
    if (engine == ShardingEngine::fsdp2) f.set("reshard_after_forward", s.parallel.reshard_after_forward);
    else {
      if (!s.parallel.reshard_after_forward)
        out.not_expressible.emplace_back("parallel.reshard_after_forward", "FSDP1 reshards after forward under FULL_SHARD");
      f.set("use_orig_params", s.parallel.use_orig_params.value_or(true));
      out.carried.push_back("parallel.use_orig_params");
    }
    c.set("fsdp_config", f);
  } else if (sharded) {
    // Megatron's distributed optimizer (its ZeRO-1) has no axolotl key: the file trains unsharded.
    out.not_expressible.emplace_back("parallel.sharding_engine", "axolotl shards with DeepSpeed or FSDP");
    out.not_expressible.emplace_back("parallel.zero_stage", "axolotl shards with DeepSpeed or FSDP");
  } else {
    out.carried.push_back("parallel.zero_stage");
  }
  if (s.parallel.sharding_group_size) out.not_expressible.emplace_back("parallel.sharding_group_size", "not written: axolotl's dp_shard_size needs the GPU count");

  // RLHF (utils/schemas/config.py rl, trl.py).
  if (s.rlhf) {
    out.carried.push_back("rlhf");
    if (s.rlhf->algorithm == RlhfAlgorithm::dpo) {
      c.set("rl", "dpo");
      const bool lora = uses_adapters(s.method);
      if ((s.rlhf->reference == ReferenceModel::shared_base) != lora)
        out.not_expressible.emplace_back("rlhf.reference", "TRL's DPO reference is the adapter-free base for a PEFT policy and a frozen copy otherwise");
    } else if (s.rlhf->algorithm == RlhfAlgorithm::grpo) {
      c.set("rl", "grpo");
      ConfigValue trl = ConfigValue::object();
      trl.set("num_generations", s.rlhf->num_generations);
      trl.set("max_completion_length", s.rlhf->max_new_tokens);
      trl.set("use_vllm", s.rlhf->use_vllm || !s.rlhf->colocated);
      // TRL's GRPO loads a reference only with a KL coefficient beta > 0 (grpo_trainer.py): 0.0
      // without one, else 0.04, the DeepSeekMath GRPO paper's KL weight (arXiv 2402.03300, §4.2),
      // a loss weight with no memory effect. The reference itself (a copy or the PEFT base) follows
      // the adapter, as TRL decides it.
      const bool lora = uses_adapters(s.method);
      trl.set("beta", s.rlhf->reference == ReferenceModel::none ? 0.0 : 0.04);
      if (s.rlhf->reference == ReferenceModel::none || (s.rlhf->reference == ReferenceModel::shared_base) == lora)
        out.carried.push_back("rlhf.reference");
      else
        out.not_expressible.emplace_back("rlhf.reference", "TRL's GRPO reference is the adapter-free base for a PEFT policy and a frozen copy otherwise");
      if (!s.rlhf->colocated) trl.set("vllm_mode", "server");
      // A colocated vLLM (axolotl core/trainers/grpo/__init__.py: vllm_mode colocate passes
      // vllm.gpu_memory_utilization and trl.vllm_enable_sleep_mode to TRL).
      const bool vllm_colocated = s.rlhf->use_vllm && s.rlhf->colocated;
      if (vllm_colocated) {
        trl.set("vllm_mode", "colocate");
        trl.set("vllm_enable_sleep_mode", s.rlhf->vllm_enable_sleep_mode);
        ConfigValue vllm = ConfigValue::object();
        vllm.set("gpu_memory_utilization", s.rlhf->vllm_gpu_memory_utilization);
        c.set("vllm", vllm);
      }
      c.set("trl", trl);
    } else {
      out.not_expressible.emplace_back("rlhf", "axolotl has no PPO trainer");
    }
  }
  return out;
}

}  // namespace trainmem::export_detail
