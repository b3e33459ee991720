// What a setup asks of a GPU that the GPU cannot do (engine/src/hardware_warnings.cpp): bf16 below
// compute capability 8.0 and FlashAttention-2 outside Ampere/Ada/Hopper. The catalog marks V100
// (compute capability 7.0) and T4 (7.5) as having neither (NVIDIA CUDA C Programming Guide,
// compute capabilities; Dao-AILab/flash-attention README, "Installation and features").
#include <nlohmann/json.hpp>

#include "test_support.hpp"

using nlohmann::json;
using namespace trainmem;
using trainmem::test::has;
using trainmem::test::estimate_doc;

namespace {

std::vector<std::string> warning_codes(const json& out) {
  std::vector<std::string> codes;
  for (const auto& w : out["warnings"]) codes.push_back(w["code"]);
  return codes;
}

}  // namespace

TEST_CASE("bf16 and FlashAttention-2 on a V100 are named, with the GPU in params", "[warnings][hardware]") {
  // bf16 mixed precision (the default) and FlashAttention-2 (asked for): a V100 has neither.
  const json out = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "gpu": "v100-32gb", "attention": "flash"})");
  const auto codes = warning_codes(out);
  CHECK(has(codes, "bf16_unsupported"));
  CHECK(has(codes, "flash_attention_unsupported"));
  for (const auto& w : out["warnings"])
    if (w["code"] == "bf16_unsupported" || w["code"] == "flash_attention_unsupported")
      CHECK(w["params"]["gpu"] == "NVIDIA V100 SXM2 32GB");
}

TEST_CASE("the HF Trainer's default attention on a V100 is SDPA, which needs no FlashAttention-2", "[warnings][hardware]") {
  // transformers picks sdpa for Llama; on a V100 torch runs its memory-efficient kernel.
  const json out = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "gpu": "v100-32gb"})");
  CHECK(has(warning_codes(out), "bf16_unsupported"));
  CHECK_FALSE(has(warning_codes(out), "flash_attention_unsupported"));
}

TEST_CASE("fp16 with SDPA on a V100 or T4 asks nothing the GPU lacks", "[warnings][hardware]") {
  for (const char* gpu : {"v100-32gb", "v100-16gb", "t4-16gb"}) {
    const json out = estimate_doc(std::string(R"({"model": {"preset": "llama-3.2-1b"}, "gpu": ")") + gpu +
                                  R"(", "attention": "sdpa", "precision": {"param_dtype": "fp16", "compute_dtype": "fp16", "grad_dtype": "fp16"}})");
    const auto codes = warning_codes(out);
    CHECK_FALSE(has(codes, "bf16_unsupported"));
    CHECK_FALSE(has(codes, "flash_attention_unsupported"));
  }
}

TEST_CASE("bf16 and FlashAttention-2 on an A100 are not warned about", "[warnings][hardware]") {
  const auto codes = warning_codes(estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "gpu": "a100-40gb"})"));
  CHECK_FALSE(has(codes, "bf16_unsupported"));
  CHECK_FALSE(has(codes, "flash_attention_unsupported"));
}

TEST_CASE("every warning and error carries a params object", "[warnings][errors]") {
  const json out = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "gpu": "v100-32gb"})");
  REQUIRE_FALSE(out["warnings"].empty());
  for (const auto& w : out["warnings"]) CHECK(w["params"].is_object());
  const JsonResult bad = estimate_json(R"({"model": {"num_parameters": -1}})");
  REQUIRE_FALSE(bad.ok);
  const json doc = json::parse(bad.json);
  CHECK(doc["error"]["params"].is_object());
  for (const auto& e : doc["errors"]) CHECK(e["params"].is_object());
}

TEST_CASE("FlashAttention-3 off Hopper is warned about, naming the GPU; on an H100 it is not", "[warnings][hardware]") {
  // Dao-AILab/flash-attention README, "FlashAttention-3 beta release": "Requirements: H100 / H800 GPU".
  for (const char* gpu : {"a100-80gb", "b200-180gb", "mi300x-192gb"}) {
    const json out = estimate_doc(std::string(R"({"model": {"preset": "llama-3.1-8b"}, "attention": "flash3", "gpu": ")") + gpu + "\"}");
    INFO(gpu);
    CHECK(has(warning_codes(out), "flash_attention_3_unsupported"));
    CHECK_FALSE(has(warning_codes(out), "flash_attention_unsupported"));
  }
  // A custom device names no architecture: its step time takes FlashAttention-2's rates, and says so.
  const json custom = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "attention": "flash3",
    "gpu": {"memory_bytes": 85899345920, "bf16_dense_flops_per_s": 989e12, "memory_bandwidth_bytes_per_s": 3.35e12}})");
  CHECK(has(warning_codes(custom), "flash_attention_3_unsupported"));
  // A V100 runs neither FlashAttention-2 nor -3: the warning that says what the run uses instead.
  const json v100 = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "attention": "flash3", "gpu": "v100-32gb"})");
  CHECK(has(warning_codes(v100), "flash_attention_unsupported"));
  CHECK_FALSE(has(warning_codes(v100), "flash_attention_3_unsupported"));
  const json h100 = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "attention": "flash3", "gpu": "h100-sxm-80gb"})");
  CHECK_FALSE(has(warning_codes(h100), "flash_attention_3_unsupported"));
}

TEST_CASE("FP8 training on a GPU without FP8 tensor cores is warned about; its activations stay 16-bit", "[warnings][hardware][fp8]") {
  // Transformer Engine: "Device compute capability 8.9 or higher required for FP8 execution."
  // (transformer_engine/pytorch/fp8.py @v2.5). An A100 is 8.0, an H100 9.0.
  const std::string doc = R"({"model": {"preset": "llama-3.1-8b"}, "framework": "megatron", "precision": {"fp8_compute": true},
    "batch": {"micro_batch_size": 1, "seq_length": 4096}, "gpu": ")";
  const json a100 = estimate_doc(doc + R"(a100-80gb"})");
  CHECK(has(warning_codes(a100), "fp8_unsupported"));
  const json h100 = estimate_doc(doc + R"(h100-sxm-80gb"})");
  CHECK_FALSE(has(warning_codes(h100), "fp8_unsupported"));
  // The A100's activations are the 16-bit ones: the same as without FP8 there; the H100's are smaller.
  const json a100_bf16 = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "megatron",
    "batch": {"micro_batch_size": 1, "seq_length": 4096}, "gpu": "a100-80gb"})");
  CHECK(a100["per_gpu"]["activations"] == a100_bf16["per_gpu"]["activations"]);
  CHECK(h100["per_gpu"]["activations"].get<double>() < a100_bf16["per_gpu"]["activations"].get<double>());
}

TEST_CASE("On a TPU, the libraries without a TPU back end are named; a plain LoRA run there is not warned about", "[warnings][hardware]") {
  // bitsandbytes' installation guide (v0.50.2): NVIDIA, AMD, Intel XPU, Apple Silicon and Intel Gaudi,
  // no TPU; DeepSpeed's SUPPORTED_ACCELERATOR_LIST has no XLA device.
  const json qlora = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "method": "qlora", "gpu": "tpu-v5p-95gb",
    "parallel": {"world_size": 4, "zero_stage": 3, "sharding_engine": "deepspeed"}})");
  REQUIRE(has(warning_codes(qlora), "tpu_unsupported_software"));
  for (const auto& w : qlora["warnings"])
    if (w["code"] == "tpu_unsupported_software") {
      CHECK(w["params"]["parts"] == "bitsandbytes 4-bit base, DeepSpeed");
      CHECK(w["params"]["part_ids"] == "bitsandbytes_4bit_base,deepspeed");
      CHECK(w["message"].get<std::string>().find("Megatron") == std::string::npos);  // only what the setup uses
    }
  // The memory verdict stays memory's; cannot_run says the run cannot start as written.
  CHECK(qlora["cannot_run"] == json::array({"tpu_unsupported_software"}));
  // An LLM.int8() base, bitsandbytes' 8-bit AdamW (the HF Trainer's adamw_bnb_8bit) and Liger
  // Kernel's Triton kernels (no XLA platform in its setup.py) have no TPU back end either;
  // flash-attn is a CUDA/ROCm package (catalog: flash_attention_2 false on TPUs).
  const json int8 = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "method": "qlora", "qlora": {"quant_type": "int8"},
    "precision": {"optimizer": "adamw_8bit"}, "use_liger_kernel": true, "attention": "flash", "gpu": "tpu-v5p-95gb"})");
  for (const auto& w : int8["warnings"])
    if (w["code"] == "tpu_unsupported_software")
      CHECK(w["params"]["parts"] == "bitsandbytes 8-bit base, bitsandbytes 8-bit optimizer, Liger Kernel");
  CHECK(int8["cannot_run"] == json::array({"flash_attention_unsupported", "tpu_unsupported_software"}));
  const json lora = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora", "gpu": "tpu-v5p-95gb"})");
  CHECK_FALSE(has(warning_codes(lora), "tpu_unsupported_software"));
  CHECK(lora["cannot_run"] == json::array());
  // Gaudi has bitsandbytes and DeepSpeed back ends.
  const json gaudi = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "method": "qlora", "gpu": "gaudi2-96gb",
    "parallel": {"world_size": 4, "zero_stage": 3, "sharding_engine": "deepspeed"}})");
  CHECK_FALSE(has(warning_codes(gaudi), "tpu_unsupported_software"));
}

TEST_CASE("the sharded-checkpoint warning needs more than one rank to shard over", "[warnings]") {
  // ZeRO/FSDP shard the checkpoint over the data-parallel ranks: on one GPU it is one whole file.
  const json one = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "parallel": {"world_size": 1, "zero_stage": 3}})");
  CHECK_FALSE(has(warning_codes(one), "sharded_checkpoint_resume"));
  const json eight = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "parallel": {"world_size": 8, "zero_stage": 3}})");
  CHECK(has(warning_codes(eight), "sharded_checkpoint_resume"));
}

TEST_CASE("Weights in fp8 on a GPU without FP8 tensor cores, and a vLLM share below the policy's weights, cannot run", "[warnings][hardware]") {
  // torch._scaled_mm, PyTorch's only fp8 matmul, needs compute capability 8.9: an A100 (8.0) has
  // none, an H100 (9.0) has them.
  const std::string fp8 = R"({"model": {"preset": "llama-3.1-8b"}, "precision": {"param_dtype": "fp8"}, "parallel": {"world_size": 8,
    "zero_stage": 3}, "batch": {"seq_length": 2048}, "gpu": ")";
  CHECK(estimate_doc(fp8 + R"(a100-80gb"})")["cannot_run"] == json::array({"fp8_unsupported"}));
  CHECK(estimate_doc(fp8 + R"(h100-sxm-80gb"})")["cannot_run"] == json::array());
  // Colocated vLLM at 1 % of an H100 SXM's 85,520,809,984 bytes (855 MB) against Qwen2.5-7B's
  // 7.6e9 weights x 2 bytes: vLLM cannot load the model, so the run cannot start, whatever the
  // memory verdict (which prices the pool it was given).
  const json grpo = estimate_doc(R"({"model": {"preset": "qwen2.5-7b"}, "batch": {"seq_length": 2048}, "parallel": {"world_size": 8,
    "zero_stage": 3}, "gpu": "h100-sxm-80gb", "rlhf": {"algorithm": "grpo", "rollout": {"use_vllm": true,
    "vllm_gpu_memory_utilization": 0.01}}})");
  CHECK(grpo["cannot_run"] == json::array({"vllm_share_below_weights"}));
  CHECK(has(warning_codes(grpo), "vllm_share_below_weights"));
}
