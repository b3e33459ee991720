// axolotl YAML -> estimate document fields. axolotl builds transformers TrainingArguments from its
// config and trains with a transformers.Trainer subclass, sharded by DeepSpeed or FSDP as the
// config says. Meanings and defaults: axolotl 0.18.0 (axolotl-ai-cloud/axolotl 067b021):
//   src/axolotl/utils/schemas/config.py, training.py, peft.py, fsdp.py, enums.py, validation.py
//     (field names, defaults, legacy attention flags),
//   src/axolotl/utils/config/__init__.py (resolve_dtype: bf16 "auto" and the load dtype;
//     normalize_config: gradient_accumulation_steps from batch_size),
//   src/axolotl/core/builders/base.py (the TrainingArguments it builds: precision, checkpointing,
//     activation offloading, optimizer, fsdp),
//   src/axolotl/loaders/model.py (QLoRA's BitsAndBytesConfig), src/axolotl/loaders/adapter.py
//     (LoraConfig, lora_target_linear), src/axolotl/loaders/patch_manager.py and
//     src/axolotl/monkeypatch/loss/chunked.py (chunked cross-entropy),
//   src/axolotl/integrations/cut_cross_entropy/args.py, src/axolotl/integrations/liger/args.py.
#include <algorithm>
#include <cctype>
#include <set>

#include "reading.hpp"

namespace trainmem::import_detail {

namespace {

constexpr const char* kAxolotl = "axolotl 0.18.0";

std::string src(const char* file, const std::string& what) { return std::string(kAxolotl) + " " + file + " " + what; }

// Keys without an effect on the training step's memory: data, schedules, logging, saving, hub,
// tokens, evaluation.
bool no_memory_effect(const std::string& k) {
  static const std::set<std::string> keys = {
      "datasets", "test_datasets", "val_set_size", "dataset_prepared_path", "dataset_processes", "dataset_num_proc",
      "dataset_exact_deduplication", "shuffle_merged_datasets", "output_dir", "num_epochs", "max_steps",
      "learning_rate", "lr_scheduler", "lr_scheduler_kwargs", "cosine_min_lr_ratio", "cosine_constant_lr_ratio",
      "warmup_ratio", "warmup_steps", "weight_decay", "max_grad_norm", "adam_beta1", "adam_beta2", "adam_beta3",
      "adam_epsilon", "adam_epsilon2", "optim_args", "logging_steps", "evals_per_epoch", "eval_steps",
      "saves_per_epoch", "save_steps", "save_strategy", "eval_strategy", "save_first_step", "save_only_model",
      "save_safetensors", "seed", "wandb_project", "wandb_entity", "wandb_watch", "wandb_name", "wandb_log_model",
      "wandb_run_id", "mlflow_tracking_uri", "mlflow_experiment_name", "use_tensorboard", "hub_model_id",
      "hub_strategy", "push_dataset_to_hub", "resume_from_checkpoint", "auto_resume_from_checkpoints",
      "special_tokens", "tokens", "added_tokens_overrides", "chat_template", "chat_template_jinja", "eot_tokens",
      "default_system_message", "tokenizer_type", "tokenizer_config", "tokenizer_use_fast", "tokenizer_legacy",
      "tokenizer_save_jinja_files", "model_type", "model_config_type", "trust_remote_code", "revision_of_model",
      "strict", "train_on_inputs", "group_by_length", "eval_sample_packing", "eval_sequence_len",
      "eval_batch_size", "eval_max_new_tokens", "eval_table_size", "eval_causal_lm_metrics", "do_causal_lm_eval",
      "loss_watchdog_threshold", "loss_watchdog_patience", "early_stopping_patience", "debug", "tf32",
      "lora_alpha", "lora_model_dir", "lora_fan_in_fan_out", "peft_use_rslora", "peft_init_lora_weights",
      "loraplus_lr_ratio", "loraplus_lr_embedding", "embedding_lr", "embedding_lr_scale", "lr_groups",
      "sample_packing_group_size", "sample_packing_bin_size", "sample_packing_sequentially",
      "sample_packing_mp_start_method", "pretrain_multipack_attn", "pretrain_multipack_buffer_size",
      "streaming_multipack_buffer_size", "min_sample_len", "excess_length_strategy", "curriculum_sampling",
      "multipack_real_batches", "batch_flattening", "pad_to_multiple_of", "pretraining_dataset", "streaming",
      "dataloader_num_workers", "dataloader_pin_memory", "dataloader_prefetch_factor", "dataloader_drop_last",
      "include_tokens_per_second", "include_tkps", "gc_steps", "gc_collect_steps", "profiler_steps",
      "ddp_timeout", "ddp_bucket_cap_mb_unused", "merge_lora", "merge_method", "fix_untrained_tokens",
      "shrink_embeddings", "embeddings_skip_upcast", "ray_num_workers", "use_ray", "flash_attn_cross_entropy",
      "fsdp_final_state_dict_type", "is_preprocess", "skip_prepare_dataset", "sequence_len_overflow_handling",
      "heads_k_stride", "ring_attn_func", "kd_trainer", "plugins_kwargs", "report_to", "run_name",
      "hf_use_auth_token", "neftune_noise_alpha", "gradient_checkpointing_kwargs", "bf16_full_eval",
      "base_model_ignore_patterns", "processor_type", "torch_empty_cache_steps"};
  return keys.count(k) > 0;
}

// attn_implementation (canonical names: utils/schemas/enums.py CANONICAL_ATTN_IMPLS; hub-kernel
// paths pass through) -> the document's attention kernel.
void read_attention(Reading& r, const std::string& k, const ConfigValue& v, const std::string& impl) {
  if (impl == "flash_attention_3" || impl.rfind("kernels-community/flash-attn3", 0) == 0 ||
      impl.rfind("kernels-community/vllm-flash-attn3", 0) == 0)
    r.read("attention", "flash3", k);
  else if (impl == "flash_attention_2" || impl.rfind("kernels-community/flash-attn", 0) == 0)
    r.read("attention", "flash", k);
  else if (impl == "sdpa") r.read("attention", "sdpa", k);
  else if (impl == "eager") r.read("attention", "eager", k);
  else r.unmodelled_key(k, v, "attention backend " + v.summary() + " is not one of flash, flash3, sdpa, eager");
}

// Legacy boolean attention flags and the backend each selects (enums.py LEGACY_ATTN_FLAG_TO_IMPL,
// in its priority order).
const std::vector<std::pair<std::string, std::string>>& legacy_attention_flags() {
  static const std::vector<std::pair<std::string, std::string>> flags = {
      {"xformers_attention", "xformers"}, {"sage_attention", "sage"},       {"flex_attention", "flex_attention"},
      {"flash_attention", "flash_attention_2"}, {"sdp_attention", "sdpa"}, {"eager_attention", "eager"}};
  return flags;
}

// axolotl's own optimizers (enums.py CustomSupportedOptimizers) with a document value.
std::string custom_optimizer(const std::string& name) {
  if (name == "ao_adamw_8bit") return "adamw_8bit";  // torchao AdamW8bit: 8-bit states (see read_hf_optim)
  return "";
}

}  // namespace

Reading read_axolotl_config(const std::string& file, const ConfigValue& c) {
  Reading r(file, "axolotl");
  auto has = [&](const char* k) {
    const ConfigValue* v = c.find(k);
    return v != nullptr && !v->is_null();
  };
  auto flag = [&](const char* k) {
    const ConfigValue* v = c.find(k);
    return v != nullptr && bool_value(*v).value_or(false);
  };
  std::vector<Reading> inline_deepspeed;
  r.trainer_default("framework", "hf_trainer", src("core/trainers/base.py", "AxolotlTrainer subclasses transformers.Trainer"));

  // The adapter decides which LoRA keys apply.
  std::string adapter;
  if (const ConfigValue* a = c.find("adapter"); a && !a->is_null()) adapter = lower(string_value(*a).value_or(""));
  const bool peft = adapter == "lora" || adapter == "qlora";
  const bool four_bit = flag("load_in_4bit"), eight_bit = flag("load_in_8bit");
  const bool qlora = adapter == "qlora" && four_bit;
  // loaders/model.py: adapter lora with load_in_8bit loads BitsAndBytesConfig(load_in_8bit=True).
  const bool int8_lora = adapter == "lora" && eight_bit;

  // Precision: utils/config/__init__.py resolve_dtype, then core/builders/base.py.
  const ConfigValue* bf16_value = c.find("bf16");
  const bool bf16_auto = !bf16_value || bf16_value->is_null() || is_auto(*bf16_value);
  bool fp16 = flag("fp16");
  bool bf16 = false, bf16_full = false;
  if (bf16_auto) {
    // bf16 "auto" (the default) turns bf16 on where the GPU supports it, unless fp16 is set.
    bf16 = !fp16;
  } else if (auto b = bool_value(*bf16_value)) {
    bf16 = *b;
  } else if (lower(string_value(*bf16_value).value_or("")) == "full") {
    bf16 = bf16_full = true;  // "full": bf16 with bf16_full_eval
  }
  if (bf16) fp16 = false;
  const bool bfloat16 = flag("bfloat16"), float16 = flag("float16");
  // Weights are loaded in torch_dtype (resolve_dtype).
  const std::string load_dtype = (bf16 || bfloat16) ? "bf16" : (eight_bit || fp16 || float16) ? "fp16" : "fp32";
  // TrainingArguments: bf16 = cfg.bf16 or cfg.bfloat16; fp16 = cfg.fp16 and not cfg.bf16 (base.py
  // _configure_precision_settings). Without either, the weights' own dtype computes.
  const std::string compute_dtype = (bf16 || bfloat16) ? "bf16" : fp16 ? "fp16" : load_dtype;

  // The key that decides both dtypes (resolve_dtype's order); empty: the bf16 "auto" default.
  std::string decider;
  if (bf16 && !bf16_auto) decider = "bf16";
  else if (bf16 && bfloat16) decider = "bfloat16";
  else if (!bf16) {
    for (const char* k : {"bfloat16", "fp16", "float16", "load_in_8bit"})
      if (flag(k)) { decider = k; break; }
    if (decider.empty()) decider = c.find("bf16") ? "bf16" : "";
  } else if (bf16_value && !bf16_value->is_null()) {
    decider = "bf16";
  }
  const std::string resolve_src = src("utils/config/__init__.py", "resolve_dtype");
  const std::string auto_why = "\"auto\": bf16 on a GPU with bf16 (Ampere and newer), fp16 on older ones; " + resolve_src;
  // loaders/model.py runs PEFT's prepare_model_for_kbit_training on a 4- or 8-bit base unless FSDP
  // or ZeRO-3 shard the model: it casts every 16-bit parameter left unquantized (embeddings, norms,
  // output head; peft src/peft/utils/other.py "cast all non INT8 parameters to fp32") to fp32, the
  // weights around the quantized linears then, which the document says as param_dtype fp32 under
  // the 16-bit compute dtype.
  const bool kbit_prepared = (qlora || int8_lora) && !has("fsdp") && !has("fsdp_config") && !has("deepspeed");
  const std::string prepare_src = src("loaders/model.py", "prepare_model_for_kbit_training (peft utils/other.py: non-quantized parameters to fp32)");
  if (decider.empty()) {
    if (kbit_prepared) r.trainer_default("precision.param_dtype", "fp32", prepare_src);
    else r.trainer_default("precision.param_dtype", "bf16", src("utils/schemas/config.py", "bf16 = \"auto\"") + ": " + auto_why);
    r.trainer_default("precision.compute_dtype", "bf16", src("utils/schemas/config.py", "bf16 = \"auto\"") + ": " + auto_why);
  } else {
    const std::string why = decider == "bf16" && bf16_auto ? " (" + auto_why + ")" : "";
    if (kbit_prepared) r.trainer_default("precision.param_dtype", "fp32", prepare_src);
    else r.fields.push_back({"precision.param_dtype", ConfigValue(load_dtype), "read from " + r.key(decider) + why, r.key(decider), Strength::read});
    r.fields.push_back({"precision.compute_dtype", ConfigValue(compute_dtype), "read from " + r.key(decider) + why, r.key(decider), Strength::read});
  }
  // Mixed precision (accelerate's mixed_precision, which its FSDP fp32 upcast follows) is on where
  // the trainer is given bf16 or fp16: core/builders/base.py _configure_precision_settings passes
  // bf16 = cfg.bf16 or cfg.bfloat16 and fp16 = cfg.fp16 and not cfg.bf16, but for bf16 "full" only
  // bf16_full_eval. 16-bit weights without it train as loaded, with no master copy.
  const bool mixed = (bf16 && !bf16_full) || bfloat16 || fp16;
  if (!mixed && !kbit_prepared && load_dtype != "fp32" && !has("deepspeed"))
    r.trainer_default("precision.master_weights", false,
                      src("core/builders/base.py", "_configure_precision_settings") + ": " +
                          (bf16_full ? "bf16 \"full\" passes bf16_full_eval alone" : "neither bf16 nor fp16 is passed") +
                          ": accelerate's mixed_precision \"no\", the 16-bit weights train as loaded");

  bool attention_given = false, optimizer_given = false, checkpointing_given = false;
  std::optional<std::int64_t> micro, batch_size;
  std::set<std::string> plugins;
  if (const ConfigValue* p = c.find("plugins"); p && p->is_array())
    for (const auto& e : p->as_array())
      if (auto s = string_value(e)) plugins.insert(*s);
  const bool cce_plugin = plugins.count("axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin") > 0;
  const bool liger_plugin = plugins.count("axolotl.integrations.liger.LigerPlugin") > 0;
  // LigerPlugin passes each liger_* flag to apply_liger_kernel_to_<model_type> (integrations/liger):
  // RMSNorm and the gated activation (liger_glu_activation, or its alias liger_swiglu: args.py)
  // together are the kernels use_liger_kernel prices.
  auto liger_flag = [&](const char* key) {
    const ConfigValue* x = c.find(key);
    return liger_plugin && x && bool_value(*x).value_or(false);
  };
  const bool liger_kernels = liger_flag("liger_rms_norm") && (liger_flag("liger_glu_activation") || liger_flag("liger_swiglu"));
  // GRPO with vLLM colocated in the training processes: axolotl core/trainers/grpo/__init__.py
  // set_training_args_kwargs passes trl.vllm_mode only when given, and trl.vllm_enable_sleep_mode
  // and vllm.gpu_memory_utilization only with trl.vllm_mode "colocate". Without a mode TRL's own
  // default decides: "colocate" in the TRL axolotl pins (pyproject.toml trl==1.8.0 @067b021;
  // trl/trainer/grpo_config.py at v1.8.0), with TRL's share 0.3 and no sleep mode.
  const ConfigValue* trl_section = c.find("trl");
  auto trl_value = [&](const char* key) -> const ConfigValue* {
    const ConfigValue* x = trl_section && trl_section->is_object() ? trl_section->find(key) : nullptr;
    return x && !x->is_null() ? x : nullptr;
  };
  const bool grpo_run = c.find("rl") && lower(string_value(*c.find("rl")).value_or("")) == "grpo";
  const std::string vllm_mode = trl_value("vllm_mode") ? lower(string_value(*trl_value("vllm_mode")).value_or("")) : "";
  const bool vllm_colocated = grpo_run && trl_value("use_vllm") && bool_value(*trl_value("use_vllm")).value_or(false) &&
                              (vllm_mode.empty() || vllm_mode == "colocate");
  const bool vllm_settings_passed = vllm_colocated && vllm_mode == "colocate";
  const char* const kVllmSettingsNotPassed =
      "axolotl passes it to TRL only with trl.vllm_mode: colocate (core/trainers/grpo/__init__.py); TRL's default applies";
  // activation_offloading: "" when off; "hidden_states", "legacy", "disk" or "true".
  std::string offloading;
  if (const ConfigValue* a = c.find("activation_offloading"); a && !a->is_null()) {
    if (auto b = bool_value(*a)) offloading = *b ? "true" : "";
    else offloading = lower(string_value(*a).value_or(""));
  }
  std::string attention_legacy;
  for (const auto& [f, impl] : legacy_attention_flags())
    if (flag(f.c_str()) && attention_legacy.empty()) attention_legacy = f;

  // The keys that set memory, for a near miss's suggestion; the first few unknown keys get one, so
  // the work stays linear in the file's keys.
  static const std::vector<std::string> kMemoryKeys = {
      "base_model", "micro_batch_size", "gradient_accumulation_steps", "sequence_len", "adapter", "lora_r", "lora_target_modules",
      "lora_target_linear", "load_in_4bit", "load_in_8bit", "gradient_checkpointing", "bf16", "fp16", "optimizer", "deepspeed",
      "fsdp", "fsdp_config", "sample_packing", "flash_attention", "sdp_attention", "torch_dtype", "chunked_cross_entropy",
      "context_parallel_size", "tensor_parallel_size", "dp_shard_size", "sequence_parallel_degree"};
  int suggestions_left = 16;
  for (const auto& [name, v] : c.as_object()) {
    const std::string& k = name;
    if (v.is_null()) {
      r.ignore(k, v, "null: the default applies");
      continue;
    }
    if (name == "base_model") {
      if (auto id = string_value(v)) r.name_model(*id, k);
      else r.error(error_code::wrong_type, k, "expected a model id, got " + v.summary());
    } else if (name == "base_model_config") {
      r.ignore(k, v, "where the model's config.json is read from; give that config.json beside the files to use it");
    } else if (name == "micro_batch_size") {
      micro = positive_integer(r, k, v);
      if (micro) r.read("batch.micro_batch_size", *micro, k);
    } else if (name == "gradient_accumulation_steps") {
      if (auto n = positive_integer(r, k, v)) r.read("batch.gradient_accumulation_steps", *n, k);
    } else if (name == "batch_size") {
      batch_size = positive_integer(r, k, v);
    } else if (name == "sequence_len") {
      if (auto n = positive_integer(r, k, v)) r.read("batch.seq_length", *n, k);
    } else if (name == "sample_packing" || name == "pad_to_sequence_len") {
      if (const auto on = boolean(r, k, v))
        r.ignore(k, v, *on ? "every sequence at sequence_len tokens, packed or padded"
                           : "off (batch.padding follows sample_packing, pad_to_sequence_len and reward_model)");
    } else if (name == "adapter") {
      // utils/schemas/config.py: adapter is a string or null; another type is an error, not "no adapter".
      if (!v.is_null() && !string_value(v)) r.error(error_code::wrong_type, k, "expected lora or qlora, got " + v.summary());
      else if (adapter.empty()) r.ignore(k, v, "no adapter: full fine-tuning");
      else if (!peft) r.unmodelled_key(k, v, "adapter " + v.summary() + " is not modelled (lora and qlora are)");
      else if (adapter == "qlora" && !four_bit) r.error(error_code::inconsistent, k, "qlora needs load_in_4bit: true (axolotl loaders/model.py quantizes only then)",
                                                                    {{"reason", "qlora_needs_4bit"}});
    } else if (name == "load_in_4bit") {
      if (auto b = boolean(r, k, v); b && !*b) r.ignore(k, v, "off");
      else if (b && adapter != "qlora") r.unmodelled_key(k, v, "4-bit base weights without adapter: qlora are not modelled");
    } else if (name == "load_in_8bit") {
      if (auto b = boolean(r, k, v); b && !*b) r.ignore(k, v, "off");
      else if (b && adapter == "qlora") r.error(error_code::inconsistent, k, "adapter qlora cannot load in 8 bits (axolotl utils/schemas/peft.py "
                                                                          "validate_qlora: \"Can't load qlora in 8bit\"); use adapter lora for an 8-bit base",
                                                  {{"reason", "qlora_in_8bit"}});
      else if (b && !int8_lora) r.unmodelled_key(k, v, "8-bit base weights without adapter: lora are not modelled (loaders/model.py quantizes to 8 bits only under a LoRA adapter)");
    } else if (name == "lora_r" || name == "lora_dropout" || name == "lora_target_modules" || name == "lora_target_linear" ||
               name == "lora_modules_to_save" || name == "peft_use_dora" || name == "peft_layers_to_transform") {
      if (!peft) {
        r.ignore(k, v, "no LoRA adapter: LoRA settings do not apply");
      } else if (name == "lora_r") {
        if (auto n = positive_integer(r, k, v)) r.read("lora.r", *n, k);
      } else if (name == "lora_dropout") {
        if (auto d = typed<double>(r, k, v, number_value, "a number")) r.read("lora.lora_dropout", *d, k);
      } else if (name == "lora_target_linear") {
        // loaders/adapter.py: every linear layer but the output head (find_all_linear_names), with
        // lora_target_modules added: PEFT's "all-linear".
        if (auto b = boolean(r, k, v); b && *b) r.read("lora.target_modules", "all-linear", k);
        else if (b) r.ignore(k, v, "off");
      } else if (name == "lora_target_modules") {
        if (flag("lora_target_linear")) r.ignore(k, v, "included in lora_target_linear's every linear layer");
        else if (v.is_string()) r.read("lora.target_modules", v.as_string(), k);
        else if (v.is_array() && !v.as_array().empty() &&
                 std::all_of(v.as_array().begin(), v.as_array().end(), [](const ConfigValue& e) { return e.is_string(); }))
          r.read("lora.target_modules", v, k);
        else r.error(error_code::wrong_type, k, "expected module names or a regex, got " + v.summary());
      } else if (name == "lora_modules_to_save") {
        if (v.is_array()) r.read("lora.modules_to_save", v, k);
        else r.error(error_code::wrong_type, k, "expected a list of module names, got " + v.summary());
      } else if (name == "peft_use_dora") {
        if (auto b = boolean(r, k, v)) r.read("lora.use_dora", *b, k);
      } else {
        if (v.is_array()) r.read("lora.layers_to_transform", v, k);
        else r.error(error_code::wrong_type, k, "expected a list of layer indices, got " + v.summary());
      }
    } else if (name == "lora_target_parameters") {
      r.unmodelled_key(k, v, "LoRA on parameters (MoE experts) is not modelled");
    } else if (name == "peft_autocast_adapter_dtype") {
      // Over an 8-bit base PEFT leaves the adapters in fp32 either way: bitsandbytes' int8 weights
      // carry no compute dtype to move them to (huggingface/peft#2893, v0.19.0).
      if (auto b = boolean(r, k, v); b && int8_lora && !*b && !has("deepspeed"))
        r.fields.push_back({"lora.adapter_dtype", ConfigValue("fp32"),
                            "read from " + r.key(k) + " (no upcast asked, but PEFT keeps adapters over an 8-bit base in fp32: huggingface/peft#2893)",
                            r.key(k), Strength::read});
      else if (b && peft) r.read("lora.adapter_dtype", *b ? "fp32" : load_dtype, k);
      else if (b) r.ignore(k, v, "no LoRA adapter");
    } else if (name == "bnb_config_kwargs") {
      r.unmodelled_key(k, v, "BitsAndBytesConfig overrides: the estimate keeps axolotl's nf4 with double quantization");
    } else if (name == "bf16" || name == "fp16" || name == "bfloat16" || name == "float16" || name == "float32") {
      auto b = bool_value(v);
      const bool auto_or_full = is_auto(v) || lower(string_value(v).value_or("")) == "full";
      if (!b && !(name == "bf16" && auto_or_full)) r.error(error_code::wrong_type, k, "expected true or false" + std::string(name == "bf16" ? ", auto or full" : "") + ", got " + v.summary());
      else if (name == decider) continue;  // cited by the dtypes it decided
      else if (b && !*b) r.ignore(k, v, "off");
      else r.ignore(k, v, (decider.empty() ? std::string("bf16") : decider) + " decides the dtype (resolve_dtype)");
    } else if (name == "gradient_checkpointing" && !offloading.empty() && offloading != "hidden_states") {
      // core/builders/base.py: with activation offloading the HF Trainer's checkpointing is off and
      // loaders/model.py decides recompute.
      r.ignore(k, v, "activation_offloading decides recompute (core/builders/base.py, loaders/model.py)");
    } else if (name == "gradient_checkpointing") {
      checkpointing_given = true;
      auto b = bool_value(v);
      const std::string mode = lower(string_value(v).value_or(""));
      // Off, transformers' checkpointing is off; accelerate's FSDP fsdp_activation_checkpointing
      // applies its own (FullyShardedDataParallelPlugin.activation_checkpointing), which a stated
      // true overrides (the dbrx examples pair them: "don't use with fsdp_activation_checkpointing").
      if (b && !*b) r.read_yielding("activation_checkpointing", "none", k);
      else if (b) r.read("activation_checkpointing", "full", k);
      else if (mode == "offload" || mode == "offload_disk") {
        // utils/schemas/validation.py: gradient_checkpointing true with activation_offloading true
        // (or "disk"); recompute stays on (see activation_offloading below).
        r.read("activation_checkpointing", "full", k);
        r.read("activation_offload", true, k);
      } else r.error(error_code::unknown_value, k, "expected true, false, offload or offload_disk, got " + v.summary());
    } else if (name == "activation_offloading") {
      auto b = bool_value(v);
      const std::string mode = lower(string_value(v).value_or(""));
      if (b && !*b) r.ignore(k, v, "off");
      else if (b || mode == "legacy" || mode == "disk" || mode == "hidden_states") {
        // activation_offloading requires gradient_checkpointing (utils/schemas/validation.py
        // check_activation_offloading_wo_gc). builders/base.py then turns the HF Trainer's
        // checkpointing off ("TRL offloader replaces HF recompute") and a full run gets its
        // recompute back from loaders/model.py _apply_activation_checkpointing, but the model's own
        // checkpointing stays on for LoRA/QLoRA too: loaders/model.py _configure_embedding_dtypes
        // calls model.gradient_checkpointing_enable() for a lora/qlora adapter whenever
        // cfg.gradient_checkpointing is set (as prepare_model_for_kbit_training does for a k-bit
        // base), and the Trainer never disables it. Recompute with the layer inputs offloaded.
        r.read("activation_offload", true, k);
        r.read("activation_checkpointing", "full", k);
      } else r.error(error_code::unknown_value, k, "expected true, false, legacy, disk or hidden_states, got " + v.summary());
    } else if (name == "attn_implementation") {
      attention_given = true;
      if (auto s = string_value(v)) read_attention(r, k, v, *s);
      else r.error(error_code::wrong_type, k, "expected a backend name, got " + v.summary());
    } else if (std::any_of(legacy_attention_flags().begin(), legacy_attention_flags().end(),
                           [&](const auto& f) { return f.first == k; })) {
      if (!bool_value(v).value_or(false)) r.ignore(k, v, "off");
      else if (c.find("attn_implementation") && !c.find("attn_implementation")->is_null())
        r.error(error_code::inconsistent, k, "cannot be combined with attn_implementation (utils/schemas/config.py normalize_attn_implementation)",
                {{"reason", "legacy_attention_with_attn_implementation"}});
      else if (name != attention_legacy) r.ignore(k, v, "a more specific legacy attention flag takes precedence (enums.py LEGACY_ATTN_FLAG_TO_IMPL)");
      else {
        attention_given = true;
        for (const auto& [f, impl] : legacy_attention_flags())
          if (f == name) read_attention(r, k, v, impl);
      }
    } else if (name == "optimizer") {
      optimizer_given = true;
      const std::string o = lower(string_value(v).value_or(""));
      if (!hf_optimizer(o).empty()) read_hf_optim(r, k, v);
      else if (!custom_optimizer(o).empty()) {
        r.read("precision.optimizer", custom_optimizer(o), k);
        note_torchao_8bit(r, k, v);
      }
      else r.unmodelled_key(k, v, "optimizer " + v.summary() + " has no estimate value (adamw, 8-bit and paged AdamW, adafactor, sgd, lion are modelled)");
    } else if (name == "torch_compile") {
      if (is_auto(v)) r.unresolved_key(k, v, "\"auto\": compiled when the installed torch supports it (core/builders/base.py)");
      else if (auto b = boolean(r, k, v)) r.read("compile", *b, k);
    } else if (name == "torch_compile_backend" || name == "torch_compile_mode" || name == "torch_compile_options") {
      const ConfigValue* compile = c.find("torch_compile");
      const bool compiled = compile && (is_auto(*compile) || bool_value(*compile).value_or(false));
      const auto mode = string_value(v);
      if (!compiled) r.ignore(k, v, "used with torch_compile only, which is off");
      else if (name == "torch_compile_mode" && mode && (*mode == "reduce-overhead" || *mode == "max-autotune"))
        r.unmodelled_key(k, v, "this mode captures CUDA graphs, whose private memory pool is not modelled");
      else r.ignore(k, v, "no memory effect the estimate models");
    } else if (name == "fp8") {
      if (auto b = boolean(r, k, v)) r.read("precision.fp8_compute", *b, k);
    } else if (name == "chunked_cross_entropy") {
      if (auto b = boolean(r, k, v); b && *b) r.read("loss.implementation", "chunked", k);
      else if (b) r.ignore(k, v, "off");
    } else if (name == "chunked_cross_entropy_num_chunks") {
      if (!flag("chunked_cross_entropy")) r.ignore(k, v, "used with chunked_cross_entropy only");
      else if (auto n = positive_integer(r, k, v)) r.read("loss.num_chunks", *n, k);
    } else if (name == "plugins") {
      for (const auto& p : plugins)
        if (p != "axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin" && p != "axolotl.integrations.liger.LigerPlugin")
          r.unmodelled_key(k, p, "plugin " + p + " is not modelled");
      if (!v.is_array()) r.error(error_code::wrong_type, k, "expected a list of plugin classes, got " + v.summary());
      else if (cce_plugin && !c.find("cut_cross_entropy"))
        // integrations/cut_cross_entropy/args.py: cut_cross_entropy defaults to True with the plugin.
        r.fields.push_back({"loss.implementation", ConfigValue("fused"),
                            "read from " + r.key(k) + " (CutCrossEntropyPlugin: cut_cross_entropy defaults to true, " + kAxolotl +
                                " integrations/cut_cross_entropy/args.py)",
                            r.key(k), Strength::read});
      else r.ignore(k, v, "each plugin's own keys say what it changes");
    } else if (name == "cut_cross_entropy") {
      if (!cce_plugin) r.ignore(k, v, "read by CutCrossEntropyPlugin only, which plugins does not list");
      else if (auto b = boolean(r, k, v); b && *b) r.read("loss.implementation", "fused", k);
      else if (b) r.ignore(k, v, "off");
    } else if (name.rfind("liger_", 0) == 0) {
      if (!liger_plugin) r.ignore(k, v, "read by LigerPlugin only, which plugins does not list");
      else if (name == "liger_fused_linear_cross_entropy") {
        // Liger's fused linear cross-entropy never materialises the full logits.
        if (auto b = boolean(r, k, v); b && *b) r.read("loss.implementation", "fused", k);
        else if (b) r.ignore(k, v, "off");
      } else if (name == "liger_cross_entropy") {
        r.unmodelled_key(k, v, "Liger's cross-entropy kernel (on materialised logits) saves the loss's fp32 copy; not modelled");
      } else if (!bool_value(v).value_or(false)) {
        r.ignore(k, v, "off");
      } else if (liger_kernels && (name == "liger_rms_norm" || name == "liger_glu_activation" || name == "liger_swiglu")) {
        r.read("use_liger_kernel", true, k);
      } else if (name == "liger_rope") {
        r.ignore(k, v, "RoPE keeps only its cos and sin tables, fused or not");
      } else {
        r.unmodelled_key(k, v, "Liger's fused RMSNorm or gated activation alone (the estimate prices them together), or its LayerNorm, saves fewer activations than the estimate assumes");
      }
    } else if (name == "deepspeed") {
      read_deepspeed_key(r, k, v, inline_deepspeed);
    } else if (name == "fsdp") {
      // Deprecated list form ("full_shard", "auto_wrap", "offload"): TrainingArguments.fsdp as given.
      read_fsdp_option(r, k, v);
    } else if (name == "fsdp_config") {
      // base.py: TrainingArguments(fsdp_config=..., fsdp=cfg.fsdp or True); transformers reads a
      // bare True as FULL_SHARD.
      read_fsdp_config_key(r, k, v);
      if (!has("fsdp")) r.trainer_default("parallel.zero_stage", 3, "transformers TrainingArguments fsdp=True (axolotl core/builders/base.py): FULL_SHARD");
      if (!has("fsdp_version") && !(v.is_object() && (v.find("fsdp_version") || v.find("version"))))
        r.trainer_default("parallel.sharding_engine", "fsdp", src("utils/schemas/validation.py", "_resolve_fsdp_version: 1"));
    } else if (name == "fsdp_version") {
      auto n = typed<std::int64_t>(r, k, v, integer_value, "1 or 2");
      if (n && (*n == 1 || *n == 2)) r.read("parallel.sharding_engine", *n == 2 ? "fsdp2" : "fsdp", k);
      else if (n) r.error(error_code::unknown_value, k, "expected 1 or 2, got " + v.summary());
    } else if (name == "context_parallel_size" || name == "sequence_parallel_degree") {
      if (auto n = positive_integer(r, k, v)) r.read("parallel.context_parallel_size", *n, k);
    } else if (name == "tensor_parallel_size") {
      if (auto n = positive_integer(r, k, v)) r.read("parallel.tensor_parallel_size", *n, k);
    } else if (name == "dp_shard_size") {
      // HSDP: shard within dp_shard_size ranks, replicate across dp_replicate_size groups.
      auto n = positive_integer(r, k, v);
      if (n && *n > 1 && has("dp_replicate_size")) r.read("parallel.sharding_group_size", *n, k);
      else if (n) r.ignore(k, v, "shards across every data-parallel GPU, as without it");
    } else if (name == "dp_replicate_size") {
      r.ignore(k, v, "the replicas of dp_shard_size groups: the GPU count is the launcher's");
    } else if (name == "save_total_limit") {
      if (auto n = positive_integer(r, k, v)) r.read("checkpoint.keep_last", *n, k);
    } else if (name == "rl") {
      const std::string rl = lower(string_value(v).value_or(""));
      if (rl == "dpo" || rl == "ipo") {
        // TRL's DPOTrainer (IPO is its loss_type); a PEFT policy scores the reference with its
        // adapters disabled, otherwise a frozen copy is the reference (TRL dpo_trainer.py).
        r.read("rlhf.algorithm", "dpo", k);
        r.trainer_default("rlhf.reference.method", peft ? "shared_base" : "frozen",
                          peft ? "TRL dpo_trainer.py: a PEFT model's reference is its base with adapters disabled"
                               : "TRL dpo_trainer.py: a frozen copy of the model is the reference");
      } else if (rl == "grpo") {
        r.read("rlhf.algorithm", "grpo", k);
      } else {
        r.unmodelled_key(k, v, "RL trainer " + v.summary() + " is estimated as supervised fine-tuning (its paired sequences or extra models are not modelled)");
      }
    } else if (name == "trl") {
      const bool grpo = lower(c.find("rl") ? string_value(*c.find("rl")).value_or("") : "") == "grpo";
      if (!v.is_object()) {
        r.error(error_code::wrong_type, k, "expected a mapping of TRL settings, got " + v.summary());
      } else {
        for (const auto& [sub, sv] : v.as_object()) {
          const std::string sk = k + "." + sub;
          if (sv.is_null()) r.ignore(sk, sv, "null: the default applies");
          else if (grpo && sub == "num_generations") { if (auto n = positive_integer(r, sk, sv)) r.read("rlhf.rollout.num_generations", *n, sk); }
          else if (grpo && sub == "max_completion_length") { if (auto n = positive_integer(r, sk, sv)) r.read("rlhf.rollout.max_new_tokens", *n, sk); }
          else if (grpo && sub == "beta") {
            // TRL grpo_trainer.py: beta 0.0 loads no reference; above it a PEFT policy's reference
            // is its base with adapters disabled, a full policy's a frozen copy.
            const bool kl = number_value(sv).value_or(0.0) != 0.0;
            r.read("rlhf.reference.method", !kl ? "none" : peft ? "shared_base" : "frozen", sk);
          }
          else if (grpo && sub == "use_vllm") {
            if (auto b = boolean(r, sk, sv)) {
              if (!*b || !vllm_mode.empty()) r.read("rlhf.rollout.colocated", !*b || vllm_colocated, sk);
              else r.trainer_default("rlhf.rollout.colocated", true, "TRL 1.8.0 trl/trainer/grpo_config.py vllm_mode = \"colocate\" (axolotl passes no trl.vllm_mode)");
              if (*b && vllm_colocated) r.read("rlhf.rollout.use_vllm", true, sk);  // a server's vLLM is not on these GPUs
            }
          }
          else if (grpo && sub == "vllm_mode") {
            // utils/schemas/trl.py: Literal["server", "colocate"]; it decides where vLLM runs (read with use_vllm).
            const std::string m = lower(string_value(sv).value_or(""));
            if (m != "server" && m != "colocate") r.error(error_code::unknown_value, sk, "expected server or colocate, got " + sv.summary());
          }
          else if (grpo && sub == "vllm_enable_sleep_mode" && vllm_settings_passed) { if (auto b = boolean(r, sk, sv)) r.read("rlhf.rollout.vllm_enable_sleep_mode", *b, sk); }
          else if (grpo && sub == "vllm_enable_sleep_mode" && vllm_colocated) r.ignore(sk, sv, kVllmSettingsNotPassed);
          else r.ignore(sk, sv, grpo ? "generation or loss setting without memory effect" : "no memory effect for this trainer");
        }
      }
    } else if (name == "vllm" && v.is_object()) {
      for (const auto& [sub, sv] : v.as_object()) {
        const std::string sk = k + "." + sub;
        if (vllm_settings_passed && sub == "gpu_memory_utilization" && !sv.is_null()) {
          if (auto u = typed<double>(r, sk, sv, number_value, "a number")) r.read("rlhf.rollout.vllm_gpu_memory_utilization", *u, sk);
        } else if (vllm_colocated && sub == "gpu_memory_utilization") {
          r.ignore(sk, sv, kVllmSettingsNotPassed);
        } else {
          r.ignore(sk, sv, vllm_colocated ? "no memory effect on the training GPUs" : "settings of a vLLM server (axolotl vllm-serve), not of the training GPUs");
        }
      }
    } else if (name == "reward_model" || name == "process_reward_model") {
      if (auto b = boolean(r, k, v); b && *b) r.unmodelled_key(k, v, "reward-model training (a scalar head over paired sequences) is estimated as supervised fine-tuning");
      else if (b) r.ignore(k, v, "off");
    } else if (name == "unfrozen_parameters") {
      r.unmodelled_key(k, v, "trains only parameters matching these patterns: the estimate trains all of them");
    } else if (name == "tiled_mlp" || name == "tiled_mlp_num_shards" || name == "tiled_mlp_use_original_mlp") {
      r.unmodelled_key(k, v, "ALST tiled MLP computes the MLP in sequence shards: its smaller transient activations are not modelled");
    } else if (name == "lora_mlp_kernel" || name == "lora_qkv_kernel" || name == "lora_o_kernel" || name == "lora_embedding_kernel") {
      if (!bool_value(v).value_or(false)) r.ignore(k, v, "off");
      else r.unmodelled_key(k, v, "axolotl's LoRA autograd kernels save fewer activations than the estimate assumes");
    } else if (name == "layer_offloading") {
      if (!bool_value(v).value_or(false)) r.ignore(k, v, "off");
      else r.unmodelled_key(k, v, "layer parameters offloaded to the CPU between forward and backward");
    } else if (name == "expert_parallel_size" || name == "use_scattermoe" || name == "use_sonicmoe" ||
               name == "fp8_enable_fsdp_float8_all_gather" || name == "relora_cpu_offload" ||
               name == "relora" || name == "lisa_n_layers" || name == "gptq" || name == "qat" || name == "quantization" ||
               name == "quantize_moe_experts" || name == "selective_checkpointing" || name == "fp32_norms" ||
               name == "experts_implementation" || name == "deepcompile" || name == "llama4_linearized_experts" ||
               name == "sdpa_varlen" || name == "large_head_attention" || name == "ddp_find_unused_parameters" ||
               name == "ddp_bucket_cap_mb" || name == "device_map" || name == "max_memory" || name == "lora_on_cpu" ||
               name == "freeze_mm_modules" || name == "use_eaft") {
      if (v.is_bool() && !v.as_bool()) r.ignore(k, v, "off");
      else r.unmodelled_key(k, v, "affects memory; the estimate has no field for it");
    } else if (no_memory_effect(name)) {
      r.ignore(k, v, "no memory effect");
    } else if (const std::string near = suggestions_left > 0 ? (--suggestions_left, closest_match(name, kMemoryKeys)) : std::string();
               !near.empty()) {
      // A near miss of a key that sets memory (micro_batch vs micro_batch_size) leaves that key at
      // its default: a warning naming it, never silence.
      r.unmodelled_key(k, v, "not a key axolotl's schema defines (" + std::string(kAxolotl) + " utils/schemas/config.py); did you mean " +
                                 near + "? Its value is not read");
    } else {
      r.ignore(k, v, std::string("not a key this reader maps; assumed without memory effect (") + kAxolotl + " utils/schemas/config.py)");
    }
  }

  // Defaults where the file is silent (utils/schemas/*.py at 0.18.0).
  if (!has("micro_batch_size")) r.trainer_default("batch.micro_batch_size", 1, src("utils/schemas/training.py", "micro_batch_size = 1"));
  if (!has("gradient_accumulation_steps")) {
    if (batch_size && micro)
      r.fields.push_back({"batch.gradient_accumulation_steps", ConfigValue(*batch_size / *micro),
                          "read from " + r.key("batch_size") + " (batch_size / micro_batch_size, " + kAxolotl + " utils/config/__init__.py normalize_config)",
                          r.key("batch_size"), Strength::read});
    else r.trainer_default("batch.gradient_accumulation_steps", 1, src("utils/schemas/training.py", "gradient_accumulation_steps = 1"));
  } else if (batch_size) {
    r.ignore("batch_size", *batch_size, "gradient_accumulation_steps is given");
  }
  if (!has("sequence_len")) r.trainer_default("batch.seq_length", 512, src("utils/schemas/config.py", "sequence_len = 512"));
  // core/builders/causal.py: the collator pads each batch to its longest sample (padding=True, to a
  // multiple of 64) unless pad_to_sequence_len pads it to sequence_len, which sample_packing and
  // reward_model turn on (utils/schemas/validation.py).
  if (!flag("sample_packing") && !flag("pad_to_sequence_len") && !flag("reward_model"))
    r.trainer_default("batch.padding", "longest", src("core/builders/causal.py", "collator padding=True: each batch padded to its longest sample"));
  if (!checkpointing_given && offloading.empty())
    r.trainer_default("activation_checkpointing", "none", src("utils/schemas/config.py", "gradient_checkpointing = False"));
  if (!optimizer_given) {
    r.trainer_default("precision.optimizer", "adamw", src("utils/schemas/training.py", "optimizer = adamw_torch_fused"));
    r.trainer_default("precision.optimizer_implementation", "fused", src("utils/schemas/training.py", "optimizer = adamw_torch_fused"));
  }
  if (!attention_given && attention_legacy.empty())
    r.trainer_default("attention", "sdpa", "transformers picks sdpa when axolotl's attn_implementation is None");
  if (flag("chunked_cross_entropy") && !has("chunked_cross_entropy_num_chunks"))
    r.trainer_default("loss.num_chunks", 8, src("monkeypatch/loss/chunked.py", "num_output_chunks = 8"));

  // Method and adapter settings.
  if (qlora) {
    r.fields.push_back({"method", ConfigValue("qlora"), "read from " + r.key("adapter") + " and " + r.key("load_in_4bit"), r.key("adapter"), Strength::read});
    // loaders/model.py: BitsAndBytesConfig(bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True).
    r.trainer_default("qlora.quant_type", "nf4", src("loaders/model.py", "bnb_4bit_quant_type = \"nf4\""));
    r.trainer_default("qlora.double_quant", true, src("loaders/model.py", "bnb_4bit_use_double_quant = True"));
  } else if (int8_lora) {
    r.fields.push_back({"method", ConfigValue("qlora"), "read from " + r.key("adapter") + " and " + r.key("load_in_8bit"), r.key("adapter"), Strength::read});
    r.read("qlora.quant_type", "int8", "load_in_8bit");
  } else if (adapter == "lora") {
    r.read("method", "lora", "adapter");
  }
  if (peft) {
    if (!has("lora_dropout")) r.trainer_default("lora.lora_dropout", 0.0, src("utils/schemas/peft.py", "lora_dropout = 0.0"));
    // Under DeepSpeed the engine's casts decide (import_configs.cpp).
    if (!has("peft_autocast_adapter_dtype") && !has("deepspeed"))
      r.trainer_default("lora.adapter_dtype", "fp32", "peft get_peft_model autocast_adapter_dtype=True (axolotl loaders/adapter.py passes it only when peft_autocast_adapter_dtype is set)");
  }

  // Liger's kernels without its fused loss: the model's own loss (use_liger_kernel would default
  // to the fused one).
  if (liger_kernels && !liger_flag("liger_fused_linear_cross_entropy"))
    r.trainer_default("loss.implementation", "full", src("integrations/liger/args.py", "liger_fused_linear_cross_entropy unset: the model's own loss"));

  // GRPO rollouts where axolotl's trl section is silent: the defaults of the TRL axolotl pins
  // (pyproject.toml trl==1.8.0 @067b021; TRL raised max_completion_length to 512 after 1.9).
  if (grpo_run) {
    if (!trl_value("num_generations")) r.trainer_default("rlhf.rollout.num_generations", 8, "TRL 1.8.0 trl/trainer/grpo_config.py num_generations = 8");
    if (!trl_value("max_completion_length")) r.trainer_default("rlhf.rollout.max_new_tokens", 256, "TRL 1.8.0 trl/trainer/grpo_config.py max_completion_length = 256");
    if (!trl_value("use_vllm")) r.trainer_default("rlhf.rollout.colocated", true, src("utils/schemas/trl.py", "use_vllm = False: generation runs on the training GPUs"));
    if (!trl_value("beta")) r.trainer_default("rlhf.reference.method", "none", "TRL 1.8.0 trl/trainer/grpo_config.py beta = 0.0: no reference model is loaded");
    const ConfigValue* vllm = c.find("vllm");
    const bool utilization_given = vllm && vllm->is_object() && vllm->find("gpu_memory_utilization") && !vllm->find("gpu_memory_utilization")->is_null();
    if (vllm_settings_passed && !utilization_given)
      r.trainer_default("rlhf.rollout.vllm_gpu_memory_utilization", 0.9, src("utils/schemas/vllm.py", "VllmConfig.gpu_memory_utilization = 0.9, passed to TRL for vllm_mode colocate"));
    else if (vllm_colocated && !vllm_settings_passed)
      r.trainer_default("rlhf.rollout.vllm_gpu_memory_utilization", 0.3, "TRL 1.8.0 trl/trainer/grpo_config.py vllm_gpu_memory_utilization = 0.3 (axolotl passes vllm.gpu_memory_utilization only with trl.vllm_mode: colocate)");
  }

  for (const auto& d : inline_deepspeed) absorb(r, d);
  return r;
}

}  // namespace trainmem::import_detail
