// Transformer Engine's userbuffers under Megatron's --tp-comm-overlap (engine/include/trainmem/
// userbuffers.hpp): outside the caching allocator, so in peak and not in peak_reserved.
#include <catch2/catch.hpp>

#include <string>

#include "test_support.hpp"

namespace {

// Llama-3-70B (hidden_size 8192) under Megatron, TP 8 with sequence parallelism, on H100s.
std::string ub_megatron_70b(const std::string& extra) {
  return R"({"model": {"preset": "llama-3-70b"}, "framework": "megatron", "gpu": "h100-sxm-80gb",
    "batch": {"micro_batch_size": 1, "seq_length": 8192},
    "parallel": {"world_size": 64, "tensor_parallel_size": 8, "sequence_parallel": true)" + extra + "}}";
}

}  // namespace

TEST_CASE("userbuffers: 12 buffers of seq x micro-batch / CP x hidden and the communicator's flags", "[userbuffers]") {
  // One buffer holds 8192 x 1 / 1 rows x 8192 = 67,108,864 elements. bf16: 8 all-gather + 4
  // reduce-scatter buffers x 2 bytes = 24 bytes per element = 1,610,612,736; the shared
  // communicator's flags 4 x (14,400 + 791,552) = 3,223,808 (TE userbuffers.h); 1,613,836,544 in all.
  const auto on = trainmem::test::estimate_from(ub_megatron_70b(R"(, "tp_comm_overlap": true)"));
  REQUIRE(on.per_gpu.userbuffers);
  CHECK(*on.per_gpu.userbuffers == 1613836544.0);
  // Outside the allocator: the peak grows by it beside what the allocator holds. The allocator
  // holds only Transformer Engine's cuBLAS workspace repeated for the two more userbuffers streams
  // (initialize_ub: 3 x 33,554,432 B instead of one; cublas_workspaces.hpp): + 67,108,864 B.
  const auto off = trainmem::test::estimate_from(ub_megatron_70b(""));
  CHECK_FALSE(off.per_gpu.userbuffers);
  CHECK(*on.per_gpu.peak_allocated - *off.per_gpu.peak_allocated == 67108864.0);
  const double reserved_growth = *on.per_gpu.peak_reserved - *off.per_gpu.peak_reserved;
  CHECK(reserved_growth >= 67108864.0);
  CHECK(*on.per_gpu.peak == Approx(*off.per_gpu.peak + reserved_growth + 1613836544.0).epsilon(1e-12));

  // FP8: the all-gather buffers in uint8, 8 x 1 + 4 x 2 = 16 bytes per element:
  // 1,073,741,824 + 3,223,808 = 1,076,965,632.
  const auto fp8 = trainmem::test::estimate_from(
      R"({"model": {"preset": "llama-3-70b"}, "framework": "megatron", "gpu": "h100-sxm-80gb", "precision": {"fp8_compute": true},
        "batch": {"micro_batch_size": 1, "seq_length": 8192},
        "parallel": {"world_size": 64, "tensor_parallel_size": 8, "sequence_parallel": true, "tp_comm_overlap": true}})");
  REQUIRE(fp8.per_gpu.userbuffers);
  CHECK(*fp8.per_gpu.userbuffers == 1076965632.0);

  // Context parallel 2 halves the rows: 4096 x 8192 x 24 + 3,223,808 = 808,530,176.
  const auto cp = trainmem::test::estimate_from(ub_megatron_70b(R"(, "context_parallel_size": 2, "tp_comm_overlap": true)"));
  REQUIRE(cp.per_gpu.userbuffers);
  CHECK(*cp.per_gpu.userbuffers == 808530176.0);
}

TEST_CASE("userbuffers: the document lists them and the peak breakdown ends with them", "[userbuffers]") {
  const auto doc = trainmem::test::estimate_doc(ub_megatron_70b(R"(, "tp_comm_overlap": true)"));
  const auto& g = doc.at("per_gpu");
  CHECK(g.at("userbuffers") == 1613836544.0);
  const auto& parts = g.at("peak_breakdown");
  REQUIRE(parts.size() == 8);
  CHECK(parts[7].at("component") == "userbuffers");
  CHECK(parts[7].at("bytes") == 1613836544.0);
  // torchtitan's async tensor parallel (the same field there) uses symmetric memory, not these.
  const auto titan = trainmem::test::estimate_doc(
      R"({"model": {"preset": "llama-3-70b"}, "framework": "torchtitan", "gpu": "h100-sxm-80gb",
        "parallel": {"world_size": 64, "tensor_parallel_size": 8, "sequence_parallel": true, "tp_comm_overlap": true}})");
  CHECK(titan.at("per_gpu").at("userbuffers").is_null());
}

TEST_CASE("userbuffers: the band reaches Transformer Engine before v2.7, two buffers fewer", "[userbuffers][band]") {
  // proj_wgrad and fc2_wgrad (TransformerEngine#1982, v2.7): 2 x 67,108,864 elements x 2 bytes
  // (bf16) = 268,435,456 bytes below the peak, nothing above.
  const auto doc = trainmem::test::estimate_doc(ub_megatron_70b(R"(, "tp_comm_overlap": true)"));
  const nlohmann::json* term = nullptr;
  for (const auto& t : doc.at("uncertainty"))
    if (t.at("source") == "framework_version_userbuffers") term = &t;
  REQUIRE(term);
  CHECK(term->at("below_bytes") == 268435456.0);
  CHECK(term->at("above_bytes") == 0.0);
  CHECK(term->at("level") == "peak");
  CHECK(term->at("alternative").is_null());
  // Without the overlap there is no such term.
  const auto without = trainmem::test::estimate_doc(ub_megatron_70b(""));
  for (const auto& t : without.at("uncertainty")) CHECK(t.at("source") != "framework_version_userbuffers");
}

TEST_CASE("userbuffers: a shorter sequence at the band's low end shrinks them too", "[userbuffers][band]") {
  // seq_length unstated: the band's low end takes 1,024 tokens (unstated_seq_length), where the
  // userbuffers are (8,192 - 1,024) x 8,192 x 24 = 1,409,286,144 bytes smaller than at 8,192.
  const auto doc = trainmem::test::estimate_doc(R"({"model": {"preset": "llama-3-70b"}, "framework": "megatron",
    "gpu": "h100-sxm-80gb", "activation_checkpointing": "full", "batch": {"micro_batch_size": 1},
    "parallel": {"world_size": 64, "tensor_parallel_size": 8, "sequence_parallel": true, "tp_comm_overlap": true}})");
  const auto& g = doc.at("per_gpu");
  REQUIRE(g.at("userbuffers") == 1613836544.0);
  const nlohmann::json* term = nullptr;
  for (const auto& t : doc.at("uncertainty"))
    if (t.at("source") == "unstated_seq_length") term = &t;
  REQUIRE(term);
  const double allocated = g.at("peak_allocated").get<double>(), reserved = g.at("peak_reserved").get<double>();
  const double allocated_drop = allocated - g.at("peak_allocated_range").at("low").get<double>();
  CHECK(term->at("below_bytes").get<double>() - allocated_drop * reserved / allocated == Approx(1409286144.0).margin(2.0));
}
