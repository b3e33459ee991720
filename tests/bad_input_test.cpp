// The bad-input catalogue: every field of the estimate document with each kind of wrong value is
// rejected with its stable code and its own path, never a crash, hang or NaN.
#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "trainmem/config_value.hpp"
#include "trainmem/number_text.hpp"

using namespace trainmem;

namespace {

enum class Kind { count, count0, stage, number01, boolean, choice };

struct Field {
  const char* path;
  Kind kind;
};

const Field kFields[] = {
    {"model.num_parameters", Kind::count},           {"batch.micro_batch_size", Kind::count},
    {"batch.seq_length", Kind::count},               {"batch.gradient_accumulation_steps", Kind::count},
    {"batch.decoder_seq_length", Kind::count},       {"parallel.world_size", Kind::count},
    {"parallel.gpus_per_node", Kind::count},         {"parallel.data_parallel_size", Kind::count},
    {"parallel.zero_stage", Kind::stage},            {"parallel.sharding_group_size", Kind::count},
    {"parallel.tensor_parallel_size", Kind::count},  {"parallel.pipeline_parallel_size", Kind::count},
    {"parallel.context_parallel_size", Kind::count}, {"parallel.expert_parallel_size", Kind::count},
    {"parallel.virtual_pipeline_stages", Kind::count}, {"parallel.sequence_parallel", Kind::boolean},
    {"parallel.reshard_after_forward", Kind::boolean}, {"parallel.offload_optimizer", Kind::choice},
    {"parallel.offload_param", Kind::choice},        {"parallel.pipeline_schedule", Kind::choice},
    {"framework", Kind::choice},                     {"method", Kind::choice},
    {"activation_checkpointing", Kind::choice},      {"selective_policy", Kind::choice},
    {"attention", Kind::choice},                     {"model_loading", Kind::choice},
    {"compile", Kind::boolean},                      {"activation_offload", Kind::boolean},
    {"checkpointed_layers", Kind::count0},           {"precision.param_dtype", Kind::choice},
    {"precision.grad_dtype", Kind::choice},          {"precision.compute_dtype", Kind::choice},
    {"precision.optimizer", Kind::choice},           {"precision.optimizer_state_dtype", Kind::choice},
    {"precision.master_weights", Kind::boolean},     {"precision.optimizer_in_backward", Kind::boolean},
    {"precision.fp8_compute", Kind::boolean},        {"lora.r", Kind::count},
    {"lora.lora_dropout", Kind::number01},           {"lora.use_dora", Kind::boolean},
    {"lora.adapter_dtype", Kind::choice},            {"qlora.quant_type", Kind::choice},
    {"qlora.double_quant", Kind::boolean},           {"freeze.trainable_layers", Kind::count0},
    {"loss.implementation", Kind::choice},           {"loss.logits_fp32", Kind::boolean},
    {"loss.num_chunks", Kind::count},                {"overhead.fragmentation_fraction", Kind::number01},
    {"checkpoint.save", Kind::choice},               {"checkpoint.keep_last", Kind::count},
    {"checkpoint.free_disk_bytes", Kind::count0},    {"checkpoint.exclude_frozen_parameters", Kind::boolean},
    {"gpu.memory_bytes", Kind::count},               {"gpu.cuda_context_bytes", Kind::count0},
    {"loss.held_logits", Kind::choice},
};

struct Wrong {
  const char* value;
  const char* code;
};

std::vector<Wrong> wrong_values(Kind k) {
  std::vector<Wrong> common{{"\"text\"", "wrong_type"}, {"[]", "wrong_type"}, {"{}", "wrong_type"}};
  switch (k) {
    case Kind::count:
    case Kind::count0:
    case Kind::stage: {
      common.push_back({"true", "wrong_type"});
      common.push_back({"-1", "out_of_range"});
      common.push_back({"2.5", "not_integer"});
      common.push_back({"1e300", "out_of_range"});
      common.push_back({"18446744073709551615", "out_of_range"});
      if (k == Kind::count) common.push_back({"0", "out_of_range"});
      if (k == Kind::stage) common.push_back({"4", "out_of_range"});
      return common;
    }
    case Kind::number01:
      common.push_back({"true", "wrong_type"});
      common.push_back({"1.5", "out_of_range"});
      common.push_back({"-0.1", "out_of_range"});
      return common;
    case Kind::boolean:
      return {{"\"true\"", "wrong_type"}, {"1", "wrong_type"}, {"[]", "wrong_type"}};
    case Kind::choice:
      return {{"\"no-such-value\"", "unknown_value"}, {"5", "wrong_type"}, {"[]", "wrong_type"}, {"{}", "wrong_type"}};
  }
  return common;
}

// {"a": {"b": value}} for path "a.b".
std::string nested(const std::string& path, const std::string& value) {
  const auto dot = path.find('.');
  if (dot == std::string::npos) return "\"" + path + "\": " + value;
  return "\"" + path.substr(0, dot) + "\": {" + nested(path.substr(dot + 1), value) + "}";
}

}  // namespace

TEST_CASE("every field rejects every kind of wrong value with its code and path", "[bad_input]") {
  int checked = 0;
  for (const Field& f : kFields) {
    for (const Wrong& w : wrong_values(f.kind)) {
      const std::string model = std::string(f.path).rfind("model.", 0) == 0 ? "" : R"("model": {"preset": "llama-3.2-1b"}, )";
      const std::string doc = "{" + model + nested(f.path, w.value) + "}";
      CAPTURE(doc);
      const ParsedSetup parsed = parse_estimate_document(doc);
      bool found = false;
      for (const auto& e : parsed.errors) found = found || (e.field == f.path && e.code == w.code);
      CHECK(found);
      const JsonResult r = estimate_json(doc);
      CHECK_FALSE(r.ok);
      CHECK(r.json.find("NaN") == std::string::npos);
      ++checked;
    }
  }
  CHECK(checked > 300);
}

// One number format in messages and params (docs/api.md, Errors; trainmem/number_text.hpp): a whole
// number up to 2^53 as its digits, any other as the shortest decimal that reads back the same. A
// new user saw "hidden_size = 1000000000000.0 is out of range" beside "num_parameters = 1e+30", and
// a YAML syntax error's "line": 1.0.
TEST_CASE("numbers print one way: whole numbers as integers in messages and params", "[bad_input][numbers]") {
  CHECK(number_text(1e12) == "1000000000000");
  CHECK(number_text(1.0) == "1");
  CHECK(number_text(-3.0) == "-3");
  CHECK(number_text(9007199254740992.0) == "9007199254740992");  // 2^53, the last exact integer
  CHECK(number_text(1e30) == "1e+30");                           // beyond 2^53: not digits that look exact
  CHECK(number_text(0.1) == "0.1");
  CHECK(number_text(2.5) == "2.5");
  // An imported file's values in import messages ("expected 1 or 2, got ..."): the same format.
  CHECK(ConfigValue(1e12).summary() == "1000000000000");
  CHECK(ConfigValue(0.1).summary() == "0.1");

  auto first_error = [](const std::string& doc) {
    const auto r = estimate_json(doc);
    REQUIRE_FALSE(r.ok);
    return nlohmann::json::parse(r.json).at("error");
  };
  // hidden_size written as the JSON float 1e12: out of range, shown as the integer it is.
  const auto hidden = first_error(R"({"model": {"hf_config": {"model_type": "llama", "hidden_size": 1e12, "intermediate_size": 11008,
      "num_attention_heads": 32, "num_hidden_layers": 32, "vocab_size": 32000}}})");
  CHECK(hidden.at("code") == "out_of_range");
  CHECK(hidden.at("message").get<std::string>().find("hidden_size = 1000000000000 is out of range") != std::string::npos);
  CHECK(hidden.at("params").at("value") == "1000000000000");
  // num_parameters 1e30, beyond 2^53: the shortest form, the same in the message and the params;
  // the bounds 1 and 2^53 = 9007199254740992 are JSON integers.
  const auto count = first_error(R"({"model": {"num_parameters": 1e30}})");
  CHECK(count.at("message").get<std::string>().find("num_parameters = 1e+30 is out of range") != std::string::npos);
  CHECK(count.at("params").at("value") == "1e+30");
  CHECK(count.at("params").at("min").is_number_integer());
  CHECK(count.at("params").at("max").is_number_integer());
  // A number that is not whole stays a number with its fraction: micro_batch_size 1.5.
  const auto half = first_error(R"({"model": {"num_parameters": 1e9}, "batch": {"micro_batch_size": 1.5}})");
  CHECK(half.at("params").at("value") == "1.5");
}

TEST_CASE("a config list entry that is not a layer index is named at its own path", "[bad_input]") {
  // Qwen2-MoE's mlp_only_layers: the entry's path and type, not "expected array, got array".
  auto first_error = [](const char* list) {
    const std::string config = std::string(R"({"model_type": "qwen2_moe", "hidden_size": 8, "intermediate_size": 8,
      "num_attention_heads": 2, "num_key_value_heads": 2, "num_hidden_layers": 4, "vocab_size": 16, "num_experts": 4,
      "num_experts_per_tok": 2, "moe_intermediate_size": 8, "mlp_only_layers": )") + list + "}";
    return nlohmann::json::parse(estimate_json(R"({"model": {"hf_config": )" + config + "}}").json)["errors"][0];
  };
  const nlohmann::json text = first_error(R"([1, "a"])");
  CHECK(text["code"] == "wrong_type");
  CHECK(text["field"] == "model.hf_config.mlp_only_layers.1");
  CHECK(text["params"]["expected"] == "integer");
  CHECK(text["params"]["got"] == "string");
  const nlohmann::json fraction = first_error("[0.5]");
  CHECK(fraction["code"] == "not_integer");
  CHECK(fraction["field"] == "model.hf_config.mlp_only_layers.0");
  CHECK(fraction["params"]["value"] == "0.5");
}

TEST_CASE("a did-you-mean names a near spelling, never an unrelated short name", "[bad_input]") {
  const std::vector<std::string> keys{"model", "gpu", "batch", "parallel"};
  CHECK(closest_match("gpus", keys) == "gpu");       // 1 edit
  CHECK(closest_match("bacth", keys) == "batch");    // 2 edits
  CHECK(closest_match("paralel", keys) == "parallel");
  CHECK(closest_match("k0", keys).empty());          // "gpu" is 3 edits away: more than the word
  CHECK(closest_match("x", keys).empty());
}

TEST_CASE("a dtype spelled as PyTorch spells it gets ours as the did-you-mean", "[bad_input]") {
  // A config.json says torch_dtype "bfloat16"; the document's dtypes are fp32, bf16, fp16, fp8.
  for (const auto& [torch_name, ours] : std::vector<std::pair<std::string, std::string>>{
           {"bfloat16", "bf16"}, {"torch.float16", "fp16"}, {"float32", "fp32"}, {"half", "fp16"}}) {
    const auto r = trainmem::estimate_json(R"({"model": {"preset": "gpt2"}, "precision": {"param_dtype": ")" + torch_name + R"("}})");
    const nlohmann::json e = nlohmann::json::parse(r.json)["errors"][0];
    CHECK(e["code"] == "unknown_value");
    CHECK(e["field"] == "precision.param_dtype");
    CHECK(e["params"]["suggestion"] == ours);
  }
}

TEST_CASE("a solve request sent to the estimate says where it goes", "[bad_input]") {
  const nlohmann::json out = nlohmann::json::parse(estimate_json(R"({"model": {"preset": "llama-3-8b"}, "gpu": "h100-sxm-80gb",
    "solve": {}})").json);
  REQUIRE(out["errors"].size() == 1);
  CHECK(out["errors"][0]["code"] == "unknown_field");
  CHECK(out["errors"][0]["field"] == "solve");
  CHECK(out["errors"][0]["message"].get<std::string>().find("trainmem solve") != std::string::npos);
}
