// HQQ bases (qlora.quant_method "hqq": transformers' HqqConfig, LLaMA-Factory's quantization_method
// hqq): packed bits plus a scale and a zero per group, inputs kept, refused where it cannot run.
#include <algorithm>
#include <utility>

#include "test_support.hpp"
#include "trainmem/framework_defaults.hpp"

using namespace trainmem;
using trainmem::test::estimate_from;

namespace {
using trainmem::test::kLlama2_7b;

// The frozen base of a 7e9-parameter count under HQQ, bf16 unless said (every weight at the
// quantized width: the count has no layers).
double hqq_count_bytes(const std::string& qlora, const char* dtype = "bf16") {
  return estimate_from(R"({"model": {"num_parameters": 7000000000}, "framework": "hf_trainer", "method": "qlora",
    "precision": {"param_dtype": ")" + std::string(dtype) + R"("}, "qlora": {"quant_method": "hqq", )" + qlora + "}}")
      .per_gpu.model_states;
}
}  // namespace

TEST_CASE("HQQ stores nbits packed plus a scale and a zero per group in the loaded dtype", "[qlora][hqq]") {
  // mobiusml/hqq hqq/core/quantize.py @e0b1d00 (Quantizer.bit_to_packing) and bitpack.py: 2 bits
  // four to a uint8 (0.25 B), 3 bits ten to an int32 (0.4 B), 4 bits two to a uint8 (0.5 B), 5, 6
  // and 8 bits one uint8 each (1 B). Scale and zero: 2 x 2 B (bf16) per 64 weights = 0.0625 B.
  CHECK(hqq_count_bytes(R"("nbits": 2)") == 7e9 * (0.25 + 0.0625));  // 2,187,500,000 B
  CHECK(hqq_count_bytes(R"("nbits": 3)") == Approx(7e9 * (0.4 + 0.0625)).epsilon(1e-12));  // 3,237,500,000 B
  CHECK(hqq_count_bytes(R"("nbits": 5)") == 7e9 * (1.0 + 0.0625));  // 7,437,500,000 B: 5 bits are not packed
  CHECK(hqq_count_bytes(R"("nbits": 1)") == 7e9 * (0.125 + 0.0625));
  // HqqConfig's defaults: 4 bits, groups of 64.
  CHECK(hqq_count_bytes(R"("nbits": 4, "group_size": 64)") == 7e9 * (0.5 + 0.0625));
  CHECK(estimate_from(R"({"model": {"num_parameters": 7000000000}, "framework": "hf_trainer", "method": "qlora",
    "precision": {"param_dtype": "bf16"}, "qlora": {"quant_method": "hqq"}})").per_gpu.model_states == 7e9 * 0.5625);
  // Groups of 128: 4 B per 128 weights = 0.03125 B; loaded in fp32 the pair takes 8 B per 64.
  CHECK(hqq_count_bytes(R"("nbits": 4, "group_size": 128)") == 7e9 * (0.5 + 0.03125));
  CHECK(hqq_count_bytes(R"("nbits": 4)", "fp32") == 7e9 * (0.5 + 0.125));
  // 3 bits along axis 0 (LLaMA-Factory's HqqConfig(axis=0)): each group's 64 rows padded to 70, ten
  // to an int32, 7 x 4 B per 64 weights = 0.4375 B; with the pair 0.5 B.
  CHECK(hqq_count_bytes(R"("nbits": 3, "axis": 0)") == 7e9 * 0.5);
}

TEST_CASE("HQQ's group size: a multiple of 8 that divides every weight it converts", "[qlora][hqq][errors]") {
  // hqq's BaseQuantizeConfig asserts a multiple of 8; Quantizer.quantize that it divides the
  // weight's element count. Llama-2-7B's q_proj has 4,096 x 4,096 = 16,777,216 = 2^24 weights,
  // which 48 (a multiple of 8, not a power of two) does not divide.
  auto errors = [](const char* group) {
    const std::string doc = R"({"model": {"preset": "llama-2-7b"}, "method": "qlora", "qlora": {"quant_method": "hqq", "group_size": )" +
                            std::string(group) + "}}";
    return std::make_pair(trainmem::test::error_codes(doc), trainmem::test::error_fields(doc));
  };
  CHECK(errors("12") == std::make_pair(std::vector<std::string>{"not_divisible"}, std::vector<std::string>{"qlora.group_size"}));
  CHECK(errors("48") == std::make_pair(std::vector<std::string>{"not_divisible"}, std::vector<std::string>{"qlora.group_size"}));
  CHECK(errors("128").first.empty());
}

TEST_CASE("HQQ converts torch.nn.Linear only: GPT-2's Conv1D projections stay in the loaded dtype", "[qlora][hqq]") {
  // GPT-2 (124,439,808 parameters): c_attn, c_proj and c_fc are transformers' Conv1D, lm_head is
  // tied; under HQQ nothing is quantized: 124,439,808 x 2 B = 248,879,616 B, plus the adapters on
  // c_attn, r 8 in bf16: 12 x 8 x (768 + 2,304) = 294,912 weights, 589,824 B.
  const auto e = estimate_from(R"({"model": {"preset": "gpt2"}, "framework": "hf_trainer", "method": "qlora",
    "precision": {"param_dtype": "bf16"}, "qlora": {"quant_method": "hqq"},
    "lora": {"r": 8, "target_modules": ["c_attn"], "adapter_dtype": "bf16"}})");
  CHECK(e.per_gpu.parameters == 248879616.0 + 589824.0);
}

TEST_CASE("HQQ's PyTorch backend holds three full weights while it dequantizes one", "[qlora][hqq][buffers]") {
  // Quantizer.dequantize: the unpacked weight, (W_r - zero) and its product with the scale, in
  // bf16. Llama-2-7B's largest linear, 4,096 x 11,008 = 45,088,768 weights, 90,177,536 B each:
  // two more than bitsandbytes' one, 180,355,072 B, in forward and in backward.
  auto buffers = [](const char* qlora) {
    return estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "hf_trainer", "method": "qlora",
      "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"], "adapter_dtype": "bf16"}, "qlora": )" + std::string(qlora) + R"(,
      "attention": "flash", "batch": {"micro_batch_size": 1, "seq_length": 1024}, "activation_checkpointing": "none"})").per_gpu.temporary_buffers;
  };
  CHECK(*buffers(R"({"quant_method": "hqq"})") - *buffers(R"({"saves_base_inputs": true})") == 180355072.0);
  // Loaded in fp32 under bf16 autocast, HQQ's compute dtype is the loaded fp32: three copies at
  // 4 B against bitsandbytes' one at its 2 B compute dtype, 10 B x 45,088,768 = 450,887,680 B more.
  auto fp32_buffers = [](const char* qlora) {
    return estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "hf_trainer", "method": "qlora",
      "precision": {"param_dtype": "fp32", "compute_dtype": "bf16"},
      "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"], "adapter_dtype": "bf16"}, "qlora": )" + std::string(qlora) + R"(,
      "attention": "flash", "batch": {"micro_batch_size": 1, "seq_length": 1024}, "activation_checkpointing": "none"})").per_gpu.temporary_buffers;
  };
  CHECK(*fp32_buffers(R"({"quant_method": "hqq"})") - *fp32_buffers(R"({"saves_base_inputs": true})") == 450887680.0);
}

TEST_CASE("advice to shard is given only where a stage the framework offers takes the base", "[qlora][hqq][suggestions]") {
  // Under DeepSpeed an HQQ base takes ZeRO-1 and -2 but not -3: the suggestions offer 1 and 2.
  const nlohmann::json out = trainmem::test::estimate_doc(R"({"model": {"preset": "llama-2-13b"}, "framework": "deepspeed", "method": "qlora",
    "qlora": {"quant_method": "hqq"}, "gpu": "rtx-4090-24gb", "parallel": {"world_size": 8, "zero_stage": 0},
    "batch": {"micro_batch_size": 8, "seq_length": 4096}, "activation_checkpointing": "none"})");
  REQUIRE(out["verdict"] != "fits");
  std::vector<int> stages;
  for (const auto& c : out["suggestions"])
    if (c["code"] == "zero_stage") stages.push_back(c["params"]["zero_stage"]);
  std::sort(stages.begin(), stages.end());
  CHECK(stages == std::vector<int>{1, 2});
  // Under the HF Trainer over FSDP (stages 0, 2 and 3, all sharding the frozen weights above 0) it
  // can shard nowhere: the what-fits reason says no "shard with ZeRO/FSDP".
  const JsonResult j = solve_json(R"({"model": {"preset": "llama-2-70b"}, "framework": "hf_trainer", "method": "qlora",
    "qlora": {"quant_method": "hqq"}, "gpu": "rtx-4090-24gb", "parallel": {"world_size": 1}, "solve": {"max_gpus": 8}})");
  REQUIRE(j.ok);
  const nlohmann::json solved = nlohmann::json::parse(j.json);
  bool found = false;
  for (const auto& r : solved["reason_messages"])
    if (r["code"] == "no_gpu_count_fits") {
      found = true;
      CHECK(r["params"]["can_shard"] == "false");
    }
  CHECK(found);
}

TEST_CASE("the strategy search offers no ZeRO-3 layout for a base that cannot be sharded", "[qlora][hqq][strategy]") {
  // estimate refuses HQQ (and an int8 base) under ZeRO-3, so the search must not rank one.
  for (const char* qlora : {R"({"quant_method": "hqq", "nbits": 2})", R"({"quant_type": "int8"})"}) {
    const JsonResult j = solve_json(R"({"model": {"preset": "llama-2-13b"}, "method": "qlora", "framework": "hf_trainer", "gpu": "a100-80gb",
      "qlora": )" + std::string(qlora) + R"(, "solve": {"strategies": {"world_size": 8}}})");
    REQUIRE(j.ok);
    const nlohmann::json out = nlohmann::json::parse(j.json);
    REQUIRE(out["strategies"]["ranked"].size() > 0);
    for (const auto& c : out["strategies"]["ranked"]) CHECK(c["zero_stage"] != 3);
  }
}

TEST_CASE("HQQ quantizes the linear weights of a model; embeddings, norms and lm_head stay in the loaded dtype", "[qlora][hqq]") {
  // Llama-2-7B: linear weights 32 x (4 x 4,096^2 + 3 x 4,096 x 11,008) = 6,476,005,376 at 4 bits
  // with bf16 scale and zero per 64: 0.5625 B, 3,642,753,024 B. Embeddings and head 2 x 32,000 x
  // 4,096 and norms 65 x 4,096 = 262,410,240 at 2 B: 524,820,480 B (transformers' HqqConfig skips
  // lm_head). LoRA r 8 on q_proj in bf16: 32 x 8 x (4,096 + 4,096) = 2,097,152 weights, 4,194,304 B.
  // Sum: 4,171,767,808 B.
  const auto e = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "hf_trainer", "method": "qlora",
    "precision": {"param_dtype": "bf16"}, "qlora": {"quant_method": "hqq", "nbits": 4},
    "lora": {"r": 8, "target_modules": ["q_proj"], "adapter_dtype": "bf16"}})");
  CHECK(e.per_gpu.parameters == 4171767808.0);
}

TEST_CASE("HQQ's linears keep their inputs for the backward, as bitsandbytes' MatMul4Bit did up to v0.43.1", "[qlora][hqq][activations]") {
  // HQQMatmulNoCacheMul (and HQQMatmulNoCacheDeq on the ATen backend) save_for_backward(x, bias):
  // the same tensors as MatMul4Bit's ctx.tensors = (A, B) before bitsandbytes#1270. Llama-2-7B,
  // LoRA on q_proj and v_proj, 1,024 tokens, no checkpointing, bf16: the MLP norm's output and
  // down_proj's input are kept beyond what the adapters keep, 32 x 1,024 x (4,096 + 11,008) x 2 =
  // 989,855,744 B (tests/lora_test.cpp works out the same figure for bitsandbytes).
  auto activations = [](const char* qlora) {
    return *estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "hf_trainer", "method": "qlora",
      "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"], "adapter_dtype": "bf16", "lora_dropout": 0.0},
      "qlora": )" + std::string(qlora) + R"(, "attention": "flash",
      "batch": {"micro_batch_size": 1, "seq_length": 1024}, "activation_checkpointing": "none"})").per_gpu.activations;
  };
  CHECK(activations(R"({"quant_method": "hqq"})") - activations(R"({"saves_base_inputs": false})") == 989855744.0);
}

TEST_CASE("HQQ runs inside transformers, unsharded; its settings and bitsandbytes' are each ignored under the other", "[qlora][hqq][errors]") {
  // torchtune quantizes with torchao's NF4; LLaMA-Factory refuses HQQ under ZeRO-3 and FSDP
  // (src/llamafactory/model/model_utils/quantization.py @13e73887).
  const std::string torchtune = R"({"model": {"preset": "llama-2-7b"}, "framework": "torchtune", "method": "qlora",
    "qlora": {"quant_method": "hqq"}})";
  CHECK(trainmem::test::error_codes(torchtune) == std::vector<std::string>{"inconsistent"});
  CHECK(trainmem::test::error_fields(torchtune) == std::vector<std::string>{"qlora.quant_method"});
  auto sharded = [](const char* rest) {
    return trainmem::test::error_codes(R"({"model": {"preset": "llama-2-7b"}, "framework": "hf_trainer", "method": "qlora",
      "qlora": {"quant_method": "hqq"}, "parallel": {"world_size": 8, )" + std::string(rest) + "}}");
  };
  CHECK(sharded(R"("zero_stage": 3, "sharding_engine": "deepspeed")") == std::vector<std::string>{"inconsistent"});
  CHECK(sharded(R"("zero_stage": 2, "sharding_engine": "fsdp")") == std::vector<std::string>{"inconsistent"});
  CHECK(sharded(R"("zero_stage": 2, "sharding_engine": "deepspeed")").empty());
  // 7 bits is no HQQ width (Quantizer.SUPPORTED_BITS: 8, 6, 5, 4, 3, 2, 1.58, 1).
  const std::string seven = R"({"model": {"preset": "llama-2-7b"}, "method": "qlora", "qlora": {"quant_method": "hqq", "nbits": 7}})";
  CHECK(trainmem::test::error_codes(seven) == std::vector<std::string>{"unknown_value"});
  CHECK(trainmem::test::error_fields(seven) == std::vector<std::string>{"qlora.nbits"});
  // bitsandbytes' quant_type under HQQ, and HQQ's nbits under bitsandbytes, are reported and change nothing.
  const TrainingSetup hqq = trainmem::test::setup_from(
      R"({"model": {"preset": "llama-2-7b"}, "method": "qlora", "qlora": {"quant_method": "hqq", "quant_type": "int8", "nbits": 2}})");
  REQUIRE(hqq.ignored_fields.size() == 1);
  CHECK(hqq.ignored_fields[0].paths[0] == "qlora.quant_type");
  CHECK(hqq.qlora.quant_type == Dtype::nf4);
  const TrainingSetup bnb = trainmem::test::setup_from(R"({"model": {"preset": "llama-2-7b"}, "method": "qlora", "qlora": {"nbits": 2}})");
  REQUIRE(bnb.ignored_fields.size() == 1);
  CHECK(bnb.ignored_fields[0].paths[0] == "qlora.nbits");
}

TEST_CASE("the QLoRA quantizer converts what its transformers integration replaces", "[qlora][hqq]") {
  // transformers integrations/bitsandbytes.py _replace_with_bnb_linear replaces nn.Linear and
  // Conv1D; integrations/hqq.py _prepare_for_hqq_linear nn.Linear only; neither touches weights held
  // as raw parameters (GptOssExperts' gate_up_proj and down_proj).
  const TrainingSetup gpt2 = trainmem::test::setup_from(R"({"model": {"preset": "gpt2"}})");
  const Linear& c_attn = gpt2.model.architecture->layers.front().linears.front();
  REQUIRE(c_attn.conv1d);
  CHECK(quantizer_converts(c_attn, false));
  CHECK_FALSE(quantizer_converts(c_attn, true));
  const TrainingSetup oss = trainmem::test::setup_from(R"({"model": {"preset": "gpt-oss-20b"}})");
  int raw = 0, linear = 0;
  for (const LayerGroup& g : oss.model.architecture->layers)
    for (const Linear& l : g.linears) {
      const bool converted = quantizer_converts(l, false);
      CHECK(converted == quantizer_converts(l, true));  // no Conv1D in gpt-oss
      (converted ? linear : raw) += 1;
      if (l.routed_expert) CHECK_FALSE(converted);
    }
  CHECK(raw > 0);
  CHECK(linear > 0);
}
