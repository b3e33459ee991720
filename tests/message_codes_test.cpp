// The registry of error and warning codes (engine/include/trainmem/message_codes.hpp) against the
// engine's sources and outputs: every code emitted is listed, every listed code is emitted
// somewhere, emission sites name codes through the registry's constants, and the params a listed
// warning names are in every instance of it. The page words each listed code from its params
// (tests-js/messages.test.mjs reads the same list from `trainmem codes`).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "trainmem/message_codes.hpp"

using nlohmann::json;
using namespace trainmem;
using trainmem::test::estimate_doc;
namespace fs = std::filesystem;

namespace {

std::set<std::string> registered() {
  std::set<std::string> codes;
  for (const MessageCode& c : kMessageCodes) codes.insert(c.code);
  return codes;
}

const MessageCode* find_code(const std::string& code) {
  for (const MessageCode& c : kMessageCodes)
    if (code == c.code) return &c;
  return nullptr;
}

std::vector<std::string> param_keys(const MessageCode& c) {
  std::vector<std::string> keys;
  std::istringstream in(c.params);
  for (std::string k; in >> k;) keys.push_back(k);
  return keys;
}

// Every C++ source under engine/src and cli/: path -> text.
std::map<std::string, std::string> engine_sources() {
  std::map<std::string, std::string> files;
  for (const char* dir : {"engine/src", "cli"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(TRAINMEM_SOURCE_DIR) / dir)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      files[fs::relative(entry.path(), TRAINMEM_SOURCE_DIR).string()] = text.str();
    }
  }
  return files;
}

}  // namespace

TEST_CASE("the registry lists each code once, with a kind", "[codes]") {
  std::set<std::string> seen;
  for (const MessageCode& c : kMessageCodes) {
    INFO(c.code);
    CHECK(seen.insert(c.code).second);
    CHECK(std::regex_match(std::string(c.code), std::regex("[a-z0-9_]+")));
  }
  CHECK(seen.size() > 40);  // 24 error codes and 20 warning codes when this test was written
}

TEST_CASE("every code the engine emits is registered, and every registered code is emitted", "[codes]") {
  const auto files = engine_sources();
  REQUIRE(files.size() > 50);  // the scan found the sources (not an empty or wrong directory)
  const std::set<std::string> codes = registered();
  const std::regex constant(R"((error_code|warning_code|reason_code)::([a-z0-9_]+))");
  const std::regex json_literal(R"rx(\{"code",\s*"([a-z0-9_]+)"\})rx");
  const std::regex literal(R"rx("([a-z0-9_]+)")rx");
  std::set<std::string> used;
  for (const auto& [path, text] : files) {
    for (auto it = std::sregex_iterator(text.begin(), text.end(), constant); it != std::sregex_iterator(); ++it) {
      const std::string code = (*it)[2];
      INFO(path << ": " << (*it)[0]);
      CHECK(codes.count(code) == 1);
      used.insert(code);
    }
    // A document's "code" is always a registered constant, never a string written in place.
    for (auto it = std::sregex_iterator(text.begin(), text.end(), json_literal); it != std::sregex_iterator(); ++it) {
      INFO(path << " writes a code literal: " << (*it)[0]);
      CHECK(false);
    }
    // A registered code spelled as a string outside the registry bypasses it. The suggestions
    // (suggestions_document.cpp) are a vocabulary of their own, worded by the page's verdict.js;
    // one of them shares a name with a warning.
    if (path.find("suggestions_document.cpp") != std::string::npos) continue;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), literal); it != std::sregex_iterator(); ++it) {
      const std::string word = (*it)[1];
      INFO(path << " spells the code \"" << word << "\" as a string");
      CHECK(codes.count(word) == 0);
    }
  }
  for (const auto& code : codes) {
    INFO("registered but emitted nowhere: " << code);
    CHECK(used.count(code) == 1);
  }
}

std::vector<std::string> reason_names(const MessageCode& c) {
  std::vector<std::string> names;
  std::istringstream in(c.reasons);
  for (std::string r; in >> r;) names.push_back(r);
  return names;
}

TEST_CASE("each check of a code with reasons names a registered reason, and each reason is named", "[codes]") {
  // A statement ends at ";" and a line break (a message's "; " does not). The codes whose every
  // check names its reason: all with reasons but out_of_range, whose field checks carry value, min
  // and max and whose one reason marks torchtitan's refused split (pipeline_split.cpp), and
  // unknown_config_format, whose checks name the framework they found (params.framework) or none,
  // and whose one reason marks an empty file (import_configs.cpp).
  const std::regex constant(R"(error_code::([a-z0-9_]+))");
  const std::regex reason(R"rx(\{"reason", "([a-z0-9_]+)"\})rx");
  std::map<std::string, std::set<std::string>> named;  // code -> reasons its checks name
  for (const auto& [path, text] : engine_sources()) {
    for (auto it = std::sregex_iterator(text.begin(), text.end(), constant); it != std::sregex_iterator(); ++it) {
      const std::string code = (*it)[1];
      const MessageCode* c = find_code(code);
      if (!c || std::string(c->reasons).empty()) continue;
      const std::size_t from = static_cast<std::size_t>(it->position());
      // A code named as a catalog file's problem (catalog.cpp), not raised there.
      if (from >= 11 && text.compare(from - 11, 11, "\"problem\", ") == 0) continue;
      const std::size_t end = text.find(";\n", from);
      const std::string statement = text.substr(from, end == std::string::npos ? std::string::npos : end - from);
      std::smatch m;
      const bool has_reason = std::regex_search(statement, m, reason);
      INFO(path << ": " << statement.substr(0, 160));
      if (code != "out_of_range" && code != "unknown_config_format") CHECK(has_reason);
      if (!has_reason) continue;
      const auto names = reason_names(*c);
      CHECK(std::find(names.begin(), names.end(), m[1].str()) != names.end());
      named[code].insert(m[1]);
    }
  }
  for (const MessageCode& c : kMessageCodes)
    for (const auto& r : reason_names(c)) {
      INFO("registered but named by no check: " << c.code << " " << r);
      CHECK(named[c.code].count(r) == 1);
    }
}

TEST_CASE("`trainmem codes` prints the registry with each code's params", "[codes]") {
  const json list = json::parse(message_codes_json());
  REQUIRE(list["codes"].size() == std::size(kMessageCodes));
  const json* divisible = nullptr;
  for (const auto& c : list["codes"])
    if (c["code"] == "not_divisible") divisible = &c;
  REQUIRE(divisible);
  CHECK((*divisible)["kind"] == "error");
  CHECK((*divisible)["params"] == json::array({"divisor", "of", "value", "world_size", "model_parallel"}));
  CHECK((*divisible)["reasons"] == json::array());
}

TEST_CASE("tensor parallelism not dividing the heads names both numbers in params", "[codes][errors]") {
  // Llama-3.1-8B: num_attention_heads = 32, num_key_value_heads = 8 (its config.json on the Hugging
  // Face Hub); 3 divides neither, and the check stops at the first layer group's heads.
  const auto errors = parse_estimate_document(
                          R"({"model": {"preset": "llama-3.1-8b"}, "parallel": {"world_size": 3, "tensor_parallel_size": 3}})")
                          .errors;
  REQUIRE(errors.size() >= 1);
  const FieldError& e = errors.front();
  CHECK(e.code == "not_divisible");
  CHECK(e.field == "parallel.tensor_parallel_size");
  const json params = json::parse(error_document(errors))["error"]["params"];
  CHECK(params == json{{"divisor", 3}, {"of", "num_attention_heads"}, {"value", 32}});
}

TEST_CASE("field checks carry the value and the bounds their message names", "[codes][errors]") {
  const json doc = json::parse(error_document(
      parse_estimate_document(R"({"model": {"preset": "llama-3.1-8b"}, "batch": {"micro_batch_size": 0}})").errors));
  const json& e = doc["error"];
  CHECK(e["code"] == "out_of_range");
  CHECK(e["field"] == "batch.micro_batch_size");
  CHECK(e["params"]["value"] == "0");
  CHECK(e["params"]["min"] == 1);
  const json preset = json::parse(error_document(parse_estimate_document(R"({"model": {"preset": "llama-3.1-8c"}})").errors));
  CHECK(preset["error"]["code"] == "unknown_preset");
  CHECK(preset["error"]["params"]["value"] == "llama-3.1-8c");
  CHECK(preset["error"]["params"]["suggestion"] == "llama-3.1-8b");
}

TEST_CASE("every warning carries each params key its registry entry names", "[codes][warnings]") {
  // Setups chosen to raise many warnings: a V100 (no bf16, no FlashAttention-2) with ZeRO-3 over
  // two GPUs, accumulation, paged 8-bit AdamW and a sequence beyond GPT-2's 1024 learned positions
  // is refused, so the context warning comes from a RoPE model (Llama-3.1-8B: 131072 positions).
  const std::vector<std::string> documents = {
      R"({"model": {"preset": "llama-3.1-8b"}, "gpu": "v100-32gb", "method": "qlora",
          "parallel": {"world_size": 2, "zero_stage": 3}, "batch": {"gradient_accumulation_steps": 4},
          "precision": {"optimizer": "paged_adamw_8bit"}, "lora": {"r": 16}, "attention": "flash"})",
      R"({"model": {"preset": "llama-3.1-8b"}, "gpu": "h100-sxm-80gb", "batch": {"seq_length": 262144}})",
      R"({"model": {"num_parameters": 7e9}, "gpu": "h100-sxm-80gb"})",
      R"({"model": {"num_parameters": 7e9}, "method": "qlora"})",
  };
  std::set<std::string> seen;
  for (const auto& document : documents) {
    const json out = estimate_doc(document);
    for (const auto& w : out["warnings"]) {
      const std::string code = w["code"];
      const MessageCode* c = find_code(code);
      INFO(code);
      REQUIRE(c);
      CHECK(c->kind == MessageKind::warning);
      for (const auto& key : param_keys(*c)) {
        INFO(key);
        CHECK(w["params"].contains(key));
      }
      seen.insert(code);
    }
  }
  // The setups raised the warnings named in their comment.
  for (const char* code : {"bf16_unsupported", "flash_attention_unsupported", "paged_optimizer", "eight_bit_small_tensors",
                           "zero_does_not_shard_activations", "global_batch_does_not_set_memory", "beyond_context",
                           "model_states_only", "adapters_need_architecture", "time_unavailable"}) {
    INFO(code);
    CHECK(seen.count(code) == 1);
  }
}

TEST_CASE("every solve reason is registered, carries its params and says what the English list says", "[codes][solver]") {
  // Llama-3.1-405B on one 24 GiB RTX 4090 (ZeRO stage 0 by default): its bf16 weights alone
  // (810 GB) exceed the GPU, so no micro-batch at seq_length 2048, no sequence, no count up to
  // max_gpus 8 and no strategy on 8 GPUs fits. A parameter count alone has no architecture.
  // Llama-3-8B over eight 4090s with ZeRO-2 fits the budget at a count whose band reaches past the
  // GPU at every count (tests/solver_test.cpp). Llama-3.2-1B on eight H100s ranks strategies.
  const std::vector<std::string> documents = {
      R"({"model": {"preset": "llama-3.1-405b"}, "gpu": "rtx-4090-24gb", "batch": {"seq_length": 2048},
          "solve": {"max_gpus": 8, "strategies": {"world_size": 8}}})",
      R"({"model": {"num_parameters": 7e9}, "gpu": "h100-sxm-80gb", "solve": {"strategies": {"world_size": 8}}})",
      R"({"model": {"preset": "llama-3-8b"}, "gpu": "rtx-4090-24gb", "parallel": {"world_size": 8, "zero_stage": 2},
          "batch": {"seq_length": 2048}, "activation_checkpointing": "full", "solve": {}})",
      R"({"model": {"preset": "llama-3.2-1b"}, "gpu": "h100-sxm-80gb", "batch": {"seq_length": 4096},
          "solve": {"strategies": {"world_size": 8, "limit": 50}}})",
  };
  std::map<std::string, json> seen;
  auto check = [&](const json& m) {
    const std::string code = m["code"];
    const MessageCode* c = find_code(code);
    INFO(code);
    REQUIRE(c);
    CHECK(c->kind == MessageKind::reason);
    for (const auto& key : param_keys(*c)) {
      INFO(key);
      CHECK(m["params"].contains(key));
    }
    CHECK_FALSE(m["message"].get<std::string>().empty());
    seen.emplace(code, m["params"]);  // the first document that raises it
  };
  for (const auto& document : documents) {
    const JsonResult r = solve_json(document);
    REQUIRE(r.ok);
    const json out = json::parse(r.json);
    for (const json* list : {&out, out["strategies"].is_null() ? nullptr : &out["strategies"]}) {
      if (!list) continue;
      REQUIRE((*list)["reasons"].size() == (*list)["reason_messages"].size());
      for (std::size_t i = 0; i < (*list)["reasons"].size(); ++i) {
        CHECK((*list)["reasons"][i] == (*list)["reason_messages"][i]["message"]);
        check((*list)["reason_messages"][i]);
      }
    }
    if (!out["strategies"].is_null())
      for (const auto& ranked : out["strategies"]["ranked"]) {
        CHECK(ranked["explanation"] == ranked["explanation_message"]["message"]);
        check(ranked["explanation_message"]);
      }
  }
  for (const char* code : {"micro_batch_one_does_not_fit", "model_states_exceed_budget", "no_gpu_count_fits", "no_strategy_fits",
                           "answer_needs_architecture", "band_past_gpu_at_every_count", "strategy_without_recompute",
                           "strategy_checkpointing_frees_at_cost"}) {
    INFO(code);
    CHECK(seen.count(code) == 1);
  }
  // One GPU at ZeRO stage 0, the bf16 weights alone past it: a shorter sequence or checkpointing
  // cannot make room, ZeRO-3 has no second rank, more GPUs replicate, the HF Trainer's DDP has no
  // optimizer offload, and QLoRA's 4-bit base, about 0.52 B x 405e9 = 210 GB, is past it too: a
  // larger GPU is what is left.
  CHECK(seen["micro_batch_one_does_not_fit"] == json{{"seq_length", 2048}, {"actions", "larger_gpu"}});
  // A full fine-tune can shard under the HF Trainer (FSDP's stages 2 and 3): can_shard.
  CHECK(seen["no_gpu_count_fits"] == json{{"max_gpus", 8}, {"zero_stage", 0}, {"actions", "lora checkpointing shorter_sequence"}, {"can_shard", "true"}});
  // The HF Trainer's highest sharding stage is FSDP's full shard, ZeRO-3 (framework_parallelism.hpp).
  CHECK(seen["no_strategy_fits"] == json{{"world_size", 8}, {"include_offload", "true"}, {"zero_stage", 3}, {"adapters", "true"}});
  CHECK(seen["band_past_gpu_at_every_count"]["max_gpus"] == 4096);  // solve.max_gpus' default
  CHECK(seen["band_past_gpu_at_every_count"]["zero_stage"] == 2);
}
