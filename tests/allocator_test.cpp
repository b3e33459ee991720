// Reserved memory from PyTorch's caching-allocator rules (c10/cuda/CUDACachingAllocator.cpp):
// rounding, best-fit reuse of cached blocks with splitting, new segments when nothing fits.
#include "test_support.hpp"

#include "trainmem/allocator.hpp"
#include "trainmem/uncertainty.hpp"

using namespace trainmem;
using trainmem::test::estimate_from;
using trainmem::test::setup_from;
using trainmem::test::kLlama2_7b;

namespace {
constexpr double MiB = 1024.0 * 1024.0;
}

TEST_CASE("tensors over 10 MiB get a segment rounded up to 2 MiB; a rest of 1 MiB or less is lost", "[allocator]") {
  // 11.5 MiB: segment 12 MiB, rest 0.5 MiB <= 1 MiB is not split off: 0.5 MiB lost, x 3 = 1.5 MiB.
  CHECK(rounding_overhead({{11.5 * MiB, 3}}) == 1.5 * MiB);
  // 10.5 MiB: segment 12 MiB, rest 1.5 MiB > 1 MiB stays a free block: nothing lost.
  CHECK(rounding_overhead({{10.5 * MiB, 3}}) == 0);
  // 5 MiB comes from a shared 20 MiB segment; 32 MiB fills its segment exactly.
  CHECK(rounding_overhead({{5 * MiB, 10}, {32 * MiB, 10}}) == 0);
}

TEST_CASE("cached blocks serve requests that fit, best fit and split; the rest need new segments", "[allocator]") {
  // Two cached 64 MiB blocks, three 48 MiB requests: the first two split the 64 MiB blocks (16 MiB
  // rests stay cached), the third fits nowhere and gets a 48 MiB segment.
  BlockPool pool;
  add_blocks(pool, 64 * MiB, 2);
  CHECK(unserved_bytes(pool, {{48 * MiB, 3}}) == 48 * MiB);
  REQUIRE(pool.size() == 1);
  CHECK(pool.front() == std::pair<double, double>{16 * MiB, 2});
  // Best fit keeps carving the smallest block that fits: eight 2 MiB requests take one 16 MiB
  // rest whole (16 / 2 = 8), the ninth the other one.
  CHECK(unserved_bytes(pool, {{2 * MiB, 9}}) == 0);
  REQUIRE(pool.size() == 1);
  CHECK(pool.front() == std::pair<double, double>{14 * MiB, 1});
  // A 5 MiB request with nothing cached that fits: a 20 MiB segment, whose 15 MiB rest stays cached.
  BlockPool empty;
  CHECK(unserved_bytes(empty, {{5 * MiB, 1}}) == 20 * MiB);
  CHECK(empty.front() == std::pair<double, double>{15 * MiB, 1});
}

TEST_CASE("optimizer-step temporaries the freed activation blocks cannot hold grow the reserve", "[allocator]") {
  // Llama-2-7B in fp32 on one GPU, foreach AdamW, 16 tokens: the activation and loss blocks freed by
  // backward are far smaller than any weight, so every _foreach_sqrt temporary (one per weight, in
  // fp32) needs its own segment: q, k, v, o 4096 x 4096 x 4 B = 64 MiB, gate, up, down 11008 x 4096 x
  // 4 B = 172 MiB, embedding and head 32000 x 4096 x 4 B = 500 MiB, all multiples of 2 MiB: the
  // reserve grows by every trainable parameter x 4 B, 6,738,415,616 x 4 = 26,953,662,464 B (norms are
  // below 1 MiB and served from small segments: 65 x 16 KiB tensors fit 2 MiB segments, priced apart).
  const auto e = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "precision": {"param_dtype": "fp32"},
    "batch": {"seq_length": 16}, "overhead": {"fragmentation_fraction": 0}})");
  const double trained_after_backward = std::max(e.per_gpu.phases->forward, e.per_gpu.phases->backward);
  const double norms = (2 * 32 + 1) * 4096.0 * 4;
  CHECK(*e.per_gpu.peak_reserved - trained_after_backward == Approx(6738415616.0 * 4 - norms).margin(2 * MiB * 65));
  CHECK(*e.per_gpu.allocator_cache > 0);
  // The flat fraction is a floor and the band's uncertainty term, not added to the rules.
  const auto flat = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "method": "lora",
    "batch": {"seq_length": 16}})");
  CHECK(*flat.per_gpu.allocator_uncertainty == Approx(0.10 * *flat.per_gpu.peak_allocated));
  CHECK(*flat.per_gpu.peak_reserved == Approx(1.10 * *flat.per_gpu.peak_allocated));
}

TEST_CASE("a batch longer than the cached ones needs new segments for what no larger cached block fits", "[allocator]") {
  // The earlier, shorter batch left each kind one 2 MiB rounding step short: 32 x 14 MiB and
  // 3 x 1198 MiB. In order, the 32 x 16 MiB requests fit the smallest block that holds them, a
  // 1198 MiB one (74 per block: all 32 from one); the 3 x 1200 MiB requests fit nothing: 3600 MiB
  // of new segments. Reserved: 448 + 3594 + 3600 = 7642 MiB against 512 + 3600 = 4112 MiB for
  // batches of one length: 3530 MiB more.
  BlockPool cached;
  const LongerBatch longer = longer_batch_growth({{16 * MiB, 32}, {1200 * MiB, 3}}, cached);
  CHECK(longer.growth == 3530 * MiB);
  // Untouched: the 32 x 14 MiB blocks and two of the 1198 MiB ones, 448 + 2396 = 2844 MiB, which a
  // failed cudaMalloc would free.
  CHECK(longer.releasable == 2844 * MiB);
  // Once the step frees its tensors the earlier batch's blocks are whole again, beside the three new
  // 1200 MiB segments.
  CHECK(cached == BlockPool{{14 * MiB, 32}, {1198 * MiB, 3}, {1200 * MiB, 3}});
  // Requests of 10 MiB or less share 20 MiB segments, which a slightly longer batch reuses.
  CHECK(longer_batch_growth({{5 * MiB, 100}}, cached).growth == 0);
}

TEST_CASE("batches padded to their longest sample reserve the blocks of the shorter ones before", "[allocator][padding]") {
  // Llama-2-7B LoRA, micro-batch 1 at 2048 tokens, full recompute: each layer saves its 2048 x 4096
  // x 2 B = 16 MiB input; the loss holds three fp32 2048 x 32000 x 4 B = 250 MiB blocks (upcast
  // logits, log-softmax output, its gradient) beside PyTorch's two cuBLAS workspaces.
  const std::string setup = R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "method": "lora",
    "batch": {"micro_batch_size": 1, "seq_length": 2048, "padding": "%s"}, "activation_checkpointing": "full",
    "overhead": {"fragmentation_fraction": 0}})";
  auto with_padding = [&](const std::string& padding) {
    std::string doc = setup;
    doc.replace(doc.find("%s"), 2, padding);
    return estimate_from(doc);
  };
  const auto fixed = with_padding("max_length");
  const auto varying = with_padding("longest");
  REQUIRE(*varying.per_gpu.temporary_buffers == 3 * 262144000.0 + 17039360.0);
  // A shorter batch before left 32 x 14 MiB and 3 x 248 MiB cached. The longest batch's 32 x 16 MiB
  // inputs fit the 248 MiB blocks best-fit (15 per block: two blocks cut whole, two from the third);
  // its 3 x 250 MiB loss blocks fit nothing: 750 MiB of new segments. Reserved 448 + 744 + 750 =
  // 1942 MiB against 512 + 750 = 1262 MiB: 680 MiB = 713,031,680 B more.
  CHECK(*varying.per_gpu.peak_reserved - *fixed.per_gpu.peak_reserved == 713031680.0);
  CHECK(*varying.per_gpu.peak_allocated == *fixed.per_gpu.peak_allocated);
  // The 32 x 14 MiB blocks stay whole: 448 MiB = 469,762,048 B that a failed cudaMalloc frees, so the
  // reserved band reaches that far below the estimate.
  CHECK(*varying.per_gpu.allocator_releasable == 469762048.0);
  const auto band = uncertainty_band(setup_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "method": "lora",
    "batch": {"micro_batch_size": 1, "seq_length": 2048, "padding": "longest"}, "activation_checkpointing": "full",
    "overhead": {"fragmentation_fraction": 0}})"), varying);
  REQUIRE(band);
  const auto term = std::find_if(band->terms.begin(), band->terms.end(), [](const UncertaintyTerm& t) { return t.source == "allocator_fragmentation"; });
  REQUIRE(term != band->terms.end());
  CHECK(term->below == 469762048.0);
}
