// The peak: transient buffers, phases, fragmentation and CUDA context.
#include "test_support.hpp"

using namespace trainmem;
using trainmem::test::kTinyLlama;
using trainmem::test::estimate_from;
using trainmem::test::GiB;

namespace {
using trainmem::test::kLlama3_8b;
using trainmem::test::kLlama2_7b;
}  // namespace

TEST_CASE("Llama-3-8B ZeRO-3 on 8xH100, seq 8192, full checkpointing: every field known", "[peak]") {
  const auto e = estimate_from(R"({"model": {"hf_config": )" + kLlama3_8b + R"(}, "parallel": {"world_size": 8, "zero_stage": 3},
    "batch": {"micro_batch_size": 1, "seq_length": 8192}, "attention": "flash", "activation_checkpointing": "full",
    "gpu": {"memory_bytes": 85899345920}})");
  const PerGpu& g = e.per_gpu;
  REQUIRE(g.activations);
  REQUIRE(g.temporary_buffers);
  REQUIRE(g.peak_allocated);
  REQUIRE(g.peak_reserved);
  REQUIRE(g.peak);
  REQUIRE(g.phases);
  CHECK(*g.peak_allocated >= g.model_states + *g.activations);
  CHECK(*g.peak_reserved == Approx(*g.peak_allocated * 1.10));
  CHECK(*g.peak == *g.peak_reserved + *g.cuda_context);
  CHECK(e.fits.has_value());
}

TEST_CASE("ZeRO-3 gathers layers: FSDP keeps the current and a prefetched layer (cli99/llm-analysis#25)", "[peak][faults]") {
  // Llama-2-7B, 8 GPUs, FSDP full shard: the forward's transient holds 2 unsharded decoder layers,
  // 2 x 202,383,360 params x 2 bytes = 809,533,440 bytes (plus the logits).
  const std::string base = R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "fsdp",
    "parallel": {"world_size": 8, "zero_stage": 3}, "batch": {"seq_length": 512}, "activation_checkpointing": "full")";
  const auto e = estimate_from(base + "}");
  const auto one_gpu = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "fsdp",
    "parallel": {"world_size": 1}, "batch": {"seq_length": 512}, "activation_checkpointing": "full"})");
  // Forward holds no gradient: the loop freed them after the last step (zero_grad set_to_none).
  auto forward_states = [](const Estimate& x) { return x.per_gpu.parameters + x.per_gpu.optimizer_states; };
  const double forward_extra = (e.per_gpu.phases->forward - forward_states(e) - *e.per_gpu.activations) -
                               (one_gpu.per_gpu.phases->forward - forward_states(one_gpu) - *one_gpu.per_gpu.activations);
  CHECK(forward_extra == 2.0 * 202383360 * 2);
  // Without reshard_after_forward every gathered layer stays until backward.
  const auto kept = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "fsdp",
    "parallel": {"world_size": 8, "zero_stage": 3, "reshard_after_forward": false}, "batch": {"seq_length": 512},
    "activation_checkpointing": "full"})");
  CHECK(kept.per_gpu.phases->forward > e.per_gpu.phases->forward + 10 * GiB);
}

TEST_CASE("Llama-3-8B ZeRO-3 on 8 x 24 GB without offload does not fit (microsoft/DeepSpeed#4527, hiyouga/LLaMA-Factory#5977)", "[peak][faults]") {
  // DeepSpeed's model-states estimator says 18.78 GiB ("fits"); live parameters (1e9 x 2 B),
  // buckets, the 128k-vocabulary logits, activations and the context do not fit in 24 GB.
  const auto e = estimate_from(R"({"model": {"hf_config": )" + kLlama3_8b + R"(}, "framework": "deepspeed",
    "precision": {"param_dtype": "fp16"}, "parallel": {"world_size": 8, "zero_stage": 3},
    "batch": {"micro_batch_size": 1, "seq_length": 1024}, "activation_checkpointing": "none",
    "gpu": {"memory_bytes": 25769803776}})");
  // Model states: 16 B x P/8 resident (2 + 2 + 12, P/8 = 1,003,782,656) plus the fp32 gradient of
  // one ZeRO-3 sub-group in the step (min(P/8, sub_group_size 1e9) x 4 B), plus the largest module
  // gathered and its gradient as DeepSpeed's estimator counts them (4 B x the 128,256 x 4,096 =
  // 525,336,576-element embedding = 2,101,346,304 B):
  // 16,060,522,496 + 4,000,000,000 + 2,101,346,304 = 22,161,868,800 B.
  CHECK(e.per_gpu.model_states == 22161868800.0);
  CHECK(*e.per_gpu.peak > e.per_gpu.model_states + 2e9);
  CHECK(e.fits == false);
}

TEST_CASE("the CUDA context is per GPU and configurable; TPUs have none (pytorch/pytorch#107667)", "[peak][faults]") {
  const std::string base = R"({"model": {"hf_config": )" + kTinyLlama + R"(}, "gpu": {"memory_bytes": 25769803776, "cuda_context_bytes": )";
  const auto small = estimate_from(base + "100000000}}");
  const auto large = estimate_from(base + "1000000000}}");
  CHECK(*large.per_gpu.peak - *small.per_gpu.peak == 900000000.0);
  CHECK(*small.per_gpu.peak_reserved == *large.per_gpu.peak_reserved);
}

TEST_CASE("optimizer step above backward: foreach AdamW upcasts bf16 gradients (NVIDIA/Model-Optimizer#2483)", "[peak][faults]") {
  // bf16 weights and grads, fp32 master + Adam: 16 B/param resident, +4 B/param of fp32 gradient
  // copies during the step, +4 B/param for foreach AdamW's _foreach_sqrt of every second moment
  // (torch/optim/adamw.py _multi_tensor_adamw) = 24 B/param, beside PyTorch's two cuBLAS workspaces
  // (no GPU named: 2 x 8,519,680 B, cublas_workspaces.hpp).
  const auto e = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "batch": {"seq_length": 16},
    "activation_checkpointing": "full"})");
  const double n = 6738415616.0;
  CHECK(e.per_gpu.phases->optimizer_step == 24.0 * n + 17039360.0);
  CHECK(e.per_gpu.peak_phase == "optimizer_step");
  CHECK(e.per_gpu.phases->optimizer_step > e.per_gpu.phases->backward);
}

TEST_CASE("loading a full copy on every GPU puts the peak in the load phase", "[peak]") {
  const auto e = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "model_loading": "full_copy_per_gpu",
    "parallel": {"world_size": 64, "zero_stage": 3}, "batch": {"seq_length": 16}, "activation_checkpointing": "full"})");
  CHECK(e.per_gpu.phases->load == 2.0 * 6738415616.0);
  CHECK(e.per_gpu.phases->load > e.per_gpu.phases->forward);
  CHECK(e.per_gpu.peak_phase == "load");
}

TEST_CASE("FP8 training never uses less memory than bf16 (NVIDIA/TransformerEngine#1429)", "[peak][faults]") {
  const std::string base = R"({"model": {"hf_config": )" + kTinyLlama + R"(}, "precision": {"fp8_compute": )";
  const auto fp8 = estimate_from(base + "true}}");
  const auto bf16 = estimate_from(base + "false}}");
  CHECK(*fp8.per_gpu.peak >= *bf16.per_gpu.peak);
}

TEST_CASE("FP8 keeps an FP8 weight and its transpose for every linear layer", "[peak][fp8]") {
  // Llama-2-7B on one GPU: linear weights 32 x (4 x 4096^2 + 3 x 4096 x 11008) = 6,476,005,376
  // elements, x 2 B (FP8 data row-wise and column-wise) = 12,952,010,752 B alive in every phase.
  const std::string base = R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "batch": {"seq_length": 16}, "precision": {"fp8_compute": )";
  const auto fp8 = estimate_from(base + "true}}");
  const auto bf16 = estimate_from(base + "false}}");
  CHECK(fp8.per_gpu.phases->forward - bf16.per_gpu.phases->forward == Approx(12952010752.0));
}

TEST_CASE("FP8 parameters keep only the transpose beside them", "[peak][fp8]") {
  // Megatron --fp8-param-gather (TE fp8_model_init): the weight is the row-wise FP8 data, so of the
  // two copies above only the column-wise one is added: 6,476,005,376 B for Llama-2-7B's linears.
  const std::string base = R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "batch": {"seq_length": 16}, "precision": {"param_dtype": "fp8", "fp8_compute": )";
  const auto with_fp8_matmuls = estimate_from(base + "true}}");
  const auto without = estimate_from(base + "false}}");
  CHECK(with_fp8_matmuls.per_gpu.phases->forward - without.per_gpu.phases->forward == Approx(6476005376.0));
}

TEST_CASE("optimizer in backward keeps no full gradient buffer", "[peak]") {
  const std::string base = R"({"model": {"hf_config": )" + kTinyLlama + R"(}, "precision": {"optimizer_in_backward": )";
  CHECK(estimate_from(base + "true}}").per_gpu.gradients == 0);
  CHECK(estimate_from(base + "false}}").per_gpu.gradients > 0);
}

TEST_CASE("paged optimizer states never turn a fit into an OOM", "[peak]") {
  // A GPU with room for the weights and activations but not for the 8-bit states.
  const auto e = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "precision": {"optimizer": "paged_adamw_8bit",
    "master_weights": false, "optimizer_in_backward": true}, "batch": {"seq_length": 256},
    "activation_checkpointing": "full", "gpu": {"memory_bytes": 25769803776}})");
  REQUIRE(e.per_gpu.paged_optimizer_states);
  CHECK(*e.per_gpu.peak_allocated < e.per_gpu.model_states);
  CHECK(e.fits == true);
  // What does not fit beside the peak pages out to the host.
  const double room = *e.gpu_capacity_bytes - *e.per_gpu.peak;
  CHECK(*e.per_gpu.paged_device_resident == Approx(std::min(room, *e.per_gpu.paged_optimizer_states)));
  CHECK(*e.per_gpu.paged_device_resident + *e.per_gpu.paged_host_resident == Approx(*e.per_gpu.paged_optimizer_states));
}

TEST_CASE("property: peak never below model states, all values finite and non-negative", "[peak][property]") {
  for (const char* method : {"full", "lora", "qlora", "freeze"})
    for (int zero = 0; zero <= 3; ++zero)
      for (const char* ckpt : {"none", "selective", "full"}) {
        const auto e = estimate_from(R"({"model": {"hf_config": )" + kTinyLlama + R"(}, "method": ")" + method +
                                     R"(", "parallel": {"world_size": 4, "zero_stage": )" + std::to_string(zero) +
                                     R"(}, "activation_checkpointing": ")" + ckpt + R"(", "batch": {"seq_length": 128}})");
        CAPTURE(method, zero, ckpt);
        CHECK(std::isfinite(*e.per_gpu.peak));
        CHECK(*e.per_gpu.peak_allocated >= e.per_gpu.model_states);
        CHECK(*e.per_gpu.temporary_buffers >= 0);
        CHECK(*e.per_gpu.activations >= 0);
      }
}
