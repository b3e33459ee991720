// Export: each written key is one the target framework defines (a key table per format, read from
// the framework's source), and exporting then importing gives back every field the format carries.
#include <catch2/catch.hpp>
#include <algorithm>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "config_files.hpp"
#include "trainmem/config_export.hpp"
#include "trainmem/config_import.hpp"
#include "trainmem/json_api.hpp"
#include "trainmem/framework_defaults.hpp"
#include "trainmem/loss_memory.hpp"
#include "trainmem/precision.hpp"

namespace {

using nlohmann::json;

// Keys DeepSpeed v0.19.6 defines (deepspeed/runtime/constants.py, runtime/zero/config.py,
// runtime/zero/offload_config.py, runtime/precision_config.py, runtime/tensor_parallel/config.py).
const std::set<std::string> kDeepSpeedKeys = {
    "/train_micro_batch_size_per_gpu", "/gradient_accumulation_steps", "/train_batch_size", "/bf16/enabled",
    "/fp16/enabled", "/zero_optimization/stage", "/zero_optimization/offload_optimizer/device",
    "/zero_optimization/offload_param/device", "/zero_optimization/stage3_max_live_parameters",
    "/zero_optimization/mics_shard_size", "/zero_optimization/overlap_comm", "/optimizer/type", "/optimizer/params/adam_w_mode",
    "/data_types/grad_accum_dtype", "/tensor_parallel/autotp_size", "/sequence_parallel_size"};

// Keys accelerate 1.15 defines (commands/config/config_args.py ClusterConfig; the plugin keys of
// commands/config/cluster.py and commands/launch.py).
const std::set<std::string> kAccelerateKeys = {
    "/distributed_type", "/num_processes", "/num_machines", "/mixed_precision",
    "/deepspeed_config/zero_stage", "/deepspeed_config/offload_optimizer_device", "/deepspeed_config/offload_param_device",
    "/deepspeed_config/gradient_accumulation_steps", "/deepspeed_config/zero3_init_flag",
    "/fsdp_config/fsdp_sharding_strategy", "/fsdp_config/fsdp_version", "/fsdp_config/fsdp_reshard_after_forward",
    "/fsdp_config/fsdp_offload_params", "/fsdp_config/fsdp_activation_checkpointing", "/fsdp_config/fsdp_use_orig_params",
    "/parallelism_config/parallelism_config_tp_size", "/parallelism_config/parallelism_config_cp_size",
    "/dynamo_config/dynamo_backend"};

// Keys axolotl 0.18.0 defines (axolotl-ai-cloud/axolotl 067b021: src/axolotl/utils/schemas/config.py,
// training.py, peft.py, fsdp.py, trl.py, integrations/cut_cross_entropy/args.py, integrations/liger/args.py); under `deepspeed`
// (axolotl takes the config itself there) DeepSpeed's own keys.
const std::set<std::string> kAxolotlKeys = [] {
  std::set<std::string> keys = {
      "/base_model", "/micro_batch_size", "/gradient_accumulation_steps", "/sequence_len", "/pad_to_sequence_len", "/adapter", "/load_in_4bit", "/load_in_8bit",
      "/lora_r", "/lora_dropout", "/lora_target_linear", "/lora_target_modules", "/lora_modules_to_save", "/peft_use_dora",
      "/peft_layers_to_transform", "/peft_autocast_adapter_dtype", "/bf16", "/fp16", "/fp8", "/optimizer",
      "/gradient_checkpointing", "/activation_offloading", "/attn_implementation", "/plugins", "/cut_cross_entropy",
      "/chunked_cross_entropy", "/chunked_cross_entropy_num_chunks", "/torch_compile", "/save_total_limit",
      "/tensor_parallel_size", "/context_parallel_size", "/fsdp", "/fsdp_version", "/fsdp_config/offload_params",
      "/fsdp_config/reshard_after_forward", "/fsdp_config/use_orig_params", "/rl", "/trl/num_generations", "/trl/max_completion_length", "/trl/use_vllm", "/trl/beta",
      "/trl/vllm_mode", "/trl/vllm_enable_sleep_mode", "/vllm/gpu_memory_utilization", "/liger_rope", "/liger_rms_norm",
      "/liger_glu_activation", "/liger_fused_linear_cross_entropy"};
  for (const auto& k : kDeepSpeedKeys) keys.insert("/deepspeed" + k);
  return keys;
}();

// A flattened JSON path without its list indices ("/lora_target_modules/0" -> "/lora_target_modules").
std::string without_indices(const std::string& path) {
  std::string out;
  std::size_t i = 0;
  while (i < path.size()) {
    std::size_t next = path.find('/', i + 1);
    if (next == std::string::npos) next = path.size();
    const std::string part = path.substr(i, next - i);
    if (part.size() < 2 || part.find_first_not_of("0123456789", 1) != std::string::npos) out += part;
    i = next;
  }
  return out;
}

trainmem::TrainingSetup setup_of(const json& doc) {
  auto parsed = trainmem::parse_estimate_document(doc.dump());
  INFO(trainmem::error_document(parsed.errors));
  REQUIRE(parsed.errors.empty());
  return parsed.setup;
}

// What an export then import gives back: the document, and the fields the test had to take from
// the original because the file has none (the launcher's GPU count, a model a DeepSpeed JSON does
// not name).
struct RoundTrip {
  json document;
  std::set<std::string> supplied;
};

// Exports, writes the file as the CLI does, reads it back and imports it with the model.
RoundTrip round_trip(const json& doc, trainmem::ExportFormat format, const std::set<std::string>& keys,
                     std::set<std::string>& not_expressible) {
  const auto setup = setup_of(doc);
  // A catalog preset names its Hugging Face id; a model given by num_parameters or an hf_config
  // without _name_or_path has none (export_json passes the same).
  const json& model = doc.at("model");
  const std::string preset = model.value("preset", "");
  const std::string hf_id = preset.empty() ? "" : trainmem::builtin_catalog().find_model(preset)->hf_id;
  const auto exported = trainmem::export_config(setup, format, hf_id);
  for (const auto& [field, why] : exported.not_expressible) not_expressible.insert(field);
  const json written = json::parse(trainmem::config_value_json(exported.config));
  const json flat = written.flatten();
  for (const auto& [path, value] : flat.items()) {
    INFO(path << " is not a key the framework defines");
    CHECK(keys.count(without_indices(path)));
  }
  const bool yaml = format != trainmem::ExportFormat::deepspeed;
  const std::string text = yaml ? trainmem::cli::emit_yaml(exported.config) : written.dump(2);
  trainmem::Errors errors;
  const char* name = format == trainmem::ExportFormat::accelerate ? "accelerate.yaml"
                     : format == trainmem::ExportFormat::axolotl  ? "axolotl.yaml"
                                                                  : "ds_config.json";
  auto file = trainmem::cli::load_config_file(name, text, errors);
  REQUIRE(file);
  RoundTrip out;
  trainmem::ImportOptions options;
  // axolotl names the model (base_model) when it has an id; the other files do not, and the test
  // gives it.
  if (format != trainmem::ExportFormat::axolotl && !preset.empty()) {
    options.model_preset = preset;
    out.supplied.insert("model");
  }
  auto imported = trainmem::import_configs({*file}, trainmem::builtin_catalog(), options);
  INFO(trainmem::error_document(imported.errors));
  REQUIRE(imported.errors.empty());
  // The file is read as the format it was written in (an axolotl snippet without base_model too).
  const char* expected_format = format == trainmem::ExportFormat::accelerate ? "accelerate"
                                : format == trainmem::ExportFormat::axolotl  ? "axolotl"
                                                                             : "deepspeed";
  REQUIRE(imported.formats.size() == 1);
  CHECK(imported.formats.front().second == expected_format);
  json back = json::parse(trainmem::config_value_json(imported.document));
  // A model without an id comes back unnamed, listed as unresolved; the test gives the original.
  if (!back.contains("model")) {
    CHECK(std::any_of(imported.unresolved.begin(), imported.unresolved.end(), [](const trainmem::ImportNote& n) { return n.key == "model"; }));
    back["model"] = model;
    out.supplied.insert("model");
  }
  // The batch settings the format lacks come from the original (a launcher config has none).
  for (const char* k : {"micro_batch_size", "seq_length"})
    if (!back.contains("batch") || !back["batch"].contains(k)) {
      back["batch"][k] = doc.at("batch").at(k);
      out.supplied.insert(std::string("batch.") + k);
    }
  // ... and the GPU count (a DeepSpeed JSON has none: the launcher gives it).
  for (const char* k : {"world_size", "gpus_per_node"})
    if (doc.contains("parallel") && doc.at("parallel").contains(k) && (!back.contains("parallel") || !back["parallel"].contains(k))) {
      back["parallel"][k] = doc.at("parallel").at(k);
      out.supplied.insert(std::string("parallel.") + k);
    }
  out.document = back;
  return out;
}

// Every input the estimate of a document used, by document path: {value, origin} (the estimate's
// resolved block).
std::map<std::string, json> resolved_values(const json& doc) {
  const auto r = trainmem::estimate_json(doc.dump());
  INFO(r.json);
  REQUIRE(r.ok);
  std::map<std::string, json> out;
  const json estimate = json::parse(r.json);
  for (const auto& [path, entry] : estimate.at("resolved").items()) out[path] = entry;
  // The GPUs per node of this job: a node holds no more than the job's GPUs.
  auto& per_node = out.at("parallel.gpus_per_node").at("value");
  per_node = std::min(per_node.get<std::int64_t>(), out.at("parallel.world_size").at("value").get<std::int64_t>());
  REQUIRE(out.size() > 20);
  return out;
}

// One field path names the other, or a part of it ("lora" and "lora.r").
bool related(const std::string& a, const std::string& b) {
  return a == b || b.rfind(a + ".", 0) == 0 || a.rfind(b + ".", 0) == 0;
}

// not_exported is exactly what is lost: every input whose value the estimate of the imported file
// does not share with the original's (or that the test had to supply) is named there, field or
// part, and every name there is such a field.
void check_not_exported(const json& doc, const json& back, const std::set<std::string>& supplied, const char* format) {
  const json r = json::parse(trainmem::export_json(doc.dump(), format).json);
  std::set<std::string> listed;
  for (const auto& n : r.at("not_exported")) listed.insert(n.at("field").get<std::string>());
  std::set<std::string> lost = supplied;
  std::set<std::string> derived;  // lost values the original did not give: the engine derived them
  const auto before = resolved_values(doc), after = resolved_values(back);
  // Target modules named otherwise ("all-linear" or each projection) survive when they adapt the
  // same parameters.
  auto adapter_parameters = [](const json& d) { return json::parse(trainmem::estimate_json(d.dump()).json).at("parameters").value("adapter", json(0)); };
  const bool same_adapters = adapter_parameters(doc) == adapter_parameters(back);
  for (const auto& [path, entry] : before)
    if (path == "lora.target_modules" && same_adapters) continue;
    else if (!after.count(path) || after.at(path).at("value") != entry.at("value")) {
      lost.insert(path);
      if (entry.at("origin") != "input") derived.insert(path);
    }
  for (const auto& [path, entry] : after)
    if (!before.count(path)) lost.insert(path), derived.insert(path);
  std::string lost_list;
  for (const auto& f : lost)
    lost_list += " " + f + (before.count(f) ? " " + before.at(f).at("value").dump() : "") + (after.count(f) ? "->" + after.at(f).at("value").dump() : "");
  INFO("lost:" << lost_list << "; the file read back: " << back.dump());
  for (const auto& f : lost) {
    // A value the engine derived (grad_dtype from param_dtype) is explained by a field of its
    // section that is listed, one that exists on one side only by the listed setting it belongs
    // to (checkpoint.exclude_frozen_parameters exists with adapters); a value the document gave
    // must be listed itself.
    if (derived.count(f) && (!before.count(f) || !after.count(f)) && !listed.empty()) continue;
    // Selective checkpointing's policy and layer count are parts of activation_checkpointing.
    const bool checkpointing_part = f == "selective_policy" || f == "checkpointed_layers";
    // The logits a loop holds are the training loop's, which `framework` names.
    const bool loop_part = f == "loss.held_logits";
    const std::string section = checkpointing_part ? "activation_checkpointing" : loop_part ? "framework" : f.substr(0, f.find('.'));
    INFO(format << ": " << f << " does not survive export and import but is not in not_exported");
    CHECK(std::any_of(listed.begin(), listed.end(), [&](const std::string& n) {
      return related(n, f) || (derived.count(f) && (n == section || n.rfind(section + ".", 0) == 0));
    }));
  }
  for (const auto& n : listed) {
    INFO(format << ": not_exported names " << n << ", which survives export and import");
    CHECK(std::any_of(lost.begin(), lost.end(), [&](const std::string& f) { return related(n, f); }));
  }
}

using RoundTripField = std::pair<const char*, std::function<std::string(const trainmem::TrainingSetup&)>>;
std::string str(std::int64_t v) { return std::to_string(v); }
const std::vector<RoundTripField> kRoundTripFields = {
    {"parallel.sharding_engine", [](const auto& s) { return str(static_cast<int>(trainmem::sharding_engine(s))); }},
    {"batch.micro_batch_size", [](const auto& s) { return str(s.batch.micro_batch_size); }},
    {"batch.gradient_accumulation_steps", [](const auto& s) { return str(s.batch.gradient_accumulation_steps); }},
    {"parallel.world_size", [](const auto& s) { return str(s.parallel.world_size); }},
    // GPUs per node of this job: a node holds no more than the job's GPUs.
    {"parallel.gpus_per_node", [](const auto& s) { return str(std::min(s.parallel.gpus_per_node, s.parallel.world_size)); }},
    {"parallel.zero_stage", [](const auto& s) { return str(s.parallel.zero_stage); }},
    {"parallel.offload_optimizer", [](const auto& s) { return str(static_cast<int>(s.parallel.offload_optimizer)); }},
    {"parallel.offload_param", [](const auto& s) { return str(static_cast<int>(s.parallel.offload_param)); }},
    {"parallel.zero3_max_live_parameters", [](const auto& s) { return std::to_string(s.parallel.zero3_max_live_parameters); }},
    {"parallel.sharding_group_size", [](const auto& s) { return s.parallel.sharding_group_size ? str(*s.parallel.sharding_group_size) : "-"; }},
    {"parallel.reshard_after_forward", [](const auto& s) { return str(s.parallel.reshard_after_forward); }},
    {"parallel.tensor_parallel_size", [](const auto& s) { return str(s.parallel.tensor_parallel_size); }},
    {"parallel.context_parallel_size", [](const auto& s) { return str(s.parallel.context_parallel_size); }},
    {"precision.param_dtype", [](const auto& s) { return str(static_cast<int>(trainmem::resolve_precision(s).param_dtype)); }},
    {"precision.compute_dtype", [](const auto& s) { return str(static_cast<int>(trainmem::resolve_precision(s).compute_dtype)); }},
    {"precision.optimizer", [](const auto& s) { return str(static_cast<int>(s.precision.optimizer)); }},
    {"activation_checkpointing", [](const auto& s) { return str(static_cast<int>(s.activation_checkpointing)); }},
    {"model_loading", [](const auto& s) { return str(static_cast<int>(s.model_loading)); }},
    {"compile", [](const auto& s) { return str(s.compile); }},
    {"method", [](const auto& s) { return str(static_cast<int>(s.method)); }},
    {"lora", [](const auto& s) {
       std::string t = str(s.lora.r) + " " + std::to_string(s.lora.lora_dropout) + " " + str(s.lora.use_dora) + " " +
                       str(static_cast<int>(trainmem::adapter_dtype(s)));  // the dtype the estimate holds them in
       for (const auto& m : s.lora.target_modules) t += " " + m;
       return t;
     }},
    {"batch.seq_length", [](const auto& s) { return s.batch.seq_length ? str(*s.batch.seq_length) : "-"; }},
    {"activation_offload", [](const auto& s) { return str(s.activation_offload); }},
    {"use_liger_kernel", [](const auto& s) { return str(s.use_liger_kernel); }},
    {"attention", [](const auto& s) { return str(static_cast<int>(s.attention)); }},
    {"loss.implementation", [](const auto& s) { return s.loss.implementation ? str(static_cast<int>(*s.loss.implementation)) : "-"; }},
    {"loss.num_chunks", [](const auto& s) { return str(s.loss.num_chunks.value_or(trainmem::kDefaultLossChunks)); }},
    {"checkpoint.keep_last", [](const auto& s) { return str(s.checkpoint.keep_last); }},
    {"rlhf", [](const auto& s) {
       return s.rlhf ? str(static_cast<int>(s.rlhf->algorithm)) + " " + str(s.rlhf->num_generations) + " " +
                           str(s.rlhf->max_new_tokens) + " " + str(s.rlhf->colocated)
                     : "-";
     }},
    {"rlhf.reference", [](const auto& s) { return s.rlhf ? str(static_cast<int>(s.rlhf->reference)) : "-"; }},
};

void check_round_trip(const json& doc, trainmem::ExportFormat format, const std::set<std::string>& keys) {
  INFO(doc.dump());
  std::set<std::string> not_expressible;
  const auto original = setup_of(doc);
  const auto trip = round_trip(doc, format, keys, not_expressible);
  const auto back = setup_of(trip.document);
  check_not_exported(doc, trip.document, trip.supplied,
                     format == trainmem::ExportFormat::deepspeed ? "deepspeed" : format == trainmem::ExportFormat::accelerate ? "accelerate" : "axolotl");
  const auto carried = trainmem::export_config(original, format).carried;
  for (const auto& [field, get] : kRoundTripFields) {
    if (std::find(carried.begin(), carried.end(), field) == carried.end() || not_expressible.count(field)) continue;
    INFO("field " << field << " did not survive export and import");
    CHECK(get(back) == get(original));
  }
}

}  // namespace

TEST_CASE("DeepSpeed JSON export round-trips and writes DeepSpeed's own keys", "[export]") {
  const json cases[] = {
      json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "deepspeed", "parallel": {"world_size": 8, "zero_stage": 3,
                      "offload_optimizer": "cpu", "offload_param": "cpu", "zero3_max_live_parameters": 3e8},
                      "batch": {"micro_batch_size": 2, "seq_length": 4096, "gradient_accumulation_steps": 4}})"),
      json::parse(R"({"model": {"preset": "qwen2.5-7b"}, "framework": "deepspeed", "precision": {"param_dtype": "fp16", "optimizer": "lion"},
                      "parallel": {"world_size": 16, "zero_stage": 1, "sharding_group_size": 8}, "batch": {"micro_batch_size": 1, "seq_length": 2048}})"),
      json::parse(R"({"model": {"preset": "gpt2"}, "framework": "deepspeed", "precision": {"param_dtype": "fp32"},
                      "parallel": {"world_size": 2, "zero_stage": 2, "overlap_grad_reduce": true}, "batch": {"micro_batch_size": 8, "seq_length": 1024}})"),
      // An HF Trainer front with LoRA, checkpointing and compile: what the JSON cannot say must be
      // listed, and only that.
      json::parse(R"({"model": {"preset": "qwen2.5-7b"}, "framework": "hf_trainer", "method": "lora", "lora": {"r": 16},
                      "activation_checkpointing": "full", "attention": "sdpa", "compile": true,
                      "parallel": {"world_size": 4, "zero_stage": 2, "sharding_engine": "deepspeed", "offload_optimizer": "cpu"},
                      "batch": {"micro_batch_size": 2, "seq_length": 2048, "gradient_accumulation_steps": 8}})"),
  };
  for (const auto& doc : cases) check_round_trip(doc, trainmem::ExportFormat::deepspeed, kDeepSpeedKeys);
}

TEST_CASE("DeepSpeed JSON export writes integers where DeepSpeed's config declares int", "[export]") {
  // DeepSpeed v0.19.6: runtime/zero/config.py (stage: int, stage3_max_live_parameters: int =
  // pp_int(1e9), mics_shard_size: int), runtime/config.py (train_micro_batch_size_per_gpu,
  // gradient_accumulation_steps: int), runtime/tensor_parallel/config.py (autotp_size: int),
  // sequence_parallel_size: int. A float there (1e9 -> 1000000000.0) is not what DeepSpeed writes.
  for (const char* doc : {
           R"({"model": {"preset": "llama-3.1-8b"}, "framework": "deepspeed", "parallel": {"world_size": 8, "zero_stage": 3},
               "batch": {"micro_batch_size": 2, "seq_length": 4096, "gradient_accumulation_steps": 4}})",
           R"({"model": {"preset": "llama-3.1-8b"}, "framework": "deepspeed", "parallel": {"world_size": 16, "zero_stage": 3,
               "zero3_max_live_parameters": 3e8, "sharding_group_size": 8, "tensor_parallel_size": 2, "context_parallel_size": 2},
               "batch": {"micro_batch_size": 1, "seq_length": 8192}})"}) {
    const json config = json::parse(trainmem::export_json(doc, "deepspeed").json).at("config");
    INFO(config.dump());
    const json flat = config.flatten();
    for (const auto& [path, value] : flat.items())
      if (value.is_number()) {
        INFO(path);
        CHECK(value.is_number_integer());
      }
  }
  // The default (1e9 elements, zero/config.py) as the integer 1000000000; 3e8 as 300000000.
  const json first = json::parse(trainmem::export_json(R"({"model": {"preset": "gpt2"}, "framework": "deepspeed",
      "parallel": {"world_size": 2, "zero_stage": 3}, "batch": {"micro_batch_size": 1, "seq_length": 1024}})", "deepspeed").json);
  CHECK(first.at("config").at("zero_optimization").at("stage3_max_live_parameters").dump() == "1000000000");
  const json second = json::parse(trainmem::export_json(R"({"model": {"preset": "gpt2"}, "framework": "deepspeed",
      "parallel": {"world_size": 2, "zero_stage": 3, "zero3_max_live_parameters": 3e8}, "batch": {"micro_batch_size": 1, "seq_length": 1024}})",
      "deepspeed").json);
  CHECK(second.at("config").at("zero_optimization").at("stage3_max_live_parameters").dump() == "300000000");
}

TEST_CASE("accelerate YAML export round-trips and writes accelerate's own keys", "[export]") {
  const json cases[] = {
      json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "fsdp", "activation_checkpointing": "full",
                      "precision": {"param_dtype": "fp32", "compute_dtype": "bf16"}, "parallel": {"world_size": 16, "gpus_per_node": 8,
                      "zero_stage": 3, "sharding_group_size": 8}, "batch": {"micro_batch_size": 1, "seq_length": 4096}})"),
      json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "fsdp", "parallel": {"world_size": 8, "zero_stage": 3,
                      "reshard_after_forward": false, "offload_param": "cpu", "offload_optimizer": "cpu"},
                      "batch": {"micro_batch_size": 1, "seq_length": 2048}, "compile": true})"),
      json::parse(R"({"model": {"preset": "mistral-7b-v0.1"}, "framework": "deepspeed", "precision": {"param_dtype": "bf16"},
                      "parallel": {"world_size": 8, "zero_stage": 3}, "model_loading": "full_copy_per_gpu",
                      "batch": {"micro_batch_size": 4, "seq_length": 2048, "gradient_accumulation_steps": 2}})"),
      json::parse(R"({"model": {"preset": "gpt2"}, "framework": "hf_trainer", "precision": {"param_dtype": "fp32", "compute_dtype": "fp16"},
                      "parallel": {"world_size": 4, "tensor_parallel_size": 2}, "batch": {"micro_batch_size": 8, "seq_length": 1024}})"),
  };
  for (const auto& doc : cases) check_round_trip(doc, trainmem::ExportFormat::accelerate, kAccelerateKeys);
  // Optimizer offload without parameter offload, which FSDP cannot do; selective checkpointing.
  check_round_trip(json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "fsdp", "activation_checkpointing": "selective",
                      "parallel": {"world_size": 8, "zero_stage": 3, "offload_optimizer": "cpu"}, "batch": {"micro_batch_size": 1, "seq_length": 2048}})"),
                   trainmem::ExportFormat::accelerate, kAccelerateKeys);
}

TEST_CASE("axolotl YAML export round-trips and writes axolotl's own keys", "[export]") {
  const json cases[] = {
      // QLoRA on one GPU: adapter qlora + load_in_4bit, nf4 with double quantization (axolotl's own).
      json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "method": "qlora", "lora": {"r": 32, "target_modules": "all-linear",
                      "lora_dropout": 0.05}, "precision": {"param_dtype": "bf16", "optimizer": "paged_adamw_8bit"},
                      "batch": {"micro_batch_size": 1, "seq_length": 2048, "gradient_accumulation_steps": 4},
                      "activation_checkpointing": "full", "attention": "flash"})"),
      // QLoRA as axolotl runs it on one GPU: prepare_model_for_kbit_training casts the weights around
      // the 4-bit base to fp32 under bf16 compute, written as bf16: true (the loaded dtype).
      json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "method": "qlora", "lora": {"r": 8, "target_modules": "all-linear"},
                      "precision": {"param_dtype": "fp32", "compute_dtype": "bf16"}, "batch": {"micro_batch_size": 1, "seq_length": 2048},
                      "activation_checkpointing": "full", "attention": "flash"})"),
      // LoRA over an 8-bit base: adapter lora + load_in_8bit.
      json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "method": "qlora", "qlora": {"quant_type": "int8"},
                      "lora": {"r": 16, "target_modules": "all-linear", "lora_dropout": 0.05}, "precision": {"param_dtype": "bf16"},
                      "batch": {"micro_batch_size": 2, "seq_length": 1024, "gradient_accumulation_steps": 4},
                      "activation_checkpointing": "full", "attention": "sdpa"})"),
      // Full fine-tuning under FSDP2 with chunked loss, compile and activation offload.
      json::parse(R"({"model": {"preset": "qwen2.5-7b"}, "framework": "hf_trainer", "precision": {"param_dtype": "bf16"},
                      "parallel": {"world_size": 8, "zero_stage": 3, "sharding_engine": "fsdp2", "reshard_after_forward": false,
                      "offload_param": "cpu", "offload_optimizer": "cpu"}, "loss": {"implementation": "chunked", "num_chunks": 16},
                      "compile": true, "activation_checkpointing": "full", "activation_offload": true, "attention": "sdpa",
                      "batch": {"micro_batch_size": 2, "seq_length": 4096}, "checkpoint": {"keep_last": 3}})"),
      // DeepSpeed ZeRO-3 written inline, with the cut cross-entropy plugin.
      json::parse(R"({"model": {"preset": "mistral-7b-v0.1"}, "framework": "hf_trainer", "precision": {"param_dtype": "bf16"},
                      "parallel": {"world_size": 8, "zero_stage": 3, "sharding_engine": "deepspeed", "offload_optimizer": "cpu"},
                      "loss": {"implementation": "fused"}, "batch": {"micro_batch_size": 4, "seq_length": 2048,
                      "gradient_accumulation_steps": 2}})"),
      // DPO with a LoRA policy (the reference is the adapter-free base) in fp32 with fp32 adapters.
      json::parse(R"({"model": {"preset": "qwen2.5-0.5b"}, "method": "lora", "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"],
                      "adapter_dtype": "fp32"}, "rlhf": {"algorithm": "dpo", "reference": {"method": "shared_base"}},
                      "precision": {"param_dtype": "fp32"}, "batch": {"micro_batch_size": 2, "seq_length": 1024}})"),
      // LoRA with activations offloaded instead of recomputed (axolotl loaders/model.py).
      json::parse(R"({"model": {"preset": "qwen2.5-7b"}, "method": "lora", "lora": {"r": 16, "target_modules": "all-linear"},
                      "activation_checkpointing": "none", "activation_offload": true, "precision": {"param_dtype": "bf16"},
                      "batch": {"micro_batch_size": 1, "seq_length": 8192}})"),
      // GRPO with vLLM on its own GPUs.
      json::parse(R"({"model": {"preset": "qwen2.5-0.5b"}, "rlhf": {"algorithm": "grpo", "rollout": {"max_new_tokens": 256,
                      "num_generations": 4, "colocated": false}}, "precision": {"param_dtype": "bf16"},
                      "batch": {"micro_batch_size": 4, "seq_length": 512}})"),
      // Liger's kernels with its fused loss (LigerPlugin), and without it (the model's own loss).
      json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "use_liger_kernel": true, "precision": {"param_dtype": "bf16"},
                      "batch": {"micro_batch_size": 2, "seq_length": 4096}})"),
      json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "use_liger_kernel": true, "loss": {"implementation": "full"},
                      "precision": {"param_dtype": "bf16"}, "batch": {"micro_batch_size": 2, "seq_length": 4096}})"),
      // GRPO without a reference model: trl.beta 0.0.
      json::parse(R"({"model": {"preset": "qwen2.5-0.5b"}, "rlhf": {"algorithm": "grpo", "reference": {"method": "none"}},
                      "precision": {"param_dtype": "bf16"}, "batch": {"micro_batch_size": 4, "seq_length": 512}})"),
  };
  for (const auto& doc : cases) check_round_trip(doc, trainmem::ExportFormat::axolotl, kAxolotlKeys);
  // Optimizer offload alone under FSDP2, and a fused AdamW named as the engine resolves it.
  check_round_trip(json::parse(R"({"model": {"preset": "qwen2.5-7b"}, "framework": "hf_trainer", "precision": {"param_dtype": "bf16",
                      "optimizer_implementation": "fused"}, "parallel": {"world_size": 8, "zero_stage": 3, "sharding_engine": "fsdp2",
                      "offload_optimizer": "cpu"}, "batch": {"micro_batch_size": 2, "seq_length": 4096}})"),
                   trainmem::ExportFormat::axolotl, kAxolotlKeys);
}

TEST_CASE("torchtune export: LoRA on a bare parameter count names no modules to adapt, and says so", "[export]") {
  const auto exported = trainmem::export_config(setup_of(json::parse(R"({"model": {"num_parameters": 8e9}, "method": "lora"})")),
                                                trainmem::ExportFormat::torchtune, "");
  CHECK(std::any_of(exported.not_expressible.begin(), exported.not_expressible.end(),
                    [](const auto& n) { return n.first == "lora.target_modules"; }));
}

TEST_CASE("axolotl and torchtune export: an HQQ base cannot be asked for, and says so", "[export][hqq]") {
  // axolotl quantizes with bitsandbytes (loaders/model.py), torchtune with torchao's NF4: neither
  // file can ask for HQQ, so the export writes their 4-bit base and names the field it could not carry.
  const json hqq = json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "method": "qlora", "qlora": {"quant_method": "hqq", "nbits": 2},
      "lora": {"r": 16, "target_modules": "all-linear"}, "precision": {"param_dtype": "bf16"}, "batch": {"micro_batch_size": 1, "seq_length": 1024}})");
  auto names = [&](trainmem::ExportFormat format, const char* field) {
    const auto exported = trainmem::export_config(setup_of(hqq), format, "meta-llama/Llama-3.1-8B");
    return std::any_of(exported.not_expressible.begin(), exported.not_expressible.end(), [&](const auto& n) { return n.first == field; });
  };
  CHECK(names(trainmem::ExportFormat::axolotl, "qlora.quant_method"));
  CHECK(names(trainmem::ExportFormat::torchtune, "qlora"));
}

TEST_CASE("axolotl export: adapters in 16 bits over an 8-bit base cannot be asked for", "[export]") {
  // PEFT moves adapters to the base layer's dtype only where that is floating; bitsandbytes' 8-bit
  // weights are int8 with no compute dtype, so the adapters stay in the fp32 nn.Linear builds them in
  // whatever autocast_adapter_dtype says (huggingface/peft#2893, v0.19.0, "There is still an issue
  // left with 8bit bnb weights"). Over a 4-bit base the flag still gives the compute dtype.
  const json int8 = json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "method": "qlora", "qlora": {"quant_type": "int8"},
      "lora": {"r": 16, "target_modules": "all-linear", "adapter_dtype": "bf16"}, "precision": {"param_dtype": "bf16"},
      "batch": {"micro_batch_size": 1, "seq_length": 1024}})");
  const auto exported = trainmem::export_config(setup_of(int8), trainmem::ExportFormat::axolotl, "meta-llama/Llama-3.1-8B");
  const json written = json::parse(trainmem::config_value_json(exported.config));
  CHECK_FALSE(written.contains("peft_autocast_adapter_dtype"));
  CHECK(std::any_of(exported.not_expressible.begin(), exported.not_expressible.end(),
                    [](const auto& n) { return n.first == "lora.adapter_dtype"; }));

  json nf4 = int8;
  nf4["qlora"] = {{"quant_type", "nf4"}, {"double_quant", true}};
  nf4["precision"] = {{"param_dtype", "fp32"}, {"compute_dtype", "bf16"}};
  const auto four_bit = trainmem::export_config(setup_of(nf4), trainmem::ExportFormat::axolotl, "meta-llama/Llama-3.1-8B");
  CHECK(json::parse(trainmem::config_value_json(four_bit.config)).at("peft_autocast_adapter_dtype") == false);
}

TEST_CASE("axolotl export: a colocated vLLM is written as axolotl passes it to TRL, and read back", "[export]") {
  // axolotl core/trainers/grpo/__init__.py @067b021: trl.vllm_mode colocate passes
  // vllm.gpu_memory_utilization and trl.vllm_enable_sleep_mode to TRL's GRPOConfig.
  const auto s = setup_of(json::parse(R"({"model": {"preset": "qwen2.5-0.5b"}, "gpu": "h100-sxm-80gb", "rlhf": {"algorithm": "grpo",
    "rollout": {"use_vllm": true, "vllm_gpu_memory_utilization": 0.25, "vllm_enable_sleep_mode": true}}, "precision": {"param_dtype": "bf16"},
    "batch": {"micro_batch_size": 4, "seq_length": 512}})"));
  const auto exported = trainmem::export_config(s, trainmem::ExportFormat::axolotl, "Qwen/Qwen2.5-0.5B");
  const json written = json::parse(trainmem::config_value_json(exported.config));
  CHECK(written.at("trl").at("use_vllm") == true);
  CHECK(written.at("trl").at("vllm_mode") == "colocate");
  CHECK(written.at("trl").at("vllm_enable_sleep_mode") == true);
  CHECK(written.at("vllm").at("gpu_memory_utilization") == 0.25);
  trainmem::Errors errors;
  auto file = trainmem::cli::load_config_file("axolotl.yaml", trainmem::cli::emit_yaml(exported.config), errors);
  REQUIRE(file);
  const auto imported = trainmem::import_configs({*file}, trainmem::builtin_catalog());
  REQUIRE(imported.errors.empty());
  const json rollout = json::parse(trainmem::config_value_json(imported.document)).at("rlhf").at("rollout");
  CHECK(rollout.at("use_vllm") == true);
  CHECK(rollout.at("colocated") == true);
  CHECK(rollout.at("vllm_gpu_memory_utilization") == 0.25);
  CHECK(rollout.at("vllm_enable_sleep_mode") == true);
}

TEST_CASE("axolotl export: each optimizer is written as the transformers name that builds it", "[export]") {
  // transformers training_args.py OptimizerNames with trainer.py get_optimizer_cls_and_kwargs
  // (axolotl passes `optimizer` on as `optim`): adamw_torch -> torch.optim.AdamW with torch's
  // default (foreach on CUDA), adamw_torch_fused -> AdamW(fused=True), adamw_bnb_8bit ->
  // bitsandbytes AdamW(optim_bits=8), paged_adamw_32bit -> bitsandbytes AdamW(is_paged=True),
  // paged_adamw_8bit -> both, lion_32bit -> bitsandbytes Lion, sgd -> torch.optim.SGD, adafactor
  // -> transformers' Adafactor. adamw_torch_8bit is torchao's AdamW8bit, not the estimate's
  // bitsandbytes layout: it is never written.
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"adamw", "foreach", "adamw_torch"}, {"adamw", "fused", "adamw_torch_fused"}, {"adamw_8bit", "", "adamw_bnb_8bit"},
      {"paged_adamw", "", "paged_adamw_32bit"}, {"paged_adamw_8bit", "", "paged_adamw_8bit"}, {"lion", "", "lion_32bit"},
      {"sgd", "", "sgd"}, {"adafactor", "", "adafactor"}};
  for (const auto& [optimizer, implementation, name] : cases) {
    json doc = json::parse(R"({"model": {"preset": "qwen2.5-0.5b"}, "method": "lora", "lora": {"r": 8, "target_modules": "all-linear"},
                               "batch": {"micro_batch_size": 2, "seq_length": 1024}})");
    doc["precision"]["optimizer"] = optimizer;
    if (!implementation.empty()) doc["precision"]["optimizer_implementation"] = implementation;
    INFO(doc.dump());
    const json r = json::parse(trainmem::export_json(doc.dump(), "axolotl").json);
    CHECK(r.at("config").at("optimizer") == name);
    for (const auto& n : r.at("not_exported")) CHECK(n.at("field") != "precision.optimizer");
  }
  // An imported adamw_torch_8bit reads as adamw_8bit and says how torchao's layout differs, and
  // that an export names bitsandbytes'.
  trainmem::Errors errors;
  auto f = trainmem::cli::load_config_file("axolotl.yaml", "base_model: Qwen/Qwen2.5-0.5B\nmicro_batch_size: 1\nsequence_len: 1024\noptimizer: adamw_torch_8bit\n", errors);
  REQUIRE(f);
  const auto imported = trainmem::import_configs({*f}, trainmem::builtin_catalog());
  REQUIRE(imported.errors.empty());
  CHECK(json::parse(trainmem::config_value_json(imported.document)).at("precision").at("optimizer") == "adamw_8bit");
  CHECK(std::any_of(imported.unmodelled.begin(), imported.unmodelled.end(), [](const trainmem::ImportNote& n) {
    return n.key == "axolotl.yaml:optimizer" && n.reason.find("adamw_bnb_8bit") != std::string::npos;
  }));
}

TEST_CASE("an axolotl export lists what axolotl cannot say", "[export]") {
  const auto r = json::parse(trainmem::export_json(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "hf_trainer",
      "activation_checkpointing": "selective", "parallel": {"world_size": 8, "zero_stage": 2, "sharding_engine": "fsdp2"},
      "precision": {"optimizer": "adam"}, "batch": {"micro_batch_size": 2, "seq_length": 4096}})", "axolotl").json);
  std::set<std::string> fields;
  for (const auto& n : r.at("not_exported")) fields.insert(n.at("field").get<std::string>());
  // Whole-layer checkpointing only, FSDP2 shards the parameters too, no plain Adam name, no GPU count key.
  CHECK(fields.count("activation_checkpointing"));
  CHECK(fields.count("parallel.zero_stage"));
  CHECK(fields.count("precision.optimizer"));
  CHECK(fields.count("parallel.world_size"));
  // The catalog model's Hugging Face id is axolotl's base_model.
  CHECK(r.at("config").at("base_model") == "meta-llama/Llama-3.1-8B");
  CHECK(r.at("config").at("micro_batch_size") == 2);
}

TEST_CASE("an axolotl export keeps ZeRO-2: FSDP1's shard_grad_op, or DeepSpeed's stage-2 config", "[export]") {
  // A new user's LoRA run on 4 GPUs at zero_stage 2 was written as FSDP with no strategy, which
  // axolotl runs as FULL_SHARD and which read back as zero_stage 3. Under the HF Trainer the
  // sharding engine defaults to FSDP1 (framework_defaults.cpp): axolotl 0.18.0 takes FSDP1's
  // SHARD_GRAD_OP from the top-level `fsdp: [shard_grad_op]` list (fsdp_config has no strategy key;
  // see axolotl_export.cpp), and the importer reads that list back as zero_stage 2.
  json doc = json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora", "lora": {"r": 16, "target_modules": "all-linear"},
      "parallel": {"world_size": 4, "zero_stage": 2}, "batch": {"micro_batch_size": 2, "seq_length": 4096}, "gpu": "a100-80gb"})");
  const json fsdp = json::parse(trainmem::export_json(doc.dump(), "axolotl").json);
  CHECK(fsdp.at("config").at("fsdp") == json::array({"shard_grad_op"}));
  CHECK(fsdp.at("config").at("fsdp_version") == 1);
  for (const auto& n : fsdp.at("not_exported")) CHECK(n.at("field") != "parallel.zero_stage");
  const std::string yaml = trainmem::cli::emit_yaml(trainmem::export_config(setup_of(doc), trainmem::ExportFormat::axolotl,
                                                                            "meta-llama/Llama-3.1-8B").config);
  trainmem::Errors errors;
  auto file = trainmem::cli::load_config_file("axolotl.yaml", yaml, errors);
  REQUIRE(file);
  const auto imported = trainmem::import_configs({*file}, trainmem::builtin_catalog(), {});
  INFO(yaml << trainmem::error_document(imported.errors));
  REQUIRE(imported.errors.empty());
  const json back = json::parse(trainmem::config_value_json(imported.document));
  CHECK(back.at("parallel").at("zero_stage") == 2);
  CHECK(back.at("parallel").at("sharding_engine") == "fsdp");
  check_round_trip(doc, trainmem::ExportFormat::axolotl, kAxolotlKeys);

  // The same run sharded by DeepSpeed: the DeepSpeed config written inline says stage 2.
  doc["parallel"]["sharding_engine"] = "deepspeed";
  const json ds = json::parse(trainmem::export_json(doc.dump(), "axolotl").json);
  CHECK(ds.at("config").at("deepspeed").at("zero_optimization").at("stage") == 2);
  CHECK_FALSE(ds.at("config").contains("fsdp"));
  check_round_trip(doc, trainmem::ExportFormat::axolotl, kAxolotlKeys);
}

TEST_CASE("an axolotl export offloads activations only around recomputed layers", "[export]") {
  // axolotl utils/schemas/validation.py check_activation_offloading_wo_gc refuses
  // activation_offloading without gradient_checkpointing, and with it the layers recompute, for
  // LoRA too (loaders/model.py _configure_embedding_dtypes): offload without recompute cannot be
  // written; with full checkpointing both keys are.
  const std::string lora = R"({"model": {"preset": "qwen2.5-7b"}, "method": "lora", "lora": {"r": 16, "target_modules": "all-linear"},
      "activation_offload": true, "batch": {"micro_batch_size": 1, "seq_length": 8192}, "activation_checkpointing": )";
  const auto none = json::parse(trainmem::export_json(lora + R"("none"})", "axolotl").json);
  CHECK_FALSE(none.at("config").contains("activation_offloading"));
  CHECK(none.at("config").at("gradient_checkpointing") == false);
  CHECK(none.at("not_exported").dump().find("activation_offload") != std::string::npos);
  const auto full = json::parse(trainmem::export_json(lora + R"("full"})", "axolotl").json);
  CHECK(full.at("config").at("activation_offloading") == true);
  CHECK(full.at("config").at("gradient_checkpointing") == true);
}

TEST_CASE("a model without a Hugging Face id round-trips through every export format, listed as not exported", "[export]") {
  // Two models no id names: a parameter count alone (tests/fixtures/seed_7b_zero3.json), and a
  // pasted config.json without _name_or_path (TinyLlama-1.1B's architecture: 22 layers, hidden 2048,
  // 32 heads with 4 KV heads, MLP 5632, vocabulary 32000).
  const json models[] = {
      json::parse(R"({"num_parameters": 7e9})"),
      json::parse(R"({"hf_config": {"model_type": "llama", "hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 22,
                      "num_attention_heads": 32, "num_key_value_heads": 4, "vocab_size": 32000, "max_position_embeddings": 2048,
                      "tie_word_embeddings": false, "torch_dtype": "bfloat16"}})"),
  };
  for (const auto& model : models) {
    json doc = json::parse(R"({"framework": "hf_trainer", "precision": {"param_dtype": "bf16"},
                               "parallel": {"world_size": 8, "zero_stage": 3, "sharding_engine": "deepspeed"},
                               "batch": {"micro_batch_size": 2, "seq_length": 4096, "gradient_accumulation_steps": 4}})");
    doc["model"] = model;
    // Each format with the framework it reads back as (a DeepSpeed JSON or an accelerate config
    // alone runs DeepSpeed's own loop; axolotl the HF Trainer's).
    doc["framework"] = "deepspeed";
    check_round_trip(doc, trainmem::ExportFormat::deepspeed, kDeepSpeedKeys);
    check_round_trip(doc, trainmem::ExportFormat::accelerate, kAccelerateKeys);
    doc["framework"] = "hf_trainer";
    check_round_trip(doc, trainmem::ExportFormat::axolotl, kAxolotlKeys);
    // The axolotl snippet says why it has no base_model (axolotl requires one).
    const json r = json::parse(trainmem::export_json(doc.dump(), "axolotl").json);
    CHECK_FALSE(r.at("config").contains("base_model"));
    CHECK(std::any_of(r.at("not_exported").begin(), r.at("not_exported").end(), [](const json& n) {
      return n.at("field") == "model" && n.at("reason").get<std::string>().find("base_model") != std::string::npos;
    }));
    // Read back as axolotl: its micro-batch 2, sequence length 4096 and ZeRO-3 stand, not the HF
    // Trainer's defaults (per_device_train_batch_size 8).
    CHECK(r.at("config").at("micro_batch_size") == 2);
    CHECK(r.at("config").at("sequence_len") == 4096);
    // A tune run line names a model builder and a built-in config; a model with neither is listed
    // (no line to read back: torchtune ships no config for it).
    const auto tune = trainmem::export_json(doc.dump(), "torchtune");
    REQUIRE(tune.ok);
    const json t = json::parse(tune.json);
    CHECK(std::any_of(t.at("not_exported").begin(), t.at("not_exported").end(), [](const json& n) { return n.at("field") == "model"; }));
  }
  // An hf_config saved by transformers names its model in _name_or_path: axolotl's base_model.
  json named = json::parse(R"({"model": {"hf_config": {"_name_or_path": "TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T",
      "model_type": "llama", "hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 22, "num_attention_heads": 32,
      "num_key_value_heads": 4, "vocab_size": 32000}}, "batch": {"micro_batch_size": 1, "seq_length": 2048}})");
  const json r = json::parse(trainmem::export_json(named.dump(), "axolotl").json);
  CHECK(r.at("config").at("base_model") == "TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T");
  for (const auto& n : r.at("not_exported")) CHECK(n.at("field") != "model");
}

TEST_CASE("fields a format cannot carry are listed as not exported", "[export]") {
  const auto r = json::parse(trainmem::export_json(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora", "lora": {"r": 8},
      "framework": "deepspeed", "batch": {"micro_batch_size": 2, "seq_length": 4096}, "attention": "flash"})", "deepspeed").json);
  std::set<std::string> fields;
  for (const auto& n : r.at("not_exported")) fields.insert(n.at("field").get<std::string>());
  // A DeepSpeed JSON names no model, no adapters, no sequence length and no attention kernel.
  CHECK(fields == std::set<std::string>{"model", "method", "lora", "batch.seq_length", "attention"});
  CHECK(r.at("config").at("train_micro_batch_size_per_gpu") == 2);
  const auto bad = json::parse(trainmem::export_json(R"({"model": {"preset": "gpt2"}})", "megatron").json);
  CHECK(bad.at("error").at("code") == "unknown_value");
}

// Keys torchtune 0.7.0 defines for the recipes the export names (pytorch/torchtune bd2a0fc:
// recipes/full_finetune_*.py and lora_finetune_*.py cfg keys; the LoRA builders' arguments in
// torchtune/models/<family>/_model_builders.py; tokenizer max_seq_len; the dataset builders' packed
// (datasets/_alpaca.py); loss num_output_chunks in
// modules/loss/cross_entropy_loss.py; torch.optim.AdamW fused) and the torchrun options tune run
// passes on (_cli/run.py).
const std::set<std::string> kTorchtuneKeys = {
    "--nnodes", "--nproc_per_node", "model", "model.lora_rank", "model.lora_dropout", "model.use_dora",
    "model.lora_attn_modules", "model.apply_lora_to_mlp", "model.apply_lora_to_output", "batch_size",
    "gradient_accumulation_steps", "tokenizer.max_seq_len", "dataset.packed", "dtype", "optimizer", "optimizer.fused", "optimizer_in_bwd",
    "enable_activation_checkpointing", "enable_activation_offloading", "loss", "loss.num_output_chunks", "compile",
    "fsdp_reshard_after_forward", "fsdp_cpu_offload", "tensor_parallel_dim", "context_parallel_dim", "enable_fp8_training",
    "model.quantize_base"};
const std::set<std::string> kTorchtuneRecipes = {"full_finetune_single_device", "full_finetune_distributed",
                                                 "lora_finetune_single_device", "lora_finetune_distributed"};

std::string fixture_text(const std::string& name) {
  std::ifstream in(std::filesystem::path(TRAINMEM_SOURCE_DIR) / "tests" / "fixtures" / "configs" / "torchtune" / name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST_CASE("torchtune export: a tune run line of torchtune's keys that imports back over its built-in config", "[export][torchtune]") {
  // Each document, and the built-in config its line must name (stored verbatim under
  // tests/fixtures/configs/torchtune/): the line overrides every memory key the config sets.
  const std::pair<json, std::string> cases[] = {
      {json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "torchtune", "method": "lora",
                       "lora": {"r": 16, "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj"], "lora_dropout": 0.05, "adapter_dtype": "bf16"},
                       "precision": {"param_dtype": "bf16", "compute_dtype": "bf16"}, "activation_checkpointing": "full", "activation_offload": true,
                       "batch": {"micro_batch_size": 4, "seq_length": 4096, "gradient_accumulation_steps": 2}, "compile": true, "attention": "sdpa"})"),
       "llama3_1/8B_lora_single_device"},
      {json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "torchtune", "method": "qlora",
                       "lora": {"r": 8, "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"], "adapter_dtype": "bf16"}, "precision": {"param_dtype": "bf16", "compute_dtype": "bf16"},
                       "batch": {"micro_batch_size": 1, "seq_length": 8192}, "activation_checkpointing": "full", "attention": "sdpa"})"),
       "llama3_1/8B_qlora_single_device"},
      {json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "torchtune", "precision": {"param_dtype": "bf16", "compute_dtype": "bf16",
                       "optimizer_implementation": "foreach", "optimizer_in_backward": true}, "parallel": {"world_size": 16, "gpus_per_node": 8,
                       "zero_stage": 3, "sharding_engine": "fsdp2", "reshard_after_forward": false, "offload_param": "cpu", "offload_optimizer": "cpu"},
                       "loss": {"implementation": "chunked", "num_chunks": 16}, "activation_checkpointing": "none",
                       "batch": {"micro_batch_size": 2, "seq_length": 2048}, "attention": "sdpa"})"),
       "llama3_1/8B_full"},
      {json::parse(R"({"model": {"preset": "qwen2.5-1.5b"}, "framework": "torchtune", "method": "lora",
                       "lora": {"r": 32, "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"], "use_dora": true, "adapter_dtype": "fp32"},
                       "precision": {"param_dtype": "fp32", "compute_dtype": "fp32"}, "parallel": {"world_size": 2, "gpus_per_node": 2, "zero_stage": 3},
                       "batch": {"micro_batch_size": 8, "seq_length": 1024, "gradient_accumulation_steps": 4}, "attention": "sdpa"})"),
       "qwen2_5/1.5B_lora"},
      {json::parse(R"({"model": {"preset": "mistral-7b-v0.1"}, "framework": "torchtune", "precision": {"param_dtype": "bf16", "compute_dtype": "bf16",
                       "optimizer": "paged_adamw", "optimizer_in_backward": true}, "activation_checkpointing": "full", "activation_offload": true,
                       "batch": {"micro_batch_size": 2, "seq_length": 4096}, "attention": "sdpa"})"),
       "mistral/7B_full_low_memory"},
  };
  std::vector<std::pair<json, std::string>> all(std::begin(cases), std::end(cases));
  // The optimizer offloaded without the parameters (FSDP2's CPU offload moves both: the optimizer
  // offload is what is lost), on 8 GPUs and on one; an HF Trainer setup exported to torchtune; a
  // tied output projection asked to be adapted.
  all.emplace_back(json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "torchtune", "precision": {"param_dtype": "bf16"},
                       "parallel": {"world_size": 4, "gpus_per_node": 4, "offload_optimizer": "cpu"}, "attention": "sdpa",
                       "batch": {"micro_batch_size": 2, "seq_length": 2048}})"), "llama3_1/8B_full");
  all.emplace_back(json::parse(R"({"model": {"preset": "mistral-7b-v0.1"}, "framework": "torchtune", "precision": {"optimizer": "paged_adamw",
                       "optimizer_in_backward": true}, "parallel": {"offload_optimizer": "cpu"}, "attention": "sdpa", "activation_checkpointing": "full",
                       "batch": {"micro_batch_size": 2, "seq_length": 4096}})"), "mistral/7B_full_low_memory");
  all.emplace_back(json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "hf_trainer", "method": "lora", "lora": {"r": 8,
                       "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]},
                       "batch": {"micro_batch_size": 1, "seq_length": 2048}})"), "llama3_1/8B_lora_single_device");
  all.emplace_back(json::parse(R"({"model": {"preset": "qwen2.5-1.5b"}, "framework": "torchtune", "method": "lora", "lora": {"r": 32,
                       "target_modules": ["q_proj", "v_proj", "lm_head"]}, "parallel": {"world_size": 2, "gpus_per_node": 2},
                       "attention": "sdpa", "batch": {"micro_batch_size": 2, "seq_length": 1024}})"), "qwen2_5/1.5B_lora");
  for (const auto& [doc, config] : all) {
    INFO(doc.dump());
    const auto original = setup_of(doc);
    const auto exported = trainmem::export_config(original, trainmem::ExportFormat::torchtune);
    REQUIRE(exported.config.is_string());
    const std::string line = exported.config.as_string();
    INFO(line);
    // The words: tune run [torchrun options] RECIPE --config NAME key=value ... (no word holds a space).
    std::vector<std::string> words;
    std::istringstream in(line);
    for (std::string w; in >> w;) words.push_back(w.front() == '\'' ? w.substr(1, w.size() - 2) : w);
    REQUIRE(words.size() > 4);
    CHECK(words[0] == "tune");
    CHECK(words[1] == "run");
    std::size_t i = 2;
    for (; i < words.size() && words[i].rfind("--", 0) == 0; i += 2) CHECK(kTorchtuneKeys.count(words[i]));
    REQUIRE(i + 2 < words.size());
    CHECK(kTorchtuneRecipes.count(words[i]));
    CHECK(words[i + 1] == "--config");
    CHECK(words[i + 2] == config);
    for (std::size_t k = i + 3; k < words.size(); ++k) {
      if (words[k][0] == '~') continue;  // a removal: the import below refuses one the config lacks
      INFO(words[k] << " is not a key torchtune's recipes read");
      CHECK(kTorchtuneKeys.count(words[k].substr(0, words[k].find('='))));
    }
    std::set<std::string> not_expressible;
    for (const auto& [field, why] : exported.not_expressible) not_expressible.insert(field);
    // Import the line with the config it names.
    trainmem::Errors errors;
    const std::string file = config.substr(config.find('/') + 1) + ".yaml";
    auto yaml = trainmem::cli::load_config_file(file, fixture_text(file), errors);
    REQUIRE(yaml);
    trainmem::ConfigFile launch{"run.sh", {}, line};
    const auto imported = trainmem::import_configs({*yaml, launch}, trainmem::builtin_catalog());
    INFO(trainmem::error_document(imported.errors));
    REQUIRE(imported.errors.empty());
    const json back_document = json::parse(trainmem::config_value_json(imported.document));
    check_not_exported(doc, back_document, {}, "torchtune");
    const auto back = setup_of(back_document);
    for (const auto& [field, get] : kRoundTripFields) {
      const auto& name = field;  // a structured binding cannot be captured by a lambda before C++20 (clang)
      if (std::find(exported.carried.begin(), exported.carried.end(), field) == exported.carried.end() ||
          std::any_of(not_expressible.begin(), not_expressible.end(), [&](const std::string& n) { return related(n, name); }))
        continue;
      if (std::string(field) == "loss.implementation") continue;  // the line names the loss torchtune defaults to: compared resolved below
      INFO("field " << field << " did not survive export and import");
      CHECK(get(back) == get(original));
    }
    CHECK(back.loss.implementation.value_or(trainmem::framework_behaviour(back).loss) ==
          original.loss.implementation.value_or(trainmem::framework_behaviour(original).loss));
    CHECK(back.precision.optimizer_in_backward == original.precision.optimizer_in_backward);
    CHECK(trainmem::optimizer_implementation(back) == trainmem::optimizer_implementation(original));
    CHECK(back.model.preset == original.model.preset);
  }
}

TEST_CASE("a torchtune export lists what a tune run line cannot say", "[export][torchtune]") {
  const auto r = json::parse(trainmem::export_json(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "torchtune",
      "activation_checkpointing": "selective", "loss": {"implementation": "fused"}, "attention": "flash", "method": "lora",
      "lora": {"r": 8, "target_modules": ["q_proj", "gate_proj"]}, "precision": {"optimizer": "adafactor"},
      "batch": {"micro_batch_size": 2, "seq_length": 4096}})", "torchtune").json);
  std::set<std::string> fields;
  for (const auto& n : r.at("not_exported")) fields.insert(n.at("field").get<std::string>());
  // Whole-layer checkpointing only; no fused loss; SDPA attention; the whole MLP or none of it;
  // no Adafactor component.
  CHECK(fields.count("activation_checkpointing"));
  CHECK(fields.count("loss.implementation"));
  CHECK(fields.count("attention"));
  CHECK(fields.count("lora.target_modules"));
  CHECK(fields.count("precision.optimizer"));
  CHECK(r.at("config").get<std::string>().rfind("tune run lora_finetune_single_device --config llama3_1/8B_lora_single_device ", 0) == 0);
}

TEST_CASE("torchtune export: Qwen3, Phi-4 and Llama 3.3 start from the configs torchtune ships for them", "[export][torchtune]") {
  // torchtune/_recipe_registry.py at pytorch/torchtune bd2a0fc lists qwen3/8B_lora_single_device,
  // qwen3/14B_lora_single_device (Qwen3 has no qlora_ builder: QLoRA is its LoRA config with
  // quantize_base), phi4/14B_qlora_single_device, phi4/14B_full_low_memory and llama3_3/70B_full.
  const std::pair<const char*, const char*> cases[] = {
      {R"({"model": {"preset": "qwen3-8b"}, "method": "lora", "parallel": {"world_size": 1}})", "lora_finetune_single_device --config qwen3/8B_lora_single_device "},
      {R"({"model": {"preset": "qwen3-14b"}, "method": "qlora", "parallel": {"world_size": 1}})", "lora_finetune_single_device --config qwen3/14B_lora_single_device "},
      {R"({"model": {"preset": "phi-4"}, "method": "qlora", "parallel": {"world_size": 1}})", "lora_finetune_single_device --config phi4/14B_qlora_single_device "},
      {R"({"model": {"preset": "phi-4"}, "parallel": {"world_size": 1}})", "full_finetune_single_device --config phi4/14B_full_low_memory "},
      {R"({"model": {"preset": "llama-3.3-70b"}, "parallel": {"world_size": 8}})", "full_finetune_distributed --config llama3_3/70B_full "}};
  for (const auto& [doc, start] : cases) {
    INFO(doc);
    const auto r = json::parse(trainmem::export_json(doc, "torchtune").json);
    CHECK_THAT(r.at("config").get<std::string>(), Catch::Contains(start));
    for (const auto& n : r.at("not_exported")) CHECK(n.at("field") != "model");
  }
}

TEST_CASE("LoRA with no targets given exports the family's default targets the estimate priced", "[export]") {
  // PEFT's default for llama is q_proj and v_proj (TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING):
  // torchtune names them lora_attn_modules [q_proj, v_proj] with no MLP; axolotl lists them.
  const std::string doc = R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora", "parallel": {"world_size": 1}})";
  const auto tune = json::parse(trainmem::export_json(doc, "torchtune").json);
  const std::string line = tune.at("config");
  CHECK_THAT(line, Catch::Contains("'model.lora_attn_modules=[q_proj,v_proj]'"));
  CHECK_THAT(line, Catch::Contains("model.apply_lora_to_mlp=False"));
  const auto axolotl = json::parse(trainmem::export_json(doc, "axolotl").json);
  CHECK(axolotl.at("config").at("lora_target_modules") == json::array({"q_proj", "v_proj"}));
  for (const auto& n : axolotl.at("not_exported")) CHECK(n.at("field") != "lora.target_modules");
}

TEST_CASE("torchtune export: a regex target names the modules it matches; PEFT-only settings are named by their own fields", "[export][torchtune]") {
  // PEFT re.fullmatch'es ".*(q|v)_proj" against each module name: model.layers.N.self_attn.q_proj
  // and v_proj on every layer, nothing else, which torchtune says as lora_attn_modules [q_proj, v_proj].
  const auto regex = json::parse(trainmem::export_json(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora",
      "lora": {"target_modules": ".*(q|v)_proj"}})", "torchtune").json);
  CHECK_THAT(regex.at("config").get<std::string>(), Catch::Contains("'model.lora_attn_modules=[q_proj,v_proj]'"));
  for (const auto& n : regex.at("not_exported")) CHECK(n.at("field") != "lora.target_modules");
  // A regex that adapts some layers only (layer 0's q_proj) is no torchtune setting.
  const auto some = json::parse(trainmem::export_json(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora",
      "lora": {"target_modules": "model\\.layers\\.0\\.self_attn\\.q_proj"}})", "torchtune").json);
  std::set<std::string> some_fields;
  for (const auto& n : some.at("not_exported")) some_fields.insert(n.at("field").get<std::string>());
  CHECK(some_fields.count("lora.target_modules"));
  // Per-module ranks: torchtune's builders take one lora_rank.
  const auto ranks = json::parse(trainmem::export_json(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora",
      "lora": {"target_modules": ["q_proj", "v_proj"], "rank_pattern": {"q_proj": 4}}})", "torchtune").json);
  std::set<std::string> fields;
  for (const auto& n : ranks.at("not_exported")) fields.insert(n.at("field").get<std::string>());
  CHECK(fields.count("lora.rank_pattern"));
  CHECK_FALSE(fields.count("lora.target_modules"));
}

TEST_CASE("every torchtune fixture with its launch line: import, export, import again gives the same document", "[export][torchtune]") {
  const json manifest = json::parse(fixture_text("expected.json"));
  std::size_t cases = 0;
  for (const auto& c : manifest.at("cases")) {
    const auto names = c.at("files").get<std::vector<std::string>>();
    if (names.size() != 2) continue;  // a config without its line has no GPU count to write
    ++cases;
    INFO(c.at("name").get<std::string>());
    std::vector<trainmem::ConfigFile> files;
    trainmem::Errors errors;
    for (const auto& n : names) {
      auto f = trainmem::cli::load_config_file(n, fixture_text(n), errors);
      REQUIRE(f);
      files.push_back(*f);
    }
    const auto first = trainmem::import_configs(files, trainmem::builtin_catalog());
    REQUIRE(first.errors.empty());
    const json doc = json::parse(trainmem::config_value_json(first.document));
    const auto exported = trainmem::export_config(setup_of(doc), trainmem::ExportFormat::torchtune);
    CHECK(exported.not_expressible.empty());
    const std::string line = exported.config.as_string();
    INFO(line);
    // The line names the config it was read with (the fixtures are torchtune's built-in configs).
    const std::string config_name = line.substr(line.find("--config ") + 9, line.find(' ', line.find("--config ") + 9) - line.find("--config ") - 9);
    CHECK(config_name.substr(config_name.find('/') + 1) + ".yaml" == names[0]);
    const auto second = trainmem::import_configs({files[0], trainmem::ConfigFile{"run.sh", {}, line}}, trainmem::builtin_catalog());
    INFO(trainmem::error_document(second.errors));
    REQUIRE(second.errors.empty());
    CHECK(json::parse(trainmem::config_value_json(second.document)) == doc);
  }
  CHECK(cases >= 6);
}

namespace {

// The words of a tune run line without bash's single quotes (the export quotes words such as ~key).
std::vector<std::string> line_words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;) words.push_back(w.front() == '\'' ? w.substr(1, w.size() - 2) : w);
  return words;
}

// tune run's merge of a line's overrides over its config, written here from torchtune bd2a0fc
// torchtune/config/_utils.py _merge_yaml_and_cli_args: "~a.b" deletes a key the config has
// (_remove_key_by_dotpath; a missing key is "Could not find key a.b in yaml config to remove"),
// "a=v" sets a key, and "a=v" where a is a component mapping sets a._component_. Returns the
// error text, empty when the line applies.
std::string apply_tune_overrides(json& config, const std::vector<std::string>& overrides) {
  for (const auto& o : overrides) {
    if (o[0] == '~') {
      const std::string path = o.substr(1);
      json* node = &config;
      std::string rest = path;
      for (auto dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
        if (!node->is_object() || !node->contains(rest.substr(0, dot))) return "Could not find key " + path + " in yaml config to remove";
        node = &(*node)[rest.substr(0, dot)];
        rest = rest.substr(dot + 1);
      }
      if (!node->is_object() || !node->contains(rest)) return "Could not find key " + path + " in yaml config to remove";
      node->erase(rest);
      continue;
    }
    std::string key = o.substr(0, o.find('='));
    const std::string value = o.substr(o.find('=') + 1);
    if (config.contains(key) && config[key].is_object() && config[key].contains("_component_")) key += "._component_";
    json* node = &config;
    for (auto dot = key.find('.'); dot != std::string::npos; dot = key.find('.')) {
      node = &(*node)[key.substr(0, dot)];
      key = key.substr(dot + 1);
    }
    (*node)[key] = value;
  }
  return "";
}

// The keyword arguments each component takes (written from the sources, not from the export):
// torch.optim.AdamW / Adam / SGD (PyTorch 2.x torch/optim/adamw.py, adam.py, sgd.py);
// bitsandbytes 0.49.2 (bitsandbytes-foundation/bitsandbytes f0e6ca3) bitsandbytes/optim/adamw.py
// AdamW8bit (is_paged), PagedAdamW and PagedAdamW8bit (no is_paged), optim/lion.py Lion (no eps):
// none takes fused or foreach; torchtune bd2a0fc modules/loss/cross_entropy_loss.py
// LinearCrossEntropyLoss; torch.nn.CrossEntropyLoss; and the builders of the stored configs'
// families (models/<family>/_model_builders.py: the full builders take nothing; lora_* take the
// adapter settings; qlora_* are partials of lora_*).
const std::map<std::string, std::set<std::string>> kComponentArguments = {
    {"torch.optim.AdamW", {"lr", "betas", "eps", "weight_decay", "amsgrad", "foreach", "maximize", "capturable", "differentiable", "fused"}},
    {"torch.optim.Adam", {"lr", "betas", "eps", "weight_decay", "amsgrad", "foreach", "maximize", "capturable", "differentiable", "fused"}},
    {"torch.optim.SGD", {"lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize", "foreach", "differentiable", "fused"}},
    {"bitsandbytes.optim.AdamW8bit", {"lr", "betas", "eps", "weight_decay", "amsgrad", "optim_bits", "args", "min_8bit_size", "percentile_clipping", "block_wise", "is_paged"}},
    {"bitsandbytes.optim.PagedAdamW", {"lr", "betas", "eps", "weight_decay", "amsgrad", "optim_bits", "args", "min_8bit_size", "percentile_clipping", "block_wise"}},
    {"bitsandbytes.optim.PagedAdamW8bit", {"lr", "betas", "eps", "weight_decay", "amsgrad", "optim_bits", "args", "min_8bit_size", "percentile_clipping", "block_wise"}},
    {"bitsandbytes.optim.Lion", {"lr", "betas", "weight_decay", "optim_bits", "args", "min_8bit_size", "percentile_clipping", "block_wise", "is_paged"}},
    {"torchtune.modules.loss.LinearCrossEntropyLoss", {"num_output_chunks", "ignore_index", "tp_enabled", "mask_ignored_tokens"}},
    {"torch.nn.CrossEntropyLoss", {"weight", "size_average", "ignore_index", "reduce", "reduction", "label_smoothing"}},
    {"torchtune.models.llama3_1.llama3_1_8b", {}},
    {"torchtune.models.llama3.llama3_8b", {}},
    {"torchtune.models.mistral.mistral_7b", {}},
    {"torchtune.models.qwen2_5.qwen2_5_1_5b_instruct", {}},
};
const std::set<std::string> kLoraArguments = {"lora_attn_modules", "apply_lora_to_mlp", "apply_lora_to_output", "lora_rank",
                                              "lora_alpha", "lora_dropout", "use_dora", "quantize_base"};

std::set<std::string> arguments_of(const std::string& component) {
  const auto name = component.substr(component.rfind('.') + 1);
  if (name.rfind("lora_", 0) == 0 || name.rfind("qlora_", 0) == 0) return kLoraArguments;
  const auto it = kComponentArguments.find(component);
  REQUIRE(it != kComponentArguments.end());
  return it->second;
}

}  // namespace

TEST_CASE("torchtune export: every component it switches over a stored config gets only arguments it takes", "[export][torchtune]") {
  // Each stored torchtune config (tests/fixtures/configs/torchtune/, pytorch/torchtune bd2a0fc) is
  // imported with its launch line; the document is then given every optimizer, both losses and
  // the other adapter kinds, exported, and the line is applied over the config it names as tune
  // run applies it. The fixtures' optimizer blocks hold fused (AdamW) or none (PagedAdamW): a
  // bitsandbytes optimizer over fused: True must remove it, one over a config without it must not.
  const json manifest = json::parse(fixture_text("expected.json"));
  std::map<std::string, std::string> stored;  // built-in config name -> stored file
  for (const auto& c : manifest.at("cases")) {
    const auto names = c.at("files").get<std::vector<std::string>>();
    if (names.size() != 2) continue;
    const auto words = line_words(fixture_text(names[1]));
    const auto at = std::find(words.begin(), words.end(), "--config");
    REQUIRE(at + 1 < words.end());
    stored[*(at + 1)] = names[0];
  }
  REQUIRE(stored.size() == 6);
  std::map<std::string, int> exercised;
  int removals = 0;
  for (const auto& c : manifest.at("cases")) {
    const auto names = c.at("files").get<std::vector<std::string>>();
    if (names.size() != 2) continue;
    std::vector<trainmem::ConfigFile> files;
    trainmem::Errors errors;
    for (const auto& n : names) files.push_back(*trainmem::cli::load_config_file(n, fixture_text(n), errors));
    const auto first = trainmem::import_configs(files, trainmem::builtin_catalog());
    REQUIRE(first.errors.empty());
    const json doc = json::parse(trainmem::config_value_json(first.document));
    std::vector<json> variants;
    for (const char* optimizer : {"adamw", "adam", "sgd", "adamw_8bit", "paged_adamw", "paged_adamw_8bit", "lion"})
      for (const char* loss : {"chunked", "full"}) {
        json v = doc;
        v["precision"]["optimizer"] = optimizer;
        v["loss"]["implementation"] = loss;
        variants.push_back(v);
        if (doc.at("method") == "full") continue;
        json q = v;  // the other adapter kind
        q["method"] = doc.at("method") == "qlora" ? "lora" : "qlora";
        if (q["method"] == "lora") q.erase("qlora");
        variants.push_back(q);
        json d = v;  // DoRA toggled
        d["lora"]["use_dora"] = !doc.at("lora").value("use_dora", false);
        variants.push_back(d);
        json o = v;  // the output projection adapted too
        o["lora"]["target_modules"].push_back("lm_head");
        variants.push_back(o);
      }
    for (const auto& v : variants) {
      INFO(v.dump());
      const auto exported = trainmem::export_config(setup_of(v), trainmem::ExportFormat::torchtune);
      const std::string line = exported.config.as_string();
      INFO(line);
      const auto words = line_words(line);
      const auto at = std::find(words.begin(), words.end(), "--config");
      REQUIRE(at + 1 < words.end());
      const auto file = stored.find(*(at + 1));
      if (file == stored.end()) continue;  // a built-in config not stored here
      ++exercised[file->second];
      const std::vector<std::string> overrides(at + 2, words.end());
      removals += static_cast<int>(std::count_if(overrides.begin(), overrides.end(), [](const std::string& w) { return w[0] == '~'; }));
      trainmem::Errors load_errors;
      json config = json::parse(trainmem::config_value_json(trainmem::cli::load_config_file(file->second, fixture_text(file->second), load_errors)->content));
      CHECK(apply_tune_overrides(config, overrides) == "");
      for (const char* block : {"optimizer", "loss", "model"}) {
        const auto taken = arguments_of(config.at(block).at("_component_").get<std::string>());
        for (const auto& [key, value] : config.at(block).items()) {
          if (key == "_component_") continue;
          INFO(block << "." << key << " is not an argument of " << config.at(block).at("_component_"));
          CHECK(taken.count(key));
        }
      }
      // Tied output projections (Qwen2.5 1.5B): lora_qwen2 raises ValueError on apply_lora_to_output=True.
      if (config.at("model").at("_component_").get<std::string>().find("qwen2_5_1_5b") != std::string::npos)
        CHECK(config.at("model").value("apply_lora_to_output", json("False")) != json("True"));
      // And the import reads the line back over the config with the optimizer, loss and method asked.
      const auto back = trainmem::import_configs({files[0], trainmem::ConfigFile{"run.sh", {}, line}}, trainmem::builtin_catalog());
      INFO(trainmem::error_document(back.errors));
      REQUIRE(back.errors.empty());
      const json back_document = json::parse(trainmem::config_value_json(back.document));
      check_not_exported(v, back_document, {}, "torchtune");
      const auto b = setup_of(back_document);
      const auto original = setup_of(v);
      CHECK(b.precision.optimizer == original.precision.optimizer);
      CHECK(b.method == original.method);
      CHECK(b.loss.implementation.value_or(trainmem::framework_behaviour(b).loss) == original.loss.implementation.value_or(trainmem::framework_behaviour(original).loss));
    }
  }
  // Every stored config was named with every optimizer and loss at least.
  for (const auto& [name, file] : stored) {
    INFO(file);
    CHECK(exercised[file] >= 14);
  }
  // The fused: True configs switched to bitsandbytes needed removals.
  CHECK(removals > 0);
}

TEST_CASE("axolotl export: Megatron's ZeRO-1 has no axolotl key, and both of its fields say so", "[export]") {
  // axolotl shards through DeepSpeed or FSDP only; the file trains unsharded, so the stage is not carried.
  const json megatron = json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "megatron",
      "parallel": {"world_size": 16, "tensor_parallel_size": 2, "zero_stage": 1}})");
  const auto exported = trainmem::export_config(setup_of(megatron), trainmem::ExportFormat::axolotl, "meta-llama/Llama-3.1-8B");
  auto listed = [&](const char* field) {
    return std::any_of(exported.not_expressible.begin(), exported.not_expressible.end(), [&](const auto& n) { return n.first == field; });
  };
  CHECK(listed("parallel.zero_stage"));
  CHECK(listed("parallel.sharding_engine"));
  CHECK(std::find(exported.carried.begin(), exported.carried.end(), "parallel.zero_stage") == exported.carried.end());
}

TEST_CASE("axolotl export: a full fine-tune under FSDP in bf16 carries accelerate's fp32 master copy", "[export][fsdp]") {
  // huggingface/accelerate#2674: with bf16 mixed precision FSDP's trainable parameters are upcast
  // to fp32. The engine's default for the setup has that master copy; the file (bf16: true under
  // fsdp) imports back to the same, so master_weights is carried, not listed.
  const json fsdp = json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "hf_trainer", "precision": {"param_dtype": "bf16"},
      "parallel": {"world_size": 8, "zero_stage": 3, "sharding_engine": "fsdp"}})");
  const auto exported = trainmem::export_config(setup_of(fsdp), trainmem::ExportFormat::axolotl, "meta-llama/Llama-3.1-8B");
  CHECK(std::find(exported.carried.begin(), exported.carried.end(), "precision.master_weights") != exported.carried.end());
  CHECK(std::find(exported.carried.begin(), exported.carried.end(), "precision.optimizer_state_dtype") != exported.carried.end());
  CHECK(std::none_of(exported.not_expressible.begin(), exported.not_expressible.end(),
                     [](const auto& n) { return n.first == "precision.master_weights" || n.first == "precision.optimizer_state_dtype"; }));
}

TEST_CASE("axolotl export: pure bf16 under FSDP is bf16 \"full\", which imports back without the fp32 upcast", "[export][fsdp]") {
  // axolotl core/builders/base.py _configure_precision_settings: bf16 "full" passes bf16_full_eval
  // alone, so accelerate's mixed_precision stays "no" and its FSDP upcast (accelerate#2674) does not
  // run: bf16 weights, gradients and AdamW states, no master copy. Llama-3.1-8B, 8 GPUs, full
  // shard: 2 + 2 + 4 = 8 B x 8,030,261,248 / 8 = 8,030,261,248 B of model states per GPU.
  const json pure = json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "hf_trainer",
      "precision": {"param_dtype": "bf16", "master_weights": false, "optimizer_state_dtype": "bf16"},
      "parallel": {"world_size": 8, "zero_stage": 3, "sharding_engine": "fsdp"}})");
  const auto exported = trainmem::export_config(setup_of(pure), trainmem::ExportFormat::axolotl, "meta-llama/Llama-3.1-8B");
  CHECK(json::parse(trainmem::config_value_json(exported.config)).at("bf16") == "full");
  CHECK(std::none_of(exported.not_expressible.begin(), exported.not_expressible.end(),
                     [](const auto& n) { return n.first.rfind("precision.", 0) == 0; }));
  trainmem::Errors errors;
  auto file = trainmem::cli::load_config_file("a.yaml", trainmem::cli::emit_yaml(exported.config), errors);
  REQUIRE(file);
  const auto back = trainmem::import_configs({*file}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(back.errors));
  REQUIRE(back.errors.empty());
  json doc = json::parse(trainmem::config_value_json(back.document));
  CHECK(doc.at("precision").at("master_weights") == false);
  doc["parallel"]["world_size"] = 8;
  CHECK(trainmem::test::estimate_doc(doc.dump()).at("per_gpu").at("model_states").get<double>() == 8030261248.0);
}
