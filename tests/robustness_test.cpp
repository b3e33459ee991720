// Inputs that used to crash, hang, overflow or mislead (found by a fresh user's bad-input pass).
#include <functional>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

using namespace trainmem;
using trainmem::test::has;
using trainmem::test::error_codes;
using trainmem::test::error_fields;
using trainmem::test::estimate_from;

namespace {
std::string llama(const std::string& fields) {
  return R"({"model": {"hf_config": {"model_type": "llama", "vocab_size": 1000, )" + fields + "}}}";
}
}  // namespace

TEST_CASE("deep nesting is refused before parsing, not printed recursively", "[robustness]") {
  const std::string deep = R"({"model": {"num_parameters": 1e9}, "batch": {"micro_batch_size": )" + std::string(80000, '[') +
                           std::string(80000, ']') + "}}";
  CHECK(error_codes(deep) == std::vector<std::string>{"invalid_json"});
  const JsonResult r = estimate_json(deep);
  CHECK_FALSE(r.ok);
  // A nested value of moderate depth in a typed field: the message names the type, no dump.
  CHECK(has(error_codes(R"({"model": {"num_parameters": 1e9}, "batch": {"micro_batch_size": [[[1]]]}})"), "wrong_type"));
}

TEST_CASE("shapes that would overflow 64-bit counts are out of range", "[robustness]") {
  const auto fields = error_fields(llama(R"("hidden_size": 1e8, "intermediate_size": 1e8, "num_attention_heads": 1,
    "num_hidden_layers": 1e8)"));
  CHECK(has(fields, "model.hf_config"));
  CHECK(has(error_codes(llama(R"("hidden_size": 1e12, "intermediate_size": 8, "num_attention_heads": 1, "num_hidden_layers": 1)")),
            "out_of_range"));
}

TEST_CASE("a hundred million layers is counted without walking each layer", "[robustness]") {
  const auto e = estimate_from(llama(R"("hidden_size": 8, "intermediate_size": 8, "num_attention_heads": 1,
    "num_hidden_layers": 1e8)"));
  // per layer: 4 x 64 (q,k,v,o) + 3 x 64 (MLP) + 2 x 8 (norms) = 464; + 2 x 8000 + 8
  CHECK(e.parameters.total == 464LL * 100000000 + 16008);
}

TEST_CASE("huge batches give large positive byte counts, never negative ones", "[robustness]") {
  const JsonResult r = estimate_json(R"({"model": {"preset": "llama-3-8b"}, "batch": {"micro_batch_size": 1e9, "seq_length": 1e6},
    "attention": "eager"})");
  REQUIRE(r.ok);
  CHECK(r.json.find(": -") == std::string::npos);
  CHECK_THAT(r.json, Catch::Contains("above_2_53"));
}

TEST_CASE("every number above 2^53 in the answer is named in the warning", "[robustness]") {
  // 1e15 tokens per micro-batch: activations, the phases, the peaks and fragmentation all pass
  // 2^53 bytes; only per_gpu.peak and a few others used to be named.
  const JsonResult r = estimate_json(R"({"model": {"preset": "llama-3-8b"}, "batch": {"micro_batch_size": 1e9, "seq_length": 1e6},
    "attention": "eager"})");
  REQUIRE(r.ok);
  const nlohmann::json out = nlohmann::json::parse(r.json);
  std::string message;
  for (const auto& w : out["warnings"])
    if (w["code"] == "above_2_53") message = w["message"];
  std::vector<std::string> large;
  std::function<void(const nlohmann::json&, const std::string&)> walk = [&](const nlohmann::json& v, const std::string& path) {
    if (v.is_object())
      for (auto it = v.begin(); it != v.end(); ++it) walk(it.value(), path.empty() ? it.key() : path + "." + it.key());
    else if (v.is_array())
      for (const auto& element : v) walk(element, path + "[]");
    else if (v.is_number() && v.get<double>() > 9007199254740992.0)
      large.push_back(path);
  };
  walk(out, "");
  CHECK(std::find(large.begin(), large.end(), "per_gpu.peak_allocated") != large.end());
  CHECK(std::find(large.begin(), large.end(), "per_gpu.phases.backward") != large.end());
  for (const auto& path : large) CHECK_THAT(message, Catch::Contains(path));
  // The timeline's 2 x 32 + 4 points are named as one field each, not once per point.
  CHECK(std::find(large.begin(), large.end(), "per_gpu.timeline[].allocated") != large.end());
  CHECK(message.find("per_gpu.timeline[].allocated") == message.rfind("per_gpu.timeline[].allocated"));
}

TEST_CASE("heads that do not divide hidden_size need an explicit head_dim", "[robustness]") {
  CHECK(has(error_fields(llama(R"("hidden_size": 16, "intermediate_size": 8, "num_attention_heads": 64, "num_hidden_layers": 1)")),
            "model.hf_config.num_attention_heads"));
  CHECK(error_codes(llama(R"("hidden_size": 16, "intermediate_size": 8, "num_attention_heads": 64, "head_dim": 4,
    "num_hidden_layers": 1)")).empty());
}

TEST_CASE("a malformed text_config is a field error, not an internal one", "[robustness]") {
  CHECK(error_fields(R"({"model": {"hf_config": {"model_type": "llava", "text_config": {"model_type": 5}}}})") ==
        std::vector<std::string>{"model.hf_config.text_config.model_type"});
  CHECK(error_fields(R"({"model": {"hf_config": {"model_type": "gemma3", "text_config": "x"}}})") ==
        std::vector<std::string>{"model.hf_config.text_config"});
  CHECK(error_codes(R"({"model": {"hf_config": {"model_type": 5}}})") == std::vector<std::string>{"wrong_type"});
}

TEST_CASE("the derived world size is bounded", "[robustness]") {
  CHECK(has(error_fields(R"({"model": {"num_parameters": 1e9}, "parallel": {"data_parallel_size": 1e7,
    "tensor_parallel_size": 1e5}})"), "parallel.world_size"));
}

TEST_CASE("LoRA defaults to the family's PEFT targets", "[robustness][lora]") {
  // GPT-2: c_attn (768 -> 2304) in 12 layers, r = 8: 12 x 8 x (768 + 2304) = 294,912
  const auto e = estimate_from(R"({"model": {"hf_config": {"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12,
    "n_positions": 1024, "vocab_size": 50257}}, "method": "lora", "lora": {"r": 8}})");
  CHECK(e.parameters.trainable == 294912);
}

TEST_CASE("a sequence beyond a learned position table is an error", "[robustness]") {
  CHECK(error_fields(R"({"model": {"hf_config": {"model_type": "gpt2", "n_embd": 64, "n_layer": 2, "n_head": 4,
    "n_positions": 1024, "vocab_size": 100}}, "batch": {"seq_length": 4096}})") == std::vector<std::string>{"batch.seq_length"});
}

TEST_CASE("settings without effect are reported", "[robustness]") {
  const JsonResult r = estimate_json(R"({"model": {"num_parameters": 1e9}, "lora": {"r": 8}})");
  REQUIRE(r.ok);
  CHECK_THAT(r.json, Catch::Contains("ignored_fields") && Catch::Contains("lora (neither the method nor a PPO critic's rlhf.critic.method is lora/qlora)"));
}

TEST_CASE("a long string of multi-byte characters is cut on a character boundary in messages", "[robustness]") {
  // A wrong-typed string value is quoted in the message, shortened to 40 bytes. "é" is 2 bytes and
  // "€" 3 bytes in UTF-8; prefixes of 0 to 2 ASCII letters put every byte offset of a character at
  // the cut. A cut inside a character made the answer invalid UTF-8 and turned wrong_type into internal.
  for (const std::string letter : {"\xC3\xA9", "\xE2\x82\xAC"}) {
    for (const std::string prefix : {"", "a", "ab"}) {
      std::string value = prefix;
      for (int i = 0; i < 30; ++i) value += letter;
      const JsonResult r = estimate_json(R"({"model": {"num_parameters": ")" + value + R"("}})");
      CHECK_FALSE(r.ok);
      CHECK_THAT(r.json, Catch::Contains("\"code\": \"wrong_type\""));
      CHECK_THAT(r.json, !Catch::Contains("internal"));
    }
  }
  // The excerpt itself: 40 bytes at most, whole characters only.
  // "aééé" is 7 bytes; 5 leave room for 2 before "...", which would split the first "é".
  CHECK(excerpt("a\xC3\xA9\xC3\xA9\xC3\xA9", 5) == "a...");
  CHECK(excerpt("a\xC3\xA9\xC3\xA9\xC3\xA9", 6) == "a\xC3\xA9...");
  CHECK(excerpt("abc", 3) == "abc");
}
