// When gradients exist in the step: built by backward after a loop that freed them, or kept
// (FrameworkBehaviour::gradients_freed_between_steps, StepTerms::backward_gradients).
#include "test_support.hpp"

using namespace trainmem;
using trainmem::test::kTinyGqaLlama;
using trainmem::test::estimate_from;

namespace {
// Llama-style: embedding and head 128 x 64 each (untied), per layer q 4096 + k, v 2048 each + o 4096
// + gate, up, down 3 x 8192 + two norms 128 = 36,992, x 2 layers, final norm 64: 90,432 parameters.
constexpr double P = 90432;

Estimate run(const std::string& batch_extra, const std::string& extra = "") {
  return estimate_from(R"({"model": {"hf_config": )" + kTinyGqaLlama + R"(}, "framework": "hf_trainer", "attention": "flash",
    "batch": {"micro_batch_size": 2, "seq_length": 32)" + batch_extra + "}" + extra + "}");
}
}  // namespace

TEST_CASE("the HF Trainer's only micro-batch runs forward with no gradient; accumulation keeps them", "[gradients]") {
  // HF Trainer defaults: bf16 weights and gradients (2 B per parameter). transformers trainer.py
  // calls model.zero_grad() after each step, set_to_none=True since PyTorch 2.0: a step of one
  // micro-batch runs its forward without gradients; with gradient accumulation the later
  // micro-batches run beside the first one's, 2 B x 90,432 = 180,864 B more in forward.
  const auto one = run("");
  const auto two = run(R"(, "gradient_accumulation_steps": 2)");
  CHECK(one.per_gpu.gradients == 2 * P);
  CHECK(one.per_gpu.phases->forward + 2 * P == two.per_gpu.phases->forward);
}

TEST_CASE("DeepSpeed keeps its gradient buffers through the step", "[gradients]") {
  // The same HF Trainer run with DeepSpeed as its engine (ZeRO-0, one GPU) keeps its 16-bit
  // gradients from the first step on: its forward holds the 180,864 B the default's does not (its
  // fp32 gradient partition exists in the optimizer step only).
  const auto freed = run("");
  const auto kept = run("", R"(, "parallel": {"sharding_engine": "deepspeed"})");
  CHECK(freed.per_gpu.phases->forward + 2 * P == kept.per_gpu.phases->forward);
}

TEST_CASE("gradients grow layer by layer in backward: the head's first, then each layer's share", "[gradients][timeline]") {
  // Full checkpointing keeps each layer's 64 tokens x 64 x 2 B = 8,192 B input; the points of the
  // backward of layer 2 and of layer 1 differ by the input layer 2 freed (-8,192 B) and the share
  // of the gradients layer 1 built: all but the head's 128 x 64 x 2 = 16,384 B, spread over the two
  // layers, (180,864 - 16,384) / 2 = 82,240 B.
  const auto e = estimate(trainmem::test::setup_from(R"({"model": {"hf_config": )" + kTinyGqaLlama + R"(}, "framework": "hf_trainer",
    "attention": "flash", "activation_checkpointing": "full", "batch": {"micro_batch_size": 2, "seq_length": 32}})"),
                          EstimateDetail::step);
  std::vector<double> backward;
  for (const auto& p : e.timeline)
    if (p.phase == StepPoint::backward) backward.push_back(p.allocated);
  REQUIRE(backward.size() == 2);
  CHECK(backward[1] - backward[0] == 82240.0 - 8192.0);
}

TEST_CASE("zero_grad_set_to_none false keeps the gradients: PyTorch 1.x and loops that zero in place", "[gradients]") {
  // The same one-micro-batch run with the gradients zeroed in place holds them in forward too.
  const auto freed = run("");
  const auto kept = run("", R"(, "zero_grad_set_to_none": false)");
  CHECK(freed.per_gpu.phases->forward + 2 * P == kept.per_gpu.phases->forward);
  // Stated true it is the default.
  CHECK(run("", R"(, "zero_grad_set_to_none": true)").per_gpu.peak_allocated == freed.per_gpu.peak_allocated);
}
