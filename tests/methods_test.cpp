// Fine-tuning methods and optimizers: QLoRA storage, ordering, 8-bit, factored and one-moment states.
#include <algorithm>
#include "test_support.hpp"

using namespace trainmem;
using trainmem::test::estimate_from;
using trainmem::test::GiB;
using trainmem::test::estimate_doc;
using nlohmann::json;

namespace {
const std::string& kLlama31_8b = trainmem::test::kLlama3_8b;  // same shapes
using trainmem::test::kLlama2_7b;
std::string doc(const std::string& cfg, const std::string& rest) { return R"({"model": {"hf_config": )" + cfg + "}, " + rest + "}"; }
}  // namespace

TEST_CASE("an 8-bit base (LLM.int8, transformers' load_in_8bit) stores one byte per linear weight", "[qlora]") {
  // Llama-2-7B: linear weights 32 x (4 x 4,096^2 + 3 x 4,096 x 11,008) = 6,476,005,376 at one byte
  // (bitsandbytes Int8Params); embeddings and head 2 x 32,000 x 4,096 and norms 65 x 4,096 =
  // 262,410,240 stay bf16: 6,476,005,376 + 524,820,480 = 7,000,825,856 B.
  const std::string lora = R"("lora": {"r": 8, "target_modules": ["q_proj", "v_proj"]})";
  const auto e = estimate_from(doc(kLlama2_7b, R"("method": "qlora", "qlora": {"quant_type": "int8"}, )" + lora));
  // The adapters, their dtype not given, in fp32 (PEFT's autocast_adapter_dtype): 4 B each.
  CHECK(e.per_gpu.parameters - static_cast<double>(e.parameters.adapter) * 4 == 7000825856.0);
  // The same base in NF4 without double quantization: 4 + 32/64 bits per linear weight, 0.4375
  // bytes fewer than int8 each: 6,476,005,376 x 0.4375 = 2,833,252,352 B.
  const auto nf4 = estimate_from(doc(kLlama2_7b, R"("method": "qlora", "qlora": {"double_quant": false}, )" + lora));
  CHECK(e.per_gpu.parameters - nf4.per_gpu.parameters == 2833252352.0);
  // Double quantization is a 4-bit scheme: given with int8 it is reported, and changes nothing.
  const TrainingSetup dq = trainmem::test::setup_from(doc(kLlama2_7b, R"("method": "qlora", "qlora": {"quant_type": "int8", "double_quant": false}, )" + lora));
  REQUIRE(dq.ignored_fields.size() == 1);
  CHECK(dq.ignored_fields[0].paths[0] == "qlora.double_quant");
  CHECK(estimate_from(doc(kLlama2_7b, R"("method": "qlora", "qlora": {"quant_type": "int8", "double_quant": false}, )" + lora)).per_gpu.parameters ==
        e.per_gpu.parameters);
}

TEST_CASE("bitsandbytes quantizes nn.Linear modules only: gpt-oss's expert and router parameters stay 16-bit", "[qlora]") {
  // gpt-oss-20b: 24 layers of q (2,880 x 4,096), k and v (2,880 x 512 each) and o (4,096 x 2,880)
  // nn.Linear weights, 637,009,920 in all; the experts' gate_up_proj / down_proj and the router are
  // nn.Parameters (transformers modeling_gpt_oss.py GptOssExperts, GptOssTopKRouter) that
  // bitsandbytes' Linear replacement leaves alone. int8 against nf4 without double quantization
  // (0.5 + 4/64 B) moves those weights only: 637,009,920 x 0.4375 = 278,691,840 B.
  auto parameters = [](const char* qlora) {
    return estimate_from(R"({"model": {"preset": "gpt-oss-20b"}, "framework": "hf_trainer", "method": "qlora", "qlora": )" +
                         std::string(qlora) + R"(, "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"]}, "precision": {"param_dtype": "bf16"}})")
        .per_gpu.parameters;
  };
  CHECK(parameters(R"({"quant_type": "int8"})") - parameters(R"({"double_quant": false})") == 278691840.0);
}

TEST_CASE("QLoRA stores only the linear weights in 4 bits, plus quantization constants (pytorch/torchtune#1398)", "[qlora][faults]") {
  // Llama-3.1-8B: linear weights 8,030,261,248 - 2 x 525,336,576 (embed, head) - 266,240 (norms)
  // = 6,979,321,856 at 4 + 8/64 + 32/(64 x 256) bits (NF4, double quantization);
  // embeddings, head and norms stay bf16.
  const double linear = 6979321856.0;
  const double sixteen_bit = 2 * 525336576.0 + 266240.0;
  const double expected = linear * (0.5 + 1.0 / 64 + 4.0 / (64 * 256)) + sixteen_bit * 2;
  const auto e = estimate_from(doc(kLlama31_8b, R"("method": "qlora", "lora": {"r": 8, "target_modules": ["q_proj"]})"));
  const double adapter_bytes = static_cast<double>(e.parameters.adapter) * 4;  // fp32 (PEFT's autocast_adapter_dtype)
  CHECK(e.per_gpu.parameters - adapter_bytes == Approx(expected).epsilon(1e-12));
  CHECK(expected / GiB == Approx(5.31).epsilon(0.002));
  // Without double quantization: one fp32 absmax per 64 weights, +0.30 GiB here.
  const auto single = estimate_from(doc(kLlama31_8b, R"("method": "qlora", "qlora": {"double_quant": false},
    "lora": {"r": 8, "target_modules": ["q_proj"]})"));
  CHECK((single.per_gpu.parameters - e.per_gpu.parameters) / GiB == Approx(linear * (4.0 / 64 - 1.0 / 64 - 4.0 / 16384) / GiB).epsilon(1e-9));
  CHECK((single.per_gpu.parameters - e.per_gpu.parameters) / GiB == Approx(0.30).epsilon(0.05));
}

TEST_CASE("LoRA and QLoRA on a bare parameter count price the frozen base alone, with a warning", "[qlora][lora]") {
  // LLaMA-Factory's README sizes "LoRA 16-bit" at 2x and "QLoRA 4-bit" at x/2 GB for an xB model:
  // the frozen weights. 7e9 parameters: bf16, 2 B each, 14,000,000,000 B; NF4 with double
  // quantization, 0.5 + 1/64 (int8 absmax per 64) + 4/(64 x 256) (fp32 second-level constant)
  // = 0.515869140625 B each, 3,611,083,984.375 B; LLM.int8, 1 B each, 7,000,000,000 B. No trainable
  // parameter is known, so no gradients and no optimizer states.
  const std::string model = R"({"model": {"num_parameters": 7e9}, "parallel": {"world_size": 1}, )";
  const auto lora = estimate_from(model + R"("method": "lora"})");
  CHECK(lora.per_gpu.model_states == 14e9);
  CHECK(lora.per_gpu.gradients == 0);
  CHECK(lora.per_gpu.optimizer_states == 0);
  CHECK(estimate_from(model + R"("method": "qlora"})").per_gpu.model_states == Approx(3611083984.375));
  CHECK(estimate_from(model + R"("method": "qlora", "qlora": {"quant_type": "int8"}})").per_gpu.model_states == 7e9);
  const json out = estimate_doc(model + R"("method": "qlora"})");
  REQUIRE_FALSE(out.contains("error"));
  const auto& w = out["warnings"];
  CHECK(std::any_of(w.begin(), w.end(), [](const json& x) { return x["code"] == "adapters_need_architecture"; }));
  // Nothing about the adapters is claimed: no adapter checkpoint size, no targets, and a save of the
  // adapters alone, whose size is unknown, is refused.
  const json lora_out = estimate_doc(model + R"("method": "lora"})");
  CHECK(lora_out["checkpoint"]["adapter_bytes"].is_null());
  CHECK(lora_out["resolved"]["lora.target_modules"]["origin"].get<std::string>().find("parameter count") != std::string::npos);
  const JsonResult adapter_save = estimate_json(model + R"("method": "lora", "checkpoint": {"save": "adapter"}})");
  REQUIRE_FALSE(adapter_save.ok);
  CHECK(json::parse(adapter_save.json)["error"]["params"]["reason"] == "adapter_size_needs_architecture");
  // A PPO critic trained with LoRA on a bare count is warned about too.
  const json ppo = estimate_doc(R"({"model": {"preset": "llama-3.2-1b"}, "rlhf": {"algorithm": "ppo", "reward": {"model": {"num_parameters": 1e9}},
      "critic": {"model": {"num_parameters": 1e9}, "method": "lora"}}})");
  CHECK(std::any_of(ppo["warnings"].begin(), ppo["warnings"].end(), [](const json& x) { return x["code"] == "adapters_need_architecture"; }));
  // Freezing layers needs layers.
  const JsonResult freeze = estimate_json(model + R"("method": "freeze"})");
  REQUIRE_FALSE(freeze.ok);
  CHECK(json::parse(freeze.json)["error"]["params"]["reason"] == "method_needs_architecture");
}

TEST_CASE("QLoRA <= LoRA <= full, for model states and the peak (RahulSChand/gpu_poor#1)", "[qlora][faults][property]") {
  for (const char* ckpt : {"none", "full"})
    for (int seq : {512, 2048, 8192}) {
      auto run = [&](const char* method) {
        return estimate_from(doc(kLlama2_7b, std::string(R"("method": ")") + method + R"(", "lora": {"r": 16,
          "target_modules": "all-linear"}, "activation_checkpointing": ")" + ckpt + R"(", "batch": {"seq_length": )" +
                                               std::to_string(seq) + "}"));
      };
      const auto q = run("qlora"), l = run("lora"), f = run("full");
      CAPTURE(ckpt, seq);
      CHECK(q.per_gpu.model_states <= l.per_gpu.model_states);
      CHECK(l.per_gpu.model_states <= f.per_gpu.model_states);
      CHECK(*q.per_gpu.peak <= *l.per_gpu.peak);
      CHECK(*l.per_gpu.peak <= *f.per_gpu.peak);
    }
}

TEST_CASE("QLoRA 7B, r=16 on all linear layers, checkpointing, 2k context: single-digit GiB (RahulSChand/gpu_poor#1)", "[qlora][faults]") {
  // Public tables show ~7-10 GB on a T4 (HF blog PR #1726); gpu_poor said 180 GB.
  const auto e = estimate_from(doc(kLlama2_7b, R"("method": "qlora", "lora": {"r": 16, "target_modules": "all-linear"},
    "activation_checkpointing": "full", "batch": {"micro_batch_size": 1, "seq_length": 2048}, "gpu": "t4-16gb")"));
  CHECK(*e.per_gpu.peak / GiB > 4);
  CHECK(*e.per_gpu.peak / GiB < 10);
  CHECK(e.fits == true);
}

TEST_CASE("8-bit AdamW: ~2 bytes of state per parameter vs 8 (facebookresearch/bitsandbytes#22)", "[optimizer][faults]") {
  auto moments = [](const char* optimizer) {
    // master_weights false: the states are the moments alone.
    return estimate_from(doc(kLlama2_7b, std::string(R"("precision": {"optimizer": ")") + optimizer + R"(", "master_weights": false})"))
        .per_gpu.optimizer_states;
  };
  CHECK(moments("adamw") / GiB == Approx(50.21).epsilon(0.001));  // 8 x 6,738,415,616
  // 2 x (1 byte + one fp32 absmax per 256) = 2.03125 B/param: 12.55 GiB plus block constants.
  CHECK(moments("adamw_8bit") == 6738415616.0 * 2 * (1 + 4.0 / 256));
  CHECK(moments("adamw_8bit") / GiB > 12.55);
  CHECK(moments("adamw_8bit") / GiB < 12.55 * 1.02);
}

TEST_CASE("bitsandbytes keeps 32-bit state for tensors under 4096 elements", "[optimizer]") {
  // hidden 64: every norm (64) and k/v projection... only the norms are under 4096 elements here;
  // their share of the parameters keeps 8 bytes of state.
  const std::string tiny = R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 128})";
  const auto e = estimate_from(doc(tiny, R"("precision": {"optimizer": "adamw_8bit", "master_weights": false})"));
  const double n = static_cast<double>(e.parameters.total);
  const double small = 5 * 64;  // 2 norms x 2 layers + final norm
  CHECK(e.per_gpu.optimizer_states == Approx((n - small) * 2 * (1 + 4.0 / 256) + small * 8));
}

TEST_CASE("one-moment and moment-free optimizers: Lion, SGD with and without momentum", "[optimizer]") {
  auto states = [](const char* optimizer) {
    return estimate_from(std::string(R"({"model": {"num_parameters": 1e9}, "precision": {"optimizer": ")") + optimizer +
                         R"(", "master_weights": false}})")
        .per_gpu.optimizer_states;
  };
  CHECK(states("lion") == 4e9);
  CHECK(states("sgd_momentum") == 4e9);
  CHECK(states("sgd") == 0);
}

TEST_CASE("Adafactor factors the second moment: rows + columns per matrix", "[optimizer]") {
  // Two layers of h = 64: q,k,v,o (64x64) -> 4 x 128; gate, up (64x128), down (128x64) -> 3 x 192;
  // norms 2 x 64 full -> per layer 512 + 576 + 128 = 1216; embed and head (128 x 64) -> 2 x 192;
  // final norm 64. Total 2 x 1216 + 384 + 64 = 2880 fp32 elements.
  const std::string tiny = R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 128})";
  const auto e = estimate_from(doc(tiny, R"("precision": {"optimizer": "adafactor", "master_weights": false})"));
  CHECK(e.per_gpu.optimizer_states == Approx(2880.0 * 4));
}

TEST_CASE("offload moves states off the GPU and onto host RAM or NVMe", "[offload][property]") {
  const std::string base = R"({"model": {"num_parameters": 7e9}, "parallel": {"world_size": 8, "gpus_per_node": 8, "zero_stage": 3)";
  const auto none = estimate_from(base + "}}");
  const auto cpu = estimate_from(base + R"(, "offload_optimizer": "cpu"}})");
  const auto both = estimate_from(base + R"(, "offload_optimizer": "cpu", "offload_param": "cpu"}})");
  const auto nvme = estimate_from(base + R"(, "offload_optimizer": "nvme", "offload_param": "nvme"}})");
  CHECK(cpu.per_gpu.model_states <= none.per_gpu.model_states);
  CHECK(both.per_gpu.model_states <= cpu.per_gpu.model_states);
  // Host RAM: the node's 8 ranks' gradient and optimizer shards x 1.5 pinned buffers: under the HF
  // Trainer's FSDP the trainable weights are upcast to fp32 (accelerate v0.30+), so fp32 gradients
  // (4 B) and Adam's moments (8 B): 7e9 x 12 x 1.5.
  CHECK(cpu.cpu_bytes_per_node == 7e9 * 12 * 1.5);
  CHECK(nvme.nvme_bytes == 7e9 * 16);
  CHECK(nvme.cpu_bytes_per_node == 0);
}

TEST_CASE("every method, optimizer and RLHF algorithm prices, with the checkpoint block filled", "[methods]") {
  const std::string tiny = R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 128})";
  for (const char* method : {"full", "lora", "qlora", "freeze"})
    for (const char* optimizer : {"adamw", "adam", "adamw_8bit", "paged_adamw", "paged_adamw_8bit", "adafactor", "sgd",
                                  "sgd_momentum", "lion"})
      for (const char* rlhf : {"", R"(, "rlhf": {"algorithm": "dpo"})", R"(, "rlhf": {"algorithm": "ppo"})",
                               R"(, "rlhf": {"algorithm": "grpo"})"}) {
        const std::string d = doc(tiny, std::string(R"("method": ")") + method + R"(", "precision": {"optimizer": ")" + optimizer +
                                            R"("}, "batch": {"seq_length": 64}, "gpu": "a100-80gb")" + rlhf);
        CAPTURE(d);
        const Estimate e = estimate_from(d);
        CHECK(e.checkpoint.training_state_bytes > 0);
        CHECK(e.checkpoint.inference_weights_bytes == 2.0 * static_cast<double>(e.parameters.total));
        CHECK(e.checkpoint.bytes_per_checkpoint > 0);
        CHECK((std::string(method) == "lora" || std::string(method) == "qlora") == e.checkpoint.adapter_bytes.has_value());
        REQUIRE(e.per_gpu.peak);
        CHECK(std::isfinite(*e.per_gpu.peak));
        CHECK(e.fits.has_value());
        CHECK(std::string(rlhf).empty() == e.per_gpu_models.empty());
      }
}
