// Work bounded by the input: each input that once froze the CLI or the page for seconds to hours
// runs within a bound on the engine's counted steps (trainmem/work_meter.hpp) set by the
// document's size and the documented limits (docs/api.md, "Limits"), never a timed assertion.
#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "trainmem/strategy_search.hpp"
#include "trainmem/work_meter.hpp"

using namespace trainmem;
using trainmem::test::steps_of;
using nlohmann::json;

namespace {

// A Qwen2-MoE config with tiny shapes; every layer is MoE unless listed in mlp_only_layers
// (modeling_qwen2_moe.py, Qwen2MoeDecoderLayer).
json qwen_moe(std::int64_t layers, const json& mlp_only_layers) {
  return {{"model_type", "qwen2_moe"}, {"hidden_size", 8},        {"intermediate_size", 8},
          {"num_attention_heads", 2},  {"num_key_value_heads", 2}, {"num_hidden_layers", layers},
          {"vocab_size", 16},          {"num_experts", 4},         {"num_experts_per_tok", 2},
          {"moe_intermediate_size", 8}, {"mlp_only_layers", mlp_only_layers}};
}

// Layer counts of the activations document's groups, in order.
std::vector<std::int64_t> group_layers(const std::string& document) {
  const JsonResult r = activations_json(document);
  REQUIRE(r.ok);
  std::vector<std::int64_t> counts;
  const json out = json::parse(r.json);  // kept alive for the loop (a temporary's member would dangle)
  for (const auto& g : out["layer_groups"]) counts.push_back(g["layers"].get<std::int64_t>());
  return counts;
}

}  // namespace

TEST_CASE("a long mlp_only_layers list is counted, not walked once per layer", "[limits]") {
  // 20,000 layers and the 2,000 even indices 0, 2, ..., 3998 listed (about 11 KB): the old walk
  // searched the list once per layer, 20,000 x 2,000 = 4e7 steps.
  json listed = json::array();
  for (int i = 0; i < 4000; i += 2) listed.push_back(i);
  const std::string document = json{{"model", {{"hf_config", qwen_moe(20000, listed)}}}}.dump();
  std::vector<std::int64_t> groups;
  const auto steps = steps_of([&] { groups = group_layers(document); });
  // Dense layers are the 2,000 listed; the other 18,000 are MoE (decoder_sparse_step 1).
  CHECK(groups == std::vector<std::int64_t>{2000, 18000});
  // Linear in the list: a few steps per entry (sorting 2,000 entries, checking each).
  CHECK(steps <= 10 * document.size());
}

TEST_CASE("mlp_only_layers: duplicates, negative and out-of-model indices, and the sparse step", "[limits]") {
  // 12 layers, decoder_sparse_step 3: layers i with (i + 1) % 3 == 0 are MoE, i = 2, 5, 8, 11.
  // Listed: 5 (twice), 8, 7 (off the grid), -1 and 40 (no such layer): MoE left are 2 and 11.
  json cfg = qwen_moe(12, json::array({5, 5, 8, 7, -1, 40}));
  cfg["decoder_sparse_step"] = 3;
  CHECK(group_layers(json{{"model", {{"hf_config", cfg}}}}.dump()) == std::vector<std::int64_t>{10, 2});
}

TEST_CASE("a hundred million DeepSeek layers are counted without a walk", "[limits]") {
  // MoE layers: i in [first_k_dense_replace, num_hidden_layers) with i % moe_layer_freq == 0
  // (modeling_deepseek_v3.py). 1e8 layers, first 3 dense, every 2nd: the even i in [3, 1e8) are
  // 4, 6, ..., 99999998: (99999998 - 4) / 2 + 1 = 49999998.
  const json cfg = {{"model_type", "deepseek_v3"}, {"hidden_size", 8}, {"intermediate_size", 8},
                    {"num_attention_heads", 2}, {"num_hidden_layers", 1e8}, {"vocab_size", 16},
                    {"kv_lora_rank", 4}, {"qk_nope_head_dim", 2}, {"qk_rope_head_dim", 2}, {"v_head_dim", 2},
                    {"n_routed_experts", 4}, {"num_experts_per_tok", 2}, {"moe_intermediate_size", 8},
                    {"first_k_dense_replace", 3}, {"moe_layer_freq", 2}};
  const std::string document = json{{"model", {{"hf_config", cfg}}}}.dump();
  std::vector<std::int64_t> groups;
  const auto steps = steps_of([&] { groups = group_layers(document); });
  CHECK(groups == std::vector<std::int64_t>{100000000 - 49999998, 49999998});
  CHECK(steps <= 10 * document.size());
}

TEST_CASE("the strategy search stops at its work budget and says so", "[limits]") {
  // A document of under 400 bytes: 5040 heads, layers, sequence and GPUs, under torchtitan (which offers
  // tensor, pipeline and context parallelism). 5040 = 2^4 3^2 5 7 has 60 divisors and 2,160
  // ordered (tp, pp, cp) splits; the unbounded search ran 708,311 estimates (about 3e9 stage
  // evaluations, 40 s in the page).
  const std::string document = R"({"model": {"hf_config": {"model_type": "llama", "hidden_size": 5040,
    "num_hidden_layers": 5040, "num_attention_heads": 5040, "num_key_value_heads": 5040, "intermediate_size": 5040,
    "vocab_size": 5040, "head_dim": 1}}, "framework": "torchtitan", "gpu": "h100-sxm-80gb", "batch": {"seq_length": 5040},
    "solve": {"strategies": {"world_size": 5040}}})";
  JsonResult r;
  const auto steps = steps_of([&] { r = solve_json(document); });
  REQUIRE(r.ok);
  const json s = json::parse(r.json)["strategies"];
  CHECK(s["truncated"] == true);
  CHECK_THAT(s["truncated_reason"].get<std::string>(), Catch::Contains("work budget"));
  CHECK_THAT(s["reasons"].dump(), Catch::Contains("work budget"));
  // One strategy can overshoot by its micro-batch search: doubling and bisecting up to 64 is at
  // most 2 x 7 + 1 estimates of at most kMaxPipelineStages stages each.
  const std::int64_t overshoot = 15 * kMaxPipelineStages;
  CHECK(s["work"].get<std::int64_t>() <= kStrategySearchWork + overshoot);
  CHECK(s["ranked"].size() > 0);
  // All of solve's work: the search's budget plus the inverse queries' estimates (a few hundred
  // estimates of this 1-stage setup) and the split enumeration (60^3 checks at most).
  CHECK(steps <= static_cast<std::uint64_t>(kStrategySearchWork + overshoot + 60 * 60 * 60 + 10000));
}

TEST_CASE("a 1,024-GPU search of a published model is not truncated", "[limits]") {
  const JsonResult r = solve_json(R"({"model": {"preset": "llama-3.1-405b"}, "gpu": "h100-sxm-80gb",
    "batch": {"seq_length": 4096, "gradient_accumulation_steps": 16}, "solve": {"strategies": {"world_size": 1024}}})");
  REQUIRE(r.ok);
  const json s = json::parse(r.json)["strategies"];
  CHECK(s["truncated"] == false);
  CHECK(s["truncated_reason"].is_null());
  CHECK(s["work"].get<std::int64_t>() <= kStrategySearchWork / 4);
}

TEST_CASE("pipeline stages are capped: each one is estimated", "[limits]") {
  CHECK(test::error_codes(R"({"model": {"num_parameters": 1e9}, "parallel": {"pipeline_parallel_size": 1025, "world_size": 1025}})") ==
        std::vector<std::string>{"out_of_range"});
  CHECK(test::error_codes(R"({"model": {"num_parameters": 1e9}, "parallel": {"pipeline_parallel_size": 1024, "world_size": 1024}})").empty());
}

TEST_CASE("the global-batch plan walks divisors, not every micro-batch size", "[limits]") {
  // A model so small that the micro-batch search reaches its cap of 2^24, and a prime target:
  // the old walk tried every micro-batch from 2^24 down to 1. The divisor walk takes
  // sqrt(999999937) < 31,623 steps. 999999937 is prime: only micro-batch 1 divides it.
  const std::string document = R"({"model": {"hf_config": {"model_type": "llama", "hidden_size": 8,
    "num_hidden_layers": 1, "num_attention_heads": 1, "intermediate_size": 8, "vocab_size": 16}},
    "gpu": "h100-sxm-80gb", "batch": {"seq_length": 1}, "solve": {"target_global_batch_size": 999999937}})";
  JsonResult r;
  const auto steps = steps_of([&] { r = solve_json(document); });
  REQUIRE(r.ok);
  const json out = json::parse(r.json);
  CHECK(out["max_micro_batch_size"]["value"] == 1 << 24);
  CHECK(out["global_batch"]["micro_batch_size"] == 1);
  CHECK(out["global_batch"]["gradient_accumulation_steps"] == 999999937);
  // 31,623 divisor steps plus the inverse queries' estimates (a few hundred, 1 stage each).
  CHECK(steps <= 31623 + 10000);
}

TEST_CASE("an unknown 1 MB preset id is not compared character by character", "[limits]") {
  // Edit distances against every catalog id cost 1e6 x ~20 x ~60 cells (3.4 s); no suggestion
  // is made for a word over 64 bytes, and the message quotes 40 bytes of it.
  const std::string id(kMaxDocumentBytes - 100, 'x');
  const std::string document = R"({"model": {"preset": ")" + id + R"("}})";
  JsonResult r;
  const auto steps = steps_of([&] { r = estimate_json(document); });
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.json, Catch::Contains("unknown_preset"));
  CHECK(r.json.size() < 2000);
  CHECK(steps <= 10000);
}

TEST_CASE("error documents list the first 100 problems and count them all", "[limits]") {
  // 5,000 distinct module names that the model does not have.
  json targets = json::array();
  for (int i = 0; i < 5000; ++i) targets.push_back("m" + std::to_string(i));
  const std::string document =
      json{{"model", {{"preset", "llama-3-8b"}}}, {"method", "lora"}, {"lora", {{"target_modules", targets}}}}.dump();
  JsonResult r;
  const auto steps = steps_of([&] { r = estimate_json(document); });
  CHECK_FALSE(r.ok);
  const json out = json::parse(r.json);
  CHECK(out["errors"].size() == kMaxListedErrors);
  CHECK(out["errors_total"] == 5000);
  CHECK(out["error"]["code"] == "unknown_value");
  CHECK(r.json.size() < 100 * 400);  // 100 messages of a few hundred bytes
  // Per target: one set lookup and a pass over the model's 7 linear names; suggestions for the
  // first 100 only (100 x 7 names x 64 cells).
  CHECK(steps <= 5000 * (1 + 7) + 100 * 7 * 64 + 10000);
}

TEST_CASE("lists longer than the limit are refused whole", "[limits]") {
  json targets = json::array();
  for (std::size_t i = 0; i <= kMaxListEntries; ++i) targets.push_back("q_proj");
  const std::string document =
      json{{"model", {{"preset", "llama-3-8b"}}}, {"method", "lora"}, {"lora", {{"target_modules", targets}}}}.dump();
  const auto errors = parse_estimate_document(document).errors;
  REQUIRE(errors.total() == 1);
  CHECK(errors[0].code == "out_of_range");
  CHECK(errors[0].field == "lora.target_modules");
}

TEST_CASE("90,000 unknown keys: counted, 100 described, suggestions for those only", "[limits]") {
  // 90,000 keys "k0": 1 ... "k89999": 1 make 978,931 bytes, under the 1 MiB document limit.
  json doc = {{"model", {{"num_parameters", 1e9}}}};
  for (int i = 0; i < 90000; ++i) doc["k" + std::to_string(i)] = 1;
  const std::string document = doc.dump();
  REQUIRE(document.size() < kMaxDocumentBytes);
  JsonResult r;
  const auto steps = steps_of([&] { r = estimate_json(document); });
  const json out = json::parse(r.json);
  CHECK(out["errors_total"] == 90000);
  CHECK(out["errors"].size() == kMaxListedErrors);
  // 100 suggestions against the ~25 top-level names (7 x 30 cells each), nothing after.
  CHECK(steps <= 100 * 25 * 8 * 31 + 10000);
}

namespace {

// A Llama config of `layers` layers with tiny shapes: 7 linears per layer (q, k, v, o, gate, up,
// down), q_proj 64 -> 64.
json tiny_llama(std::int64_t layers) {
  return {{"model_type", "llama"}, {"hidden_size", 64}, {"intermediate_size", 64}, {"num_attention_heads", 2},
          {"num_key_value_heads", 2}, {"num_hidden_layers", layers}, {"vocab_size", 16}};
}

json lora_document(std::int64_t layers, const json& lora) {
  return {{"model", {{"hf_config", tiny_llama(layers)}}}, {"method", "lora"}, {"lora", lora}};
}

}  // namespace

TEST_CASE("LoRA name lists are matched by lookups, whatever their length", "[limits][lora]") {
  // 20,000 layers x 7 linears = 140,000 module names (plus embedding and head), each tried against
  // 2,000 exclude_modules entries: the old matching compared every name with every entry, 2.8e8
  // comparisons for a 17 KB document (31 s). A name's "."-suffixes are looked up instead.
  json excluded = json::array();
  for (int i = 0; i < 2000; ++i) excluded.push_back("x" + std::to_string(i));
  const std::string document =
      lora_document(20000, {{"r", 8}, {"target_modules", {"q_proj"}}, {"exclude_modules", excluded}, {"layers_to_transform", {0}}})
          .dump();
  JsonResult r;
  const auto steps = steps_of([&] { r = estimate_json(document); });
  REQUIRE(r.ok);
  // One adapter: layer 0's q_proj, r (64 + 64) = 1,024.
  CHECK(json::parse(r.json)["parameters"]["trainable"] == 1024);
  // Names are "model.layers.19999.self_attn.q_proj" (35 characters) at most: each name costs two
  // set lookups of its "."-suffixes (counted as 36 steps each), once for the whole estimate.
  CHECK(steps <= 140002 * 2 * 36 + 10 * document.size());
}

TEST_CASE("a solve's estimates reuse one LoRA matching", "[limits][lora]") {
  // layers_to_transform matches layer by layer; a solve runs hundreds of estimates (micro-batch,
  // sequence and GPU-count searches over the catalog), which walked the 14,000 names each time.
  const json doc = lora_document(2000, {{"r", 8}, {"target_modules", {"q_proj", "v_proj"}}, {"layers_to_transform", {0, 1}}});
  JsonResult estimated, solved;
  const auto estimate_steps = steps_of([&] { estimated = estimate_json(doc.dump()); });
  json with_solve = doc;
  with_solve["gpu"] = "h100-sxm-80gb";
  with_solve["solve"] = json::object();
  const auto solve_steps = steps_of([&] { solved = solve_json(with_solve.dump()); });
  REQUIRE(estimated.ok);
  REQUIRE(solved.ok);
  // Layers 0 and 1, q and v: 2 x 2 x 8 x 128 = 4,096.
  CHECK(json::parse(estimated.json)["parameters"]["trainable"] == 4096);
  // The matching (14,002 names) is most of one estimate's steps; the solve adds its own searches
  // but matches once: far below 100 estimates' worth.
  CHECK(estimate_steps >= 14002);
  CHECK(solve_steps <= 3 * estimate_steps + 100000);
}

TEST_CASE("regex matching over many module names is bounded before it starts", "[limits][lora]") {
  // A pattern of over 1,500 states (500 copies of a group of at least 3 states) on 140,002 names of
  // up to 35 characters: over 140,002 x 36 x 1,500 = 7.6e9 steps, far above the 2e8 limit; refused
  // with the counts before any name is matched.
  const std::string pattern = "(q|k|v){500}.*";
  const std::string document = lora_document(20000, {{"r", 8}, {"target_modules", pattern}}).dump();
  JsonResult r;
  const auto steps = steps_of([&] { r = estimate_json(document); });
  CHECK_FALSE(r.ok);
  const json out = json::parse(r.json);
  CHECK(out["error"]["code"] == "out_of_range");
  CHECK(out["error"]["field"] == "lora");
  CHECK_THAT(out["error"]["message"].get<std::string>(), Catch::Contains("the limit is 200000000"));
  CHECK(steps <= 10 * document.size() + 10000);
}

TEST_CASE("LoRA lists and rank_pattern longer than the limit are refused", "[limits][lora]") {
  json many = json::array();
  for (std::size_t i = 0; i <= kMaxListEntries; ++i) many.push_back(static_cast<std::int64_t>(i % 32));
  json names = json::array();
  for (std::size_t i = 0; i <= kMaxListEntries; ++i) names.push_back("x" + std::to_string(i));
  json ranks = json::object();
  for (std::size_t i = 0; i <= kMaxListEntries; ++i) ranks["x" + std::to_string(i)] = 8;
  for (const auto& [field, value] : {std::pair<std::string, json>{"layers_to_transform", many},
                                    {"exclude_modules", names}, {"rank_pattern", ranks}}) {
    const auto errors = parse_estimate_document(lora_document(32, {{field, value}}).dump()).errors;
    REQUIRE(errors.total() == 1);
    CHECK(errors[0].code == "out_of_range");
    CHECK(errors[0].field == "lora." + field);
  }
}
