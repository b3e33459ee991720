// LoRA trainable counts: r (d_in + d_out) per targeted matrix (Hu et al. 2021).
#include "test_support.hpp"

using namespace trainmem;
using trainmem::test::estimate_from;

namespace {
using trainmem::test::kLlama2_7b;
std::int64_t trainable(const std::string& lora) {
  return estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "method": "lora", "lora": )" + lora + "}")
      .parameters.trainable;
}
}  // namespace

TEST_CASE("Llama-2-7B LoRA r=8 on q_proj, v_proj: 4,194,304", "[lora]") {
  // 32 layers x 2 matrices x 8 x (4096 + 4096)
  CHECK(trainable(R"({"r": 8, "target_modules": ["q_proj", "v_proj"]})") == 4194304);
}

TEST_CASE("Llama-2-7B LoRA r=16 on all linear layers: 39,976,960", "[lora]") {
  // per layer: 4 x 16 x 8192 (q,k,v,o) + 3 x 16 x (4096 + 11008) (gate, up, down) = 524,288 + 724,992
  CHECK(trainable(R"({"r": 16, "target_modules": "all-linear"})") == 39976960);
  CHECK(trainable(R"({"r": 16, "target_modules": ["q_proj","k_proj","v_proj","o_proj","gate_proj","up_proj","down_proj"]})") == 39976960);
}

TEST_CASE("rank and targets change the trainable count (fault B16)", "[lora][faults]") {
  // r = 64 on all linear layers: 4 x 159,907,840 / 4 ... = 64/16 x 39,976,960 = 159,907,840
  CHECK(trainable(R"({"r": 64, "target_modules": "all-linear"})") == 159907840);
  // Adapter weight + grad + Adam in fp32 (16 B/param): 2.38 GiB vs 64 MiB for r = 8 on q, v.
  CHECK(159907840.0 * 16 / (1 << 30) == Approx(2.38).epsilon(0.002));
  CHECK(4194304.0 * 16 / (1 << 20) == 64.0);
}

TEST_CASE("DoRA adds a magnitude vector of d_out per targeted matrix", "[lora]") {
  // 4,194,304 + 32 x 2 x 4096
  CHECK(trainable(R"({"r": 8, "target_modules": ["q_proj", "v_proj"], "use_dora": true})") == 4194304 + 262144);
}

TEST_CASE("a target module the model lacks is an error naming the modules", "[lora][errors]") {
  const auto parsed = parse_estimate_document(R"({"model": {"hf_config": )" + kLlama2_7b +
                                              R"(}, "method": "lora", "lora": {"target_modules": ["q_prj"]}})");
  REQUIRE(parsed.errors.size() == 1);
  CHECK(parsed.errors[0].code == "unknown_value");
  CHECK(parsed.errors[0].field == "lora.target_modules");
  CHECK_THAT(parsed.errors[0].message, Catch::Contains("did you mean \"q_proj\""));
}
