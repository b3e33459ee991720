// Checkpoint disk budgets.
#include "test_support.hpp"

using namespace trainmem;
using trainmem::test::estimate_from;
using trainmem::test::GiB;

namespace {
using trainmem::test::kLlama2_7b;
constexpr double kN = 6738415616.0;
constexpr double kMetadata = 16.0 * 1024;
}  // namespace

TEST_CASE("the 7B example: ~14 GB of bf16 weights, a full optimizer checkpoint near 100 GB", "[checkpoint][seed]") {
  const auto e = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + "}}");
  CHECK(e.checkpoint.inference_weights_bytes == 2 * kN);  // 13.5 GB
  // N (b_p + b_o) + metadata = 6,738,415,616 x (2 + 12) + 16 KiB = 94.3 GB: fp32 master + Adam m, v.
  CHECK(e.checkpoint.training_state_bytes == 14 * kN + kMetadata);
  const auto seven = estimate_from(R"({"model": {"num_parameters": 7e9}})");
  CHECK(seven.checkpoint.inference_weights_bytes == 14e9);
  CHECK(seven.checkpoint.training_state_bytes == 98e9 + kMetadata);
}

TEST_CASE("ZeRO shards the optimizer files per rank; rank 0 writes the weights below ZeRO-3", "[checkpoint]") {
  const auto z2 = estimate_from(R"({"model": {"num_parameters": 8e9}, "parallel": {"world_size": 8, "zero_stage": 2}})");
  CHECK(z2.checkpoint.largest_rank_bytes == 16e9 + 96e9 / 8 + kMetadata);
  // Full sharding under the HF Trainer's FSDP: accelerate v0.30+ upcasts the trainable bf16 weights to
  // fp32 (huggingface/accelerate#2674), which are the master copy: 4 B of weights + 8 B of Adam
  // moments per parameter, 8e9 x 12 = 96 GB in all, an eighth per rank.
  const auto z3 = estimate_from(R"({"model": {"num_parameters": 8e9}, "parallel": {"world_size": 8, "zero_stage": 3}})");
  CHECK(z3.checkpoint.largest_rank_bytes == 96e9 / 8 + kMetadata);
  CHECK(z3.checkpoint.training_state_bytes == 96e9 + 8 * kMetadata);
  // DeepSpeed's ZeRO-3 keeps the bf16 weights beside the fp32 master: 8e9 x (2 + 12) = 112 GB.
  const auto ds3 = estimate_from(R"({"model": {"num_parameters": 8e9}, "framework": "deepspeed", "parallel": {"world_size": 8, "zero_stage": 3}})");
  CHECK(ds3.checkpoint.largest_rank_bytes == (16e9 + 96e9) / 8 + kMetadata);
  CHECK(ds3.checkpoint.training_state_bytes == 112e9 + 8 * kMetadata);
  // torchtitan's FSDP2 parameters are fp32 (its MixedPrecisionPolicy gathers bf16 copies to
  // compute): the distributed checkpoint holds them and the Adam moments, 8e9 x (4 + 8) = 96 GB.
  const auto titan = estimate_from(R"({"model": {"num_parameters": 8e9}, "framework": "torchtitan", "parallel": {"world_size": 8, "zero_stage": 3}})");
  CHECK(titan.checkpoint.training_state_bytes == 96e9 + 8 * kMetadata);
  CHECK(titan.checkpoint.largest_rank_bytes == 96e9 / 8 + kMetadata);
}

TEST_CASE("LoRA saves exclude the frozen backbone unless told otherwise (dreamzero0/dreamzero#90)", "[checkpoint][faults]") {
  // Adapters in bf16 (PEFT's autocast_adapter_dtype=False), as the figures below take them.
  const std::string base = R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "method": "lora",
    "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"], "adapter_dtype": "bf16"}, "parallel": {"world_size": 8, "zero_stage": 2})";
  const auto excluded = estimate_from(base + "}");
  const auto included = estimate_from(base + R"(, "checkpoint": {"exclude_frozen_parameters": false}})");
  // adapter: 4,194,304 params x (2 bf16 + 12 master/Adam) + 8 ranks' metadata
  CHECK(excluded.checkpoint.training_state_bytes == 4194304.0 * 14 + 8 * kMetadata);
  CHECK(*included.checkpoint.training_state_bytes - *excluded.checkpoint.training_state_bytes == 2 * kN);
  CHECK(*excluded.checkpoint.adapter_bytes == 4194304.0 * 2);
  // Their dtype not given, over bf16 weights PEFT upcasts them to fp32 (autocast_adapter_dtype),
  // and an fp32 model's are fp32 like its trainable weights: 4 B each either way.
  const std::string unstated = R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "method": "lora",
    "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"]}, "parallel": {"world_size": 8, "zero_stage": 2})";
  CHECK(*estimate_from(unstated + "}").checkpoint.adapter_bytes == 4194304.0 * 4);
  const auto fp32 = estimate_from(unstated + R"(, "precision": {"param_dtype": "fp32"}})");
  CHECK(*fp32.checkpoint.adapter_bytes == 4194304.0 * 4);
}

TEST_CASE("keep-last-K disk and how many checkpoints fit", "[checkpoint]") {
  const auto e = estimate_from(R"({"model": {"num_parameters": 7e9}, "checkpoint": {"save": "weights", "keep_last": 3,
    "free_disk_bytes": 100000000000, "node_ram_bytes": 1000}})");
  CHECK(e.checkpoint.bytes_per_checkpoint == 14e9);
  CHECK(e.checkpoint.keep_last_bytes == 42e9);
  CHECK(*e.checkpoint.checkpoints_that_fit == 7);  // floor(100 / 14)
  CHECK(e.cpu_ram_fits == true);                   // nothing offloaded
}

TEST_CASE("adapters on a bare parameter count: the files that hold them have no size", "[checkpoint]") {
  // QLoRA on {"num_parameters": 7e9}: the adapters' count is unknown, so the resumable state (the
  // adapters, their optimizer states, 16 KiB of metadata) is too, and so is how many fit on a disk;
  // it said 16,384 B and 61,035,156 checkpoints on 1 TB. The merged weights (7e9 x 2 B bf16) are known.
  const auto e = estimate_from(R"({"model": {"num_parameters": 7e9}, "method": "qlora", "checkpoint": {"free_disk_bytes": 1e12}})");
  CHECK_FALSE(e.checkpoint.training_state_bytes);
  CHECK_FALSE(e.checkpoint.largest_rank_bytes);
  CHECK_FALSE(e.checkpoint.bytes_per_checkpoint);
  CHECK_FALSE(e.checkpoint.keep_last_bytes);
  CHECK_FALSE(e.checkpoint.checkpoints_that_fit);
  CHECK(e.checkpoint.inference_weights_bytes == 14e9);
  const auto weights = estimate_from(R"({"model": {"num_parameters": 7e9}, "method": "lora",
    "checkpoint": {"save": "weights", "free_disk_bytes": 1e11}})");
  CHECK(*weights.checkpoint.bytes_per_checkpoint == 14e9);
  CHECK(*weights.checkpoint.checkpoints_that_fit == 7);  // floor(100 / 14)
}

TEST_CASE("an adapter-only save needs an adapter", "[checkpoint][errors]") {
  const auto errors = parse_estimate_document(R"({"model": {"num_parameters": 7e9}, "checkpoint": {"save": "adapter"}})").errors;
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].field == "checkpoint.save");
}

TEST_CASE("an HF Trainer checkpoint on DeepSpeed holds the HF weights beside DeepSpeed's state", "[checkpoint][deepspeed]") {
  // 8e9 parameters, bf16, ZeRO-3 on 8 GPUs: DeepSpeed's state is 16-bit model shards (2 B) plus fp32
  // master and Adam moments (12 B) = 112e9 B, plus the HF save_model weights 2 x 8e9 = 16e9 B: 128e9 B
  // and 8 ranks' metadata.
  const auto hf_ds = estimate_from(R"({"model": {"num_parameters": 8e9}, "parallel": {"world_size": 8, "zero_stage": 3,
    "sharding_engine": "deepspeed"}})");
  CHECK(hf_ds.checkpoint.training_state_bytes == 128e9 + 8 * kMetadata);
  // DeepSpeed driven by its own loop writes its state only.
  const auto ds = estimate_from(R"({"model": {"num_parameters": 8e9}, "framework": "deepspeed", "parallel": {"world_size": 8, "zero_stage": 3}})");
  CHECK(ds.checkpoint.training_state_bytes == 112e9 + 8 * kMetadata);
}
