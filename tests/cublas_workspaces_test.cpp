// PyTorch's cuBLAS workspaces (engine/include/trainmem/cublas_workspaces.hpp): two per training
// process, sized by the GPU's generation, allocated through the caching allocator.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "test_support.hpp"
#include "trainmem/cublas_workspaces.hpp"

using trainmem::cublas_workspace_bytes;
using trainmem::test::estimate_from;
using trainmem::test::setup_from;

namespace {

std::string tiny_on(const std::string& gpu) {
  return R"({"model": {"preset": "llama-3.2-1b"}, "batch": {"seq_length": 512}, "gpu": )" + gpu + "}";
}

}  // namespace

TEST_CASE("cuBLAS workspaces: 2 x 32 MiB on Hopper and Blackwell, 2 x 8,519,680 B elsewhere, none without CUDA",
          "[cublas_workspaces]") {
  // aten/src/ATen/cuda/CublasHandlePool.cpp parseChosenWorkspaceSize: 4096 x 8 KiB = 33,554,432 B
  // on compute capability 9.x (and 10.x, 12.x since pytorch/pytorch#175344); ":4096:2:16:8"
  // elsewhere, 4096 KiB x 2 + 16 KiB x 8 = 8,519,680 B. One for the Python thread's handle, one for
  // the autograd thread's.
  CHECK(cublas_workspace_bytes(setup_from(tiny_on(R"("h100-sxm-80gb")"))) == 67108864.0);
  CHECK(cublas_workspace_bytes(setup_from(tiny_on(R"("h200-141gb")"))) == 67108864.0);
  CHECK(cublas_workspace_bytes(setup_from(tiny_on(R"("b200-180gb")"))) == 67108864.0);
  CHECK(cublas_workspace_bytes(setup_from(tiny_on(R"("a100-80gb")"))) == 17039360.0);
  CHECK(cublas_workspace_bytes(setup_from(tiny_on(R"("rtx-4090-24gb")"))) == 17039360.0);
  CHECK(cublas_workspace_bytes(setup_from(tiny_on(R"("v100-32gb")"))) == 17039360.0);
  // No GPU named, or a custom one without a generation: the smaller CUDA default.
  CHECK(cublas_workspace_bytes(setup_from(R"({"model": {"preset": "llama-3.2-1b"}})")) == 17039360.0);
  CHECK(cublas_workspace_bytes(setup_from(tiny_on(R"({"memory_bytes": 25769803776})"))) == 17039360.0);
  // A TPU runs no cuBLAS.
  CHECK(cublas_workspace_bytes(setup_from(tiny_on(R"("tpu-v5p-95gb")"))) == 0.0);
}

TEST_CASE("cuBLAS workspaces under Megatron: Transformer Engine's beside PyTorch's", "[cublas_workspaces]") {
  // transformer_engine/pytorch/module/base.py @fecb10b get_cublas_workspace_size_bytes: 33,554,432 B
  // at compute capability 9+, 4,194,304 B below; initialize_ub (--tp-comm-overlap) repeats it 3 times.
  const std::string head = R"({"model": {"preset": "llama-3-8b"}, "framework": "megatron", "batch": {"seq_length": 4096},
    "parallel": {"world_size": 8, "tensor_parallel_size": 8, "sequence_parallel": true)";
  // H100: 2 x 33,554,432 + 33,554,432 = 100,663,296 B; with the userbuffers 2 x 33,554,432 + 3 x 33,554,432.
  CHECK(cublas_workspace_bytes(setup_from(head + R"(}, "gpu": "h100-sxm-80gb"})")) == 100663296.0);
  CHECK(cublas_workspace_bytes(setup_from(head + R"(, "tp_comm_overlap": true}, "gpu": "h100-sxm-80gb"})")) == 167772160.0);
  // A100: 2 x 8,519,680 + 4,194,304 = 21,233,664 B.
  CHECK(cublas_workspace_bytes(setup_from(head + R"(}, "gpu": "a100-80gb"})")) == 21233664.0);
}

TEST_CASE("cuBLAS workspaces are allocated: they close the gap to this project's measured H200 peaks",
          "[cublas_workspaces][measured]") {
  // Two runs of tests/fixtures/measured_h200_hf_trainer.json (torch.cuda.max_memory_allocated, torch
  // 2.11, transformers 5.17, one H200): without the workspaces the engine's peak was 63.6 and 64.2
  // MiB below them; with them it is within 1 MiB. Each difference is checked against 2 MiB, far
  // below the 64 MiB the two workspaces add.
  const double tolerance = 2.0 * 1024 * 1024;
  const auto full = estimate_from(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "hf_trainer", "method": "full",
    "precision": {"param_dtype": "bf16", "grad_dtype": "bf16", "compute_dtype": "bf16", "master_weights": false,
      "optimizer": "adamw", "optimizer_state_dtype": "bf16", "optimizer_implementation": "foreach"},
    "batch": {"micro_batch_size": 2, "seq_length": 2048, "gradient_accumulation_steps": 1},
    "activation_checkpointing": "full", "attention": "sdpa", "parallel": {"world_size": 1}, "gpu": "h200-141gb"})");
  CHECK(std::fabs(*full.per_gpu.peak_allocated - 80369257472.0) < tolerance);
  const auto lora = estimate_from(R"({"model": {"preset": "gemma-2-2b"}, "framework": "hf_trainer", "method": "lora",
    "lora": {"r": 16, "lora_alpha": 32, "target_modules": ["q_proj", "v_proj"], "lora_dropout": 0.0, "adapter_dtype": "fp32"},
    "precision": {"param_dtype": "bf16", "grad_dtype": "bf16", "compute_dtype": "bf16", "master_weights": false,
      "optimizer": "adamw", "optimizer_state_dtype": "fp32", "optimizer_implementation": "foreach"},
    "batch": {"micro_batch_size": 2, "seq_length": 1024, "gradient_accumulation_steps": 1},
    "activation_checkpointing": "none", "attention": "sdpa", "parallel": {"world_size": 1}, "gpu": "h200-141gb"})");
  CHECK(std::fabs(*lora.per_gpu.peak_allocated - 18748161536.0) < tolerance);
}

TEST_CASE("cuBLAS workspaces are held from the first forward on, not while the weights load", "[cublas_workspaces]") {
  // The same setup on an A100 (2 x 8,519,680 B) and an H100 (2 x 33,554,432 B), both with flash
  // attention and the same context: every phase after load differs by 50,069,504 B, load by none.
  const std::string head = R"({"model": {"preset": "llama-3.2-1b"}, "batch": {"seq_length": 512}, "attention": "flash",
    "activation_checkpointing": "full", "gpu": )";
  const auto ampere = estimate_from(head + R"("a100-80gb"})");
  const auto hopper = estimate_from(head + R"("h100-sxm-80gb"})");
  CHECK(hopper.per_gpu.phases->load == ampere.per_gpu.phases->load);
  CHECK(hopper.per_gpu.phases->forward - ampere.per_gpu.phases->forward == 50069504.0);
  CHECK(hopper.per_gpu.phases->backward - ampere.per_gpu.phases->backward == 50069504.0);
  CHECK(hopper.per_gpu.phases->optimizer_step - ampere.per_gpu.phases->optimizer_step == 50069504.0);
}
