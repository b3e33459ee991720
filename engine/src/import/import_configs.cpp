// The files of one run -> one estimate document: each file is read by its framework's reader, the
// readings are merged (values two files state must agree), the model is matched to the catalog,
// and every document field gets its origin.
#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "other_frameworks.hpp"
#include "reading.hpp"
#include "shell_words.hpp"
#include "trainmem/config_import.hpp"
#include "trainmem/dtype.hpp"
#include "trainmem/precision.hpp"

namespace trainmem {

using namespace import_detail;

namespace {

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// ---- command lines -------------------------------------------------------------------------------

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A value of a command line that holds a variable the script does not set (`--max_length $SEQ`).
struct OpenValue {
  std::string key;      // as the reader looks it up: "max_length", "training.seq_len", "batch_size"
  std::string shown;    // the key of its unresolved note: "FILE:--max_length"
  std::string what;     // the variable: "$SEQ"
  std::string written;  // as the provenance shows it: "FILE:--max_length $SEQ", "FILE:batch_size=$BS"
};

struct Flags {
  ConfigValue values = ConfigValue::object();
  ShownKeys shown;  // normalized key -> flag as written (the first time)
  std::vector<ImportNote> unresolved;
  std::vector<OpenValue> open;  // the unresolved flags
};

// --key value..., --key=value, --flag (true). Keys lose their dashes and use '_' (argparse dest).
Flags parse_flags(const std::vector<ShellWord>& words, std::size_t begin, std::size_t end, const std::string& file) {
  Flags f;
  ObjectBuilder flags;  // a repeated flag: the last one wins, as in argparse
  std::size_t i = begin;
  auto is_flag = [](const std::string& w) {
    return w.size() > 1 && w[0] == '-' && !(std::isdigit(static_cast<unsigned char>(w[1])) || w[1] == '.');
  };
  while (i < end) {
    const ShellWord& w = words[i];
    if (!is_flag(w.text)) {
      ++i;
      continue;  // a positional word: no trainer reads these
    }
    std::string written = w.text, key = w.text, inline_value;
    bool has_inline = false;
    if (const auto eq = key.find('='); eq != std::string::npos) {
      inline_value = key.substr(eq + 1);
      written = key.substr(0, eq);
      key = written;
      has_inline = true;
    }
    const std::size_t name_start = key.find_first_not_of('-');
    if (name_start == std::string::npos) {
      // "--" ends the options: argparse reads every later word as positional. Other words of
      // dashes alone ("---", "--=x") name no option either.
      if (w.text == "--") break;
      ++i;
      continue;
    }
    key = key.substr(name_start);
    std::replace(key.begin(), key.end(), '-', '_');
    std::vector<ConfigValue> values;
    bool unresolved = w.unresolved;
    std::string what = w.unresolved_what;
    if (has_inline) values.emplace_back(inline_value);
    ++i;
    while (!has_inline && i < end && !is_flag(words[i].text)) {
      values.emplace_back(words[i].text);
      if (words[i].unresolved) { unresolved = true; if (what.empty()) what = words[i].unresolved_what; }
      ++i;
    }
    f.shown.emplace(key, written);
    if (unresolved) {
      ConfigValue shown_value = values.empty() ? ConfigValue(nullptr) : values.front();
      f.unresolved.push_back({file + ":" + written, what + " is not set in the file: " + written + " is not read", shown_value});
      f.open.push_back({key, file + ":" + written, what, file + ":" + written + " " + (!values.empty() && values.front().is_string() ? values.front().as_string() : what)});
      continue;
    }
    ConfigValue v = values.empty() ? ConfigValue(true) : values.size() == 1 ? values.front() : ConfigValue(ConfigValue::Array(values));
    flags.set(key, v);
  }
  f.values = flags.take();
  return f;
}

struct LaunchCommand {
  std::string launcher;  // "accelerate", "torchrun", "deepspeed" or ""
  std::string program;   // "trl/scripts/sft.py", "trl sft", "pretrain_gpt.py"
  Flags launcher_flags, program_flags;
  // axolotl's trainer (-m axolotl.cli.train, `axolotl train`): the config file it is given.
  std::optional<ShellWord> axolotl_config;
  // A config file given as the program's first word (`llamafactory-cli train CONFIG`, LLaMA-Factory's
  // `src/train.py CONFIG`), read by its own reader when given beside the line; the words after it.
  std::optional<ShellWord> config_file;
  std::vector<ShellWord> config_overrides;
  int line = 0;
  std::map<std::string, ShellWord> environment;  // what the script passes the command's program
  // `trl CMD --accelerate_config NAME` naming one of the configs TRL ships (trl_accelerate_config).
  std::string trl_accelerate_config;
};

// The TRL commands that run a training script through accelerate launch (trl/cli/commands/__init__.py,
// huggingface/trl f2cd577).
bool trl_training_command(const std::string& command) {
  return command == "dpo" || command == "grpo" || command == "kto" || command == "reward" || command == "rloo" || command == "sft";
}

// trl/cli/commands/training.py (f2cd577): TrlParser takes the arguments its dataclasses define and
// `accelerate launch` the rest; `--accelerate_config NAME` is one of the configs TRL ships or a
// file (trl/cli/accelerate_config.py). Arguments neither defines stay with the script's flags,
// where the reader names them (accelerate launch refuses them).
void split_trl_launch_flags(LaunchCommand& cmd) {
  Flags& script = cmd.program_flags;
  Flags& launch = cmd.launcher_flags;
  auto to_launch = [&](const std::string& key) {
    return !trl_script_argument(cmd.program, key) && (key == "accelerate_config" || accelerate_launch_argument(key));
  };
  ObjectBuilder kept, moved;
  for (const auto& [k, v] : script.values.as_object()) {
    if (!to_launch(k)) kept.set(k, v);
    else if (k != "accelerate_config") moved.set(k, v);
    else if (v.is_string() && trl_accelerate_config(v.as_string())) cmd.trl_accelerate_config = v.as_string();
    else {
      moved.set("config_file", v);
      launch.shown.emplace("config_file", script.shown.at(k));
    }
    if (to_launch(k)) launch.shown.emplace(k, script.shown.at(k));
  }
  script.values = kept.take();
  launch.values = moved.take();
  std::vector<OpenValue> open;
  for (auto& o : script.open) {
    if (!to_launch(o.key)) { open.push_back(std::move(o)); continue; }
    for (auto n = script.unresolved.begin(); n != script.unresolved.end();)
      if (n->key == o.shown) { launch.unresolved.push_back(std::move(*n)); n = script.unresolved.erase(n); }
      else ++n;
    launch.open.push_back(std::move(o));
  }
  script.open = std::move(open);
}

// A word naming a YAML or JSON file (a program's config given as its first argument).
bool is_config_file_name(const std::string& word) {
  return word.rfind("-", 0) != 0 && (ends_with(word, ".yaml") || ends_with(word, ".yml") || ends_with(word, ".json"));
}

std::optional<LaunchCommand> training_command(const ShellCommand& c, const std::string& file) {
  const auto& w = c.words;
  std::size_t i = 0;
  // Words that run the command without changing it: nohup, time, exec, env, and uv's `uv run
  // [--option ...]` (the project's environment; Megatron-LM's example scripts set VENV_PREFIX="uv run").
  for (bool skipped = true; skipped && i < w.size();) {
    skipped = false;
    if (w[i].text == "nohup" || w[i].text == "time" || w[i].text == "exec" || w[i].text == "env") ++i, skipped = true;
    else if (w[i].text == "uv" && i + 1 < w.size() && w[i + 1].text == "run") {
      // uv run's options (docs.astral.sh/uv/reference/cli/#uv-run); those that take a value take the
      // next word unless written --option=value.
      static const std::set<std::string> with_value = {"--with", "--with-editable", "--with-requirements", "--project", "--directory",
                                                       "--python", "-p", "--extra", "--group", "--only-group", "--no-group", "--package",
                                                       "--env-file", "--index", "--default-index", "--index-url", "--extra-index-url",
                                                       "--find-links", "-f", "--config-file", "--cache-dir", "--script", "-s"};
      i += 2;
      while (i < w.size() && w[i].text.size() > 1 && w[i].text[0] == '-') i += with_value.count(w[i].text) ? 2 : 1;
      skipped = true;
    }
  }
  if (i >= w.size()) return std::nullopt;
  LaunchCommand out;
  out.line = c.line;
  out.environment = c.environment;
  const std::string first = base_name(w[i].text);
  std::size_t launcher_begin = i + 1;
  if (first == "run_train.sh") {  // torchtitan's launcher: torchrun over NGPU GPUs, the flags passed on
    out.launcher = "run_train.sh";
    out.program = "torchtitan.train";
    out.program_flags = parse_flags(w, i + 1, w.size(), file);
    return out;
  }
  if (first.rfind("--", 0) == 0) {
    // A bare argument line (the arguments a launch script passes, without the command).
    out.program_flags = parse_flags(w, i, w.size(), file);
    return out;
  }
  if (first == "trl" && i + 1 < w.size()) {
    // trl/cli/commands @f2cd577: `trl vllm-serve` starts a generation server (vllm_serve.py), `trl
    // env` and `trl skills` print; none trains, so the script's training line is read instead.
    const std::string& command = w[i + 1].text;
    if (command == "vllm-serve" || command == "env" || command == "skills") return std::nullopt;
    out.program = "trl " + w[i + 1].text;
    out.program_flags = parse_flags(w, i + 2, w.size(), file);
    if (trl_training_command(w[i + 1].text)) {
      out.launcher = "accelerate";
      split_trl_launch_flags(out);
    }
    return out;
  }
  if (first == "axolotl" && i + 1 < w.size() && w[i + 1].text == "train") {
    // axolotl 0.18.0 (axolotl-ai-cloud/axolotl@067b021) src/axolotl/cli/main.py train and
    // cli/utils/train.py launch_training: `axolotl train CONFIG [--launcher accelerate|torchrun|python]
    // [-- LAUNCHER ARGS]` runs `accelerate launch` (the default) or torchrun with the words after "--",
    // or python, over -m axolotl.cli.train CONFIG; --num_processes of its own goes to accelerate.
    std::size_t end = i + 2;
    while (end < w.size() && w[end].text != "--") ++end;
    out.program = "axolotl.cli.train";
    if (i + 2 < end && w[i + 2].text.rfind("-", 0) != 0) out.axolotl_config = w[i + 2];
    out.program_flags = parse_flags(w, i + 2, end, file);
    const ConfigValue* launcher = out.program_flags.values.find("launcher");
    const std::string name = launcher && launcher->is_string() ? launcher->as_string() : "accelerate";
    out.launcher = name == "python" ? "" : name;
    if (end < w.size()) out.launcher_flags = parse_flags(w, end + 1, w.size(), file);
    if (const ConfigValue* n = out.program_flags.values.find("num_processes"); n && out.launcher == "accelerate") {
      out.launcher_flags.values.set("num_processes", *n);
      out.launcher_flags.shown.emplace("num_processes", out.program_flags.shown.at("num_processes"));
    }
    return out;
  }
  if ((first == "llamafactory-cli" || first == "lmf") && i + 1 < w.size() && w[i + 1].text == "train") {
    // LLaMA-Factory's CLI (src/llamafactory/cli.py, hiyouga/LLaMA-Factory@0f53217): `train CONFIG
    // [key=value ...]` runs torchrun over NNODES x NPROC_PER_NODE processes (the environment's; by
    // default 1 node and get_device_count(), the GPUs the machine shows) when FORCE_TORCHRUN is set or
    // more than one GPU is visible, else one process.
    out.launcher = "llamafactory-cli";
    out.program = "llamafactory-cli train";
    if (i + 2 < w.size() && w[i + 2].text.rfind("-", 0) != 0) {
      out.config_file = w[i + 2];
      out.config_overrides.assign(w.begin() + static_cast<std::ptrdiff_t>(i + 3), w.end());
    } else {
      // No config file: hparams/parser.py read_args parses the command's --key value words with the
      // same dataclasses (examples/train_lora/qwen3_lora_sft.sh).
      out.program_flags = parse_flags(w, i + 2, w.size(), file);
    }
    return out;
  }
  if (first == "accelerate" && i + 1 < w.size() && w[i + 1].text == "launch") { out.launcher = "accelerate"; launcher_begin = i + 2; }
  else if (first == "torchrun") out.launcher = "torchrun";
  else if (first == "deepspeed") out.launcher = "deepspeed";
  else if (first.rfind("python", 0) != 0) return std::nullopt;
  // The program: the first *.py word, or the module of "-m module".
  std::size_t program = w.size();
  for (std::size_t k = launcher_begin; k < w.size(); ++k) {
    if (ends_with(w[k].text, ".py")) { program = k; break; }
    if (w[k].text == "-m" && k + 1 < w.size()) {
      if (w[k + 1].text == "torch.distributed.run" || w[k + 1].text == "torch.distributed.launch") {
        out.launcher = "torchrun";
        launcher_begin = k + 2;
        ++k;
        continue;
      }
      program = k + 1;
      break;
    }
  }
  if (program == w.size()) return std::nullopt;
  out.program = w[program].text;
  if (out.program == "axolotl.cli.train" && program + 1 < w.size() && w[program + 1].text.rfind("-", 0) != 0)
    out.axolotl_config = w[program + 1];
  out.launcher_flags = parse_flags(w, launcher_begin, program, file);
  out.program_flags = parse_flags(w, program + 1, w.size(), file);
  if (program + 1 < w.size() && is_config_file_name(w[program + 1].text)) {
    out.config_file = w[program + 1];
    out.config_overrides.assign(w.begin() + static_cast<std::ptrdiff_t>(program + 2), w.end());
  }
  return out;
}

// Megatron-LM's training entry points (pretrain_gpt.py and its siblings at the repository root) or
// its parallelism flags (megatron/training/arguments.py: --tensor-model-parallel-size,
// --pipeline-model-parallel-size): named as Megatron-LM, never read as TrainingArguments.
bool megatron_command(const LaunchCommand& c) {
  static const std::set<std::string> entry_points = {"pretrain_gpt.py", "pretrain_bert.py", "pretrain_t5.py",
                                                     "pretrain_mamba.py", "pretrain_vlm.py", "pretrain_retro.py"};
  // Flags given, their values resolved or not, spelled with dashes as Megatron-LM's argparse
  // declares them (--num-layers): argparse does not match --num_layers to them, so a script that
  // takes --num_layers defines its own (DeepSpeed examples/sdma_allgather/train_qwen3_zero3.py).
  auto given = [&c](const char* k) {
    const auto it = c.program_flags.shown.find(k);
    return it != c.program_flags.shown.end() && it->second.find('_') == std::string::npos;
  };
  if (entry_points.count(base_name(c.program)) > 0 || given("tensor_model_parallel_size") || given("pipeline_model_parallel_size"))
    return true;
  // Two or more of Megatron-LM's own names (no TrainingArguments field has them).
  int megatron_names = 0;
  for (const char* k : {"num_layers", "hidden_size", "num_attention_heads", "micro_batch_size", "global_batch_size", "seq_length",
                        "max_position_embeddings"})
    megatron_names += given(k) ? 1 : 0;
  return megatron_names >= 2;
}

// pretrain_gpt.py (GPT-style decoders, the entry point whose arguments are read) or a bare argument
// line; Megatron-LM's other entry points build other models.
bool megatron_gpt(const LaunchCommand& c) {
  static const std::set<std::string> others = {"pretrain_bert.py", "pretrain_t5.py", "pretrain_mamba.py", "pretrain_vlm.py",
                                                "pretrain_retro.py"};
  return others.count(base_name(c.program)) == 0;
}

// The GPUs a Megatron-LM launch starts: torchrun's --nproc_per_node x --nnodes (one process when
// --nproc_per_node is absent: torch/distributed/run.py's default), or unknown.
MegatronWorld megatron_world(const LaunchCommand& cmd, Reading& launcher) {
  MegatronWorld world;
  for (const auto& a : launcher.fields)
    if (a.field == "parallel.world_size") {
      world.size = integer_value(a.value);
      const bool torchrun = cmd.launcher == "torchrun";
      const char* nodes = torchrun ? "nnodes" : "num_nodes";
      world.source = launcher.key(torchrun ? "nproc_per_node" : "num_gpus");
      if (cmd.launcher_flags.values.find(nodes)) world.source += " x " + launcher.key(nodes).substr(launcher.file().size() + 1);
      return world;
    }
  bool open = false;  // --nproc_per_node given as a variable the script does not set, or "gpu"
  for (const auto& n : cmd.launcher_flags.unresolved) open = open || n.key.find("nproc") != std::string::npos;
  for (const auto& n : launcher.unresolved) open = open || n.key.find("nproc") != std::string::npos;
  if (cmd.launcher == "torchrun" && !cmd.launcher_flags.values.find("nproc_per_node") && !open) {
    launcher.launcher_default("parallel.world_size", 1, "torch/distributed/run.py --nproc-per-node 1");
    world.size = 1;
    world.source = launcher.file() + ": torchrun without --nproc_per_node (one process)";
  }
  return world;
}

// torchtitan's trainer (torchtitan/train.py, run as -m torchtitan.train or by run_train.sh), or a
// command given its --job.config_file.
bool torchtitan_command(const LaunchCommand& c) {
  return c.launcher == "run_train.sh" || c.program == "torchtitan.train" || ends_with(c.program, "torchtitan/train.py") ||
         c.program_flags.values.find("job.config_file");
}

// The GPU count and the --section.key overrides of a torchtitan launch: torchrun's --nproc_per_node x
// --nnodes (torch/distributed/run.py), or run_train.sh's NGPU (run_train.sh: NGPU=${NGPU:-"8"},
// torchrun --nproc_per_node=${NGPU}); its CONFIG_FILE names the job config when no flag does.
TorchtitanLaunch torchtitan_launch(const std::string& file, const LaunchCommand& cmd, std::string& config_file) {
  TorchtitanLaunch l;
  l.file = file;
  l.flags = cmd.program_flags.values;
  l.shown = cmd.program_flags.shown;
  l.unresolved = cmd.program_flags.unresolved;
  for (const auto& n : cmd.launcher_flags.unresolved) l.unresolved.push_back(n);
  for (const auto& o : cmd.program_flags.open) l.open_flags.push_back({o.key, o.shown, o.what, o.written});
  for (const auto& o : cmd.launcher_flags.open)
    if (o.key == "nproc_per_node" || o.key == "nnodes") l.open_flags.push_back({o.key, o.shown, o.what, o.written});
  if (const ConfigValue* cfg = l.flags.find("job.config_file"); cfg && cfg->is_string()) config_file = cfg->as_string();
  if (cmd.launcher == "run_train.sh") {
    if (const auto c = cmd.environment.find("CONFIG_FILE"); c != cmd.environment.end() && config_file.empty() && !c->second.unresolved)
      config_file = c->second.text;
    const auto ngpu = cmd.environment.find("NGPU");
    if (ngpu == cmd.environment.end()) {
      l.gpus_per_node = 8;
      l.gpus_default = true;
    } else if (auto n = integer_value(ConfigValue(ngpu->second.text)); n && *n >= 1 && !ngpu->second.unresolved) {
      l.gpus_per_node = *n;
      l.gpus_key = "NGPU";
      l.shown.emplace("NGPU", "NGPU");
    } else {
      l.unresolved.push_back({file + ":NGPU", "NGPU=" + ngpu->second.text + " is not a GPU count the file states", ngpu->second.text});
    }
    return l;
  }
  if (cmd.launcher != "torchrun") {
    l.unresolved.push_back({file + ":" + std::to_string(cmd.line), "the trainer runs without torchrun: the GPU count is not in the file", cmd.program});
    return l;
  }
  for (const auto& [k, v] : cmd.launcher_flags.values.as_object()) {
    const auto written = cmd.launcher_flags.shown.count(k) ? cmd.launcher_flags.shown.at(k) : k;
    auto text = string_value(v);
    if (k == "nproc_per_node" || k == "nnodes") {
      auto n = integer_value(v);
      if (!n || *n < 1) {
        l.unresolved.push_back({file + ":" + written, k == "nnodes" ? "not a fixed node count" : "one process per device of the machine it runs on: the GPUs per node are not in the file", v});
        continue;
      }
      (k == "nnodes" ? l.nodes : l.gpus_per_node) = *n;
      (k == "nnodes" ? l.nodes_key : l.gpus_key) = k;
      l.shown.emplace(k, written);
    }
  }
  return l;
}

// An axolotl launch: its config file, named for the file's own reading, and the GPU count its
// launcher gives. axolotl's flags override the config's keys (cli/train.py do_cli **kwargs,
// load_cfg): listed, not read. Nothing when the line names no config (reported by the caller).
std::optional<Reading> read_axolotl_launch(const std::string& file, const LaunchCommand& cmd) {
  Reading r(file, "axolotl");
  r.shown_keys = cmd.program_flags.shown;
  std::optional<ShellWord> config = cmd.axolotl_config;
  if (const ConfigValue* c = cmd.program_flags.values.find("config"); !config && c && c->is_string()) config = ShellWord{c->as_string(), false, ""};
  const std::string where = file + ":" + std::to_string(cmd.line);
  if (!config) {
    bool open = false;  // --config $CFG
    for (const auto& o : cmd.program_flags.open) open = open || o.key == "config";
    if (!open) return std::nullopt;
  } else if (config->unresolved) {
    r.unresolved.push_back({where, config->unresolved_what + " is not set in the file: the axolotl config it names is not read", config->text});
  } else {
    r.named_files.emplace_back(config->text, where);
  }
  for (const auto& [k, v] : cmd.program_flags.values.as_object())
    if (k != "config" && k != "launcher" && k != "num_processes")
      r.unresolved.push_back({r.key(k), "overrides the axolotl config's " + k + "; axolotl's command-line overrides are not read", v});
  return r;
}

// The GPUs CUDA_VISIBLE_DEVICES shows: its comma-separated entries up to the first invalid one (an
// index, or a GPU-/MIG- UUID) and none when an index repeats (CUDA C Programming Guide, "CUDA
// Environment Variables": only the devices before an invalid index are visible).
std::int64_t visible_devices(const std::string& list) {
  std::set<std::string> seen;
  std::int64_t count = 0;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string entry = list.substr(start, comma - start);
    const bool index = !entry.empty() && entry.size() <= 6 && entry.find_first_not_of("0123456789") == std::string::npos;
    const bool uuid = entry.rfind("GPU-", 0) == 0 || entry.rfind("MIG-", 0) == 0;
    if (!index && !uuid) break;
    if (!seen.insert(entry).second) return 0;
    ++count;
    start = comma + 1;
  }
  return count;
}

// A program given its config file as its first word: the file is read by its own reader when it is
// given beside the line (named here, like a DeepSpeed JSON a trainer config names); the words after
// it override the file's keys, which this import does not read. Under `llamafactory-cli train` the
// GPU count is the environment's (src/llamafactory/cli.py, hiyouga/LLaMA-Factory@0f53217):
// NPROC_PER_NODE (by default get_device_count(), the GPUs CUDA_VISIBLE_DEVICES leaves visible) x NNODES
// (by default 1).
Reading read_config_launch(const std::string& file, const LaunchCommand& cmd) {
  Reading r(file, cmd.launcher == "llamafactory-cli" ? "llamafactory" : "launch");
  const std::string where = file + ":" + std::to_string(cmd.line);
  if (cmd.config_file) {
    const ShellWord& config = *cmd.config_file;
    if (config.unresolved)
      r.unresolved.push_back({where, config.unresolved_what + " is not set in the file: the config it names is not read", config.text});
    else
      r.named_files.emplace_back(config.text, where);
  }
  // key=value words after the config replace its keys (LLaMA-Factory hparams/parser.py read_args:
  // OmegaConf.from_cli merged over the YAML); they are not read here, so the run they describe is
  // refused rather than estimated from the YAML's values.
  if (!cmd.config_overrides.empty())
    r.errors.push_back({error_code::unsupported, where,
                        where + ": " + cmd.config_overrides.front().text + (cmd.config_overrides.size() > 1 ? " (and the words after it)" : "") +
                            " overrides the config on the command line, which this import does not read: put the values in the config file",
                        {{"reason", "config_overrides"}, {"entries", static_cast<double>(cmd.config_overrides.size())}}});
  if (cmd.launcher != "llamafactory-cli") return r;
  auto env = [&](const char* name) -> const ShellWord* {
    const auto it = cmd.environment.find(name);
    return it == cmd.environment.end() ? nullptr : &it->second;
  };
  std::optional<std::int64_t> per_node;
  std::int64_t nodes = 1;
  bool nodes_known = true;
  std::string per_node_key;
  if (const ShellWord* n = env("NNODES")) {
    const auto count = n->unresolved ? std::nullopt : process_count(r, "NNODES", n->text);
    if (n->unresolved) r.unresolved_key("NNODES", n->text, n->unresolved_what + " is not set in the file: the node count is not known");
    nodes_known = count.has_value();
    nodes = count.value_or(1);
  }
  const ShellWord* visible = env("CUDA_VISIBLE_DEVICES");
  if (const ShellWord* n = env("NPROC_PER_NODE")) {
    if (n->unresolved) r.unresolved_key("NPROC_PER_NODE", n->text, n->unresolved_what + " is not set in the file: the GPUs per node are not known");
    else per_node = process_count(r, "NPROC_PER_NODE", n->text), per_node_key = "NPROC_PER_NODE";
  } else if (visible && !visible->unresolved) {
    const std::int64_t shown = visible_devices(visible->text);
    if (shown > 0) per_node = shown, per_node_key = "CUDA_VISIBLE_DEVICES";
    else r.unresolved_key("CUDA_VISIBLE_DEVICES", visible->text, "shows no GPU (CUDA reads the list up to its first invalid or repeated entry): the GPU count is not known");
  } else {
    r.unresolved.push_back({where,
                            "llamafactory-cli train runs one process per GPU the machine shows (NPROC_PER_NODE unset: "
                            "get_device_count()): the GPU count is not in the file; set NPROC_PER_NODE or CUDA_VISIBLE_DEVICES",
                            cmd.program});
  }
  // Each process takes the GPU of its local rank (transformers TrainingArguments: cuda:LOCAL_RANK):
  // more processes than the GPUs CUDA_VISIBLE_DEVICES shows leave the extra ranks without one.
  if (per_node && per_node_key == "NPROC_PER_NODE" && visible && !visible->unresolved) {
    const std::int64_t shown = visible_devices(visible->text);
    if (shown > 0 && *per_node > shown)
      r.error(error_code::inconsistent, "NPROC_PER_NODE",
              "starts " + std::to_string(*per_node) + " processes per node but CUDA_VISIBLE_DEVICES=" + visible->text + " shows " +
                  std::to_string(shown) + " GPUs: the ranks beyond them have no device (torch.cuda.set_device fails)",
              {{"reason", "processes_above_visible_devices"}, {"value", static_cast<double>(*per_node)}, {"limit", static_cast<double>(shown)}});
  }
  if (per_node && nodes_known) {
    r.read("parallel.gpus_per_node", *per_node, per_node_key);
    r.read("parallel.world_size", *per_node * nodes, env("NNODES") ? "NNODES" : per_node_key);
  }
  return r;
}

// A command line none of whose flags the trainer reader read (no field, no model, no named file,
// nothing unresolved, no value refused): a script with its own flags, not TrainingArguments.
bool nothing_read(const Reading& program) {
  // A script's own adapter flag leaves the method open (read_unknown_key) without reading anything.
  const auto method_left_open = [&](const ImportNote& n) {
    return std::any_of(program.left_open.begin(), program.left_open.end(),
                       [&](const auto& open) { return open.first == "method" && open.second == n.key; });
  };
  return !program.model_id && program.named_files.empty() && program.errors.empty() &&
         std::all_of(program.unresolved.begin(), program.unresolved.end(), method_left_open) &&
         std::none_of(program.fields.begin(), program.fields.end(), [](const Assignment& a) { return a.strength >= Strength::read_yielding; });
}

// accelerate launch flags -> the config file's layout (launch.py takes the file's values as defaults).
ConfigValue accelerate_flags_as_config(const ConfigValue& flags, ShownKeys& shown) {
  static const std::set<std::string> deepspeed_keys = {"zero_stage", "offload_optimizer_device", "offload_param_device",
                                                       "zero3_init_flag", "deepspeed_config_file", "gradient_accumulation_steps",
                                                       "gradient_clipping", "zero3_save_16bit_model", "deepspeed_multinode_launcher"};
  ObjectBuilder out, ds, fsdp, par;
  for (const auto& [k, v] : flags.as_object()) {
    if (k == "use_deepspeed") out.set("distributed_type", "DEEPSPEED");
    else if (k == "use_fsdp") out.set("distributed_type", "FSDP");
    else if (k == "multi_gpu") out.set("distributed_type", "MULTI_GPU");
    else if (deepspeed_keys.count(k)) { ds.set(k, v); }
    else if (k.rfind("fsdp_", 0) == 0) { fsdp.set(k, v); }
    else if (k.rfind("parallelism_config_", 0) == 0) { par.set(k, v); }
    else if (k == "config_file") continue;
    else out.set(k, v);
  }
  // Keys shown as flags: "deepspeed_config.zero_stage" was "--zero_stage".
  std::vector<std::pair<std::string, std::string>> nested;
  for (const auto& [k, written] : shown) {
    if (deepspeed_keys.count(k)) nested.emplace_back("deepspeed_config." + k, written);
    else if (k.rfind("fsdp_", 0) == 0) nested.emplace_back("fsdp_config." + k, written);
    else if (k.rfind("parallelism_config_", 0) == 0) nested.emplace_back("parallelism_config." + k, written);
    else if (k == "use_deepspeed" || k == "use_fsdp" || k == "multi_gpu") nested.emplace_back("distributed_type", written);
  }
  for (auto& n : nested) shown.emplace(std::move(n));
  if (!ds.empty()) out.set("deepspeed_config", ds.take());
  if (!fsdp.empty()) out.set("fsdp_config", fsdp.take());
  if (!par.empty()) out.set("parallelism_config", par.take());
  return out.take();
}

Reading read_launcher(const std::string& file, const LaunchCommand& cmd) {
  const ConfigValue& f = cmd.launcher_flags.values;
  if (cmd.launcher == "accelerate") {
    auto shown = cmd.launcher_flags.shown;
    const ConfigValue config = accelerate_flags_as_config(f, shown);
    Reading r = read_accelerate_config(file, config, shown);
    if (const ConfigValue* cfg = f.find("config_file"); cfg && cfg->is_string()) {
      r.named_files.emplace_back(cfg->as_string(), r.key("config_file"));
      r.overrides.push_back(base_name(cfg->as_string()));
    } else if (cfg) {
      // TRL f2cd577 resolve_accelerate_config_argument raises for a value neither a file nor a config it ships.
      r.error(error_code::wrong_type, "config_file", "expected a config file's name or one of TRL's (zero1, zero2, zero3, fsdp1, fsdp2, "
                                                     "multi_gpu, single_gpu), got " + cfg->summary(),
              {{"expected", "string"}, {"got", cfg->is_number() ? "number" : "other"}});
    }
    const bool open = std::any_of(cmd.launcher_flags.open.begin(), cmd.launcher_flags.open.end(),
                                  [](const OpenValue& o) { return o.key == "num_processes" || o.key == "config_file"; });
    if (!f.find("num_processes") && !f.find("config_file") && cmd.trl_accelerate_config.empty() && !open)
      // launch.py _validate_launch_command: the machine's default config file, else one process per GPU it shows.
      // A config file's launch keys (read_training_arguments_file) have no line: the note is the missing key's.
      r.unresolved_field("parallel.world_size", cmd.line > 0 ? std::to_string(cmd.line) : "num_processes", nullptr,
                         "accelerate launch without --num_processes or --config_file starts the processes the machine's "
                         "default accelerate config says (`accelerate config`), else one per GPU it shows: the GPU count is "
                         "not in the file unless that config is given too");
    return r;
  }
  Reading r(file, cmd.launcher);
  r.shown_keys = cmd.launcher_flags.shown;  // set before any key is recorded
  // torchrun (torch/distributed/run.py): --nproc_per_node x --nnodes; deepspeed's launcher:
  // --num_gpus x --num_nodes (deepspeed/launcher/runner.py).
  const bool torchrun = cmd.launcher == "torchrun";
  const char* per_node_key = torchrun ? "nproc_per_node" : "num_gpus";
  const char* nodes_key = torchrun ? "nnodes" : "num_nodes";
  std::optional<std::int64_t> per_node, nodes;
  for (const auto& [k, v] : f.as_object()) {
    auto text = string_value(v);
    if (k == per_node_key && torchrun && text && (*text == "auto" || *text == "gpu" || *text == "cpu" || *text == "xpu"))
      // torch/distributed/run.py determine_local_world_size: one process per device the machine has.
      r.unresolved_key(k, v, "one process per device of the machine it runs on: the GPUs per node are not in the file");
    else if (k == per_node_key) per_node = text ? process_count(r, k, *text) : positive_integer(r, k, v);
    else if (k == nodes_key) {
      if (text && text->find(':') != std::string::npos) r.unresolved_key(k, v, "an elastic node range: the world size is not fixed");
      else nodes = text ? process_count(r, k, *text) : positive_integer(r, k, v);
    } else r.ignore(k, v, "launcher setting without memory effect");
  }
  if (per_node) {
    r.read("parallel.gpus_per_node", *per_node, per_node_key);
    r.read("parallel.world_size", *per_node * nodes.value_or(1), nodes ? nodes_key : per_node_key);
  }
  return r;
}

// A command's launcher reading, after the accelerate config TRL ships that `--accelerate_config NAME`
// names: read as the file accelerate launch is given, which the command's flags override. With a
// config file (that one, or `named_config`, the --config_file given beside) whose distributed_type
// is NO and no flag picking a distributed type, accelerate launch runs simple_launcher: one process,
// whatever --num_processes says (launch.py _validate_launch_command, 16cb6eb).
void push_launcher_readings(const LaunchCommand& cmd, Reading launcher, std::vector<Reading>& readings,
                            const ConfigValue* named_config = nullptr) {
  const std::optional<ConfigValue> shipped =
      cmd.trl_accelerate_config.empty() ? std::nullopt : trl_accelerate_config(cmd.trl_accelerate_config);
  const ConfigValue* config = shipped ? &*shipped : named_config;
  const ConfigValue& flags = cmd.launcher_flags.values;
  const bool type_flag = flags.find("multi_gpu") || flags.find("use_deepspeed") || flags.find("use_fsdp") || flags.find("use_megatron_lm");
  if (config && accelerate_config_single_process(*config) && !type_flag && flags.find("num_processes")) {
    auto& f = launcher.fields;
    f.erase(std::remove_if(f.begin(), f.end(), [](const Assignment& a) { return a.field == "parallel.world_size" || a.field == "parallel.gpus_per_node"; }),
            f.end());
    launcher.ignore("num_processes", *flags.find("num_processes"),
                    "the config file's distributed_type NO: accelerate launch starts one process whatever --num_processes says "
                    "(launch.py _validate_launch_command, simple_launcher)");
  }
  if (!cmd.trl_accelerate_config.empty()) {
    const std::string shipped = "trl/accelerate_configs/" + cmd.trl_accelerate_config + ".yaml";
    readings.push_back(read_accelerate_config(shipped, *trl_accelerate_config(cmd.trl_accelerate_config)));
    launcher.overrides.push_back(base_name(shipped));
    launcher.ignore("accelerate_config", cmd.trl_accelerate_config, "names " + shipped + " (TRL f2cd577), read as a file of its own");
  }
  readings.push_back(std::move(launcher));
}

// A TrainingArguments or TRL config file. Run as `trl CMD --config FILE` (`command`: "trl sft", the
// command of the trl line that names it, or of the file's own keys where it is given alone; empty
// otherwise), TRL's TrlParser hands the keys no dataclass of the script defines to accelerate launch
// (trl/scripts/utils.py set_defaults_with_config returns them; trl/cli/commands/training.py;
// huggingface/trl f2cd577), as TRL's CLI guide writes `num_processes: 4` in the file
// (docs/source/clis.md): those keys are read as that command's launch settings, the rest as the
// trainer's. A script run directly ignores them (trl/scripts/sft.py: fail_with_unknown_args=False).
// Returns whether the file gave the process count or an accelerate config.
bool read_training_arguments_file(const std::string& file, const ConfigValue& content, const std::string& command,
                                  std::vector<Reading>& readings) {
  if (command.empty() || !content.is_object()) {
    readings.push_back(read_hf_training_arguments(file, content, ""));
    return false;
  }
  LaunchCommand cmd;
  cmd.launcher = "accelerate";
  cmd.program = command;
  cmd.program_flags.values = content;
  for (const auto& entry : content.as_object()) cmd.program_flags.shown.emplace(entry.first, entry.first);
  split_trl_launch_flags(cmd);
  // In a command line's order: the launcher, then the trainer (whose format the file is shown as).
  if (!cmd.launcher_flags.values.as_object().empty() || !cmd.trl_accelerate_config.empty())
    push_launcher_readings(cmd, read_launcher(file, cmd), readings);
  readings.push_back(read_hf_training_arguments(file, cmd.program_flags.values, command));
  const ConfigValue& launch = cmd.launcher_flags.values;
  return launch.find("num_processes") || launch.find("config_file") || !cmd.trl_accelerate_config.empty();
}

// ---- values the script leaves unresolved -------------------------------------------------------------

// Bounded work: each open value costs one more reading of its command.
constexpr std::size_t kMaxOpenValues = 64;

// field -> the sources it is read from (values a file states, not defaults).
std::map<std::string, std::set<std::string>> read_sources(const std::vector<Reading>& readings) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& r : readings)
    for (const auto& a : r.fields)
      if (a.strength >= Strength::read) out[a.field].insert(a.source);
  return out;
}

// The document fields each open value would set, found by reading the command again with that value
// given a stand-in ("1": a count, true or 1.0, as the key is read): a field the stand-in reading
// reads from a source the plain reading does not is the open value's. Such a field is reported as
// unresolved, never filled with the framework's default (docs/import.md "Launch scripts"); the
// value's own note moves to the field. `probe(value)` reads the command with that stand-in.
void mark_open_fields(std::vector<Reading*> base, const std::vector<OpenValue>& open,
                      const std::function<std::vector<Reading>(const OpenValue&)>& probe) {
  if (open.empty() || base.empty()) return;
  Reading& into = *base.back();
  if (open.size() > kMaxOpenValues) {
    into.errors.push_back({error_code::unsupported, into.file(),
                           into.file() + ": " + std::to_string(open.size()) + " values hold variables the script does not set (at most " +
                               std::to_string(kMaxOpenValues) + " are traced to their fields); set them in the script",
                           {{"reason", "too_many_open_values"}, {"entries", static_cast<double>(open.size())}, {"limit", static_cast<double>(kMaxOpenValues)}}});
    return;
  }
  std::vector<Reading> plain;
  for (const Reading* r : base) plain.push_back(*r);
  const auto before = read_sources(plain);
  for (const auto& o : open) {
    const auto after = read_sources(probe(o));
    bool opened = false;
    for (const auto& [field, sources] : after) {
      const auto b = before.find(field);
      const bool added = std::any_of(sources.begin(), sources.end(), [&](const std::string& s) { return b == before.end() || !b->second.count(s); });
      if (!added) continue;
      into.open_fields.push_back({field, "unresolved: " + o.written, o.written, o.what, into.file()});
      opened = true;
    }
    if (!opened) continue;
    for (Reading* r : base)
      r->unresolved.erase(std::remove_if(r->unresolved.begin(), r->unresolved.end(), [&](const ImportNote& n) { return n.key == o.shown; }),
                          r->unresolved.end());
  }
}

ConfigValue with_stand_in(ConfigValue values, const std::string& key) {
  values.set(key, "1");
  return values;
}

// ---- merging ---------------------------------------------------------------------------------------

// Document fields in the order the provenance lists them (docs/api.md "Input").
const std::vector<std::string>& document_fields() {
  static const std::vector<std::string> fields = {
      "model", "framework", "method", "lora.r", "lora.target_modules", "lora.lora_dropout", "lora.use_dora", "lora.adapter_dtype",
      "lora.modules_to_save", "qlora.quant_method", "qlora.quant_type", "qlora.double_quant", "qlora.nbits", "qlora.group_size",
      "qlora.axis", "rlhf.algorithm", "rlhf.reference.method",
      "rlhf.rollout.max_new_tokens", "rlhf.rollout.num_generations", "rlhf.rollout.colocated", "precision.param_dtype",
      "precision.compute_dtype", "precision.grad_dtype", "precision.master_weights", "precision.optimizer",
      "precision.optimizer_state_dtype", "precision.optimizer_implementation", "precision.fp8_compute", "batch.micro_batch_size", "batch.seq_length",
      "batch.gradient_accumulation_steps", "activation_checkpointing", "activation_offload", "loss.implementation",
      "compile", "model_loading", "attention", "parallel.world_size", "parallel.gpus_per_node", "parallel.sharding_engine", "parallel.zero_stage",
      "parallel.sharding_group_size", "parallel.tensor_parallel_size", "parallel.pipeline_parallel_size",
      "parallel.sequence_parallel", "parallel.context_parallel_size", "parallel.expert_parallel_size",
      "parallel.offload_optimizer", "parallel.offload_param", "parallel.reshard_after_forward",
      "parallel.zero3_max_live_parameters", "checkpoint.keep_last"};
  return fields;
}

struct Chosen {
  Assignment a;
  std::vector<std::string> agreeing;  // other sources with the same value
  std::vector<const Assignment*> overridden;  // another value, from a file the chosen one's overrides
};

void merge_field(const std::string& field, std::vector<const Assignment*> candidates,
                 const std::map<std::string, std::vector<std::string>>& overrides_by_file,
                 std::map<std::string, Chosen>& out, Errors& errors) {
  Strength top = Strength::launcher_default;
  for (const Assignment* a : candidates) top = std::max(top, a->strength);
  std::vector<const Assignment*> best;
  for (const Assignment* a : candidates) if (a->strength == top) best.push_back(a);
  if (top < Strength::read) {
    out[field] = Chosen{*best.front(), {}};
    return;
  }
  // A command line overrides the config file it names.
  auto file_of = [](const std::string& source) { return base_name(source.substr(0, source.find(':'))); };
  auto overrides = [&](const Assignment* a, const Assignment* b) {
    auto it = overrides_by_file.find(file_of(a->source));
    return it != overrides_by_file.end() && std::count(it->second.begin(), it->second.end(), file_of(b->source)) > 0;
  };
  const Assignment* chosen = best.front();
  for (const Assignment* a : best)
    if (overrides(a, chosen)) chosen = a;
  Chosen c{*chosen, {}};
  for (const Assignment* a : best) {
    if (a == chosen) continue;
    if (a->value == chosen->value) {
      if (a->source != chosen->source) c.agreeing.push_back(a->source);
      continue;
    }
    if (overrides(chosen, a)) {
      c.overridden.push_back(a);
      continue;
    }
    errors.push_back({error_code::conflicting_values, field,
                      field + ": " + chosen->source + " says " + chosen->value.summary() + ", " + a->source + " says " +
                          a->value.summary() + "; make the files agree (the framework rejects or silently picks one)",
                      {{"reason", "files_disagree"}, {"first", chosen->source}, {"first_value", chosen->value.summary()}, {"second", a->source}, {"second_value", a->value.summary()}}});
  }
  out[field] = c;
}

// A catalog model for a Hugging Face id: its exact id or one of its aliases (any case; a rename the
// Hub redirects, such as "meta-llama/Meta-Llama-3.1-8B"), or a legacy unnamespaced id that the Hub
// redirects ("gpt2" -> "openai-community/gpt2"), or a catalog id.
const ModelPreset* match_model(const std::string& id, const Catalog& catalog) {
  const std::string want = lower(id);
  for (const auto& m : catalog.models) {
    if (!m.hf_id.empty() && lower(m.hf_id) == want) return &m;
    for (const auto& alias : m.hf_aliases)
      if (lower(alias) == want) return &m;
  }
  if (want.find('/') == std::string::npos) {
    for (const auto& m : catalog.models) {
      const auto slash = m.hf_id.find('/');
      if (slash != std::string::npos && lower(m.hf_id.substr(slash + 1)) == want) return &m;
    }
  }
  return catalog.find_model(id);
}

// A Hugging Face repository name reduced to family and size for suggestions: lower case, without
// the organisation and without the release tags that leave the architecture as it is
// ("Qwen/Qwen2.5-7B-Instruct" -> "qwen2.5-7b").
std::string family_and_size(const std::string& hf_id) {
  static const std::set<std::string> release_tags = {"instruct", "chat", "it", "base", "hf", "sft", "dpo", "rlhf"};
  std::string name = lower(hf_id.substr(hf_id.find('/') == std::string::npos ? 0 : hf_id.find('/') + 1));
  std::string out, token;
  auto flush = [&] {
    if (!token.empty() && !release_tags.count(token)) out += (out.empty() ? "" : "-") + token;
    token.clear();
  };
  for (char c : name) {
    if (c == '-' || c == '_') flush();
    else token += c;
  }
  flush();
  return out;
}

// The parameter-count word of a name ("7b", "0.5b", "125m", "8x7b"), or "".
std::string size_word(const std::string& family_size) {
  std::string token;
  auto is_size = [](const std::string& t) {
    if (t.size() < 2 || (t.back() != 'b' && t.back() != 'm') || !std::isdigit(static_cast<unsigned char>(t.front()))) return false;
    return std::all_of(t.begin(), t.end() - 1, [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'x'; });
  };
  for (std::size_t i = 0; i <= family_size.size(); ++i) {
    if (i == family_size.size() || family_size[i] == '-') {
      if (is_size(token)) return token;
      token.clear();
    } else {
      token += family_size[i];
    }
  }
  return "";
}

// The "-"-separated words of a family-and-size name.
std::set<std::string> name_words(const std::string& family_size) {
  std::set<std::string> words;
  std::string word;
  for (std::size_t i = 0; i <= family_size.size(); ++i) {
    if (i == family_size.size() || family_size[i] == '-') {
      if (!word.empty()) words.insert(word);
      word.clear();
    } else {
      word += family_size[i];
    }
  }
  return words;
}

// The catalog model to suggest for an id it lacks: of the names of the same size (a 7B instruct
// release suggests the 7B base, never the 72B), those sharing the largest share of their words
// (a version such as "3.1" is a word: Meta-Llama-3.1-8B suggests Llama-3.1-8B, not Meta-Llama-3-8B),
// the nearest by spelling among them; or none.
std::string nearest_catalog_model(const std::string& hf_id, const Catalog& catalog) {
  const std::string want = family_and_size(hf_id);
  const std::string size = size_word(want);
  const std::set<std::string> want_words = name_words(want);
  std::vector<std::string> names, ids;
  double best = 0;
  for (const auto& m : catalog.models) {
    if (m.hf_id.empty()) continue;
    const std::string name = family_and_size(m.hf_id);
    if (size_word(name) != size) continue;
    const std::set<std::string> words = name_words(name);
    std::size_t shared = 0;
    for (const auto& w : words) shared += want_words.count(w);
    const double share = static_cast<double>(shared) / static_cast<double>(words.size() + want_words.size() - shared);
    if (share < best) continue;
    if (share > best) names.clear(), ids.clear(), best = share;
    names.push_back(name);
    ids.push_back(m.hf_id);
  }
  const std::string near = closest_match(want, names);
  for (std::size_t i = 0; i < names.size(); ++i) if (names[i] == near) return ids[i];
  return "";
}

std::string checkpoint_dtype(const ConfigValue& hf_config) {
  for (const char* k : {"torch_dtype", "dtype"}) {
    if (const ConfigValue* d = hf_config.find(k); d && d->is_string()) {
      const std::string s = lower(d->as_string());
      if (s == "bfloat16") return "bf16";
      if (s == "float16") return "fp16";
      if (s == "float32") return "fp32";
    }
  }
  return "";
}

// torchtune: each launch line with the recipe config its --config names (by file name, with or
// without .yaml; or the one config given when one line and one config are), the overrides applied.
void read_torchtune_runs(const std::vector<std::pair<std::string, const ConfigValue*>>& configs, const std::vector<TuneRun>& runs,
                         std::vector<Reading>& readings, ImportResult& result) {
  std::set<std::size_t> used;
  for (const auto& run : runs) {
    const std::string where = run.file + ":" + std::to_string(run.line);
    if (run.recipe.empty()) {
      result.errors.push_back({error_code::missing_field, run.file, where + ": tune run names no recipe", {{"reason", "tune_run_no_recipe"}, {"origin", where}}});
      continue;
    }
    const std::string named = base_name(run.config);
    std::optional<std::size_t> match;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const std::string given = base_name(configs[i].first);
      if (!named.empty() && (given == named || given == named + ".yaml" || given == named + ".yml")) match = i;
    }
    if (!match && configs.size() == 1 && runs.size() == 1) {
      match = 0;
      if (!named.empty() && base_name(configs[0].first) != named)
        result.ignored.push_back({where, "--config " + run.config + ": read from " + configs[0].first + ", the one recipe config given", run.config});
    }
    if (!match) {
      result.errors.push_back({error_code::missing_field, run.file,
                               where + ": tune run --config " + (run.config.empty() ? std::string("(none)") : run.config) +
                                   ": give the recipe config beside the launch line (torchtune's built-in configs are recipes/configs/<name>.yaml)",
                               {{"reason", "tune_run_config_missing"}, {"origin", where}, {"value", run.config.empty() ? std::string("(none)") : run.config}}});
      continue;
    }
    used.insert(*match);
    result.formats.emplace_back(run.file, "torchtune launch line");
    Reading reading = read_torchtune_config(configs[*match].first, *configs[*match].second, &run);
    std::vector<OpenValue> open;
    for (const auto& o : run.open_overrides)
      open.push_back({o.key, run.file + ":" + o.word, o.what, run.file + ":" + (o.key.rfind("--", 0) == 0 ? o.key + " " : "") + o.word});
    mark_open_fields({&reading}, open, [&](const OpenValue& o) {
      TuneRun stand_in = run;
      if (o.key == "--nproc_per_node" || o.key == "--nnodes") {
        (o.key == "--nnodes" ? stand_in.nnodes : stand_in.nproc_per_node) = ConfigValue("1");
        stand_in.world_unresolved = false;
      } else {
        stand_in.overrides.push_back(o.key + "=1");
      }
      return std::vector<Reading>{read_torchtune_config(configs[*match].first, *configs[*match].second, &stand_in)};
    });
    readings.push_back(std::move(reading));
  }
  for (std::size_t i = 0; i < configs.size(); ++i)
    if (!used.count(i)) readings.push_back(read_torchtune_config(configs[i].first, *configs[i].second, nullptr));
}

// Each torchtitan job config with the launch line that names it (or the only launch line); a launch
// whose config was not given is listed.
void read_torchtitan_files(const std::vector<std::pair<std::string, const ConfigValue*>>& configs,
                           const std::vector<std::pair<TorchtitanLaunch, std::string>>& launches, std::vector<Reading>& readings,
                           ImportResult& result) {
  std::vector<bool> used(launches.size(), false);
  for (const auto& config : configs) {
    const std::string& name = config.first;
    const ConfigValue* content = config.second;  // named, not bound: the stand-in reading below captures them
    std::optional<TorchtitanLaunch> launch;
    std::string named;  // the job config the paired line names ("" when it names none)
    for (std::size_t i = 0; i < launches.size() && !launch; ++i)
      if (!used[i] && base_name(launches[i].second) == base_name(name)) used[i] = true, launch = launches[i].first, named = launches[i].second;
    for (std::size_t i = 0; i < launches.size() && !launch; ++i)
      if (!used[i] && configs.size() == 1)  // the only TOML given, whatever its name
        used[i] = true, launch = launches[i].first, named = launches[i].second;
    std::vector<Reading> read = read_torchtitan_config(name, *content, launch);
    // The job config the line names (--job.config_file, else run_train.sh's CONFIG_FILE), and the
    // given TOML read as it: the same file, or the only TOML given standing in for one not given.
    if (launch && !named.empty()) {
      const ShownKeys& shown = launch->shown;
      const std::string key = launch->file + ":" +
                              (launch->flags.find("job.config_file") ? (shown.count("job.config_file") ? shown.at("job.config_file") : "--job.config_file")
                                                                     : "CONFIG_FILE");
      if (base_name(named) == base_name(name))
        result.ignored.push_back({key, "names the job config, read as a file of its own", named});
      else
        result.ignored.push_back({key, "names " + named + ", which was not given; " + name + ", the only job config given, is read in its place",
                                  named});
    }
    if (launch) {
      std::vector<OpenValue> open;
      for (const auto& o : launch->open_flags) open.push_back({o.key, o.shown, o.what, o.written});
      std::vector<Reading*> base;
      for (auto& r : read) base.push_back(&r);
      // The launch line's --section.key flags override the TOML (torchtitan/config/manager.py).
      if (read.size() > 1) read.back().overrides.push_back(base_name(name));
      mark_open_fields(base, open, [&](const OpenValue& o) {
        TorchtitanLaunch stand_in = *launch;
        if (o.key == "nproc_per_node" || o.key == "nnodes") {
          (o.key == "nnodes" ? stand_in.nodes : stand_in.gpus_per_node) = 1;
          (o.key == "nnodes" ? stand_in.nodes_key : stand_in.gpus_key) = o.key;
          if (!stand_in.gpus_per_node) stand_in.gpus_per_node = 1, stand_in.gpus_key = "nproc_per_node";
          stand_in.shown.emplace(o.key, o.shown.substr(o.shown.find(':') + 1));
        } else {
          stand_in.flags = with_stand_in(stand_in.flags, o.key);
        }
        return read_torchtitan_config(name, *content, stand_in);
      });
    }
    for (auto& r : read) readings.push_back(std::move(r));
  }
  for (std::size_t i = 0; i < launches.size(); ++i) {
    if (used[i]) continue;
    const auto& [launch, config] = launches[i];
    result.errors.push_back({error_code::unknown_config_format, launch.file,
                             launch.file + ": a torchtitan launch" + (config.empty() ? "" : " of " + config) +
                                 "; give its job config TOML beside it (the GPU count alone is not a run)"});
  }
}

}  // namespace

namespace {
// Whether the dotted field path (`parallel.world_size`) has no value in the document.
bool is_document_field_absent(const ConfigValue& document, const std::string& path) {
  const ConfigValue* at = &document;
  for (std::size_t start = 0; at;) {
    const std::size_t dot = path.find('.', start);
    at = at->is_object() ? at->find(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start)) : nullptr;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return at == nullptr || at->is_null();
}
}  // namespace

ImportResult import_configs(const std::vector<ConfigFile>& files, const Catalog& catalog, const ImportOptions& options) {
  ImportResult result;
  std::vector<Reading> readings;
  std::optional<std::pair<std::string, ConfigValue>> model_config;  // (file, config.json)
  std::set<std::string> given_files;
  for (const auto& f : files) given_files.insert(base_name(f.name));
  std::vector<std::pair<std::string, const ConfigValue*>> torchtune_configs;  // (file, content)
  std::vector<TuneRun> tune_runs;
  // torchtitan: job configs and their launch lines (with the config file each names), read together below.
  std::vector<std::pair<std::string, const ConfigValue*>> titan_configs;
  std::vector<std::pair<TorchtitanLaunch, std::string>> titan_launches;
  // TrainingArguments and TRL files, read once every command line is known: a file a `trl CMD
  // --config` line names (with the key of that line's note that its process count is open), and
  // whether any command line or accelerate config launches the run.
  std::vector<std::pair<std::string, const ConfigValue*>> training_argument_files;
  struct TrlCliConfig {
    std::string command;    // "trl sft"
    std::string note_key;   // "run.sh:1", the naming line's note that its process count is open
  };
  std::map<std::string, TrlCliConfig> trl_cli_configs;  // by file base name
  bool launched_elsewhere = false;

  for (const auto& f : files) {
    if (f.text) {
      // Bash stops a word at a NUL byte; a command line has none.
      if (const auto nul = f.text->find('\0'); nul != std::string::npos) {
        result.errors.push_back({error_code::invalid_json, f.name,
                                 f.name + " contains a NUL byte at byte offset " + std::to_string(nul) + " (a command line has none)",
                                 {{"reason", "nul_byte"}, {"offset", static_cast<double>(nul)}}});
        continue;
      }
      if (f.text->find_first_not_of(" \t\r\n") == std::string::npos) {
        result.errors.push_back({error_code::unknown_config_format, f.name, f.name + " is empty: there is nothing to import",
                                 {{"reason", "empty_file"}, {"file", f.name}}});
        continue;
      }
      const ShellScript script = split_shell_script(*f.text);
      if (!script.error.empty()) {
        result.errors.push_back({error_code::invalid_json, f.name,
                                 f.name + ":" + std::to_string(script.error_line) + ": " + script.error,
                                 {{"reason", "shell_syntax"}, {"line", static_cast<double>(script.error_line)}}});
        continue;
      }
      bool found = false, other = false;
      for (const auto& c : script.commands) {
        if (auto framework = found ? std::nullopt : other_framework_command(c)) {
          const std::string where = f.name + ":" + std::to_string(c.line);
          result.errors.push_back({error_code::unknown_config_format, f.name, other_framework_message(where, *framework, true),
                                   {{"framework", framework->name}, {"file", where}, {"evidence", framework->evidence}}});
          other = true;
          break;
        }
        if (auto tune = tune_run_command(c, f.name); tune && !found) {
          found = true;
          tune_runs.push_back(std::move(*tune));
          continue;
        }
        auto cmd = training_command(c, f.name);
        if (!cmd) continue;
        launched_elsewhere = true;
        if (found) {
          result.ignored.push_back({f.name + ":" + std::to_string(c.line), "a further training command: only the first one is read", cmd->program});
          continue;
        }
        found = true;
        if (torchtitan_command(*cmd)) {
          std::string config_file;
          titan_launches.push_back({torchtitan_launch(f.name, *cmd, config_file), config_file});
          continue;
        }
        if (megatron_command(*cmd)) {
          if (!megatron_gpt(*cmd)) {
            result.errors.push_back({error_code::unknown_config_format, f.name,
                                     f.name + ":" + std::to_string(c.line) + ": a Megatron-LM " + base_name(cmd->program) +
                                         " command line; this import reads pretrain_gpt.py's arguments"});
            continue;
          }
          Reading launcher = read_launcher(f.name, *cmd);
          const MegatronWorld world = megatron_world(*cmd, launcher);
          Reading program = read_megatron_arguments(f.name, cmd->program_flags.values, cmd->program_flags.shown, world);
          for (auto& n : cmd->program_flags.unresolved) program.unresolved.push_back(n);
          for (auto& n : cmd->launcher_flags.unresolved) program.unresolved.push_back(n);
          mark_open_fields({&program}, cmd->program_flags.open, [&](const OpenValue& o) {
            return std::vector<Reading>{read_megatron_arguments(f.name, with_stand_in(cmd->program_flags.values, o.key), cmd->program_flags.shown, world)};
          });
          mark_open_fields({&launcher, &program}, cmd->launcher_flags.open, [&](const OpenValue& o) {
            LaunchCommand stand_in = *cmd;
            stand_in.launcher_flags.values = with_stand_in(cmd->launcher_flags.values, o.key);
            Reading l = read_launcher(f.name, stand_in);
            const MegatronWorld w = megatron_world(stand_in, l);
            return std::vector<Reading>{l, read_megatron_arguments(f.name, cmd->program_flags.values, cmd->program_flags.shown, w)};
          });
          if (!cmd->launcher.empty()) readings.push_back(std::move(launcher));
          readings.push_back(std::move(program));
          continue;
        }
        if (cmd->program == "axolotl.cli.train") {
          std::optional<Reading> program = read_axolotl_launch(f.name, *cmd);
          if (!program) {
            result.errors.push_back({error_code::unknown_config_format, f.name,
                                     f.name + ":" + std::to_string(c.line) + ": axolotl.cli.train is given no config file (axolotl train CONFIG)"});
            continue;
          }
          for (auto& n : cmd->program_flags.unresolved) program->unresolved.push_back(n);
          for (auto& n : cmd->launcher_flags.unresolved) program->unresolved.push_back(n);
          if (!cmd->launcher.empty()) {
            Reading launcher = read_launcher(f.name, *cmd);
            mark_open_fields({&launcher}, cmd->launcher_flags.open, [&](const OpenValue& o) {
              LaunchCommand stand_in = *cmd;
              stand_in.launcher_flags.values = with_stand_in(cmd->launcher_flags.values, o.key);
              return std::vector<Reading>{read_launcher(f.name, stand_in)};
            });
            readings.push_back(std::move(launcher));
          }
          readings.push_back(std::move(*program));
          continue;
        }
        if (cmd->launcher == "llamafactory-cli") {
          const bool flags = !cmd->program_flags.values.as_object().empty();
          if (!cmd->config_file && !flags) {
            result.errors.push_back({error_code::unknown_config_format, f.name,
                                     f.name + ":" + std::to_string(c.line) + ": llamafactory-cli train names no config file (llamafactory-cli train CONFIG.yaml)"});
            continue;
          }
          if (flags) readings.push_back(read_llamafactory_config(f.name, cmd->program_flags.values));
          readings.push_back(read_config_launch(f.name, *cmd));
          continue;
        }
        Reading program = read_hf_training_arguments(f.name, cmd->program_flags.values, cmd->program, cmd->program_flags.shown);
        // A script given its config file alone (LLaMA-Factory's src/train.py CONFIG.yaml).
        if (nothing_read(program) && cmd->config_file) program = read_config_launch(f.name, *cmd);
        if (const ConfigValue* cfg = cmd->program_flags.values.find("config"); cfg && cfg->is_string()) {
          // The script's config file (TRL's TrlParser takes --config off the arguments,
          // trl/scripts/utils.py parse_args_and_config): one note, the named file's, not also a
          // flag of the dataclasses.
          const std::string key = program.key("config");
          for (auto* notes : {&program.ignored, &program.unmodelled})
            notes->erase(std::remove_if(notes->begin(), notes->end(), [&](const ImportNote& n) { return n.key == key; }), notes->end());
          program.named_files.emplace_back(cfg->as_string(), key);
          program.overrides.push_back(base_name(cfg->as_string()));
          if (cmd->program.rfind("trl ", 0) == 0 && cmd->launcher == "accelerate")
            trl_cli_configs[base_name(cfg->as_string())] = {cmd->program, f.name + ":" + std::to_string(c.line)};
        }
        for (auto& n : cmd->program_flags.unresolved) program.unresolved.push_back(n);
        for (auto& n : cmd->launcher_flags.unresolved) program.unresolved.push_back(n);
        if (nothing_read(program)) {
          result.errors.push_back({error_code::unknown_config_format, f.name,
                                   f.name + ":" + std::to_string(c.line) + ": " + base_name(cmd->program) +
                                       " is given no flag this import reads (TrainingArguments or TRL keys); a script's own "
                                       "flags are not read, and its settings would silently become the trainer's defaults"});
          continue;
        }
        mark_open_fields({&program}, cmd->program_flags.open, [&](const OpenValue& o) {
          return std::vector<Reading>{read_hf_training_arguments(f.name, with_stand_in(cmd->program_flags.values, o.key), cmd->program,
                                                                 cmd->program_flags.shown)};
        });
        if (!cmd->launcher.empty()) {
          Reading launcher = read_launcher(f.name, *cmd);
          mark_open_fields({&launcher, &program}, cmd->launcher_flags.open, [&](const OpenValue& o) {
            LaunchCommand stand_in = *cmd;
            stand_in.launcher_flags.values = with_stand_in(cmd->launcher_flags.values, o.key);
            return std::vector<Reading>{read_launcher(f.name, stand_in)};
          });
          // The accelerate config the line names, where it is given beside the line.
          const ConfigValue* named_config = nullptr;
          if (const ConfigValue* cfg = cmd->launcher_flags.values.find("config_file"); cfg && cfg->is_string())
            for (const auto& g : files)
              if (!g.text && base_name(g.name) == base_name(cfg->as_string())) named_config = &g.content;
          push_launcher_readings(*cmd, std::move(launcher), readings, named_config);
        }
        readings.push_back(std::move(program));
      }
      if (found)
        for (int line : script.conditions)
          result.unresolved.push_back({f.name + ":" + std::to_string(line),
                                       "a condition the import does not evaluate: the assignments of every branch apply, in order", nullptr});
      if (!found && !other)
        result.errors.push_back({error_code::unknown_config_format, f.name,
                                 f.name + ": no training command found (python/accelerate launch/torchrun/deepspeed running a *.py script, trl <command>, or tune run)"});
      continue;
    }
    if (f.content.is_null()) {  // an empty YAML or TOML file (a JSON file cannot be empty)
      result.errors.push_back({error_code::unknown_config_format, f.name, f.name + " is empty: there is nothing to import",
                               {{"reason", "empty_file"}, {"file", f.name}}});
      continue;
    }
    if (!f.content.is_object()) {
      result.errors.push_back({error_code::unknown_config_format, f.name,
                               f.name + ": a trainer config is a mapping of keys, got " + f.content.summary()});
      continue;
    }
    // Another framework's config is named before any reader sees it: its keys may include
    // TrainingArguments names (MaxText's gradient_accumulation_steps) that would read it as such.
    if (const auto framework = other_framework_config(f.content)) {
      result.errors.push_back({error_code::unknown_config_format, f.name, other_framework_message(f.name, *framework, false),
                               {{"framework", framework->name}, {"file", f.name}, {"evidence", framework->evidence}}});
      continue;
    }
    if (is_torchtitan_config(f.content)) {
      titan_configs.emplace_back(f.name, &f.content);
      continue;
    }
    // A torchtune config is named first: its keys may include TrainingArguments
    // names (torchtune recipes have gradient_accumulation_steps) that would read it as such.
    if (is_torchtune_config(f.content)) {
      torchtune_configs.emplace_back(f.name, &f.content);
      continue;
    }
    const std::string format = detect_structured_format(f.content);
    if (format == "hf_config") {
      model_config = std::make_pair(f.name, f.content);
      result.formats.emplace_back(f.name, "hf_config");
    } else if (format == "accelerate") {
      launched_elsewhere = true;
      readings.push_back(read_accelerate_config(f.name, f.content));
    } else if (format == "deepspeed") {
      readings.push_back(read_deepspeed_config(f.name, f.content));
    } else if (format == "hf_training_arguments") {
      training_argument_files.emplace_back(f.name, &f.content);
    } else if (format == "axolotl") {
      readings.push_back(read_axolotl_config(f.name, f.content));
    } else if (format == "llamafactory") {
      readings.push_back(read_llamafactory_config(f.name, f.content));
    } else {
      result.errors.push_back({error_code::unknown_config_format, f.name,
                               f.name + ": not a config this import reads (DeepSpeed JSON, accelerate YAML, HF TrainingArguments / "
                                        "TRL YAML or JSON, axolotl or LLaMA-Factory YAML, torchtune recipe YAML, torchtitan TOML, "
                                        "command lines and launch scripts, config.json)"});
    }
  }

  for (const auto& [name, content] : training_argument_files) {
    const auto line = trl_cli_configs.find(base_name(name));
    const std::string command = line != trl_cli_configs.end() ? line->second.command
                                : !launched_elsewhere && content->is_object() ? trl_command_for_config(*content)
                                                                               : std::string();
    // The file's process count or accelerate config answers the line's note that it is open.
    if (read_training_arguments_file(name, *content, command, readings) && line != trl_cli_configs.end()) {
      const std::string& note = line->second.note_key;
      for (auto& r : readings) {
        r.unresolved.erase(std::remove_if(r.unresolved.begin(), r.unresolved.end(), [&](const ImportNote& n) { return n.key == note; }),
                           r.unresolved.end());
        r.left_open.erase(std::remove_if(r.left_open.begin(), r.left_open.end(),
                                         [&](const auto& o) { return o.first == "parallel.world_size" && o.second == note; }),
                          r.left_open.end());
      }
    }
  }

  read_torchtune_runs(torchtune_configs, tune_runs, readings, result);
  read_torchtitan_files(titan_configs, titan_launches, readings, result);

  // Files named by others but not given. Every given file is read as a file of its own; a named
  // file that was not given, beside exactly one other given file of its extension that nothing
  // names, is taken to be that file under another path (a config copied out of its repository),
  // and the note says which file was read in its place.
  std::set<std::string> named_bases;
  for (const auto& r : readings)
    for (const auto& [named, key] : r.named_files) named_bases.insert(base_name(named));
  const auto extension = [](const std::string& name) {
    const std::string base = base_name(name);
    const auto dot = base.rfind('.');
    return dot == std::string::npos ? std::string() : lower(base.substr(dot));
  };
  const auto stand_in = [&](const std::string& named, const std::string& naming_file) {
    std::set<std::string> candidates;
    for (const auto& f : files)
      if (f.name != naming_file && extension(f.name) == extension(named) && !named_bases.count(base_name(f.name))) candidates.insert(f.name);
    return candidates.size() == 1 ? *candidates.begin() : std::string();
  };
  // A launcher or DeepSpeed config named but not given decides the sharding (and a launcher's the
  // GPU count): those fields stay open unless another file states them, never DDP on one GPU.
  std::vector<std::pair<std::string, std::string>> decided_by_missing;  // (field, the naming key)
  const auto ends_with_key = [](const std::string& key, const std::string& name) {
    return ends_with(key, ":" + name) || ends_with(key, "." + name) || ends_with(key, "-" + name);
  };
  for (auto& r : readings) {
    result.formats.emplace_back(r.file(), r.format());
    for (const auto& [named, key] : r.named_files) {
      if (!given_files.count(base_name(named)) && stand_in(named, r.file()).empty()) {
        if (ends_with_key(key, "config_file") && !ends_with_key(key, "deepspeed_config_file")) {
          decided_by_missing.emplace_back("parallel.world_size", key);
          decided_by_missing.emplace_back("parallel.zero_stage", key);
        } else if (ends_with_key(key, "deepspeed") || ends_with_key(key, "deepspeed_config_file") || ends_with_key(key, "deepspeed_config")) {
          decided_by_missing.emplace_back("parallel.zero_stage", key);
        }
      }
      const std::string other = given_files.count(base_name(named)) ? std::string() : stand_in(named, r.file());
      if (!other.empty())
        result.ignored.push_back({key, "names " + named + ", which was not given; " + other + ", the only other such file given, is read in its place", named});
      else if (!given_files.count(base_name(named)))
        result.unresolved.push_back({key, "names " + named + ", which was not given: its settings are not read", named});
      else
        result.ignored.push_back({key, "names " + named + ", which is read as a file of its own", named});
    }
    for (auto& e : r.errors) result.errors.push_back(e);
  }

  // Merge the fields.
  std::map<std::string, std::vector<const Assignment*>> by_field;
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> overrides_by_file;
  for (const auto& r : readings) {
    for (const auto& o : r.overrides) overrides_by_file[base_name(r.file())].push_back(o);
    for (const auto& a : r.fields) {
      if (!by_field.count(a.field)) order.push_back(a.field);
      by_field[a.field].push_back(&a);
    }
  }
  std::map<std::string, Chosen> chosen;
  for (const auto& field : order) merge_field(field, by_field[field], overrides_by_file, chosen, result.errors);
  // A value read from a file that a stronger one overrides (a launcher's mixed precision under the
  // trainer's flag, a load dtype DeepSpeed casts) is listed, not dropped.
  for (const auto& field : order) {
    const auto c = chosen.find(field);
    if (c == chosen.end()) continue;
    for (const Assignment* a : by_field[field])
      if (a->strength < c->second.a.strength && a->origin.rfind("read from", 0) == 0)
        result.ignored.push_back({a->source, std::string(a->value == c->second.a.value ? "agrees with " : "yields to ") +
                                                 c->second.a.source + " for " + field, a->value});
    for (const Assignment* a : c->second.overridden)
      result.ignored.push_back({a->source, "yields to " + c->second.a.source + " for " + field + ": the command or file that names it overrides it", a->value});
  }

  // Fields a value the script leaves unresolved would set (`--max_length $SEQ`): absent from the
  // document and listed under `unresolved` keyed by the field, as the GPU count is when no file gives
  // it; whatever default stood in is dropped. A value another file states stays (the files must
  // agree), unless the command line overrides that file.
  std::map<std::string, Reading::OpenField> open;
  for (const auto& r : readings)
    for (const auto& o : r.open_fields) {
      if (open.count(o.field)) continue;
      const auto c = chosen.find(o.field);
      if (c != chosen.end() && c->second.a.strength >= Strength::read) {
        const std::string other = base_name(c->second.a.source.substr(0, c->second.a.source.find(':')));  // "FILE:key" -> FILE
        const auto over = overrides_by_file.find(base_name(o.file));
        const bool overridden = over != overrides_by_file.end() && std::count(over->second.begin(), over->second.end(), other) > 0;
        if (other != base_name(o.file) && !overridden) {
          result.unresolved.push_back({o.field, o.key + ": " + o.value + " is a variable the script does not set; " + c->second.a.source +
                                                    " states " + c->second.a.value.summary() + ", which is used",
                                       o.value});
          continue;
        }
      }
      if (c != chosen.end()) chosen.erase(c);
      open[o.field] = o;
      result.unresolved.push_back({o.field, o.key + ": " + o.value +
                                                " is a variable the script does not set: not guessed, and no default stands in for it; "
                                                "set the variable in the script or give the value (the page keeps the form's)",
                                   o.value});
    }
  // A key that leaves a field open (TRL's max_length: null, no truncation; an accelerate launch that
  // takes the machine's GPU count) is filled only by a value a file states, never by a framework's
  // default that another file's reading supplies (the `trl sft` line's max_length = 1024 is the
  // dataclass default the null replaced).
  std::map<std::string, std::string> left_to_data;  // field -> the key that left it open
  for (const auto& r : readings)
    for (const auto& [field, key] : r.left_open) {
      left_to_data.emplace(field, key);
      const auto c = chosen.find(field);
      if (c != chosen.end() && c->second.a.origin.rfind("read from ", 0) != 0) chosen.erase(c);
    }

  // DeepSpeed's train_batch_size with a missing micro-batch or accumulation count.
  for (const auto& r : readings) {
    if (!r.train_batch) continue;
    const auto tb = r.train_batch->train_batch_size;
    auto value_of = [&](const char* f) -> std::optional<std::int64_t> {
      auto it = chosen.find(f);
      if (it == chosen.end() || it->second.a.strength < Strength::read) return std::nullopt;
      return integer_value(it->second.a.value);
    };
    auto world = value_of("parallel.world_size");
    auto micro = value_of("batch.micro_batch_size");
    auto accumulation = value_of("batch.gradient_accumulation_steps");
    const std::string key = r.key(r.train_batch->key);
    if (!world && micro && accumulation && tb % (*micro * *accumulation) != 0) {
      // No GPU count makes it agree (deepspeed/runtime/config.py _batch_assertion).
      result.errors.push_back({error_code::inconsistent, key,
                               key + " = " + std::to_string(tb) + " is not a multiple of micro-batch " + std::to_string(*micro) +
                                   " x accumulation " + std::to_string(*accumulation) + " = " + std::to_string(*micro * *accumulation) +
                                   ", whatever the GPU count (DeepSpeed asserts train_batch_size = micro-batch x accumulation x GPUs)",
                               {{"reason", "train_batch_not_multiple"}, {"value", static_cast<double>(tb)},
                                {"divisor", static_cast<double>(*micro * *accumulation)}}});
      continue;
    }
    if (!world) {
      result.unresolved.push_back({key, "train_batch_size = micro-batch x accumulation x data-parallel GPUs, and no file gives the GPU count", tb});
      continue;
    }
    const std::int64_t dp = *world;
    if (micro && accumulation) {
      if (*micro * *accumulation * dp == tb)
        result.ignored.push_back({key, "agrees with micro-batch x accumulation x GPUs", tb});
      else if (*micro * *accumulation * dp != tb)
        result.errors.push_back({error_code::inconsistent, key,
                                 key + " = " + std::to_string(tb) + " but micro-batch " + std::to_string(*micro) + " x accumulation " +
                                     std::to_string(*accumulation) + " x " + std::to_string(dp) + " GPUs = " +
                                     std::to_string(*micro * *accumulation * dp) + " (DeepSpeed asserts they agree)",
                                 {{"reason", "train_batch_mismatch"}, {"value", static_cast<double>(tb)}, {"product", static_cast<double>(*micro * *accumulation * dp)}}});
    } else if (const std::int64_t per_step = micro ? *micro * dp : dp * accumulation.value_or(1); tb % per_step != 0) {
      // deepspeed/runtime/config.py _batch_assertion: train_batch_size == micro x accumulation x GPUs.
      result.errors.push_back({error_code::inconsistent, key,
                               key + " = " + std::to_string(tb) + " is not a multiple of " +
                                   (micro ? "micro-batch " + std::to_string(*micro) : "accumulation " + std::to_string(accumulation.value_or(1))) +
                                   " x " + std::to_string(dp) + " GPUs = " + std::to_string(per_step) +
                                   " (DeepSpeed asserts train_batch_size = micro-batch x accumulation x GPUs)",
                               {{"reason", "train_batch_not_multiple"}, {"value", static_cast<double>(tb)}, {"divisor", static_cast<double>(per_step)}}});
    } else if (micro) {
      chosen["batch.gradient_accumulation_steps"] = Chosen{{"batch.gradient_accumulation_steps", tb / (*micro * dp),
                                                            "read from " + key + " (train_batch_size / (micro-batch x GPUs), deepspeed/runtime/config.py)", key, Strength::read}, {}};
    } else {
      const std::int64_t acc = accumulation.value_or(1);
      chosen["batch.micro_batch_size"] = Chosen{{"batch.micro_batch_size", tb / (dp * acc),
                                                 "read from " + key + " (train_batch_size / (GPUs x accumulation), deepspeed/runtime/config.py)", key, Strength::read}, {}};
    }
  }

  // ZeRO (and FSDP, read as its stages) shards over the data-parallel GPUs: a sharded run whose files
  // give no GPU count is listed, not estimated on one GPU in silence.
  if (const auto zero = chosen.find("parallel.zero_stage");
      zero != chosen.end() && integer_value(zero->second.a.value).value_or(0) > 0 && !chosen.count("parallel.world_size") &&
      !open.count("parallel.world_size") && !left_to_data.count("parallel.world_size"))
  {
    auto degree = [&](const char* field) {
      const auto c = chosen.find(field);
      return c == chosen.end() ? std::int64_t{1} : integer_value(c->second.a.value).value_or(1);
    };
    result.unresolved.push_back({"parallel.world_size",
                                 "ZeRO stage " + zero->second.a.value.summary() + " (" + zero->second.a.source +
                                     ") shards over the data-parallel GPUs and no file gives their number: " +
                                     gpu_count_not_given({{"tensor", degree("parallel.tensor_parallel_size")},
                                                          {"pipeline", degree("parallel.pipeline_parallel_size")},
                                                          {"context", degree("parallel.context_parallel_size")}}),
                                 nullptr});
  }

  // The sequence length is the run's own, and no default stands in for it: where no given file sets
  // it (a DeepSpeed JSON, an accelerate config or a launcher command carries none; the training
  // script's data code does) and no reader has said so already, it is listed as the GPU count is.
  const auto says_sequence = [](const ImportNote& n) { return n.key == "batch.seq_length" || n.key == "(sequence length)"; };
  const bool sequence_noted = std::any_of(readings.begin(), readings.end(), [&](const Reading& r) {
    return std::any_of(r.unresolved.begin(), r.unresolved.end(), says_sequence) ||
           std::any_of(r.left_open.begin(), r.left_open.end(), [](const auto& f) { return f.first == "batch.seq_length"; });
  });
  if (!chosen.count("batch.seq_length") && !open.count("batch.seq_length") && !sequence_noted)
    result.unresolved.push_back({"batch.seq_length",
                                 "no given file sets the sequence length (a DeepSpeed JSON, an accelerate config or a launcher "
                                 "command carries none: the training script's data code does); set batch.seq_length",
                                 nullptr});

  // Mixed precision through the HF Trainer in front of DeepSpeed (TRL, axolotl, LLaMA-Factory).
  // The trainer's bf16/fp16 flag becomes accelerate's mixed precision (transformers
  // training_args.py __post_init__: ACCELERATE_MIXED_PRECISION = "bf16" | "fp16"), and accelerate
  // adds the matching section to a DeepSpeed config that has none (huggingface/accelerate 16cb6eb,
  // src/accelerate/utils/dataclasses.py DeepSpeedPlugin.set_mixed_precision: ds_config["bf16"] =
  // {"enabled": True}; fp16 with auto_cast), so DeepSpeed casts the model to that dtype
  // (deepspeed/runtime/engine.py _configure_distributed_model) and keeps fp32 masters. A section
  // that states "enabled" must agree with the trainer's flag: the HF integration collects the
  // mismatch and raises (transformers 0234833 src/transformers/integrations/deepspeed.py
  // HfTrainerDeepSpeedConfig.trainer_config_process fill_match, raised in trainer_config_finalize).
  {
    static const std::set<std::string> trainer_formats = {"trl", "hf_training_arguments", "axolotl", "llamafactory"};
    std::set<std::string> deepspeed_keys;
    for (const auto& r : readings)
      for (const auto& d : r.deepspeed_precision) deepspeed_keys.insert(d.key);
    std::string trainer;  // the trainer's file
    const Assignment* flag = nullptr;  // the trainer's own precision (not a DeepSpeed section it carries inline)
    for (const auto& r : readings) {
      if (!trainer_formats.count(r.format())) continue;
      if (trainer.empty()) trainer = r.file();
      for (const auto& a : r.fields)
        if (a.field == "precision.compute_dtype" && !deepspeed_keys.count(a.source) && (!flag || a.strength > flag->strength)) flag = &a;
    }
    const std::string mixed = flag && flag->value.is_string() ? flag->value.as_string() : "fp32";
    const std::string flag_source = flag ? flag->origin : trainer + " turns neither bf16 nor fp16 on";
    // Two files already reported as disagreeing on the compute dtype say the same thing once.
    const bool conflict_reported = std::any_of(result.errors.begin(), result.errors.end(),
                                               [](const FieldError& e) { return e.field == "precision.compute_dtype"; });
    for (const auto& r : readings) {
      if (trainer.empty()) break;
      for (const auto& d : r.deepspeed_precision) {
        const bool on = mixed == d.dtype;
        if (d.enabled && *d.enabled != on) {
          if (conflict_reported) continue;
          result.errors.push_back({error_code::inconsistent, d.key,
                                   d.key + " is " + (*d.enabled ? "true" : "false") + " but the trainer's " + d.dtype + " is " + (on ? "on" : "off") +
                                       " (precision " + mixed + ", " + flag_source + "): the HF Trainer refuses a DeepSpeed value that differs from its own "
                                       "(transformers integrations/deepspeed.py trainer_config_process); write \"auto\" or make them agree",
                                   {{"reason", "deepspeed_precision_differs"}, {"dtype", d.dtype}}});
        } else if (!d.enabled && on) {
          chosen["precision.param_dtype"] =
              Chosen{{"precision.param_dtype", d.dtype,
                      (flag->strength >= Strength::read ? "read from " + flag->source : flag->origin) + " with " + d.key + " (no " + d.dtype +
                          " section: accelerate's mixed precision adds {\"enabled\": true} to it, accelerate utils/dataclasses.py "
                          "DeepSpeedPlugin.set_mixed_precision; DeepSpeed casts the model to " + d.dtype + ")",
                      flag->source, Strength::engine_cast},
                     {}};
        }
      }
    }
  }

  // DeepSpeed's fp16/bf16 "enabled": "auto". The HF integration fills it from the trainer's own
  // flag (transformers src/transformers/integrations/deepspeed.py, HfTrainerDeepSpeedConfig.
  // trainer_config_process: fill_match("bf16.enabled", args.bf16 or args.bf16_full_eval), and fp16
  // likewise), accelerate from its mixed_precision (src/accelerate/utils/dataclasses.py,
  // DeepSpeedPlugin.set_mixed_precision); on, DeepSpeed casts the model to that dtype, as for an
  // explicit true.
  for (const auto& r : readings)
    for (const auto& cast : r.auto_casts) {
      const auto compute = chosen.find("precision.compute_dtype");
      if (compute == chosen.end()) {
        result.unresolved.push_back(cast.note);
        continue;
      }
      if (string_value(compute->second.a.value) != cast.dtype) continue;  // the trainer leaves it off
      chosen["precision.param_dtype"] =
          Chosen{{"precision.param_dtype", cast.dtype,
                  "read from " + cast.note.key + " (\"auto\" filled from " + compute->second.a.source +
                      "; DeepSpeed casts the model to this dtype)",
                  cast.note.key, Strength::engine_cast},
                 {}};
    }

  // "auto" values: filled from another file's key, or unresolved.
  for (const auto& r : readings)
    for (const auto& [field, note] : r.autos) {
      auto it = chosen.find(field);
      if (it == chosen.end() || it->second.a.strength < Strength::trainer_default) {
        result.unresolved.push_back(note);
        if (it == chosen.end()) result.open_fields.emplace_back(field, note.key);
      }
      else result.ignored.push_back({note.key, "\"auto\": " + field + " is filled from " + (it->second.a.source.empty() ? it->second.a.origin : it->second.a.source), note.value});
    }

  // The model.
  std::string model_origin, model_source;
  ConfigValue model;
  std::string checkpoint_dtype_value, dtype_key;
  for (const auto& r : readings) if (r.dtype_from_checkpoint_key) dtype_key = *r.dtype_from_checkpoint_key;
  const Reading* naming = nullptr;
  for (const auto& r : readings) if (r.model_id) { naming = &r; break; }
  const Reading* building = nullptr;  // a Megatron-LM script's architecture arguments
  bool unbuilt = false;
  for (const auto& r : readings) {
    if (r.built_model && !building) building = &r;
    unbuilt = unbuilt || r.model_unbuilt;
  }
  if (building && (model_config || options.model_preset))
    result.ignored.push_back({building->file() + ":(architecture)",
                              model_config ? "the model's config.json " + model_config->first + " is used instead" : "the model given with --model is used instead",
                              *building->built_model});
  if (model_config) {
    ConfigValue m = ConfigValue::object();
    m.set("hf_config", model_config->second);
    model = m;
    model_origin = "read from " + model_config->first;
    model_source = model_config->first;
    checkpoint_dtype_value = checkpoint_dtype(model_config->second);
    // The config.json describes the model; a name beside it is listed, never dropped silently.
    const std::string instead = "the model's config.json " + model_config->first + " is used instead";
    if (naming) result.ignored.push_back({naming->model_key, instead, *naming->model_id});
    if (options.model_preset) result.ignored.push_back({"--model", instead, *options.model_preset});
  } else if (options.model_preset) {
    // A catalog id, or a Hugging Face id the catalog knows (as a file would name it).
    if (const ModelPreset* p = match_model(*options.model_preset, catalog)) {
      ConfigValue m = ConfigValue::object();
      m.set("preset", p->id);
      model = m;
      model_origin = "given with --model";
      model_source = "--model";
      // A pre-quantized checkpoint named in the files (AWQ, GPTQ: 4-bit weights the trainer keeps
      // frozen) is not what the catalog model's 16-bit weights price.
      const std::string named = naming ? lower(*naming->model_id) : "";
      if (naming && (named.find("awq") != std::string::npos || named.find("gptq") != std::string::npos))
        result.unmodelled.push_back({naming->model_key,
                                     "names a pre-quantized (AWQ/GPTQ) checkpoint; the model given with --model is priced with its "
                                     "16-bit weights, which the quantized checkpoint does not have",
                                     *naming->model_id});
      else if (naming) result.ignored.push_back({naming->model_key, "the model given with --model is used instead", *naming->model_id});
      checkpoint_dtype_value = dtype_name(p->param_dtype);
    } else {
      const CatalogMatch near = closest_catalog_id(*options.model_preset, catalog.model_ids(), catalog.model_hf_ids());
      result.errors.push_back({error_code::unknown_preset, "model",
                               "--model \"" + excerpt(*options.model_preset) + "\" is not in the model catalog" + near.message_tail(),
                               near.params(*options.model_preset)});
    }
  } else if (building) {
    ConfigValue m = ConfigValue::object();
    m.set("hf_config", *building->built_model);
    model = m;
    model_origin = building->built_model_origin;
    model_source = building->built_model_source;
  } else if (naming) {
    if (const ModelPreset* p = match_model(*naming->model_id, catalog)) {
      ConfigValue m = ConfigValue::object();
      m.set("preset", p->id);
      model = m;
      model_origin = "read from " + naming->model_key + " (catalog model " + p->id + ")";
      model_source = naming->model_key;
      checkpoint_dtype_value = dtype_name(p->param_dtype);
    } else {
      const std::string near = nearest_catalog_model(*naming->model_id, catalog);
      result.errors.push_back({error_code::model_config_needed, naming->model_key,
                               naming->model_key + " names \"" + *naming->model_id + "\", which is not in the model catalog" +
                                   (near.empty() ? "" : " (nearest: \"" + near + "\")") +
                                   ": give its config.json beside the other files, or name a catalog model for it (--model on the command line)",
                               near.empty() ? Params{{"value", *naming->model_id}} : Params{{"value", *naming->model_id}, {"suggestion", near}}});
    }
  } else if (!unbuilt) {
    result.unresolved.push_back({"model", "no file names the model: give its config.json beside the other files, or choose a catalog model (--model on the command line, the model picker on the page)", nullptr});
  }
  if (!model.is_null()) {
    result.document.set("model", model);
    result.provenance.push_back({"model", model_origin, model_source});
  }
  if (!dtype_key.empty() && !checkpoint_dtype_value.empty() && !chosen.count("precision.param_dtype"))
    chosen["precision.param_dtype"] = Chosen{{"precision.param_dtype", checkpoint_dtype_value,
                                              "read from " + dtype_key + " (\"auto\": the checkpoint's torch_dtype)", dtype_key, Strength::read}, {}};
  else if (!dtype_key.empty() && !chosen.count("precision.param_dtype"))
    result.unresolved.push_back({dtype_key, "dtype \"auto\": the checkpoint's dtype, unknown without its config.json", "auto"});

  // The HF Trainer keeps no fp32 master copy: the optimizer, torch's or bitsandbytes', updates the
  // weights as loaded, in their own dtype (a model loaded in 16 bits trains in 16 bits), whatever the
  // method (the trainable non-adapter weights, e.g. PEFT's modules_to_save, stay in the base dtype).
  // In a full fine-tune torch optimizers also keep their states in the parameters' dtype
  // (torch/optim/adamw.py: zeros_like); bitsandbytes' keep theirs (8-bit, or fp32 for the 32-bit
  // ones); adapters keep states in lora.adapter_dtype. DeepSpeed's cast (and Megatron) keep fp32
  // masters instead, and so does accelerate's FSDP under 16-bit mixed precision in a full fine-tune
  // (v0.30+ upcasts the trainable parameters to fp32, huggingface/accelerate#2674): there the
  // engine's rule decides (precision.hpp accelerate_fsdp_upcasts, the question the estimate asks).
  if (auto p = chosen.find("precision.param_dtype"); p != chosen.end() && p->second.a.strength < Strength::engine_cast) {
    const std::string dtype = p->second.a.value.is_string() ? p->second.a.value.as_string() : "";
    auto engine = chosen.find("parallel.sharding_engine");
    const std::string sharding = engine != chosen.end() && engine->second.a.value.is_string() ? engine->second.a.value.as_string() : "";
    auto fw = chosen.find("framework");
    const std::string framework = fw != chosen.end() && fw->second.a.value.is_string() ? fw->second.a.value.as_string() : "hf_trainer";
    auto opt = chosen.find("precision.optimizer");
    const std::string optimizer = opt != chosen.end() && opt->second.a.value.is_string() ? opt->second.a.value.as_string() : "adamw";
    const bool torch_optimizer = optimizer == "adamw" || optimizer == "adam" || optimizer == "sgd" || optimizer == "sgd_momentum";
    auto m = chosen.find("method");
    const bool full = m == chosen.end() || !m->second.a.value.is_string() || m->second.a.value.as_string() == "full";
    const bool deepspeed_or_megatron = sharding == "deepspeed" || sharding == "megatron";
    auto compute = chosen.find("precision.compute_dtype");
    const bool mixed = compute != chosen.end() && (compute->second.a.value == ConfigValue("bf16") || compute->second.a.value == ConfigValue("fp16"));
    // A reader that found mixed precision off (axolotl's bf16 "full", LLaMA-Factory's pure_bf16) says master_weights false.
    auto master = chosen.find("precision.master_weights");
    const bool pure = master != chosen.end() && master->second.a.value == ConfigValue(false);
    const bool accelerate_loop = framework == "hf_trainer" || framework == "fsdp";
    const bool sixteen_bit = dtype == "bf16" || dtype == "fp16";
    const bool fsdp_upcasts = accelerate_fsdp_upcasts(
        {accelerate_loop, sharding == "fsdp" || sharding == "fsdp2" || (sharding.empty() && framework == "fsdp"), full, sixteen_bit, mixed && !pure});
    if (!deepspeed_or_megatron && !fsdp_upcasts && sixteen_bit && accelerate_loop) {
      if (!chosen.count("precision.master_weights"))
        chosen["precision.master_weights"] = Chosen{{"precision.master_weights", false,
                                                     "framework default (the HF Trainer keeps no fp32 master copy: the optimizer updates "
                                                     "the weights as loaded, in their own dtype)",
                                                     "", Strength::trainer_default},
                                                    {}};
      if (full && torch_optimizer && !chosen.count("precision.optimizer_state_dtype"))
        chosen["precision.optimizer_state_dtype"] = Chosen{
            {"precision.optimizer_state_dtype", dtype, "framework default (torch/optim/adamw.py keeps states in the parameter dtype)", "",
             Strength::trainer_default},
            {}};
    }
  }

  // PEFT upcasts adapters to fp32 (get_peft_model autocast_adapter_dtype=True, PEFT >= 0.12); under
  // DeepSpeed ZeRO-3 TRL turns that off (trl/trainer/sft_trainer.py) and
  // LLaMA-Factory skips its own fp32 cast (model/adapter.py init_adapter), keeping the base dtype.
  if (auto m = chosen.find("method"); m != chosen.end() && m->second.a.value.is_string() &&
                                      (m->second.a.value.as_string() == "lora" || m->second.a.value.as_string() == "qlora") &&
                                      !chosen.count("lora.adapter_dtype")) {
    auto engine = chosen.find("parallel.sharding_engine");
    auto zero = chosen.find("parallel.zero_stage");
    const bool zero3_deepspeed = engine != chosen.end() && engine->second.a.value == ConfigValue("deepspeed") &&
                                 zero != chosen.end() && zero->second.a.value == ConfigValue(3);
    auto p = chosen.find("precision.param_dtype");
    if (!zero3_deepspeed)
      chosen["lora.adapter_dtype"] = Chosen{{"lora.adapter_dtype", "fp32",
                                             "framework default (peft get_peft_model autocast_adapter_dtype=True: adapters in fp32)", "", Strength::trainer_default}, {}};
    else if (p != chosen.end())
      chosen["lora.adapter_dtype"] = Chosen{{"lora.adapter_dtype", p->second.a.value,
                                             "framework default (under DeepSpeed ZeRO-3 the adapters are not upcast: TRL 1.10 passes "
                                             "autocast_adapter_dtype=False (sft_trainer.py), LLaMA-Factory model/adapter.py skips its fp32 cast; "
                                             "DeepSpeed keeps their fp32 masters)",
                                             "", Strength::trainer_default}, {}};
  }

  // The document and its provenance, in document order.
  std::vector<std::string> fields = document_fields();
  for (const auto& field : order) if (std::find(fields.begin(), fields.end(), field) == fields.end()) fields.push_back(field);
  for (const auto& [field, c] : chosen) if (std::find(fields.begin(), fields.end(), field) == fields.end()) fields.push_back(field);
  for (const auto& [field, o] : open) if (std::find(fields.begin(), fields.end(), field) == fields.end()) fields.push_back(field);
  std::string method = "full";
  if (auto it = chosen.find("method"); it != chosen.end() && it->second.a.value.is_string()) method = it->second.a.value.as_string();
  const bool has_rlhf = chosen.count("rlhf.algorithm") > 0;
  const auto quantizer = chosen.find("qlora.quant_method");
  const bool hqq = quantizer != chosen.end() && quantizer->second.a.value.is_string() && quantizer->second.a.value.as_string() == "hqq";
  for (const auto& field : fields) {
    if (field == "model") continue;
    // Settings of a method or algorithm the run does not use are left out, and so are those of the
    // quantizer it does not use (bitsandbytes' quant_type and double_quant; HQQ's nbits, group_size, axis).
    if (field.rfind("lora.", 0) == 0 && method != "lora" && method != "qlora") continue;
    if (field.rfind("qlora.", 0) == 0 && method != "qlora") continue;
    const bool hqq_field = field == "qlora.nbits" || field == "qlora.group_size" || field == "qlora.axis";
    if ((field == "qlora.quant_type" || field == "qlora.double_quant") && hqq) continue;
    if (hqq_field && !hqq) continue;
    if (field.rfind("rlhf.", 0) == 0 && !has_rlhf) continue;
    if (const auto o = open.find(field); o != open.end()) {
      result.provenance.push_back({field, o->second.origin, o->second.key, true});
      continue;
    }
    auto it = chosen.find(field);
    if (it == chosen.end()) {
      if (const auto l = left_to_data.find(field); l != left_to_data.end()) {
        result.provenance.push_back({field, "unresolved: " + l->second, ""});
        continue;
      }
      result.provenance.push_back({field, "engine default", ""});
      continue;
    }
    result.document.set_path(field, it->second.a.value);
    std::string origin = it->second.a.origin;
    for (const auto& other : it->second.agreeing) origin += "; also " + other;
    // A read value's source is the key the user wrote; a default's is the file that was silent, not a source.
    const bool read = it->second.a.origin.rfind("read from ", 0) == 0;
    result.provenance.push_back({field, origin, read ? it->second.a.source : ""});
  }

  for (const auto& r : readings) {
    result.ignored.insert(result.ignored.end(), r.ignored.begin(), r.ignored.end());
    result.unmodelled.insert(result.unmodelled.end(), r.unmodelled.begin(), r.unmodelled.end());
    result.unresolved.insert(result.unresolved.end(), r.unresolved.begin(), r.unresolved.end());
  }
  // A note keyed by a field path (`parallel.world_size` when no file gives the GPU count,
  // `batch.seq_length` for `--max_length $SEQ`) names a field the document leaves out.
  // A key that leaves a field to the data (Reading::unresolved_field) opens it likewise.
  auto open_field = [&](const std::string& field, const std::string& note_key) {
    if (!is_document_field_absent(result.document, field)) return;
    const bool listed = std::any_of(result.open_fields.begin(), result.open_fields.end(), [&](const auto& f) { return f.first == field; });
    if (!listed) result.open_fields.emplace_back(field, note_key);
  };
  for (const auto& n : result.unresolved)
    if (n.key != "model" && n.key.find(':') == std::string::npos) open_field(n.key, n.key);
  for (const auto& r : readings)
    for (const auto& [field, note_key] : r.left_open) open_field(field, note_key);
  for (const auto& [field, note_key] : decided_by_missing) open_field(field, note_key);
  return result;
}

}  // namespace trainmem
