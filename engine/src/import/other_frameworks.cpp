// The detection table of trainers this import does not read. Each entry names the keys or the
// command that only that framework uses, and where its own repository shows them:
//
//   NeMo          top-level trainer: + model: + exp_manager: (NVIDIA/NeMo
//                 examples/nlp/language_modeling/conf/megatron_gpt_config.yaml, NeMo 1.x), or a
//                 Hydra `_target_: nemo.…` (NeMo's ASR/TTS/multimodal configs, NeMo 2 run configs);
//                 a launch with Hydra overrides trainer.X=… and model.X=… or the `nemo` CLI.
//   LitGPT        checkpoint_dir: beside a train: mapping or lora_r: (Lightning-AI/litgpt
//                 config_hub/finetune/*/lora.yaml), a class_path: litgpt.…; the `litgpt` command.
//   Lightning     LightningCLI configs: trainer: with model:/data: and seed_everything: or a
//                 class_path:/init_args: block (lightning.pytorch.cli.LightningCLI); --trainer.X flags.
//   MaxText       two or more of base_emb_dim, base_num_query_heads, base_num_decoder_layers,
//                 base_mlp_dim, per_device_batch_size, ici_*_parallelism, dcn_*_parallelism,
//                 max_target_length, remat_policy (AI-Hypercomputer/maxtext MaxText/configs/base.yml);
//                 a MaxText/train.py or -m MaxText.train command.
//   ms-swift      train_type: (swift 3.x, swift/llm/argument/tuner_args.py TunerArguments.train_type),
//                 tuner_type: (its later name, swift/arguments/base_args/base_args.py @3602360) or
//                 rlhf_type: beside model:/dataset: (modelscope/ms-swift examples/yaml/deepspeed/sft.yaml,
//                 examples/yaml/megatron/sft.yaml); the `swift sft|pt|rlhf`
//                 and `megatron sft|pt|rlhf` commands (examples/train/*.sh), -m swift.cli.*.
//   OpenRLHF      openrlhf.cli.* modules or openrlhf/cli/*.py (OpenRLHF/OpenRLHF
//                 examples/scripts/train_sft_llama.sh: deepspeed --module openrlhf.cli.train_sft).
//   Nanotron      general: + parallelism: + tokens: (or data_stages:) (huggingface/nanotron
//                 examples/config_tiny_llama.yaml); run_train.py --config-file.
//   Colossal-AI   the `colossalai run` launcher (hpcaitech/ColossalAI examples/language/*/run.sh).
//   NeMo Megatron-Bridge  scripts/training/run_recipe.py, or --recipe beside train.*=/model.*=
//                 overrides (NVIDIA-NeMo/Megatron-Bridge examples/models/*/*.sh).
//
// Every marker is one none of the formats this import reads uses (axolotl, LLaMA-Factory, TRL /
// TrainingArguments, accelerate, DeepSpeed, torchtune, torchtitan, Megatron-LM): MaxText's
// gradient_accumulation_steps or ms-swift's per_device_train_batch_size would otherwise read such
// a file as TrainingArguments at the HF Trainer's defaults.
#include "other_frameworks.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <vector>

#include "shell_words.hpp"

namespace trainmem::import_detail {

namespace {

std::string lowered(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool starts_with(const std::string& s, const std::string& head) { return s.rfind(head, 0) == 0; }

const ConfigValue* key(const ConfigValue& c, const char* k) { return c.is_object() ? c.find(k) : nullptr; }

// A `field:` string value anywhere in the first two levels of a mapping starting with `prefix`
// (class_path: litgpt.data.Alpaca, _target_: nemo.collections...).
bool string_value_starts(const ConfigValue& c, const char* field, const std::string& prefix, int depth = 2) {
  if (!c.is_object() || depth < 0) return false;
  for (const auto& [k, v] : c.as_object()) {
    if (k == field && v.is_string() && starts_with(v.as_string(), prefix)) return true;
    if (string_value_starts(v, field, prefix, depth - 1)) return true;
  }
  return false;
}

struct ConfigMarker {
  const char* framework;
  const char* evidence;
  std::function<bool(const ConfigValue&)> matches;
};

const std::vector<ConfigMarker>& config_markers() {
  static const std::vector<ConfigMarker> table = {
      {"NeMo", "top-level trainer:, model: and exp_manager:",
       [](const ConfigValue& c) { return key(c, "trainer") && key(c, "model") && key(c, "exp_manager"); }},
      {"NeMo", "_target_: nemo.…", [](const ConfigValue& c) { return string_value_starts(c, "_target_", "nemo."); }},
      {"LitGPT", "checkpoint_dir: with LitGPT's train:/lora_r: keys or class_path: litgpt.…",
       [](const ConfigValue& c) {
         return (key(c, "checkpoint_dir") && ((key(c, "train") && key(c, "train")->is_object()) || key(c, "lora_r"))) ||
                string_value_starts(c, "class_path", "litgpt.");
       }},
      {"PyTorch Lightning (LightningCLI)", "trainer: with model:/data: and seed_everything: or class_path:",
       [](const ConfigValue& c) {
         return key(c, "trainer") && (key(c, "model") || key(c, "data")) &&
                (key(c, "seed_everything") || string_value_starts(c, "class_path", ""));
       }},
      {"MaxText", "MaxText's base.yml keys (base_emb_dim, per_device_batch_size, ici_*_parallelism, ...)",
       [](const ConfigValue& c) {
         if (!c.is_object()) return false;
         int n = 0;
         for (const auto& [k, v] : c.as_object()) {
           static const std::vector<std::string> names = {"base_emb_dim", "base_num_query_heads", "base_num_decoder_layers", "base_mlp_dim",
                                                          "per_device_batch_size", "max_target_length", "remat_policy"};
           const bool parallelism = (starts_with(k, "ici_") || starts_with(k, "dcn_")) && k.size() > 12 &&
                                    k.compare(k.size() - 12, 12, "_parallelism") == 0;
           if (parallelism || std::find(names.begin(), names.end(), k) != names.end()) ++n;
         }
         return n >= 2;
       }},
      // LLaMA-Factory's v1 trainer (src/llamafactory/v1/config/training_args.py, model_args.py:
      // run under USE_V1=1): model:, micro_batch_size and cutoff_len beside peft_config: or
      // dist_config: blocks; this import reads the v0 keys (finetuning_type, per_device_train_batch_size).
      {"LLaMA-Factory v1", "model: with peft_config:, dist_config: or kernel_config: (the v1 trainer, USE_V1=1)",
       [](const ConfigValue& c) {
         return key(c, "model") && (key(c, "peft_config") || key(c, "dist_config") || key(c, "kernel_config") || key(c, "model_class"));
       }},
      {"ms-swift", "train_type:, tuner_type: or rlhf_type: with model:/dataset:",
       [](const ConfigValue& c) {
         return (key(c, "train_type") || key(c, "tuner_type") || key(c, "rlhf_type")) && (key(c, "model") || key(c, "dataset"));
       }},
      {"Nanotron", "top-level general:, parallelism: and tokens: (or data_stages:)",
       [](const ConfigValue& c) { return key(c, "general") && key(c, "parallelism") && (key(c, "tokens") || key(c, "data_stages")); }},
  };
  return table;
}

// The words of a command after env / nohup / time / exec and env's NAME=value words.
std::vector<std::string> command_words(const ShellCommand& c) {
  std::vector<std::string> out;
  bool head = true;
  for (const auto& w : c.words) {
    if (head && (w.text == "nohup" || w.text == "time" || w.text == "exec" || w.text == "env")) continue;
    if (head && w.text.find('=') != std::string::npos && !starts_with(w.text, "-") && (std::isalpha(static_cast<unsigned char>(w.text[0])) || w.text[0] == '_'))
      continue;
    head = false;
    out.push_back(w.text);
  }
  return out;
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::optional<OtherFramework> other_framework_config(const ConfigValue& content) {
  for (const auto& m : config_markers())
    if (m.matches(content)) return OtherFramework{m.framework, m.evidence};
  return std::nullopt;
}

std::optional<OtherFramework> other_framework_command(const ShellCommand& command) {
  const std::vector<std::string> w = command_words(command);
  if (w.empty()) return std::nullopt;
  const std::string first = base_name(w[0]);
  const std::string second = w.size() > 1 ? w[1] : "";
  if (first == "swift" && !second.empty() && second[0] != '-') return OtherFramework{"ms-swift", "the swift " + second + " command"};
  if (first == "megatron" && (second == "sft" || second == "pt" || second == "rlhf"))
    return OtherFramework{"ms-swift (Megatron-SWIFT)", "the megatron " + second + " command"};
  if (first == "litgpt") return OtherFramework{"LitGPT", "the litgpt " + second + " command"};
  if (first == "colossalai") return OtherFramework{"Colossal-AI", "the colossalai " + second + " launcher"};
  if (first == "nemo") return OtherFramework{"NeMo", "the nemo " + second + " command"};
  // The program the command runs: its first *.py word, or the module of -m / --module (paths in
  // other flags, an --output_dir under /nemo/, say, name no framework).
  std::string program;
  for (std::size_t i = 1; i < w.size() && program.empty(); ++i) {
    if ((w[i] == "-m" || w[i] == "--module") && i + 1 < w.size()) {
      if (!starts_with(w[i + 1], "torch.distributed.")) program = w[i + 1];  // torchrun as a module: its program follows
      ++i;
    }
    else if (w[i].size() > 3 && w[i].compare(w[i].size() - 3, 3, ".py") == 0) program = w[i];
  }
  const std::string low = lowered(program);
  if (starts_with(program, "openrlhf.cli.") || low.find("openrlhf/cli/") != std::string::npos) return OtherFramework{"OpenRLHF", program};
  if (starts_with(program, "swift.cli.")) return OtherFramework{"ms-swift", "-m " + program};
  // ms-swift's entry scripts run directly (examples/train/multi-node/deepspeed/train.sh: deepspeed
  // swift/cli/sft.py): its own arguments (--tuner_type, --quant_bits), not TRL's.
  if (starts_with(low, "swift/cli/") || low.find("/swift/cli/") != std::string::npos) return OtherFramework{"ms-swift", program};
  if (starts_with(program, "litgpt") || low.find("litgpt/") != std::string::npos) return OtherFramework{"LitGPT", program};
  if (starts_with(low, "maxtext.train") || low.find("maxtext/train") != std::string::npos) return OtherFramework{"MaxText", program};
  if (starts_with(program, "nemo.") || low.find("/nemo/") != std::string::npos || starts_with(low, "nemo/")) return OtherFramework{"NeMo", program};
  // NeMo Megatron-Bridge's recipe runner (NVIDIA-NeMo/Megatron-Bridge scripts/training/run_recipe.py
  // and scripts/performance/run_recipe.py: --recipe NAME, then OmegaConf overrides such as
  // train.micro_batch_size=2 model.tensor_model_parallel_size=2).
  const bool recipe_overrides = std::any_of(w.begin(), w.end(), [](const std::string& s) {
    return (starts_with(s, "train.") || starts_with(s, "model.")) && s.find('=') != std::string::npos;
  });
  const bool recipe_flag = std::find(w.begin(), w.end(), "--recipe") != w.end();
  if (base_name(program) == "run_recipe.py" || (recipe_flag && recipe_overrides))
    return OtherFramework{"NeMo Megatron-Bridge", program + " --recipe"};
  bool hydra_trainer = false, hydra_model = false, lightning_flags = false, config_file_flag = false;
  bool ds_chat_lora = false, ds_chat_zero = false, ds_chat_split = false, bare_deepspeed = false;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const std::string& s = w[i];
    // DeepSpeed's own store-true --deepspeed (deepspeed.add_config_arguments), which takes no value
    // (TrainingArguments' --deepspeed takes a config path).
    bare_deepspeed = bare_deepspeed || (s == "--deepspeed" && (i + 1 == w.size() || starts_with(w[i + 1], "-")));
    // DeepSpeed-Chat's training scripts (deepspeedai/DeepSpeedExamples applications/DeepSpeed-Chat,
    // dschat/utils: their own argparse flags, no TrainingArguments): --lora_dim, --zero_stage with
    // --data_split.
    ds_chat_lora = ds_chat_lora || s == "--lora_dim" || starts_with(s, "--lora_dim=");
    ds_chat_zero = ds_chat_zero || s == "--zero_stage" || starts_with(s, "--zero_stage=") || s == "--actor_zero_stage" ||
                   starts_with(s, "--actor_zero_stage=");
    ds_chat_split = ds_chat_split || s == "--data_split" || starts_with(s, "--data_split=");
    hydra_trainer = hydra_trainer || (starts_with(s, "trainer.") && s.find('=') != std::string::npos);
    hydra_model = hydra_model || (starts_with(s, "model.") && s.find('=') != std::string::npos);
    lightning_flags = lightning_flags || starts_with(s, "--trainer.");
    config_file_flag = config_file_flag || s == "--config-file" || starts_with(s, "--config-file=");
  }
  if (base_name(program) == "run_train.py" && config_file_flag) return OtherFramework{"Nanotron", "run_train.py --config-file"};
  if (ds_chat_lora || (ds_chat_zero && (ds_chat_split || bare_deepspeed)))
    return OtherFramework{"DeepSpeed-Chat", ds_chat_lora ? "--lora_dim" : ds_chat_split ? "--zero_stage with --data_split" : "--zero_stage with a bare --deepspeed"};
  if (hydra_trainer && hydra_model) return OtherFramework{"NeMo", "Hydra overrides trainer.…= and model.…="};
  if (lightning_flags) return OtherFramework{"PyTorch Lightning (LightningCLI)", "--trainer.… flags"};
  return std::nullopt;
}

std::string other_framework_message(const std::string& where, const OtherFramework& f, bool command) {
  return where + ": this is a " + f.name + (command ? " launch command" : " config") + " (" + f.evidence +
         "); trainmem reads axolotl, LLaMA-Factory, TRL / HF TrainingArguments, accelerate, DeepSpeed, torchtune, "
         "torchtitan and Megatron-LM (pretrain_gpt.py) configs, not " + f.name + "'s: enter the setup in the form "
         "(or as an estimate document), so that none of its settings becomes another trainer's default";
}

}  // namespace trainmem::import_detail
