// Hugging Face TrainingArguments and TRL configs (SFTConfig, DPOConfig, GRPOConfig with TRL's
// ModelConfig), as a YAML/JSON file or as a command line's flags -> estimate document fields.
// Meanings and defaults: transformers src/transformers/training_args.py (huggingface/transformers
// 00349ae), TRL 1.10.0.dev0 (huggingface/trl f2cd577) trl/trainer/base_config.py, sft_config.py,
// dpo_config.py, grpo_config.py, model_config.py and trl/trainer/dpo_trainer.py.
#include <algorithm>
#include <cctype>
#include <set>

#include "hf_argument_fields.hpp"
#include "reading.hpp"
#include "trainmem/errors.hpp"

namespace trainmem::import_detail {

namespace {

constexpr const char* kHf = "transformers training_args.py (00349ae)";
constexpr const char* kTrlBase = "TRL 1.10 trl/trainer/base_config.py";
constexpr const char* kTrlModel = "TRL 1.10 trl/trainer/model_config.py ModelConfig";

enum class Trainer { hf, sft, dpo, grpo, other_trl };

// Which trainer a script or a file's keys mean. `script` is the program of a command line
// ("trl/scripts/dpo.py", "trl dpo") or empty for a file.
Trainer trainer_of(const std::string& script, const ConfigValue& args, std::string& other_name) {
  const std::string s = lower(script);
  auto base = s.substr(s.find_last_of("/ ") == std::string::npos ? 0 : s.find_last_of("/ ") + 1);
  if (base.size() > 3 && base.substr(base.size() - 3) == ".py") base = base.substr(0, base.size() - 3);
  if (!base.empty()) {
    if (base.rfind("sft", 0) == 0) return Trainer::sft;
    if (base == "dpo" || base.rfind("dpo_", 0) == 0) return Trainer::dpo;
    if (base == "grpo" || base.rfind("grpo_", 0) == 0) return Trainer::grpo;
    const bool trl_program = s.find("trl") != std::string::npos;
    if (trl_program) {
      other_name = base;
      return Trainer::other_trl;
    }
  }
  if (args.find("num_generations") || args.find("max_completion_length")) return Trainer::grpo;  // use_vllm: also online DPO, RLOO, NashMD
  if (args.find("beta") && (args.find("max_prompt_length") || args.find("loss_type") || args.find("precompute_ref_log_probs")))
    return Trainer::dpo;
  // Keys only TRL's SFTConfig and ModelConfig define. A script of its own (train.py) that passes
  // model_name_or_path, max_seq_length, lora_r or load_in_4bit is as often a plain
  // transformers.Trainer over its own dataclasses (tatsu-lab/stanford_alpaca train.py, c8ea92b:
  // ModelArguments.model_name_or_path, HfArgumentParser((ModelArguments, DataArguments,
  // TrainingArguments)), Trainer(...)); only a file without a program takes those as TRL's.
  for (const char* k : {"use_peft", "packing", "dataset_mixture", "dataset_text_field"})
    if (args.find(k)) return Trainer::sft;
  if (!base.empty()) return Trainer::hf;
  for (const char* k : {"model_name_or_path", "max_seq_length", "max_length", "dataset_name", "lora_r", "load_in_4bit"})
    if (args.find(k)) return Trainer::sft;
  return Trainer::hf;
}

const char* trainer_label(Trainer t) {
  switch (t) {
    case Trainer::hf: return "HF TrainingArguments";
    case Trainer::sft: return "TRL SFTConfig";
    case Trainer::dpo: return "TRL DPOConfig";
    case Trainer::grpo: return "TRL GRPOConfig";
    case Trainer::other_trl: return "TRL";
  }
  return "";
}

std::optional<std::string> dtype_name(const std::string& torch_dtype) {
  const std::string d = lower(torch_dtype);
  if (d == "bfloat16" || d == "bf16" || d == "torch.bfloat16") return "bf16";
  if (d == "float16" || d == "fp16" || d == "half" || d == "torch.float16") return "fp16";
  if (d == "float32" || d == "fp32" || d == "float" || d == "torch.float32") return "fp32";
  return std::nullopt;
}

// Keys with no effect on training memory (schedules, logging, saving, data, hub).
bool no_memory_effect(const std::string& k) {
  static const std::set<std::string> keys = {
      "output_dir", "overwrite_output_dir", "do_train", "do_eval", "do_predict", "eval_strategy", "evaluation_strategy",
      "eval_steps", "per_device_eval_batch_size", "eval_accumulation_steps", "eval_delay", "eval_on_start",
      "learning_rate", "weight_decay", "adam_beta1", "adam_beta2", "adam_epsilon", "max_grad_norm", "num_train_epochs",
      "max_steps", "lr_scheduler_type", "lr_scheduler_kwargs", "warmup_ratio", "warmup_steps", "log_level",
      "log_level_replica", "log_on_each_node", "logging_dir", "logging_strategy", "logging_first_step", "logging_steps",
      "logging_nan_inf_filter", "save_strategy", "save_steps", "save_on_each_node", "save_safetensors", "seed",
      "data_seed", "run_name", "report_to", "push_to_hub", "hub_model_id", "hub_strategy", "hub_token", "hub_private_repo",
      "hub_always_push", "hub_revision", "remove_unused_columns", "label_names", "load_best_model_at_end",
      "metric_for_best_model", "greater_is_better", "ignore_data_skip", "dataloader_num_workers",
      "dataloader_pin_memory", "dataloader_drop_last", "dataloader_persistent_workers", "dataloader_prefetch_factor",
      "disable_tqdm", "prediction_loss_only", "resume_from_checkpoint", "tf32", "local_rank", "ddp_backend",
      "ddp_timeout", "full_determinism", "dataset_name", "dataset_config", "dataset_train_split", "dataset_test_split",
      "dataset_mixture", "dataset_mixer", "dataset_splits", "dataset_num_proc", "dataset_kwargs", "dataset_text_field",
      "dataset_streaming", "chat_template", "chat_template_path", "eos_token", "pad_token", "model_revision",
      "trust_remote_code", "hub_model_revision", "neftune_noise_alpha", "label_smoothing_factor", "group_by_length",
      "length_column_name", "include_num_input_tokens_seen", "average_tokens_across_devices", "completion_only_loss",
      "assistant_only_loss", "lora_alpha", "use_rslora", "lora_task_type", "ignore_bias_buffers",
      "gradient_checkpointing_kwargs", "optim_args", "skip_memory_metrics", "use_cpu", "restore_callback_states_from_checkpoint",
      "torch_empty_cache_steps", "dataset_batch_size", "beta", "loss_type", "label_pad_token_id", "truncation_mode",
      "generate_during_eval", "rpo_alpha", "reference_free", "temperature", "top_p", "top_k", "min_p",
      "repetition_penalty", "reward_funcs", "reward_weights", "scale_rewards", "epsilon", "epsilon_high",
      "num_iterations", "log_completions", "sync_ref_model", "ref_model_mixup_alpha", "ref_model_sync_steps",
      "packing_strategy", "shuffle_dataset", "dataset_train_splits", "seed_everything", "logging_dir",
      "bf16_full_eval", "fp16_full_eval", "tokenizer_name_or_path", "add_special_tokens", "append_concat_token",
      "model_init_kwargs", "ref_model_init_kwargs", "use_logits_to_keep", "env", "max_prompt_length_eval",
      "hub_private", "save_only_model", "accelerator_config", "debug", "past_index", "batch_eval_metrics",
      "include_for_metrics", "eval_do_concat_batches", "use_legacy_prediction_loop", "auto_find_batch_size",
      "ray_scope", "torchdynamo", "include_inputs_for_metrics", "dispatch_batches", "split_batches", "jit_mode_eval",
      "fp16_opt_level", "half_precision_backend", "fp16_backend", "optim_target_modules", "lora_bias"};
  return keys.count(k) > 0;
}

// The dataclasses the trainer's parser fills: TrainingArguments alone for the HF Trainer; for a TRL
// trainer the dataclass_types of its script (trl/scripts/sft.py, dpo.py, grpo.py at f2cd577:
// ScriptArguments, the trainer's config, ModelConfig, DatasetMixtureConfig).
std::vector<const ArgumentClass*> parsed_classes(Trainer t) {
  std::vector<const ArgumentClass*> out;
  for (const auto& c : hf_argument_classes()) {
    const bool config = c.name == "SFTConfig" || c.name == "DPOConfig" || c.name == "GRPOConfig";
    bool take = c.name == "TrainingArguments";
    if (t != Trainer::hf && !config && !take) take = true;  // ScriptArguments, DatasetMixtureConfig, ModelConfig
    if (config)
      take = (t == Trainer::sft && c.name == "SFTConfig") || (t == Trainer::dpo && c.name == "DPOConfig") ||
             (t == Trainer::grpo && c.name == "GRPOConfig") || t == Trainer::other_trl;
    if (take) out.push_back(&c);
  }
  return out;
}

bool parsed_field(Trainer trainer, const std::string& name) {
  for (const ArgumentClass* c : parsed_classes(trainer))
    if (std::find(c->fields.begin(), c->fields.end(), name) != c->fields.end()) return true;
  return false;
}

// A key the reader does not map: a field of one of the parsed dataclasses has no memory effect the
// estimate models; a key none of them defines is what HfArgumentParser refuses (hf_argparser.py
// parse_dict / parse_args_into_dataclasses raise ValueError, TrlParser.parse_args_and_config too).
// A TRL command line is parsed by exactly these dataclasses: its unknown flag is an error, as in
// TRL. A file (or an HF script's flags) may be read by a script that adds dataclasses of its own:
// the key is a warning, never silence, naming the nearest field (a mistyped key leaves that field
// at its default, which can under-estimate).
// Whether a flag's name, split at '_' into words, has a word about adapters or quantization.
bool adapter_or_quantization_flag(const std::string& name) {
  static const std::set<std::string> words = {"lora", "qlora", "dora", "rslora", "loraplus", "adalora", "peft", "4bit",
                                              "8bit", "quant", "quantize", "quantized", "quantization", "bnb"};
  const std::string low = lower(name);
  std::size_t start = 0;
  while (start <= low.size()) {
    const std::size_t end = std::min(low.find('_', start), low.size());
    if (words.count(low.substr(start, end - start))) return true;
    start = end + 1;
  }
  return false;
}

void read_unknown_key(Reading& r, Trainer trainer, bool trl_command_line, const std::string& k, const std::string& name,
                      const ConfigValue& v) {
  if (trainer != Trainer::hf && name == "config") {
    // trl/scripts/utils.py (f2cd577) TrlParser.parse_args_and_config takes --config FILE off the
    // arguments before the dataclasses parse them: the file is read as one of its own.
    r.ignore(k, v, "TrlParser's config file (TRL trl/scripts/utils.py parse_args_and_config, f2cd577)");
    return;
  }
  // TRL's other example scripts parse configs of their own that name a second model: a teacher
  // (trl/experimental/gkd, examples/scripts/distillation.py DistillationConfig
  // teacher_model_name_or_path, f2cd577), a reward model (online DPO, XPO, Nash-MD, PPO:
  // reward_model_path), a value model (PPO) or a judge. Not a misspelling: a model the estimate
  // leaves out.
  static const std::set<std::string> extra_models = {"teacher_model_name_or_path", "reward_model_path", "reward_model_name_or_path",
                                                     "value_model_path", "judge"};
  if (extra_models.count(name)) {
    r.unmodelled_key(k, v, "a second model the script loads (a teacher, reward, value or judge model, as TRL's distillation, "
                           "online DPO and PPO scripts take): its weights and forward passes are not in this estimate, which "
                           "prices the trained model alone (an rlhf job in the form prices a reward and critic model)");
    return;
  }
  // A script's own flag about adapters or quantization (huggingface/peft 5d602fdb
  // examples/sft/train.py ModelArguments: use_peft_lora, lora_r, use_4bit_quantization): the
  // script, not TrainingArguments, decides full fine-tuning, LoRA or QLoRA, so the method is left
  // open rather than priced as full fine-tuning. (TRL's own scripts define their adapter flags:
  // an unknown one there is a misspelling, below.)
  // Whole words of the flag's name (use_peft_lora, load_in_4bit, bnb_4bit_quant_type), so that
  // exploration_steps or quantile say nothing about adapters; a flag turned off says nothing either.
  if (!trl_command_line && adapter_or_quantization_flag(name)) {
    if (bool_value(v) == false)
      r.ignore(k, v, "a flag of the script's own about adapters or quantization, turned off: no adapters or quantization from it");
    else
      r.unresolved_field("method", k, v,
                         "a flag of the script's own (no TrainingArguments field) about adapters or quantization: the script "
                         "decides full fine-tuning, LoRA or QLoRA, which this import cannot read; set method");
    return;
  }
  const auto classes = parsed_classes(trainer);
  std::vector<std::string> known;
  std::string names;
  for (const ArgumentClass* c : classes) {
    for (const auto& f : c->fields)
      if (f == name) {
        r.ignore(k, v, "a " + c->name + " field the estimate does not model; assumed without memory effect (" + c->source + ")");
        return;
      }
    known.insert(known.end(), c->fields.begin(), c->fields.end());
    names += (names.empty() ? "" : ", ") + c->name;
  }
  // A suggestion costs an edit distance per known field: the first few unknown keys get one, so
  // the work stays linear in the file's keys.
  constexpr std::size_t kKeysWithSuggestion = 16;
  const bool suggest = r.unmodelled.size() + r.errors.size() < kKeysWithSuggestion && !r.errors.full();
  // An accelerate launch argument in a TRL file is no misspelling of a field.
  const bool launch_key = !trl_command_line && trainer != Trainer::hf && (accelerate_launch_argument(name) || name == "accelerate_config");
  const std::string near = suggest && !launch_key ? closest_match(name, known) : std::string();
  const std::string message = "not a field of " + names + " (" + classes.front()->source +
                              (classes.size() > 1 ? ", " + classes.back()->source : std::string()) + ")" +
                              (near.empty() ? "" : "; did you mean " + near + "?");
  // A warning on a TRL command line too, though accelerate launch refuses the argument: the field
  // lists are those of one version, and older TRL and transformers releases defined fields since
  // removed (overwrite_output_dir, group_by_length), which their users still pass.
  std::string refusal;
  if (trl_command_line)
    refusal = "; TRL's CLI passes what no dataclass defines to accelerate launch (trl/cli/commands/training.py, f2cd577), "
              "which refuses this argument; older versions may define it";
  else if (launch_key)
    refusal = "; `trl " + std::string(trainer == Trainer::dpo ? "dpo" : trainer == Trainer::grpo ? "grpo" : "sft") +
              " --config FILE` passes it to accelerate launch (TRL trl/cli/commands/training.py, f2cd577) and a script run "
              "directly ignores it (trl/scripts/sft.py: fail_with_unknown_args=False), as here";
  else
    refusal = "; HfArgumentParser refuses keys no dataclass of the script defines (transformers hf_argparser.py parse_dict, 0024962)";
  r.unmodelled_key(k, v, message + refusal + "; not read: " + (near.empty() ? std::string("its value is lost") : near + " keeps its default"));
}

}  // namespace

std::string trl_command_for_config(const ConfigValue& args) {
  std::string other;
  switch (trainer_of("", args, other)) {
    case Trainer::sft: return "trl sft";
    case Trainer::dpo: return "trl dpo";
    case Trainer::grpo: return "trl grpo";
    case Trainer::hf:
    case Trainer::other_trl: return "";
  }
  return "";
}

bool trl_script_argument(const std::string& program, const std::string& key) {
  std::string other;
  const Trainer trainer = trainer_of(program, ConfigValue::object(), other);
  if (key == "config") return true;
  if (parsed_field(trainer, key)) return true;
  // HfArgumentParser's --no_X for a boolean field X (hf_argparser.py _parse_dataclass_field).
  return key.rfind("no_", 0) == 0 && key.size() > 3 && parsed_field(trainer, key.substr(3));
}

// transformers OptimizerNames -> the document's optimizer, or empty when it has none.
// adamw_torch_8bit / adamw_torch_4bit: torchao's AdamW8bit / AdamW4bit (training_args.py).
std::string hf_optimizer(const std::string& optim) {
  if (optim == "adamw_torch" || optim == "adamw_torch_fused" || optim == "adamw_hf" || optim == "adamw_apex_fused" ||
      optim == "adamw_torch_xla" || optim == "adamw_torch_npu_fused" || optim == "adamw_anyprecision")
    return "adamw";
  if (optim == "adamw_bnb_8bit" || optim == "adamw_8bit" || optim == "adamw_torch_8bit") return "adamw_8bit";
  if (optim == "paged_adamw_32bit") return "paged_adamw";
  if (optim == "paged_adamw_8bit") return "paged_adamw_8bit";
  if (optim == "adafactor") return "adafactor";
  if (optim == "sgd") return "sgd";
  if (optim == "lion_32bit") return "lion";
  return "";
}

void read_hf_optim(Reading& r, const std::string& k, const ConfigValue& v) {
  auto o = string_value(v);
  const std::string name = o ? lower(*o) : "";
  const std::string mapped = hf_optimizer(name);
  if (!mapped.empty()) r.read("precision.optimizer", mapped, k);
  else r.unmodelled_key(k, v, "optimizer " + v.summary() + " has no estimate value (adamw, 8-bit and paged AdamW, adafactor, sgd, lion are modelled)");
  // training_args.py: adamw_torch_fused passes fused=True; adamw_torch leaves torch's foreach default.
  if (name == "adamw_torch_fused") r.read("precision.optimizer_implementation", "fused", k);
  else if (name == "adamw_torch") r.read("precision.optimizer_implementation", "foreach", k);
  if (name == "adamw_torch_8bit") note_torchao_8bit(r, k, v);
}

// trainer.py get_optimizer_cls_and_kwargs: adamw_torch_8bit is torchao's AdamW8bit, which keeps
// the states of tensors under 4096 elements (or not a multiple of its 256-element blocks) in the
// weights' dtype; the estimate's adamw_8bit is bitsandbytes' layout (those states in fp32), and an
// export writes bitsandbytes' name.
void note_torchao_8bit(Reading& r, const std::string& k, const ConfigValue& v) {
  r.unmodelled_key(k, v, "torchao's AdamW8bit is estimated with bitsandbytes' 8-bit AdamW layout (small tensors' states in fp32, torchao keeps them in the weights' dtype: a slight over-estimate); an export writes adamw_bnb_8bit");
}

void read_deepspeed_key(Reading& r, const std::string& k, const ConfigValue& v, std::vector<Reading>& inline_configs) {
  if (auto f = string_value(v)) {
    r.named_files.emplace_back(*f, r.key(k));
  } else if (v.is_object()) {
    inline_configs.push_back(read_deepspeed_config(r.file(), v, k + "."));
  } else {
    r.error(error_code::wrong_type, k, "expected a DeepSpeed config file path or object, got " + v.summary());
  }
}

// TrainingArguments.fsdp: "full_shard auto_wrap offload" etc. (transformers trainer_utils.py FSDPOption).
void read_fsdp_option(Reading& r, const std::string& k, const ConfigValue& v) {
  std::vector<std::string> words;
  if (auto s = string_value(v)) {
    std::string w;
    for (char c : *s + " ") {
      if (c == ' ' || c == ',') { if (!w.empty()) words.push_back(lower(w)); w.clear(); }
      else w += c;
    }
  } else if (v.is_array()) {
    for (const auto& e : v.as_array()) if (auto s = string_value(e)) words.push_back(lower(*s));
  } else if (auto b = bool_value(v)) {
    if (*b) words.push_back("full_shard");
  }
  if (words.empty()) {
    r.ignore(k, v, "FSDP off");
    return;
  }
  // The option turns FSDP on and picks the strategy; fsdp_config's version picks FSDP1 or FSDP2
  // (axolotl utils/schemas/validation.py check_fsdp_version_in_fsdp_config; accelerate's plugin).
  r.read_yielding("parallel.sharding_engine", "fsdp", k);
  for (const auto& w : words) {
    if (w == "full_shard") r.read("parallel.zero_stage", 3, k);
    else if (w == "shard_grad_op") r.read("parallel.zero_stage", 2, k);
    else if (w == "no_shard") r.read("parallel.zero_stage", 0, k);
    else if (w == "hybrid_shard" || w == "hybrid_shard_zero2") {
      r.read("parallel.zero_stage", w == "hybrid_shard" ? 3 : 2, k);
      r.unresolved_key(k, v, "hybrid sharding: parallel.sharding_group_size is the GPUs per node, which the arguments do not give");
    } else if (w == "offload") {
      r.read("parallel.offload_param", "cpu", k);
      r.read("parallel.offload_optimizer", "cpu", k);
    } else if (w != "auto_wrap") {
      r.error(error_code::unknown_value, k, "unknown FSDP option \"" + w + "\" (full_shard, shard_grad_op, no_shard, hybrid_shard, hybrid_shard_zero2, offload, auto_wrap)");
    }
  }
}

// TrainingArguments.fsdp_config: accelerate's keys with or without the fsdp_ prefix.
void read_fsdp_config_key(Reading& r, const std::string& k, const ConfigValue& v) {
  if (auto f = string_value(v)) {
    r.named_files.emplace_back(*f, r.key(k));
    return;
  }
  if (!v.is_object()) {
    r.error(error_code::wrong_type, k, "expected an object or a file path, got " + v.summary());
    return;
  }
  ObjectBuilder prefixed;
  for (const auto& [name, sub] : v.as_object()) prefixed.set(name.rfind("fsdp_", 0) == 0 ? name : "fsdp_" + name, sub);
  ConfigValue wrapper = ConfigValue::object();
  wrapper.set("fsdp_config", prefixed.take());
  Reading acc = read_accelerate_config(r.file(), wrapper);
  for (auto& f : acc.fields) {
    if (f.field == "parallel.zero_stage" && f.strength == Strength::launcher_default) continue;  // the fsdp option says
    r.fields.push_back(f);
  }
  for (auto& n : acc.ignored) r.ignored.push_back(n);
  for (auto& n : acc.unmodelled) r.unmodelled.push_back(n);
  for (auto& e : acc.errors) r.errors.push_back(e);
}

void absorb(Reading& into, const Reading& part) {
  for (const auto& f : part.fields) into.fields.push_back(f);
  for (const auto& n : part.ignored) into.ignored.push_back(n);
  for (const auto& n : part.unmodelled) into.unmodelled.push_back(n);
  for (const auto& n : part.unresolved) into.unresolved.push_back(n);
  for (const auto& e : part.errors) into.errors.push_back(e);
  for (const auto& a : part.autos) into.autos.push_back(a);
  for (const auto& c : part.auto_casts) into.auto_casts.push_back(c);
  for (const auto& d : part.deepspeed_precision) into.deepspeed_precision.push_back(d);
  if (part.train_batch) into.train_batch = part.train_batch;
}

Reading read_hf_training_arguments(const std::string& file, const ConfigValue& args, const std::string& script,
                                   const ShownKeys& shown_keys) {
  std::string other;
  const Trainer trainer = trainer_of(script, args, other);
  const bool trl = trainer != Trainer::hf;
  Reading r(file, trl ? "trl" : "hf_training_arguments");
  r.shown_keys = shown_keys;
  std::vector<Reading> inline_deepspeed;

  r.trainer_default("framework", "hf_trainer", trl ? "TRL trainers subclass transformers.Trainer" : "transformers.Trainer");
  if (trainer == Trainer::other_trl)
    r.unmodelled_key("(trainer)", script, "TRL trainer \"" + other + "\" is estimated as supervised fine-tuning (its extra models and paired sequences are not modelled)");

  bool peft = false, four_bit = false, eight_bit = false, bf16_given = false, fp16_given = false, fp16 = false;
  // TRL's get_quantization_config builds BitsAndBytesConfig(load_in_8bit=True) alone for an 8-bit
  // base: its bnb_4bit_* settings do not apply then.
  const ConfigValue* load_8bit = args.find("load_in_8bit");
  const ConfigValue* load_4bit = args.find("load_in_4bit");
  const bool only_8bit = load_8bit && bool_value(*load_8bit).value_or(false) && !(load_4bit && bool_value(*load_4bit).value_or(false));
  std::optional<std::int64_t> prompt_length, completion_length;
  std::string prompt_key, completion_key;
  std::optional<bool> use_vllm;
  std::string vllm_mode = "colocate";
  std::optional<double> vllm_utilization;  // GRPOConfig fields (the engine checks the share's range)
  std::optional<bool> vllm_sleep;
  std::string vllm_utilization_key, vllm_sleep_key;
  for (const auto& [key, given] : args.as_object()) {
    const std::string& k = key;
    // HfArgumentParser gives each boolean field X whose default is True a flag --no_X that sets X to
    // False (transformers src/transformers/hf_argparser.py, _parse_dataclass_field): read as X, with
    // the flag as its source. no_cuda is a field of its own (TrainingArguments, deprecated).
    const bool negation = key.rfind("no_", 0) == 0 && key.size() > 3 && key != "no_cuda" && given.is_bool();
    const std::string name = negation ? key.substr(3) : key;
    const ConfigValue v = negation ? ConfigValue(!given.as_bool()) : given;
    // HfArgumentParser passes a null as None, never the field's default (hf_argparser.py parse_dict
    // builds the dataclass from the keys as given): None batch sizes fail in the trainer
    // (training_args.py train_batch_size multiplies per_device_train_batch_size; trainer.py the
    // accumulation steps), and a None max_length truncates nothing (TRL sft_config.py, dpo_config.py).
    if (v.is_null() && (name == "per_device_train_batch_size" || name == "gradient_accumulation_steps")) {
      r.error(error_code::wrong_type, k, "expected a positive integer, got null: the trainer multiplies it (None fails)",
              {{"expected", "integer"}, {"got", "null"}});
      continue;
    }
    if (v.is_null() && (name == "max_length" || name == "max_seq_length")) {
      r.unresolved_field("batch.seq_length", k, v, "null: no truncation, the longest sample sets the length; set batch.seq_length");
      continue;
    }
    if (v.is_null() && name != "dtype" && name != "torch_dtype") {
      r.ignore(k, v, "null: passed to the trainer as None");
      continue;
    }
    // TRL's PPO scripts load the policy (and its reference) from sft_model_path and the tokenizer
    // from model_name_or_path (examples/scripts/ppo/ppo.py, PPOConfig.sft_model_path; huggingface/trl
    // f2cd577): the trained model is sft_model_path's.
    const bool policy_elsewhere = name == "model_name_or_path" && args.find("sft_model_path") && string_value(*args.find("sft_model_path"));
    if (policy_elsewhere) {
      r.ignore(k, v, "the tokenizer's: the script loads the trained policy from sft_model_path (TRL examples/scripts/ppo/ppo.py, f2cd577)");
    } else if (name == "model_name_or_path" || name == "model" || name == "sft_model_path") {
      if (auto id = string_value(v)) r.name_model(*id, k);
      else r.error(error_code::wrong_type, k, "expected a model id, got " + v.summary());
    } else if (name == "dtype" || name == "torch_dtype") {
      if (v.is_null() || is_auto(v)) {
        r.dtype_from_checkpoint_key = r.key(k);
      } else if (auto d = string_value(v); d && dtype_name(*d)) {
        r.read("precision.param_dtype", *dtype_name(*d), k);
      } else {
        r.error(error_code::unknown_value, k, "expected bfloat16, float16, float32 or auto, got " + v.summary());
      }
    } else if (name == "attn_implementation") {
      auto a = string_value(v);
      const std::string s = a ? lower(*a) : "";
      // FlashAttention-3: transformers' "flash_attention_3" and the hub kernels "kernels-community/flash-attn3",
      // "kernels-community/vllm-flash-attn3"; any other flash or hub kernel runs FlashAttention-2's way.
      if (s.find("flash_attention_3") != std::string::npos || s.find("flash-attn3") != std::string::npos) r.read("attention", "flash3", k);
      else if (s.find("flash") != std::string::npos || s.find("kernels-community") != std::string::npos) r.read("attention", "flash", k);
      else if (s == "sdpa") r.read("attention", "sdpa", k);
      else if (s == "eager") r.read("attention", "eager", k);
      else if (v.is_null()) continue;
      else r.unmodelled_key(k, v, "attention implementation " + v.summary() + " is not one of flash, flash3, sdpa, eager");
    } else if (name == "use_peft") {
      if (auto b = boolean(r, k, v)) peft = *b;
    } else if (name == "load_in_4bit") {
      if (auto b = boolean(r, k, v)) four_bit = *b;
      if (!four_bit) r.ignore(k, v, "off");
    } else if (name == "load_in_8bit") {
      if (auto b = boolean(r, k, v)) eight_bit = *b;
      if (!eight_bit) r.ignore(k, v, "off");
    } else if (name == "lora_r") {
      if (auto n = positive_integer(r, k, v)) r.read("lora.r", *n, k);
    } else if (name == "lora_dropout") {
      if (auto d = typed<double>(r, k, v, number_value, "a number")) r.read("lora.lora_dropout", *d, k);
    } else if (name == "lora_target_modules") {
      if (v.is_string()) r.read("lora.target_modules", v.as_string(), k);
      else if (v.is_array() && !v.as_array().empty() && std::all_of(v.as_array().begin(), v.as_array().end(), [](const ConfigValue& e) { return e.is_string(); }))
        r.read("lora.target_modules", v, k);
      else if (!v.is_null()) r.error(error_code::wrong_type, k, "expected module names or \"all-linear\", got " + v.summary());
    } else if (name == "lora_modules_to_save") {
      if (v.is_array()) r.read("lora.modules_to_save", v, k);
      else if (!v.is_null()) r.error(error_code::wrong_type, k, "expected a list of module names, got " + v.summary());
    } else if (name == "lora_target_parameters") {
      if (!v.is_null()) r.unmodelled_key(k, v, "LoRA on parameters (MoE experts) is not modelled");
    } else if (name == "use_dora") {
      if (auto b = boolean(r, k, v)) r.read("lora.use_dora", *b, k);
    } else if ((name == "bnb_4bit_quant_type" || name == "use_bnb_nested_quant") && only_8bit) {
      r.ignore(k, v, "a 4-bit setting: the base is 8-bit (load_in_8bit)");
    } else if (name == "bnb_4bit_quant_type") {
      auto t = string_value(v);
      if (t && (*t == "nf4" || *t == "fp4")) r.read("qlora.quant_type", *t, k);
      else r.error(error_code::unknown_value, k, "expected nf4 or fp4, got " + v.summary());
    } else if (name == "use_bnb_nested_quant") {
      if (auto b = boolean(r, k, v)) r.read("qlora.double_quant", *b, k);
    } else if (name == "per_device_train_batch_size") {
      if (auto n = positive_integer(r, k, v)) r.read("batch.micro_batch_size", *n, k);
    } else if (name == "gradient_accumulation_steps") {
      if (auto n = positive_integer(r, k, v)) r.read("batch.gradient_accumulation_steps", *n, k);
    } else if (name == "max_length" || name == "max_seq_length") {
      if (auto n = positive_integer(r, k, v)) r.read("batch.seq_length", *n, k);
    } else if (name == "model_max_length" && trainer == Trainer::hf) {
      // A field the Alpaca-derived scripts add to their TrainingArguments: the tokenizer's
      // truncation length, each batch padded to its longest sequence (tatsu-lab/stanford_alpaca
      // train.py, c8ea92b: AutoTokenizer.from_pretrained(model_max_length=...), padding="longest"),
      // so the longest a batch can be: the peak's length.
      if (auto n = positive_integer(r, k, v)) {
        r.read("batch.seq_length", *n, k);
        r.read_from_kind("batch.padding", "longest", "model_max_length: the Alpaca-derived scripts pad each batch to its longest sample "
                                                     "(tatsu-lab/stanford_alpaca train.py DataCollatorForSupervisedDataset, pad_sequence)");
      }
    } else if (name == "max_prompt_length") {
      if (trainer == Trainer::grpo) { prompt_length = positive_integer(r, k, v); prompt_key = k; }
      else r.ignore(k, v, "truncates prompts within max_length");
    } else if (name == "max_completion_length") {
      if (trainer == Trainer::grpo) { completion_length = positive_integer(r, k, v); completion_key = k; }
      else r.ignore(k, v, "truncates completions within max_length");
    } else if (name == "num_generations") {
      if (auto n = positive_integer(r, k, v)) r.read("rlhf.rollout.num_generations", *n, k);
    } else if ((name == "steps_per_generation" || name == "generation_batch_size") && trainer == Trainer::grpo && !v.is_null()) {
      // grpo_config.py __post_init__ (f2cd577): each process generates per_device_train_batch_size x
      // steps_per_generation completions at once (generation_batch_size / processes); the estimate
      // takes steps_per_generation = gradient_accumulation_steps, TRL's default.
      r.unmodelled_key(k, v, "sets how many completions each GPU generates at once (the rollout's KV cache and logits), which the "
                             "estimate takes as per_device_train_batch_size x gradient_accumulation_steps, TRL's default");
    } else if (name == "use_vllm") {
      use_vllm = boolean(r, k, v);
      if (trainer != Trainer::grpo) r.ignore(k, v, "generation settings of online trainers");
    } else if (name == "vllm_mode") {
      // GRPOConfig.__post_init__ accepts "server" or "colocate" only.
      const std::string m = lower(string_value(v).value_or(""));
      if (m == "server" || m == "colocate") vllm_mode = m;
      else r.error(error_code::unknown_value, k, "expected server or colocate, got " + v.summary());
      if (trainer != Trainer::grpo || !args.find("use_vllm")) r.ignore(k, v, "used with use_vllm only");
    } else if (name == "vllm_gpu_memory_utilization" && trainer == Trainer::grpo) {
      vllm_utilization = typed<double>(r, k, v, number_value, "a number");
      vllm_utilization_key = k;
    } else if (name == "vllm_enable_sleep_mode" && trainer == Trainer::grpo) {
      vllm_sleep = boolean(r, k, v);
      vllm_sleep_key = k;
    } else if (name == "precompute_ref_log_probs") {
      if (auto b = boolean(r, k, v); b && *b) r.unmodelled_key(k, v, "reference log-probs computed before training: no reference model in memory during the step");
      else r.ignore(k, v, "off");
    } else if (name == "gradient_checkpointing") {
      // Off, accelerate's FSDP activation_checkpointing may still apply its own (see the axolotl reader).
      if (auto b = boolean(r, k, v); b && !*b) r.read_yielding("activation_checkpointing", "none", k);
      else if (b) r.read("activation_checkpointing", "full", k);
    } else if (name == "bf16") {
      bf16_given = true;
      if (auto b = boolean(r, k, v); b && *b) r.read("precision.compute_dtype", "bf16", k);
      else if (b) r.ignore(k, v, "off");
    } else if (name == "fp16") {
      fp16_given = true;
      if (auto b = boolean(r, k, v); b && *b) { fp16 = true; r.read("precision.compute_dtype", "fp16", k); }
      else if (b) r.ignore(k, v, "off");
    } else if (name == "optim") {
      read_hf_optim(r, k, v);
    } else if (name == "torch_compile") {
      if (auto b = boolean(r, k, v)) r.read("compile", *b, k);
    } else if (name == "torch_compile_backend" || name == "torch_compile_mode") {
      // training_args.py: setting either turns torch_compile on.
      if (!v.is_null()) r.read("compile", true, k);
    } else if (name == "use_liger_kernel") {
      // trainer.py applies Liger's kernels with their defaults (RMSNorm, SwiGLU, RoPE, fused linear
      // cross-entropy) unless liger_kernel_config says otherwise.
      if (auto b = boolean(r, k, v)) r.read("use_liger_kernel", *b, k);
    } else if (name == "liger_kernel_config") {
      if (!v.is_null()) r.unmodelled_key(k, v, "the estimate applies Liger's default kernels (rms_norm, swiglu, fused_linear_cross_entropy), not a chosen subset");
    } else if (name == "activation_offloading") {
      if (auto b = boolean(r, k, v)) r.read("activation_offload", *b, k);
    } else if (name == "deepspeed") {
      read_deepspeed_key(r, k, v, inline_deepspeed);
    } else if (name == "fsdp") {
      read_fsdp_option(r, k, v);
    } else if (name == "fsdp_config") {
      read_fsdp_config_key(r, k, v);
    } else if (name == "save_total_limit") {
      if (v.is_null()) continue;
      if (auto n = positive_integer(r, k, v)) r.read("checkpoint.keep_last", *n, k);
    } else if (name == "ddp_bucket_cap_mb" || name == "ddp_find_unused_parameters" || name == "ddp_broadcast_buffers") {
      r.unmodelled_key(k, v, "DDP bucket settings: the estimate assumes torch DDP's 25 MB buckets");
    } else if (name == "packing" || name == "padding_free") {
      // On: the batch is max_length tokens per sequence, packed or flattened (batch.padding
      // max_length, a read that another file's collator default does not override); off: the
      // collator's padding to the longest sample, the trainer default below.
      if (const auto on = boolean(r, k, v)) {
        if (*on) r.read("batch.padding", "max_length", k);
        else r.ignore(k, v, "off (see batch.padding)");
      }
    } else if (name == "beta" && trainer == Trainer::grpo) {
      continue;  // decides the reference model: read with the GRPO settings below
    } else if (no_memory_effect(name)) {
      // Older transformers/TRL fields (evaluation_strategy) and the alignment-handbook's own
      // (dataset_mixer) have no memory effect either, but are not fields at the cited versions.
      r.ignore(k, v, parsed_field(trainer, name) ? "no memory effect"
                                                 : "no memory effect; not a field of the dataclasses at the cited "
                                                   "versions (an older transformers/TRL field, or the reading script's own)");
    } else {
      read_unknown_key(r, trainer, trl && lower(script).find("trl") != std::string::npos, k, name, v);
    }
  }

  // Method: use_peft (+ load_in_4bit or load_in_8bit for a quantized base) from TRL's ModelConfig;
  // trl/trainer/utils.py get_quantization_config builds BitsAndBytesConfig(load_in_4bit=...) or
  // (load_in_8bit=True), and ModelConfig refuses both at once.
  if (four_bit && eight_bit) {
    r.error(error_code::inconsistent, "load_in_8bit", "load_in_4bit and load_in_8bit are both true: TRL's ModelConfig takes one",
            {{"reason", "both_4bit_and_8bit"}});
  } else if (peft && (four_bit || eight_bit)) {
    const char* quant_key = four_bit ? "load_in_4bit" : "load_in_8bit";
    r.fields.push_back({"method", ConfigValue("qlora"), "read from " + r.key("use_peft") + " and " + r.key(quant_key), r.key("use_peft"), Strength::read});
    if (eight_bit) r.read("qlora.quant_type", "int8", "load_in_8bit");
  } else if (peft) {
    r.read("method", "lora", "use_peft");
  } else if (args.find("use_peft")) {
    r.ignore("use_peft", *args.find("use_peft"), "off");
  }
  if (!peft && four_bit) r.unmodelled_key("load_in_4bit", true, "a 4-bit base without adapters cannot be trained");
  if (!peft && eight_bit) r.unmodelled_key("load_in_8bit", true, "an 8-bit base without adapters cannot be trained");

  // Defaults where the file is silent (each framework's documented value).
  if (!args.find("per_device_train_batch_size"))
    r.trainer_default("batch.micro_batch_size", 8, std::string(kHf) + " per_device_train_batch_size = 8");
  if (!args.find("gradient_accumulation_steps"))
    r.trainer_default("batch.gradient_accumulation_steps", 1, std::string(kHf) + " gradient_accumulation_steps = 1");
  if (!args.find("gradient_checkpointing") && !args.find("no_gradient_checkpointing"))
    r.trainer_default("activation_checkpointing", trl ? "full" : "none",
                      trl ? std::string(kTrlBase) + " gradient_checkpointing = True" : std::string(kHf) + " gradient_checkpointing = False");
  if (!bf16_given && !fp16_given) {
    // TRL: bf16 defaults to True unless fp16 is set (base_config.py __post_init__).
    if (trl) r.trainer_default("precision.compute_dtype", "bf16", std::string(kTrlBase) + " bf16 = not fp16");
    else r.trainer_default("precision.compute_dtype", "fp32", std::string(kHf) + " bf16 = fp16 = False");
  } else if (trl && !bf16_given && !fp16) {
    r.trainer_default("precision.compute_dtype", "bf16", std::string(kTrlBase) + " bf16 = not fp16");
  }
  if (!args.find("optim")) {
    r.trainer_default("precision.optimizer", "adamw", std::string(kHf) + " optim = adamw_torch_fused (torch >= 2.8)");
    r.trainer_default("precision.optimizer_implementation", "fused", std::string(kHf) + " optim = adamw_torch_fused (torch >= 2.8)");
  }
  if (trl && !args.find("dtype") && !args.find("torch_dtype"))
    r.trainer_default("precision.param_dtype", "fp32", std::string(kTrlModel) + " dtype = \"float32\"");
  if (trl && !args.find("attn_implementation"))
    r.trainer_default("attention", "sdpa", "transformers picks sdpa when attn_implementation is None");
  if ((trainer == Trainer::sft || trainer == Trainer::dpo) && !args.find("max_length") && !args.find("max_seq_length"))
    r.trainer_default("batch.seq_length", 1024,
                      std::string("TRL 1.10 trl/trainer/") + (trainer == Trainer::sft ? "sft_config.py" : "dpo_config.py") + " max_length = 1024");
  // TRL's collators pad each batch to its longest sample: sft_trainer.py DataCollatorForLanguageModeling
  // unless packing or padding_free flatten the batch; dpo_trainer.py DataCollatorForPreference (its
  // padding_free falls back to padding at f2cd577).
  const auto on = [&](const char* k) { return args.find(k) && bool_value(*args.find(k)).value_or(false); };
  if (trainer == Trainer::dpo || (trainer == Trainer::sft && !on("packing") && !on("padding_free")))
    r.trainer_default("batch.padding", "longest",
                      trainer == Trainer::sft ? "TRL 1.10 trl/trainer/sft_trainer.py DataCollatorForLanguageModeling pads each batch to its longest sample (packing = padding_free = False)"
                                              : "TRL 1.10 trl/trainer/dpo_trainer.py DataCollatorForPreference pads each batch to its longest pair");
  // transformers.Trainer takes no sequence length: the script's own data code pads and truncates.
  // (Said of a file this import reads; one it reads nothing of is refused as a whole.)
  const bool read_any = r.model_id || std::any_of(r.fields.begin(), r.fields.end(), [](const Assignment& a) { return a.strength >= Strength::read_yielding; });
  if (trainer == Trainer::hf && read_any && !args.find("max_length") && !args.find("max_seq_length") && !args.find("model_max_length"))
    r.unresolved_key("(sequence length)", nullptr,
                     "transformers.Trainer takes no sequence length: the script's own data code pads and truncates; set batch.seq_length");
  if (peft) {
    if (!args.find("lora_r")) r.trainer_default("lora.r", 16, std::string(kTrlModel) + " lora_r = 16");
    if (!args.find("lora_dropout")) r.trainer_default("lora.lora_dropout", 0.05, std::string(kTrlModel) + " lora_dropout = 0.05");
    if (four_bit && !args.find("bnb_4bit_quant_type")) r.trainer_default("qlora.quant_type", "nf4", std::string(kTrlModel) + " bnb_4bit_quant_type = \"nf4\"");
    if (four_bit && !args.find("use_bnb_nested_quant")) r.trainer_default("qlora.double_quant", false, std::string(kTrlModel) + " use_bnb_nested_quant = False");
  }

  // RLHF trainers.
  if (trainer == Trainer::dpo) {
    r.read_from_kind("rlhf.algorithm", "dpo", std::string(trainer_label(trainer)) + (script.empty() ? " keys" : " (" + script + ")"));
    // dpo_trainer.py: a PEFT policy without ref_model scores the reference with its adapters disabled.
    r.trainer_default("rlhf.reference.method", peft ? "shared_base" : "frozen",
                      peft ? "TRL 1.10 trl/trainer/dpo_trainer.py: a PEFT model's reference is its base with adapters disabled"
                           : "TRL 1.10 trl/trainer/dpo_trainer.py: a frozen copy of the model is the reference");
  } else if (trainer == Trainer::grpo) {
    r.read_from_kind("rlhf.algorithm", "grpo", std::string(trainer_label(trainer)) + (script.empty() ? " keys" : " (" + script + ")"));
    const std::int64_t completion = completion_length.value_or(512);
    if (completion_length) r.read("rlhf.rollout.max_new_tokens", completion, completion_key);
    else r.trainer_default("rlhf.rollout.max_new_tokens", 512, "TRL 1.10 trl/trainer/grpo_config.py max_completion_length = 512");
    if (!args.find("num_generations")) r.trainer_default("rlhf.rollout.num_generations", 8, "TRL 1.10 trl/trainer/grpo_config.py num_generations = 8");
    // grpo_trainer.py: beta 0.0 (grpo_config.py's default) loads no reference; with beta > 0 a PEFT
    // policy's reference is its base with the adapters disabled (no ref_model), a full one's a copy.
    const ConfigValue* beta = args.find("beta");
    const bool kl = beta && number_value(*beta).value_or(0.0) != 0.0;
    if (beta) r.read("rlhf.reference.method", !kl ? "none" : peft ? "shared_base" : "frozen", "beta");
    else r.trainer_default("rlhf.reference.method", "none", "TRL 1.10 trl/trainer/grpo_config.py beta = 0.0: no reference model is loaded");
    const bool colocated = !use_vllm.value_or(false) || vllm_mode == "colocate";
    if (use_vllm) {
      r.read("rlhf.rollout.colocated", colocated, "use_vllm");
      if (args.find("vllm_mode")) r.read("rlhf.rollout.colocated", colocated, "vllm_mode");
      if (colocated) r.read("rlhf.rollout.use_vllm", *use_vllm, "use_vllm");  // a server's vLLM is not on these GPUs
    }
    // Colocated vLLM's share of each training GPU (trl/generation/vllm_generation.py: LLM(
    // gpu_memory_utilization=..., enable_sleep_mode=...)); a server's lives on other GPUs.
    const bool vllm_here = use_vllm.value_or(false) && colocated;
    if (vllm_here && vllm_utilization) r.read("rlhf.rollout.vllm_gpu_memory_utilization", *vllm_utilization, vllm_utilization_key);
    else if (vllm_here) r.trainer_default("rlhf.rollout.vllm_gpu_memory_utilization", 0.3, "TRL 1.10 grpo_config.py vllm_gpu_memory_utilization = 0.3");
    else if (vllm_utilization) r.ignore(vllm_utilization_key, ConfigValue(*vllm_utilization), "applies to colocated vLLM only (use_vllm with vllm_mode colocate)");
    if (vllm_here && vllm_sleep) r.read("rlhf.rollout.vllm_enable_sleep_mode", *vllm_sleep, vllm_sleep_key);
    else if (vllm_sleep) r.ignore(vllm_sleep_key, ConfigValue(*vllm_sleep), "applies to colocated vLLM only (use_vllm with vllm_mode colocate)");
    if (!use_vllm) r.trainer_default("rlhf.rollout.colocated", true, "TRL 1.10 grpo_config.py use_vllm = False: generation runs on the training GPUs");
    // batch.seq_length is the prompt under rlhf: the engine adds rlhf.rollout.max_new_tokens.
    if (prompt_length) r.read("batch.seq_length", *prompt_length, prompt_key);
    // GRPOConfig at f2cd577 has no max_prompt_length (older TRL releases truncated prompts with it):
    // the dataset's longest prompt sets the length.
    else r.unresolved_field("batch.seq_length", "(prompt length)", nullptr,
                            "GRPO sequences are prompt + completion; GRPOConfig (TRL f2cd577) does not truncate prompts, so "
                            "the dataset's longest prompt sets their length: set batch.seq_length");
  }

  for (const auto& d : inline_deepspeed) absorb(r, d);
  return r;
}

std::string detect_structured_format(const ConfigValue& c) {
  if (!c.is_object()) return "";
  // axolotl names its model base_model (utils/schemas/model.py) beside its own batch, length or
  // adapter keys; such a file may also hold model_type (the loader class).
  if (c.find("base_model") && (c.find("sequence_len") || c.find("micro_batch_size") || c.find("adapter") || c.find("datasets")))
    return "axolotl";
  // Without base_model (a snippet exported for a model with no Hugging Face id): sequence_len and a
  // top-level micro_batch_size are axolotl's names alone (TrainingArguments says
  // per_device_train_batch_size and TRL max_length, LLaMA-Factory cutoff_len, DeepSpeed
  // train_micro_batch_size_per_gpu); the import then lists the model as unresolved.
  if (c.find("sequence_len") || c.find("micro_batch_size")) return "axolotl";
  // LLaMA-Factory's own keys (src/llamafactory/hparams/finetuning_args.py, data_args.py) beside
  // TrainingArguments keys.
  if (c.find("stage") || c.find("finetuning_type") || (c.find("model_name_or_path") && (c.find("cutoff_len") || c.find("template"))))
    return "llamafactory";
  if (c.find("model_type") || c.find("architectures")) return "hf_config";
  if (c.find("distributed_type") || c.find("compute_environment") ||
      (c.find("num_processes") && (c.find("deepspeed_config") || c.find("fsdp_config") || c.find("mixed_precision"))))
    return "accelerate";
  for (const char* k : {"zero_optimization", "train_micro_batch_size_per_gpu", "train_batch_size", "zero_allow_untested_optimizer",
                        "steps_per_print", "wall_clock_breakdown"})
    if (c.find(k)) return "deepspeed";
  for (const char* k : {"per_device_train_batch_size", "output_dir", "model_name_or_path", "gradient_accumulation_steps",
                        "gradient_checkpointing", "learning_rate", "num_train_epochs", "use_peft"})
    if (c.find(k)) return "hf_training_arguments";
  return "";
}

}  // namespace trainmem::import_detail
