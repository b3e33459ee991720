// Helpers shared by the Catch2 tests: documents in, setups and estimates out.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "trainmem/estimate.hpp"
#include "trainmem/json_api.hpp"
#include "trainmem/step_time.hpp"
#include "trainmem/work_meter.hpp"

namespace trainmem::test {

// Parses a document that must be valid; fails the test with the errors otherwise.
inline TrainingSetup setup_from(const std::string& document) {
  ParsedSetup parsed = parse_estimate_document(document);
  if (!parsed.errors.empty()) FAIL(error_document(parsed.errors));
  return parsed.setup;
}

inline Estimate estimate_from(const std::string& document) { return estimate(setup_from(document)); }

// The step time of a document that must be timed; fails the test with the reason otherwise.
inline StepTime time_of(const std::string& document) {
  const TrainingSetup s = setup_from(document);
  std::string why;
  const auto t = step_time(s, estimate(s), &why);
  if (!t) FAIL(why);
  return *t;
}

// The engine's counted steps (work_meter.hpp) for one call.
template <typename F>
std::uint64_t steps_of(F&& call) {
  work_meter::reset();
  call();
  return work_meter::steps();
}

// The codes of every error a document produces.
inline std::vector<std::string> error_codes(const std::string& document) {
  std::vector<std::string> codes;
  for (const auto& e : parse_estimate_document(document).errors) codes.push_back(e.code);
  return codes;
}

inline std::vector<std::string> error_fields(const std::string& document) {
  std::vector<std::string> fields;
  for (const auto& e : parse_estimate_document(document).errors) fields.push_back(e.field);
  return fields;
}

// The estimate document of a document that must be valid, parsed; fails the test otherwise.
inline nlohmann::json estimate_doc(const std::string& document) {
  const JsonResult r = estimate_json(document);
  if (!r.ok) FAIL(r.json);
  return nlohmann::json::parse(r.json);
}

// A config.json stored verbatim under tests/fixtures/hf_configs/ (sources in SOURCES.md there).
inline std::string hf_config_fixture(const std::string& file) {
  std::ifstream in(std::string(TRAINMEM_SOURCE_DIR) + "/tests/fixtures/hf_configs/" + file);
  REQUIRE(in.good());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A document of a model given by its config.json keys, and further top-level keys.
inline std::string with_config(const std::string& hf_config, const std::string& rest = "") {
  return R"({"model": {"hf_config": )" + hf_config + "}" + (rest.empty() ? "" : ", " + rest) + "}";
}

// The parameter count of a model given by its config.json keys.
inline std::int64_t total_of(const std::string& hf_config) { return estimate_from(with_config(hf_config)).parameters.total; }

inline bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

// Tiny Llama bodies (h = 64, 2 layers, 4 heads, 128-token vocabulary): multi-head attention, and
// grouped-query attention with 2 key/value heads.
inline const std::string kTinyLlama = R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
  "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 128})";
inline const std::string kTinyGqaLlama = R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
  "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 128})";

// Architecture keys of published config.json files used across the tests.
// meta-llama/Llama-2-7b-hf
inline const std::string kLlama2_7b = R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008,
  "num_attention_heads": 32, "num_key_value_heads": 32, "num_hidden_layers": 32, "vocab_size": 32000})";
// meta-llama/Meta-Llama-3-8B (Llama-3.1-8B has the same shapes)
inline const std::string kLlama3_8b = R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
  "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32, "vocab_size": 128256})";

}  // namespace trainmem::test
