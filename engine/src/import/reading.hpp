// What one configuration file says about the estimate document, before the files of a run are
// merged (import_configs.cpp): field assignments with their origin, and the keys reported as
// ignored, unmodelled or unresolved. Shared by the per-framework readers.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "trainmem/config_import.hpp"

namespace trainmem::import_detail {

// Which of two values for the same field wins. Values read from files must agree; a trainer's
// documented default beats a launcher's; either default yields to a value a file states.
// engine_cast: the sharding engine converts the weights whatever dtype the trainer loaded them in
// (DeepSpeed's fp16/bf16 sections: deepspeed/runtime/engine.py _configure_distributed_model).
// read_yielding: a stated value that another file's stated value overrides without a conflict, as
// the framework lets it (gradient_checkpointing: false beside accelerate's FSDP activation
// checkpointing; a TrainingArguments fsdp option beside fsdp_config's version), yet no default does.
enum class Strength { launcher_default = 0, trainer_default = 1, read_yielding = 2, read = 3, engine_cast = 4 };

struct Assignment {
  std::string field;   // document path, e.g. "batch.micro_batch_size"
  ConfigValue value;
  std::string origin;  // "read from FILE:key" or "framework default (source)"
  std::string source;  // "FILE:key" (for conflict messages)
  Strength strength = Strength::read;
};

class Reading {
 public:
  Reading(std::string file, std::string format) : file_(std::move(file)), format_(std::move(format)) {}

  const std::string& file() const { return file_; }
  const std::string& format() const { return format_; }
  // "FILE:key"; a command line's keys are shown as the flag was written ("--lora_r").
  std::string key(const std::string& k) const {
    if (const auto it = sourced_keys.find(k); it != sourced_keys.end()) return it->second;
    if (const auto it = shown_keys.find(k); it != shown_keys.end()) return file_ + ":" + it->second;
    return file_ + ":" + k;
  }
  // normalized key -> the flag as written (the first time it was written)
  std::unordered_map<std::string, std::string> shown_keys;
  // key -> "OTHER_FILE:key" for keys another file set (a torchtune launch line's key=value overrides).
  std::unordered_map<std::string, std::string> sourced_keys;

  // A document field read from `key` of this file.
  void read(const std::string& field, ConfigValue value, const std::string& key) {
    fields.push_back({field, std::move(value), "read from " + this->key(key), this->key(key), Strength::read});
  }
  // A value read from a launcher setting that the trainer's own arguments override when they say
  // otherwise (accelerate's mixed_precision under the HF Trainer, which sets it from bf16/fp16).
  void read_overridable(const std::string& field, ConfigValue value, const std::string& key, const std::string& why) {
    fields.push_back({field, std::move(value), "read from " + this->key(key) + " (" + why + ")", this->key(key), Strength::launcher_default});
  }
  // A value read from `key` that a value another file states overrides (Strength::read_yielding).
  void read_yielding(const std::string& field, ConfigValue value, const std::string& key) {
    fields.push_back({field, std::move(value), "read from " + this->key(key), this->key(key), Strength::read_yielding});
  }
  // A field that follows from what the file is (e.g. a DeepSpeed config means DeepSpeed shards).
  void read_from_kind(const std::string& field, ConfigValue value, const std::string& why) {
    fields.push_back({field, std::move(value), "read from " + file_ + " (" + why + ")", file_, Strength::read});
  }
  // A framework's documented default, applied because this file is silent.
  void trainer_default(const std::string& field, ConfigValue value, const std::string& source) {
    fields.push_back({field, std::move(value), "framework default (" + source + ")", file_, Strength::trainer_default});
  }
  void engine_cast(const std::string& field, ConfigValue value, const std::string& key, const std::string& why) {
    fields.push_back({field, std::move(value), "read from " + this->key(key) + " (" + why + ")", this->key(key), Strength::engine_cast});
  }
  void launcher_default(const std::string& field, ConfigValue value, const std::string& source) {
    fields.push_back({field, std::move(value), "framework default (" + source + ")", file_, Strength::launcher_default});
  }
  void ignore(const std::string& k, const ConfigValue& v, std::string reason) {
    ignored.push_back({key(k), std::move(reason), v});
  }
  void unmodelled_key(const std::string& k, const ConfigValue& v, std::string reason) {
    unmodelled.push_back({key(k), std::move(reason), v});
  }
  void unresolved_key(const std::string& k, const ConfigValue& v, std::string reason) {
    unresolved.push_back({key(k), std::move(reason), v});
  }
  // A key that leaves a document field open (torchtune's max_seq_len null: the longest sample; an
  // accelerate launch without a process count: the machine's GPUs): listed under `unresolved`, and
  // the field stays open unless another file states it (a framework default does not fill it).
  void unresolved_field(const std::string& field, const std::string& k, const ConfigValue& v, std::string reason) {
    unresolved_key(k, v, std::move(reason));
    left_open.emplace_back(field, key(k));
  }
  void error(const char* code, const std::string& k, std::string message, Params params = {}) {
    errors.push_back({code, key(k), key(k) + ": " + std::move(message), std::move(params)});
  }

  // The model the file names (a Hugging Face id or a catalog id) and the key naming it.
  void name_model(const std::string& id, const std::string& k) {
    model_id = id;
    model_key = key(k);
  }
  // A model built from the file's architecture arguments (Megatron-LM, a torchtitan flavor): its
  // config.json and origin.
  std::optional<ConfigValue> built_model;
  std::string built_model_origin;
  std::string built_model_source;  // "FILE:key" (or FILE:keys) it was built from
  // The file describes the model but it cannot be built (a note in `unresolved` says why).
  bool model_unbuilt = false;
  // dtype "auto": the checkpoint's own dtype (config.json torch_dtype), known once the model is.
  std::optional<std::string> dtype_from_checkpoint_key;

  std::vector<Assignment> fields;
  // Fields a value the script leaves unresolved would set (`--max_length $SEQ`): never defaulted.
  // origin: "unresolved: FILE:--max_length $SEQ"; key: "FILE:--max_length"; value: "$SEQ";
  // file: the file whose reading the field belongs to.
  struct OpenField {
    std::string field, origin, key, value, file;
  };
  std::vector<OpenField> open_fields;
  // Fields left to the data (unresolved_field): field path -> the key of its note in `unresolved`.
  std::vector<std::pair<std::string, std::string>> left_open;
  std::vector<ImportNote> ignored, unmodelled, unresolved;
  // Other files this one names (a DeepSpeed JSON named by a trainer config), with the naming key.
  std::vector<std::pair<std::string, std::string>> named_files;
  std::optional<std::string> model_id;
  std::string model_key;
  // DeepSpeed's train_batch_size = micro-batch x accumulation x data-parallel size
  // (deepspeed/runtime/config.py _set_batch_related_parameters): resolved once the files' world
  // size is known.
  struct TrainBatch {
    std::int64_t train_batch_size = 0;
    std::string key;
  };
  std::optional<TrainBatch> train_batch;
  std::string hybrid_shard_key;
  // "auto" values: the field another file must fill (DeepSpeed's HF integration), with the note.
  std::vector<std::pair<std::string, ImportNote>> autos;
  // DeepSpeed's fp16/bf16 "enabled": "auto": the trainer's precision flag fills it; when that
  // flag selects `dtype`, DeepSpeed casts the model to it as for an explicit true.
  struct AutoCast {
    std::string dtype;  // "bf16" | "fp16"
    ImportNote note;
  };
  std::vector<AutoCast> auto_casts;
  // DeepSpeed's fp16/bf16 "enabled" as the file writes it: true or false, or no section at all
  // (nullopt; accelerate then adds one from the trainer's mixed precision). A section without
  // "enabled" is off and checked against nothing, and is not listed.
  struct DeepSpeedPrecision {
    std::string dtype;             // "bf16" | "fp16"
    std::optional<bool> enabled;   // nullopt: no section
    std::string key;               // "FILE:bf16.enabled", or "FILE" when there is no section
  };
  std::vector<DeepSpeedPrecision> deepspeed_precision;
  // Files whose values this one overrides (accelerate launch --config_file, TrlParser --config):
  // flags on the command line win over the file they name.
  std::vector<std::string> overrides;  // FSDP HYBRID_SHARD named by this key: groups are one node's GPUs
  Errors errors;

 private:
  std::string file_, format_;
};

// Python-like readings of a scalar (a YAML file, a JSON file or a command-line word): argparse
// and the frameworks' dataclasses accept "4" where 4 is meant.
// ASCII case folding for keys and option names (configs write FULL_SHARD, Bfloat16, ...).
std::string lower(std::string s);
std::string upper(std::string s);
std::optional<std::int64_t> integer_value(const ConfigValue& v);
std::optional<double> number_value(const ConfigValue& v);
// transformers' strtobool: y, yes, t, true, on, 1 / n, no, f, false, off, 0 (any case), and booleans.
std::optional<bool> bool_value(const ConfigValue& v);
std::optional<std::string> string_value(const ConfigValue& v);
bool is_auto(const ConfigValue& v);
// The words for a GPU count no file gives, from the degrees the files do give ({"tensor", 8}, ...):
// the least the run needs (their product), what an estimate of the document alone takes (the same:
// one data-parallel rank), and that the page keeps its form's count. One wording for every reader.
std::string gpu_count_not_given(const std::vector<std::pair<std::string, std::int64_t>>& degrees);

// Reads `k` with `parse`, recording a wrong_type error naming the file and key when it fails.
template <typename T, typename Parse>
std::optional<T> typed(Reading& r, const std::string& k, const ConfigValue& v, Parse parse, const char* expected) {
  auto out = parse(v);
  if (!out) r.error(error_code::wrong_type, k, "expected " + std::string(expected) + ", got " + v.summary());
  return out;
}
// A whole number; one beyond 2^53 (a 23-digit count, which JSON and YAML parsers hold as a
// double) is out of range, not "not a whole number".
std::optional<std::int64_t> whole_number(Reading& r, const std::string& k, const ConfigValue& v);
inline std::optional<std::int64_t> positive_integer(Reading& r, const std::string& k, const ConfigValue& v) {
  auto i = whole_number(r, k, v);
  if (i && *i < 1) {
    r.error(error_code::out_of_range, k, "must be at least 1, got " + v.summary());
    return std::nullopt;
  }
  return i;
}
// A process count as torchrun reads one (int(): decimal digits, no exponent or fraction), >= 1;
// wrong_type or out_of_range naming `k` otherwise.
std::optional<std::int64_t> process_count(Reading& r, const std::string& k, const std::string& text);
inline std::optional<bool> boolean(Reading& r, const std::string& k, const ConfigValue& v) {
  return typed<bool>(r, k, v, bool_value, "true or false");
}

// Each format's reader. `content` is the parsed file; the reading names the file's format.
Reading read_deepspeed_config(const std::string& file, const ConfigValue& content, const std::string& key_prefix = "");
// `shown_keys`: for flags, how each key was written on the command line.
using ShownKeys = std::unordered_map<std::string, std::string>;
Reading read_accelerate_config(const std::string& file, const ConfigValue& content, const ShownKeys& shown_keys = {});
// Whether an accelerate config launches one process: distributed_type NO (or absent, or YAML's
// false), which accelerate launch runs with simple_launcher whatever --num_processes says unless a
// flag picks a distributed type (launch.py _validate_launch_command, 16cb6eb).
bool accelerate_config_single_process(const ConfigValue& content);
// Whether `key` (a flag's name without dashes, '-' as '_') is an argument of `accelerate launch`
// (accelerate src/accelerate/commands/launch.py, 16cb6eb).
bool accelerate_launch_argument(const std::string& key);
// The accelerate config TRL ships under `name` (`trl CMD --accelerate_config zero3`:
// trl/accelerate_configs/<name>.yaml, huggingface/trl f2cd577), its keys as written there; nothing
// for another name.
std::optional<ConfigValue> trl_accelerate_config(const std::string& name);
// Whether TrlParser parses `key` for the TRL command `program` ("trl sft"): a field of the script's
// dataclasses, the `no_` flag of one, or `config` (trl/scripts/utils.py, f2cd577).
bool trl_script_argument(const std::string& program, const std::string& key);
// The TRL command a config file's keys are written for ("trl sft", "trl dpo", "trl grpo", as
// read_hf_training_arguments tells its trainer); empty for a plain TrainingArguments file.
std::string trl_command_for_config(const ConfigValue& args);
// HF TrainingArguments / TRL configs: a YAML or JSON file, or the arguments of a command line
// (`script` is the program the command runs, e.g. "trl/scripts/dpo.py" or "trl sft").
Reading read_hf_training_arguments(const std::string& file, const ConfigValue& args, const std::string& script,
                                   const ShownKeys& shown_keys = {});

// axolotl YAML (axolotl_reader.cpp).
Reading read_axolotl_config(const std::string& file, const ConfigValue& content);
// LLaMA-Factory YAML (llamafactory_reader.cpp).
Reading read_llamafactory_config(const std::string& file, const ConfigValue& content);

// Megatron-LM arguments (megatron_reader.cpp). `world`: the GPUs the launcher starts (torchrun's
// --nproc_per_node x --nnodes) and how the launch says so, when it does.
struct MegatronWorld {
  std::optional<std::int64_t> size;
  std::string source;  // e.g. "run.sh:--nproc_per_node x --nnodes"
};
Reading read_megatron_arguments(const std::string& file, const ConfigValue& args, const ShownKeys& shown_keys,
                                const MegatronWorld& world);

// torchtune (torchtune_reader.cpp). A recipe config is a mapping whose model names a _component_.
bool is_torchtune_config(const ConfigValue& content);
// `tune run [torchrun options] RECIPE --config CONFIG [key=value | ~key ...]` as written in `file`.
struct TuneRun {
  std::string file;
  int line = 0;
  std::string recipe;  // "lora_finetune_distributed" (or a path to a recipe script)
  std::string config;  // as written after --config: a file or a built-in name ("llama3_1/8B_lora")
  std::optional<ConfigValue> nproc_per_node, nnodes;
  std::vector<std::string> overrides;  // "key=value" and "~key", in order
  std::vector<ImportNote> unresolved;  // $VARIABLES the script leaves unset
  bool world_unresolved = false;        // --nproc_per_node or --nnodes holds such a variable
  // key=$VARIABLE overrides and torchrun options the script leaves unset: (key, or the option
  // "--nproc_per_node"; the word as written; the variable).
  struct OpenOverride {
    std::string key, word, what;
  };
  std::vector<OpenOverride> open_overrides;
};
struct ShellCommand;
std::optional<TuneRun> tune_run_command(const ShellCommand& c, const std::string& file);
// The config with the launch line's overrides applied (`run` may be null: the config alone).
Reading read_torchtune_config(const std::string& file, const ConfigValue& content, const TuneRun* run);

// torchtitan job config TOML (torchtitan_reader.cpp) with the launch line that runs it, if given.
struct TorchtitanLaunch {
  std::string file;
  ConfigValue flags = ConfigValue::object();  // "--section.key value" as {"section.key": value}
  ShownKeys shown;
  std::optional<std::int64_t> gpus_per_node, nodes;
  std::string gpus_key, nodes_key;  // the normalized flag or variable that gave them
  bool gpus_default = false;        // run_train.sh's own NGPU default
  std::vector<ImportNote> unresolved;
  // --section.key $VARIABLE flags (and torchrun's --nproc_per_node, --nnodes) the script leaves
  // unset: key, the note's key "FILE:--flag", the variable, and "FILE:--flag $VARIABLE".
  struct OpenFlag {
    std::string key, shown, what, written;
  };
  std::vector<OpenFlag> open_flags;
};
bool is_torchtitan_config(const ConfigValue& content);
// The TOML's reading, then the launch line's (when given).
std::vector<Reading> read_torchtitan_config(const std::string& file, const ConfigValue& content,
                                            const std::optional<TorchtitanLaunch>& launch);

// Pieces of the HF Trainer's arguments that other trainers built on it (axolotl) read the same way
// (hf_trainer_reader.cpp).
// transformers OptimizerNames -> the document's optimizer; empty when it has none.
std::string hf_optimizer(const std::string& optim);
// `optim`: precision.optimizer and, for adamw_torch(_fused), precision.optimizer_implementation.
void read_hf_optim(Reading& r, const std::string& k, const ConfigValue& v);
// torchao's AdamW8bit (transformers adamw_torch_8bit, axolotl ao_adamw_8bit), read as adamw_8bit:
// lists how its layout differs from the estimate's.
void note_torchao_8bit(Reading& r, const std::string& k, const ConfigValue& v);
// `deepspeed`: a config file named (read as a file of its own) or an inline object (into `inline_configs`).
void read_deepspeed_key(Reading& r, const std::string& k, const ConfigValue& v, std::vector<Reading>& inline_configs);
// `fsdp`: "full_shard auto_wrap offload" etc. (transformers trainer_utils.py FSDPOption).
void read_fsdp_option(Reading& r, const std::string& k, const ConfigValue& v);
// `fsdp_config`: accelerate's FSDP plugin keys with or without the fsdp_ prefix.
void read_fsdp_config_key(Reading& r, const std::string& k, const ConfigValue& v);
// Appends what `part` (an inline DeepSpeed config, say) read to `into`.
void absorb(Reading& into, const Reading& part);

// Which reader a structured file belongs to; empty when none.
std::string detect_structured_format(const ConfigValue& content);

}  // namespace trainmem::import_detail
