// torchtune recipe configs (`tune run [torchrun options] RECIPE --config FILE [key=value ...]`) ->
// estimate document fields. A recipe config names its components by `_component_` (the model
// builder, optimizer, loss, tokenizer, dataset); the recipe reads the other keys with cfg.get and
// its own defaults. Meanings and defaults: torchtune 0.7.0 (pytorch/torchtune bd2a0fc):
//   recipes/full_finetune_distributed.py, full_finetune_single_device.py, lora_finetune_*.py,
//     lora_dpo_*.py, full_dpo_distributed.py (cfg keys and their defaults),
//   torchtune/models/<family>/_model_builders.py (builders, LoRA arguments and their defaults),
//   torchtune/modules/peft/lora.py (LoRALinear: quantize_base -> torchao to_nf4),
//   torchtune/modules/loss/cross_entropy_loss.py, ce_chunked_output_loss.py (num_output_chunks = 8),
//   torchtune/training/precision.py (get_dtype: None -> float32), training/_distributed.py
//     (shard_model: FSDP2 fully_shard, CPUOffloadPolicy, reshard_after_forward),
//   torchtune/config/_utils.py (_merge_yaml_and_cli_args: key=value overrides, ~key removal),
//   torchtune/_cli/run.py (tune run: torchrun options before the recipe).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "reading.hpp"
#include "shell_words.hpp"
#include "torchtune_builders.hpp"
#include "trainmem/precision.hpp"

namespace trainmem::import_detail {

namespace {

constexpr const char* kTune = "torchtune 0.7.0";

std::string src(const std::string& file, const std::string& what) { return std::string(kTune) + " " + file + " " + what; }

// Builders of checkpoints the catalog lacks: the Hugging Face repository whose config.json describes them.
const std::map<std::string, std::string>& hub_builders() {
  static const std::map<std::string, std::string> builders = {{"qwen2_7b", "Qwen/Qwen2-7B"}};
  return builders;
}

// A count as the recipes take it: OmegaConf's YAML reads 2048.0 and 2e3 as floats (its float
// resolver accepts an exponent without a dot), which the recipes refuse where an int is needed
// (DataLoader's batch_size, slicing at max_seq_len, nn.Linear's rank); written as text or as a
// YAML float, they are wrong_type here. The launch line's counts are torchrun's (process_count).
std::optional<std::int64_t> tune_integer(Reading& r, const std::string& k, const ConfigValue& v) {
  const bool float_text = v.is_string() && v.as_string().find_first_of(".eE") != std::string::npos;
  if (v.kind() == ConfigValue::Kind::number || float_text) {
    r.error(error_code::wrong_type, k, "expected a whole number written as one, got " + v.summary() + " (OmegaConf reads it as a float, which the recipe refuses)");
    return std::nullopt;
  }
  return positive_integer(r, k, v);
}

// A whole-value OmegaConf interpolation "${key}" resolved against the config (one level, as the
// recipes' configs use it: batch_size_val: ${batch_size}); other values as they are.
const ConfigValue& resolved(const ConfigValue& content, const ConfigValue& v) {
  if (!v.is_string()) return v;
  const std::string& s = v.as_string();
  if (s.size() > 3 && s.compare(0, 2, "${") == 0 && s.back() == '}' && s.find('}') == s.size() - 1)
    if (const ConfigValue* target = content.at_path(s.substr(2, s.size() - 3)); target && !target->is_string()) return *target;
  return v;
}

// OmegaConf.from_dotlist reads an override's value as a YAML scalar or flow list; "None" is null
// (config/_utils.py _merge_yaml_and_cli_args). Scalars stay text for the typed readers.
ConfigValue override_value(const std::string& text) {
  if (text == "None" || text == "null" || text == "~" || text.empty()) return nullptr;
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    ConfigValue::Array items;
    std::string item;
    auto flush = [&] {
      const auto b = item.find_first_not_of(" '\""), e = item.find_last_not_of(" '\"");
      if (b != std::string::npos) items.emplace_back(item.substr(b, e - b + 1));
      item.clear();
    };
    for (char c : text.substr(1, text.size() - 2)) {
      if (c == ',') flush();
      else item += c;
    }
    flush();
    return ConfigValue(std::move(items));
  }
  return ConfigValue(text);
}

// Keys without an effect on the training step's memory: paths, logging, schedules, saving, data.
bool no_memory_effect(const std::string& k) {
  static const std::set<std::string> keys = {
      "output_dir", "seed", "shuffle", "epochs", "max_steps_per_epoch", "metric_logger", "log_every_n_steps",
      "log_peak_memory_stats", "log_level", "profiler", "resume_from_checkpoint", "save_adapter_weights_only",
      "clip_grad_norm", "lr_scheduler", "run_val_every_n_steps", "dataset_val", "batch_size_val", "checkpointer",
      "enable_async_checkpointing", "cudnn_deterministic_mode", "save_every_n_steps", "collate_fn", "low_cpu_ram",
      "device", "activation_offloading_use_streams", "context_parallel_rotate_method", "ref_checkpointer",
      "quantizer", "fake_quant_after_n_steps", "tensor_parallel_plan"};
  return keys.count(k) > 0;
}

struct Component {
  std::string path;  // "torchtune.models.llama3_1.lora_llama3_1_8b"
  std::string name;  // "lora_llama3_1_8b"
};

std::optional<Component> component_of(const ConfigValue& v) {
  const ConfigValue* c = v.is_object() ? v.find("_component_") : nullptr;
  if (!c || !c->is_string()) return std::nullopt;
  const std::string& p = c->as_string();
  const auto dot = p.find_last_of('.');
  return Component{p, dot == std::string::npos ? p : p.substr(dot + 1)};
}

class TorchtuneReader {
 public:
  TorchtuneReader(Reading& r, const ConfigValue& c, const TuneRun* run) : r_(r), c_(c), run_(run) {}

  void read() {
    // torchtune's RLHF recipes (pytorch/torchtune bd2a0fc): PPO (recipes/ppo_full_finetune_single_device.py,
    // configs with policy_model: and reward_and_value_model:) trains a policy and a value model
    // beside a frozen reference and reward model; GRPO (recipes/dev/grpo_full_finetune_distributed.py,
    // configs with grpo_samples:) generates grpo_samples completions per prompt with a reference
    // model (ref_checkpointer:). This reader reads the finetune recipes' keys, none of those.
    const bool ppo = c_.find("policy_model") || c_.find("reward_and_value_model");
    if (ppo || c_.find("grpo_samples")) {
      const std::string what = ppo ? "PPO recipe (policy_model, reward_and_value_model)" : "GRPO recipe (grpo_samples)";
      r_.error(error_code::unsupported, ppo ? "policy_model" : "grpo_samples",
               "torchtune's " + what + " is not read by this import, which reads torchtune's finetune recipes: enter it in "
               "the form as an rlhf " + std::string(ppo ? "ppo" : "grpo") + " job",
               {{"reason", "torchtune_rlhf_recipe"}, {"algorithm", ppo ? "ppo" : "grpo"}});
      return;
    }
    read_recipe();
    // The model first: what it builds (full, LoRA) decides how other keys are read.
    if (const ConfigValue* m = c_.find("model")) read_key("model", *m);
    for (const auto& [k, v] : c_.as_object())
      if (k != "model") read_key(k, v);
    defaults();
  }

 private:
  Reading& r_;
  const ConfigValue& c_;
  const TuneRun* run_;
  std::string method_ = "full";
  std::string family_;  // the builder's module: llama3_1, phi3, ...
  std::string dtype_ = "fp32";
  bool distributed_ = false, recipe_known_ = false, lora_recipe_ = false;
  bool packed_ = false;  // a dataset entry says packed: True
  std::optional<Optimizer> bitsandbytes_optimizer_;  // the optimizer when bitsandbytes runs it
  std::string recipe_;

  bool has(const std::string& dotted) const {
    const ConfigValue* v = c_.at_path(dotted);
    return v && !v->is_null();
  }

  // A field that follows from the recipe the launch line runs.
  void read_from_recipe(const std::string& field, ConfigValue value, const std::string& why) {
    r_.fields.push_back({field, std::move(value), "read from " + r_.key("recipe") + " (" + why + ")", r_.key("recipe"), Strength::read});
  }

  void read_recipe() {
    if (!run_) {
      r_.unresolved.push_back({"parallel.world_size",
                               "a torchtune config does not hold the GPU count: it is on the launch line (tune run --nproc_per_node K "
                               "--nnodes N RECIPE --config FILE); " + gpu_count_not_given({}),
                               nullptr});
      return;
    }
    recipe_ = run_->recipe;
    recipe_known_ = true;
    const std::string base = recipe_.substr(recipe_.find_last_of('/') == std::string::npos ? 0 : recipe_.find_last_of('/') + 1);
    const std::string name = base.size() > 3 && base.compare(base.size() - 3, 3, ".py") == 0 ? base.substr(0, base.size() - 3) : base;
    recipe_ = name;
    distributed_ = name.find("distributed") != std::string::npos;
    lora_recipe_ = name.find("lora") != std::string::npos;
    const std::string recipe_key = "recipe";
    r_.sourced_keys["recipe"] = run_->file + ":" + run_->recipe;
    r_.sourced_keys["--nproc_per_node"] = run_->file + ":--nproc_per_node";
    r_.sourced_keys["--nnodes"] = run_->file + ":--nnodes";
    for (const auto& n : run_->unresolved) r_.unresolved.push_back(n);
    // torchrun's --nproc_per_node x --nnodes (tune run passes them to torch.distributed.run).
    std::optional<std::int64_t> per_node, nodes;
    bool count_unresolved = run_->world_unresolved;
    if (run_->nproc_per_node) {
      const auto text = string_value(*run_->nproc_per_node);
      if (text && (*text == "auto" || *text == "gpu" || *text == "cpu" || *text == "xpu")) {
        r_.unresolved_key("--nproc_per_node", *run_->nproc_per_node, "one process per device of the machine it runs on: the GPUs per node are not on the line");
        count_unresolved = true;
      } else per_node = process_count(r_, "--nproc_per_node", text.value_or(run_->nproc_per_node->summary()));
    }
    if (run_->nnodes) {
      const auto text = string_value(*run_->nnodes);
      if (text && text->find(':') != std::string::npos) {
        r_.unresolved_key("--nnodes", *run_->nnodes, "an elastic node range: the world size is not fixed");
        count_unresolved = true;
      } else nodes = process_count(r_, "--nnodes", text.value_or(run_->nnodes->summary()));
    }
    if (!distributed_) {
      // _cli/run.py _run_cmd: a recipe without distributed support refuses torchrun options.
      if ((per_node && *per_node > 1) || (nodes && *nodes > 1))
        r_.error(error_code::inconsistent, "--nproc_per_node",
                 recipe_ + " runs on one device; tune run refuses distributed options for it (torchtune/_cli/run.py)",
                 {{"reason", "single_device_recipe"}, {"recipe", recipe_}});
      read_from_recipe("parallel.world_size", 1, "a single-device recipe");
    } else if (per_node && !count_unresolved) {
      r_.read("parallel.gpus_per_node", *per_node, "--nproc_per_node");
      r_.read("parallel.world_size", *per_node * nodes.value_or(1), nodes ? "--nnodes" : "--nproc_per_node");
    } else if (!count_unresolved) {
      // Without torchrun options tune run starts the recipe as one process (_cli/run.py
      // _is_distributed_args); torchrun's --nproc_per_node defaults to 1 (torch/distributed/run.py).
      read_from_recipe("parallel.gpus_per_node", 1, "no --nproc_per_node: one process per node");
      if (nodes) r_.read("parallel.world_size", *nodes, "--nnodes");
      else read_from_recipe("parallel.world_size", 1, "no --nproc_per_node or --nnodes: one process");
    }
    if (distributed_) {
      read_from_recipe("parallel.sharding_engine", "fsdp2", "distributed recipes shard with FSDP2 fully_shard, training/_distributed.py shard_model");
      read_from_recipe("parallel.zero_stage", 3, "fully_shard shards parameters, gradients and optimizer states");
    }
    if (name.find("dpo") != std::string::npos) {
      read_from_recipe("rlhf.algorithm", "dpo", "a DPO recipe");
      // lora_dpo_*.py score the reference with the adapters disabled (disable_adapter); full_dpo_distributed.py
      // loads a separate reference model (ref_checkpointer).
      read_from_recipe("rlhf.reference.method", lora_recipe_ ? "shared_base" : "frozen",
                       lora_recipe_ ? "lora_dpo: the reference is the base with adapters disabled" : "full_dpo_distributed.py: a separate reference model");
    } else if (name.find("qat") != std::string::npos) {
      r_.unmodelled_key(recipe_key, recipe_, "quantization-aware training inserts fake-quantize ops whose saved tensors the estimate does not count");
    } else if (name.find("ppo") != std::string::npos || name.find("distillation") != std::string::npos || name.find("grpo") != std::string::npos) {
      r_.unmodelled_key(recipe_key, recipe_, "the extra models of this recipe (reward, value, teacher) are not read from the config; the estimate is the policy's fine-tuning alone");
    } else if (name.find("finetune") == std::string::npos) {
      r_.unmodelled_key(recipe_key, recipe_, "not a recipe this import knows; its keys are read as the finetune recipes read them");
    }
  }

  void read_key(const std::string& k, const ConfigValue& raw) {
    const ConfigValue& v = resolved(c_, raw);
    if (k == "model") return read_model(v);
    if (k == "tokenizer") return read_tokenizer(v);
    if (k == "dataset") return read_dataset(v);
    if (k == "optimizer") return read_optimizer(v);
    if (k == "loss") return read_loss(v);
    if (v.is_null()) {
      r_.ignore(k, v, "null: the recipe's default applies");
      return;
    }
    if (k == "batch_size") {
      // recipes: the DataLoader's batch_size per rank (micro-batch).
      if (auto n = tune_integer(r_, k, v)) r_.read("batch.micro_batch_size", *n, k);
    } else if (k == "gradient_accumulation_steps") {
      if (auto n = tune_integer(r_, k, v)) r_.read("batch.gradient_accumulation_steps", *n, k);
    } else if (k == "dtype") {
      // training/precision.py PRECISION_STR_TO_DTYPE: fp32, bf16 (fp16 is refused by every finetune recipe).
      const std::string d = lower(string_value(v).value_or(""));
      if (d == "bf16" || d == "fp32") {
        dtype_ = d;
        r_.read("precision.param_dtype", d, k);
        r_.read("precision.compute_dtype", d, k);
      } else if (d == "fp16") {
        r_.error(error_code::unknown_value, k, "torchtune's finetune recipes refuse fp16 (\"full fp16 training is not supported with this recipe\"); use bf16 or fp32");
      } else {
        r_.error(error_code::unknown_value, k, "expected bf16 or fp32 (training/precision.py), got " + v.summary());
      }
    } else if (k == "enable_activation_checkpointing") {
      if (auto b = boolean(r_, k, v)) r_.read("activation_checkpointing", *b ? "full" : "none", k);
    } else if (k == "enable_activation_offloading") {
      auto b = boolean(r_, k, v);
      if (b && *b && !bool_value(c_.at_path("enable_activation_checkpointing") ? *c_.at_path("enable_activation_checkpointing") : ConfigValue(false)).value_or(false))
        r_.error(error_code::inconsistent, k, "the recipes refuse activation offloading without enable_activation_checkpointing",
                 {{"reason", "offload_needs_checkpointing"}});
      else if (b) r_.read("activation_offload", *b, k);
    } else if (k == "compile") {
      // recipes: compile True compiles the model blocks and the loss (training.compile_loss); a
      // mapping chooses model/loss/optimizer_step.
      if (v.is_object()) {
        const bool model = bool_value(v.find("model") ? *v.find("model") : ConfigValue(true)).value_or(true);
        const bool loss = bool_value(v.find("loss") ? *v.find("loss") : ConfigValue(true)).value_or(true);
        if (model && loss) r_.read("compile", "blocks_and_loss", k);
        else if (model) r_.read("compile", "blocks", k);
        else r_.unmodelled_key(k, v, "compiling the loss without the model is not a compile scope the estimate has");
      } else if (auto b = boolean(r_, k, v)) {
        r_.read("compile", *b, k);
      }
    } else if (k == "optimizer_in_bwd") {
      auto b = boolean(r_, k, v);
      if (lora_recipe_ || method_ != "full") r_.ignore(k, v, "the LoRA recipes do not read optimizer_in_bwd");
      else if (b && *b && has("gradient_accumulation_steps") && integer_value(*c_.at_path("gradient_accumulation_steps")).value_or(1) > 1)
        r_.error(error_code::inconsistent, k, "the recipes refuse optimizer_in_bwd with gradient_accumulation_steps > 1",
                 {{"reason", "optimizer_in_bwd_with_accumulation"}});
      else if (b) r_.read("precision.optimizer_in_backward", *b, k);
    } else if (k == "fsdp_cpu_offload") {
      auto b = boolean(r_, k, v);
      if (recipe_known_ && !distributed_) r_.ignore(k, v, "a single-device recipe: no FSDP");
      else if (b && *b) {
        // training/_distributed.py shard_model: CPUOffloadPolicy keeps the sharded parameters,
        // gradients and optimizer step on the CPU.
        r_.read("parallel.offload_param", "cpu", k);
        r_.read("parallel.offload_optimizer", "cpu", k);
      } else if (b) r_.ignore(k, v, "off");
    } else if (k == "fsdp_reshard_after_forward") {
      if (recipe_known_ && !distributed_) r_.ignore(k, v, "a single-device recipe: no FSDP");
      else if (auto b = boolean(r_, k, v)) r_.read("parallel.reshard_after_forward", *b, k);
    } else if (k == "tensor_parallel_dim") {
      if (auto n = tune_integer(r_, k, v)) r_.read("parallel.tensor_parallel_size", *n, k);
    } else if (k == "context_parallel_dim") {
      if (auto n = tune_integer(r_, k, v)) r_.read("parallel.context_parallel_size", *n, k);
    } else if (k == "enable_fp8_training") {
      if (auto b = boolean(r_, k, v)) r_.read("precision.fp8_compute", *b, k);
    } else if (k == "data_parallel_replicate_dim") {
      if (integer_value(v).value_or(1) == 1) r_.ignore(k, v, "1: no replication, every data-parallel GPU shards");
      else r_.unmodelled_key(k, v, "HSDP replicas (shards within groups of data_parallel_shard_dim GPUs) are not read into sharding_group_size");
    } else if (k == "data_parallel_shard_dim") {
      if (integer_value(v).value_or(-1) == -1) r_.ignore(k, v, "-1: every data-parallel GPU shards");
      else r_.unmodelled_key(k, v, "an explicit shard group size is not read into sharding_group_size");
    } else if (k == "custom_sharded_layers") {
      r_.unmodelled_key(k, v, "the embedding and output layers sharded as FSDP units of their own: their gathers are not counted apart");
    } else if (k == "ac_mode" || k == "ac_option") {
      r_.unmodelled_key(k, v, "selective activation checkpointing by layer count or op: the estimate checkpoints every layer");
    } else if (k == "resize_token_embeddings") {
      if (v.is_bool() && !v.as_bool()) r_.ignore(k, v, "off");
      else r_.unmodelled_key(k, v, "the vocabulary resized to the tokenizer's: the estimate keeps the checkpoint's");
    } else if (k == "ref_model") {
      r_.unmodelled_key(k, v, "a reference model of its own: the estimate takes the policy's architecture");
    } else if (k == "teacher_model" || k == "teacher_checkpointer") {
      // knowledge_distillation_{single_device,distributed}.py load a teacher beside the student
      // (recipes/configs/llama3_2/8B_to_1B_KD_lora_distributed.yaml).
      r_.unmodelled_key(k, v, "a distillation teacher held beside the model: its weights and forward activations are not priced");
    } else if (no_memory_effect(k)) {
      r_.ignore(k, v, "no memory effect");
    } else {
      r_.ignore(k, v, std::string("not a key this reader maps; assumed without memory effect (") + kTune + " recipes)");
    }
  }

  void read_model(const ConfigValue& m) {
    const auto comp = component_of(m);
    if (!comp) {
      r_.error(error_code::wrong_type, "model", "expected a component mapping with _component_, got " + m.summary());
      return;
    }
    // torchtune.models.<family>.<builder>
    const std::string prefix = "torchtune.models.";
    if (comp->path.rfind(prefix, 0) == 0) family_ = comp->path.substr(prefix.size(), comp->path.find('.', prefix.size()) - prefix.size());
    std::string builder = comp->name;
    const bool qlora_builder = builder.rfind("qlora_", 0) == 0;
    const bool lora = qlora_builder || builder.rfind("lora_", 0) == 0;
    if (qlora_builder) builder = builder.substr(6);
    else if (lora) builder = builder.substr(5);
    // qlora_<builder> is partial(lora_<builder>, quantize_base=True) (models/<family>/
    // _model_builders.py): a quantize_base the config gives wins over the partial's, so a lora_
    // builder given quantize_base=True builds the same NF4 base (the only way for families without
    // qlora_ builders: qwen2, qwen2_5) and a qlora_ builder given False does not quantize.
    const ConfigValue* quantize = lora ? m.find("quantize_base") : nullptr;
    const std::optional<bool> quantize_given = quantize ? bool_value(resolved(c_, *quantize)) : std::nullopt;
    const bool qlora = quantize_given.value_or(qlora_builder);
    const std::string method_key = quantize_given ? "model.quantize_base" : "model._component_";
    const std::string builders_file = "torchtune/models/" + (family_.empty() ? std::string("<family>") : family_) + "/_model_builders.py";
    const TorchtuneBuilder* known = torchtune_builder_named(builder);
    if (known) r_.name_model(known->preset, "model._component_");
    else if (auto hub = hub_builders().find(builder); hub != hub_builders().end()) r_.name_model(hub->second, "model._component_");
    else r_.name_model(comp->path, "model._component_");
    // A builder torchtune does not define fails config.instantiate: said, never read as if it ran.
    if (known && qlora_builder && !has_qlora_builders(*known))
      r_.error(error_code::unknown_value, "model._component_",
               comp->name + " does not exist: " + builders_file + " defines no qlora_ builders; QLoRA is lora_" + builder +
                   " with quantize_base: True",
               {{"value", comp->name}, {"allowed", "lora_" + builder + " with quantize_base: True"}});

    method_ = qlora ? "qlora" : lora ? "lora" : "full";
    r_.read("method", method_, method_key);
    if (lora_recipe_ && !lora) r_.error(error_code::inconsistent, "model._component_", recipe_ + " trains LoRA adapters; " + comp->name + " builds a model without them",
                                          {{"reason", "lora_recipe_full_model"}, {"recipe", recipe_}, {"component", comp->name}});
    if (recipe_known_ && !lora_recipe_ && lora && recipe_.find("finetune") != std::string::npos)
      r_.error(error_code::inconsistent, "model._component_", recipe_ + " is a full fine-tuning recipe; " + comp->name + " builds a LoRA model",
                {{"reason", "full_recipe_lora_model"}, {"recipe", recipe_}, {"component", comp->name}});
    if (qlora) {
      // modules/peft/lora.py LoRALinear(quantize_base=True): torchao to_nf4(weight) with block_size 64
      // and its scalers quantized again in blocks of 256 (torchao dtypes/nf4tensor.py).
      r_.read("qlora.quant_type", "nf4", method_key);
      r_.read("qlora.double_quant", true, method_key);
    }
    const bool phi3 = family_ == "phi3";
    ConfigValue::Array targets;
    auto add = [&](const std::string& t) {
      if (std::find(targets.begin(), targets.end(), ConfigValue(t)) == targets.end()) targets.emplace_back(t);
    };
    bool mlp = false, output = false;
    std::optional<ConfigValue::Array> attn;
    for (const auto& [name, raw] : m.as_object()) {
      const std::string k = "model." + name;
      const ConfigValue& v = resolved(c_, raw);
      if (name == "_component_") continue;
      if (!lora) {
        // The full builders take no arguments (Llama 3.2's tie_word_embeddings aside): instantiate
        // calls builder(**kwargs), which raises TypeError for any other.
        if (known && !(std::string(known->family) == "llama3_2" && name == "tie_word_embeddings"))
          r_.error(error_code::inconsistent, k,
                   comp->name + " takes no " + name + " (" + builders_file + "): the builder of a model without adapters has no such argument" +
                       (name.find("lora") != std::string::npos || name == "quantize_base" || name == "use_dora" ? "; lora_" + builder + " builds one with them" : ""),
                   {{"reason", "builder_argument"}, {"component", comp->name}});
        else
          r_.unmodelled_key(k, v, "a builder argument the estimate does not read (the catalog model's architecture is used)");
        continue;
      }
      if (name == "lora_attn_modules") {
        if (!v.is_array()) {
          r_.error(error_code::wrong_type, k, "expected a list of q_proj, k_proj, v_proj, output_proj, got " + v.summary());
          continue;
        }
        attn = ConfigValue::Array{};
        for (const auto& e : v.as_array()) {
          const std::string s = string_value(e).value_or("");
          if (s != "q_proj" && s != "k_proj" && s != "v_proj" && s != "output_proj") {
            r_.error(error_code::unknown_value, k, "expected q_proj, k_proj, v_proj or output_proj (modules/peft LORA_ATTN_MODULES), got " + e.summary());
            continue;
          }
          attn->emplace_back(s);
        }
      } else if (name == "apply_lora_to_mlp") {
        if (auto b = boolean(r_, k, v)) mlp = *b;
      } else if (name == "apply_lora_to_output") {
        if (auto b = boolean(r_, k, v)) output = *b;
      } else if (name == "lora_rank") {
        if (auto n = tune_integer(r_, k, v)) r_.read("lora.r", *n, k);
      } else if (name == "lora_dropout") {
        if (auto d = typed<double>(r_, k, v, number_value, "a number")) r_.read("lora.lora_dropout", *d, k);
      } else if (name == "use_dora") {
        if (auto b = boolean(r_, k, v)) r_.read("lora.use_dora", *b, k);
      } else if (name == "lora_alpha") {
        r_.ignore(k, v, "scales the adapter's output: no memory effect");
      } else if (name == "quantize_base") {
        boolean(r_, k, v);  // read above: it decides the method
      } else {
        r_.unmodelled_key(k, v, "a builder argument the estimate does not read");
      }
    }
    if (!lora) return;
    // PEFT names of torchtune's modules: q/k/v_proj as they are, output_proj -> o_proj, the MLP's
    // w1/w2/w3 -> gate_proj/down_proj/up_proj, output -> lm_head (models/convert_weights.py
    // _FROM_HF). Phi-3's checkpoint fuses q/k/v (qkv_proj) and gate/up (gate_up_proj)
    // (models/phi3/_convert_weights.py).
    if (!attn) {
      if (!m.find("lora_attn_modules"))
        r_.error(error_code::missing_field, "model.lora_attn_modules", "the LoRA builders require lora_attn_modules (" + builders_file + ")",
                   {{"reason", "lora_attn_modules_required"}});
      return;
    }
    for (const auto& e : *attn) {
      const std::string s = e.as_string();
      if (phi3 && s != "output_proj") add("qkv_proj");
      else add(s == "output_proj" ? "o_proj" : s);
    }
    if (mlp) {
      if (phi3) add("gate_up_proj");
      else { add("gate_proj"); add("up_proj"); }
      add("down_proj");
    }
    // lora_qwen3 (0.6B to 4B), lora_qwen2 and lora_llama3_2 raise ValueError for an output tied to
    // the embedding ("apply_lora_to_output is incompatible with tie_word_embeddings", their
    // _component_builders.py, which the family's builders call); Gemma's and Qwen2 0.5B/1.5B's
    // builders take no apply_lora_to_output at all (TypeError on instantiation).
    if (output && known && known->lora_output == LoraOutput::tied) {
      r_.error(error_code::inconsistent, "model.apply_lora_to_output",
               comp->name + " ties its output projection to the embedding: torchtune raises ValueError for apply_lora_to_output: True (" +
                   builders_file + ")",
               {{"reason", "tied_output"}, {"component", comp->name}});
      output = false;
    }
    if (known && known->lora_output == LoraOutput::absent && has("model.apply_lora_to_output")) {
      r_.error(error_code::inconsistent, "model.apply_lora_to_output",
               comp->name + " takes no apply_lora_to_output (" + builders_file + "): instantiating it raises TypeError",
               {{"reason", "builder_argument"}, {"component", comp->name}});
      output = false;
    }
    if (output) add("lm_head");
    if (phi3 && attn->size() > 0)
      r_.unmodelled_key("model.lora_attn_modules", ConfigValue(*attn), "torchtune gives Phi-3's q, k and v separate adapters; the estimate's fused qkv_proj gets one (adapter parameters differ by r x hidden per extra projection)");
    std::string from = r_.key("model.lora_attn_modules");
    if (has("model.apply_lora_to_mlp")) from += " and " + r_.key("model.apply_lora_to_mlp");
    if (has("model.apply_lora_to_output")) from += " and " + r_.key("model.apply_lora_to_output");
    r_.fields.push_back({"lora.target_modules", ConfigValue(targets), "read from " + from, r_.key("model.lora_attn_modules"), Strength::read});
    const std::string defaults_of = src(builders_file, comp->name);
    if (!has("model.lora_rank")) r_.trainer_default("lora.r", 8, defaults_of + " lora_rank = 8");
    if (!has("model.lora_dropout")) r_.trainer_default("lora.lora_dropout", 0.0, defaults_of + " lora_dropout = 0.0");
    if (!has("model.use_dora")) r_.trainer_default("lora.use_dora", false, defaults_of + " use_dora = False");
  }

  void read_tokenizer(const ConfigValue& t) {
    if (!t.is_object()) {
      r_.error(error_code::wrong_type, "tokenizer", "expected a component mapping, got " + t.summary());
      return;
    }
    for (const auto& [name, raw] : t.as_object()) {
      const std::string k = "tokenizer." + name;
      const ConfigValue& v = resolved(c_, raw);
      if (name == "max_seq_len") {
        if (v.is_null())
          r_.unresolved_field("batch.seq_length", k, v, "null: samples are not truncated, so the sequence length is the dataset's longest sample (padded per batch), which the config does not say");
        else if (auto n = tune_integer(r_, k, v))
          r_.read("batch.seq_length", *n, k);
      } else {
        r_.ignore(k, v, "tokenizer setting without memory effect");
      }
    }
    if (!t.find("max_seq_len"))
      r_.unresolved_field("batch.seq_length", "tokenizer.max_seq_len", nullptr, "not set: the tokenizer's max_seq_len defaults to None, no truncation; the sequence length is the dataset's longest sample");
  }

  void read_dataset(const ConfigValue& d) {
    if (d.is_array()) {
      // A list of datasets is concatenated (datasets/_concat.py); each may pack.
      for (std::size_t i = 0; i < d.as_array().size(); ++i) read_dataset_entry(d.as_array()[i], "dataset[" + std::to_string(i) + "]");
    } else {
      read_dataset_entry(d, "dataset");
    }
    padding_from_collator();
  }

  // Unpacked samples are padded per batch to the longest one by the recipes' collate_fn
  // (cfg.get("collate_fn", "torchtune.data.padded_collate_sft"); padded_collate_dpo for DPO); a
  // packed dataset gives every sample tokenizer.max_seq_len tokens (padded_collate_packed).
  void padding_from_collator() {
    if (packed_) return;
    if (const ConfigValue* f = c_.at_path("collate_fn")) {
      const auto name = string_value(resolved(c_, *f));
      if (!name || (name->find("padded_collate_sft") == std::string::npos && name->find("padded_collate_dpo") == std::string::npos)) return;
    }
    r_.trainer_default("batch.padding", "longest",
                       src("torchtune/data/_collate.py", "padded_collate_sft pads each batch to its longest sample (dataset packed: False)"));
  }

  void read_dataset_entry(const ConfigValue& d, const std::string& path) {
    if (!d.is_object()) {
      r_.ignore(path, d, "the data: no memory effect beyond the sequence length");
      return;
    }
    for (const auto& [name, raw] : d.as_object()) {
      const std::string k = path + "." + name;
      const ConfigValue& v = resolved(c_, raw);
      if (name == "packed") {
        auto b = boolean(r_, k, v);
        if (b && *b && !has("tokenizer.max_seq_len"))
          r_.error(error_code::inconsistent, k, "packing needs tokenizer.max_seq_len (datasets/_packed.py PackedDataset)",
                    {{"reason", "packing_needs_max_seq_len"}});
        else if (b)
          r_.ignore(k, v, *b ? "every sample is packed to tokenizer.max_seq_len tokens: the sequence length read from it"
                             : "padded to the batch's longest sample, at most tokenizer.max_seq_len (batch.padding longest)");
        if (b && *b) packed_ = true;
      } else {
        r_.ignore(k, v, "dataset setting without memory effect");
      }
    }
  }

  void read_optimizer(const ConfigValue& o) {
    const auto comp = component_of(o);
    if (!comp) {
      r_.error(error_code::wrong_type, "optimizer", "expected a component mapping with _component_, got " + o.summary());
      return;
    }
    const std::string& p = comp->path;
    const std::string k = "optimizer._component_";
    bool torch_optim = false;
    if (p == "torch.optim.AdamW") { r_.read("precision.optimizer", "adamw", k); torch_optim = true; }
    else if (p == "torch.optim.Adam") { r_.read("precision.optimizer", "adam", k); torch_optim = true; }
    else if (p == "torch.optim.SGD") {
      const ConfigValue* momentum = o.find("momentum");
      r_.read("precision.optimizer", momentum && number_value(*momentum).value_or(0) > 0 ? "sgd_momentum" : "sgd", k);
      torch_optim = true;
    }
    // bitsandbytes/optim/adamw.py: PagedAdamW (32-bit states, paged), PagedAdamW8bit, AdamW8bit.
    else if (p == "bitsandbytes.optim.PagedAdamW" || p == "bitsandbytes.optim.PagedAdamW32bit") {
      r_.read("precision.optimizer", "paged_adamw", k);
      bitsandbytes_optimizer_ = Optimizer::paged_adamw;
    }
    else if (p == "bitsandbytes.optim.PagedAdamW8bit") {
      r_.read("precision.optimizer", "paged_adamw_8bit", k);
      bitsandbytes_optimizer_ = Optimizer::paged_adamw_8bit;
    }
    else if (p == "bitsandbytes.optim.AdamW8bit") {
      r_.read("precision.optimizer", "adamw_8bit", k);
      bitsandbytes_optimizer_ = Optimizer::adamw_8bit;
    }
    // torchao's 8-bit AdamW keeps block-wise int8 states as bitsandbytes' does.
    else if (p == "torchao.optim.AdamW8bit" || p == "torchao.prototype.low_bit_optim.AdamW8bit") r_.read("precision.optimizer", "adamw_8bit", k);
    else if (p == "bitsandbytes.optim.Lion") {
      r_.read("precision.optimizer", "lion", k);
      bitsandbytes_optimizer_ = Optimizer::lion;
    }
    else if (p == "lion_pytorch.Lion") r_.read("precision.optimizer", "lion", k);
    else r_.unmodelled_key(k, ConfigValue(p), "an optimizer the estimate has no state layout for; AdamW's is assumed");
    for (const auto& [name, raw] : o.as_object()) {
      if (name == "_component_") continue;
      const std::string key = "optimizer." + name;
      const ConfigValue& v = resolved(c_, raw);
      if (torch_optim && (name == "fused" || name == "foreach")) {
        auto b = boolean(r_, key, v);
        if (b && *b) r_.read("precision.optimizer_implementation", name, key);
        else if (b) r_.ignore(key, v, "off");
      } else {
        r_.ignore(key, v, "optimizer hyper-parameter without memory effect");
      }
    }
    // torch/optim/adamw.py: neither fused nor foreach given -> foreach on CUDA tensors (_default_to_fused_or_foreach).
    if (torch_optim && !bool_value(o.find("fused") ? *o.find("fused") : ConfigValue(false)).value_or(false) &&
        !bool_value(o.find("foreach") ? *o.find("foreach") : ConfigValue(false)).value_or(false))
      r_.trainer_default("precision.optimizer_implementation", "foreach", "torch/optim/optimizer.py _default_to_fused_or_foreach: foreach on CUDA");
  }

  void read_loss(const ConfigValue& l) {
    const auto comp = component_of(l);
    if (!comp) {
      r_.error(error_code::wrong_type, "loss", "expected a component mapping with _component_, got " + l.summary());
      return;
    }
    const std::string k = "loss._component_";
    const std::string& n = comp->name;
    bool chunked = false;
    if (n == "CEWithChunkedOutputLoss") {
      // modules/loss/ce_chunked_output_loss.py: the model's output in num_output_chunks chunks, each upcast on its own.
      r_.read("loss.implementation", "chunked", k);
      chunked = true;
    } else if (n == "LinearCrossEntropyLoss") {
      // modules/loss/cross_entropy_loss.py: the output projection per chunk of hidden states; each
      // chunk's fp32 log-softmax is kept for backward (no recompute). The estimate's chunked loss
      // counts the same fp32 chunks plus the full 16-bit logits, which this loss never builds.
      r_.read("loss.implementation", "chunked", k);
      r_.unmodelled_key(k, ConfigValue(comp->path), "the logits are computed chunk by chunk from the hidden states; the estimate's chunked loss also counts the full 16-bit logits (over-estimates by 2 bytes per logit)");
      chunked = true;
    } else if (n == "CrossEntropyLoss") {
      r_.read("loss.implementation", "full", k);
    } else if (n == "DPOLoss" || n == "RSOLoss" || n == "SimPOLoss") {
      r_.ignore(k, ConfigValue(comp->path), "the preference loss over the policy's log-probabilities");
    } else {
      r_.unmodelled_key(k, ConfigValue(comp->path), "a loss the estimate does not model; the framework's chunked cross-entropy is assumed");
    }
    for (const auto& [name, raw] : l.as_object()) {
      if (name == "_component_") continue;
      const std::string key = "loss." + name;
      const ConfigValue& v = resolved(c_, raw);
      if (name == "num_output_chunks" && chunked) {
        if (auto c = tune_integer(r_, key, v)) r_.read("loss.num_chunks", *c, key);
      } else {
        r_.ignore(key, v, "loss setting without memory effect");
      }
    }
    if (chunked && !l.find("num_output_chunks"))
      r_.trainer_default("loss.num_chunks", 8, src("torchtune/modules/loss/cross_entropy_loss.py", n + " num_output_chunks = 8"));
  }

  void defaults() {
    r_.trainer_default("framework", "torchtune", src("recipes/", "train with torchtune's own loop"));
    const std::string recipe = "recipes/" + (recipe_.empty() ? std::string("*_finetune_*") : recipe_) + ".py";
    if (!has("dtype")) {
      r_.trainer_default("precision.param_dtype", "fp32", src("torchtune/training/precision.py", "get_dtype(None) = torch.float32"));
      r_.trainer_default("precision.compute_dtype", "fp32", src("torchtune/training/precision.py", "get_dtype(None) = torch.float32"));
    }
    // The model is built under training.set_default_dtype(dtype): weights, adapters, gradients and
    // optimizer states all in that dtype, no fp32 master copy (recipes' _setup_model).
    r_.trainer_default("precision.master_weights", false, src(recipe, "_setup_model under set_default_dtype(dtype): no fp32 master copy"));
    // bitsandbytes' 32-bit optimizers keep fp32 states whatever the parameters' dtype
    // (trainmem/precision.hpp bitsandbytes_32bit_states); lion_pytorch's Lion does not.
    if (bitsandbytes_optimizer_ && bitsandbytes_32bit_states(*bitsandbytes_optimizer_))
      r_.trainer_default("precision.optimizer_state_dtype", "fp32",
                         "bitsandbytes 0.43.1 bitsandbytes/optim/optimizer.py init_state: optim_bits=32 -> torch.float32");
    else
      r_.trainer_default("precision.optimizer_state_dtype", dtype_, src(recipe, "optimizer states in the parameters' dtype"));
    if (method_ == "lora" || method_ == "qlora")
      r_.trainer_default("lora.adapter_dtype", dtype_, src(recipe, "_setup_model: adapters built under set_default_dtype(dtype)"));
    if (!has("enable_activation_checkpointing"))
      r_.trainer_default("activation_checkpointing", "none", src(recipe, "cfg.get(\"enable_activation_checkpointing\", False)"));
    if (!has("enable_activation_offloading"))
      r_.trainer_default("activation_offload", false, src(recipe, "cfg.get(\"enable_activation_offloading\", False)"));
    if (!has("compile")) r_.trainer_default("compile", false, src(recipe, "cfg.get(\"compile\", False)"));
    if (!has("gradient_accumulation_steps"))
      r_.error(error_code::missing_field, "gradient_accumulation_steps", "the recipes read cfg.gradient_accumulation_steps, which has no default",
                 {{"reason", "recipe_key_required"}});
    if (!has("batch_size")) r_.error(error_code::missing_field, "batch_size", "the recipes read cfg.batch_size, which has no default",
                                        {{"reason", "recipe_key_required"}});
    if (!has("loss._component_")) r_.error(error_code::missing_field, "loss", "the recipes instantiate cfg.loss, which has no default",
                                               {{"reason", "recipe_key_required"}});
    if (!has("optimizer._component_")) r_.error(error_code::missing_field, "optimizer", "the recipes instantiate cfg.optimizer, which has no default",
                                                    {{"reason", "recipe_key_required"}});
    // modules/attention.py: torch's scaled_dot_product_attention (flex attention for packed samples).
    r_.trainer_default("attention", "sdpa", src("torchtune/modules/attention_utils.py", "_sdpa_or_flex_attention: SDPA (flex attention only for packed samples)"));
    if (distributed_ && !has("optimizer_in_bwd") && method_ == "full")
      r_.trainer_default("precision.optimizer_in_backward", false, src(recipe, "cfg.get(\"optimizer_in_bwd\", False)"));
    if (distributed_ && !has("fsdp_reshard_after_forward"))
      r_.trainer_default("parallel.reshard_after_forward", true, src(recipe, "cfg.get(\"fsdp_reshard_after_forward\", True)"));
  }
};

}  // namespace

bool is_torchtune_config(const ConfigValue& content) {
  if (!content.is_object()) return false;
  for (const char* key : {"model", "policy_model"}) {  // policy_model: the PPO recipe's (see TorchtuneReader::read)
    const ConfigValue* m = content.find(key);
    if (m && m->is_object() && m->find("_component_")) return true;
  }
  return false;
}

std::optional<TuneRun> tune_run_command(const ShellCommand& c, const std::string& file) {
  const auto& w = c.words;
  std::size_t i = 0;
  while (i < w.size() && (w[i].text == "nohup" || w[i].text == "time" || w[i].text == "exec" || w[i].text == "env")) ++i;
  if (i + 1 >= w.size()) return std::nullopt;
  const std::string first = w[i].text.substr(w[i].text.find_last_of('/') == std::string::npos ? 0 : w[i].text.find_last_of('/') + 1);
  if (first != "tune" || w[i + 1].text != "run") return std::nullopt;
  TuneRun run;
  run.file = file;
  run.line = c.line;
  i += 2;
  // torchrun's options come before the recipe (_cli/run.py: "tune run [TORCHRUN-OPTIONS] <recipe>").
  static const std::set<std::string> valueless = {"--standalone", "--no-python", "--no_python", "--module", "-m", "--run-path", "--run_path"};
  auto note_unresolved = [&](const ShellWord& word) {
    run.unresolved.push_back({file + ":" + word.text, word.unresolved_what + " is not set in the file: " + word.text + " is not read", word.text});
  };
  while (i < w.size() && w[i].text.size() > 1 && w[i].text[0] == '-') {
    std::string flag = w[i].text, value;
    bool inline_value = false;
    if (const auto eq = flag.find('='); eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      inline_value = true;
    }
    const std::size_t name_start = flag.find_first_not_of('-');
    if (name_start == std::string::npos) {
      // "--" ends torchrun's options (argparse): the next word is the recipe. Other words of
      // dashes alone ("---", "--=x") name no option either.
      ++i;
      if (w[i - 1].text == "--") break;
      continue;
    }
    std::string name = flag.substr(name_start);
    std::replace(name.begin(), name.end(), '-', '_');
    bool unresolved = w[i].unresolved;
    const ShellWord* shown = &w[i];
    ++i;
    if (!inline_value && !valueless.count(flag) && i < w.size()) {
      value = w[i].text;
      unresolved = unresolved || w[i].unresolved;
      if (w[i].unresolved) shown = &w[i];
      ++i;
    }
    if (unresolved && (name == "nproc_per_node" || name == "nnodes")) {
      note_unresolved(*shown);
      run.world_unresolved = true;
      run.open_overrides.push_back({"--" + name, shown->text, shown->unresolved_what});
      continue;
    }
    if (name == "nproc_per_node") run.nproc_per_node = ConfigValue(value);
    else if (name == "nnodes") run.nnodes = ConfigValue(value);
  }
  if (i >= w.size()) return run;  // no recipe: reported by the caller
  run.recipe = w[i++].text;
  while (i < w.size()) {
    const ShellWord& word = w[i++];
    if (word.text == "--config" && i < w.size()) {
      run.config = w[i++].text;
      continue;
    }
    if (word.text.rfind("--config=", 0) == 0) {
      run.config = word.text.substr(9);
      continue;
    }
    if (word.unresolved) {
      note_unresolved(word);
      if (const auto eq = word.text.find('='); eq != std::string::npos && eq > 0 && word.text[0] != '-' && word.text[0] != '~' &&
                                                  word.text.find_first_of("$`") > eq)
        run.open_overrides.push_back({word.text.substr(0, eq), word.text, word.unresolved_what});
      continue;
    }
    if (word.text.empty() || word.text[0] == '-') continue;
    run.overrides.push_back(word.text);
  }
  return run;
}

Reading read_torchtune_config(const std::string& file, const ConfigValue& content, const TuneRun* run) {
  Reading r(file, "torchtune");
  ConfigValue merged = content;
  if (run) {
    // The launch line's keys are cited from its own file.
    auto cite = [&](const std::string& key, const std::string& written) { r.sourced_keys[key] = run->file + ":" + written; };
    // config/_utils.py _merge_yaml_and_cli_args: "~key" removes a key, key=value sets one (a
    // component's key names its _component_), the line's values win over the file's.
    for (const auto& o : run->overrides) {
      if (o[0] == '~') {
        const std::string path = o.substr(1, o.find('=') == std::string::npos ? std::string::npos : o.find('=') - 1);
        const auto dot = path.find_last_of('.');
        ConfigValue* parent = dot == std::string::npos ? &merged : nullptr;
        if (!parent) {
          const ConfigValue* p = merged.at_path(path.substr(0, dot));
          parent = const_cast<ConfigValue*>(p);
        }
        const std::string leaf = dot == std::string::npos ? path : path.substr(dot + 1);
        if (!parent || !parent->is_object() || !parent->find(leaf)) {
          r.errors.push_back({error_code::unknown_value, run->file + ":" + o, run->file + ":" + o + ": tune run cannot remove " + path + ", which the config does not have"});
          continue;
        }
        parent->as_object().erase(std::remove_if(parent->as_object().begin(), parent->as_object().end(),
                                                 [&](const auto& kv) { return kv.first == leaf; }),
                                  parent->as_object().end());
        r.ignored.push_back({run->file + ":" + o, "removes " + path + " from the config", nullptr});
        continue;
      }
      const auto eq = o.find('=');
      if (eq == std::string::npos || eq == 0) {
        r.errors.push_back({error_code::unknown_value, run->file + ":" + o, run->file + ":" + o + ": tune run overrides are key=value (config/_utils.py)"});
        continue;
      }
      std::string key = o.substr(0, eq);
      if (const ConfigValue* existing = merged.at_path(key); existing && existing->is_object() && existing->find("_component_")) key += "._component_";
      merged.set_path(key, override_value(o.substr(eq + 1)));
      cite(key, o.substr(0, eq));
    }
  }
  TorchtuneReader(r, merged, run).read();
  return r;
}

}  // namespace trainmem::import_detail
