// One training step point by point (per_gpu.timeline), what is alive at the peak
// (per_gpu.peak_breakdown) and each pipeline stage's budget (pipeline_stages).
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

using namespace trainmem;
using trainmem::test::kTinyLlama;
using trainmem::test::setup_from;

namespace {

// meta-llama shapes cut down to two layers: h = 64, I = 128, 4 heads, V = 128, untied head.
// Parameters: embedding 128 x 64 = 8,192; per layer q, k, v, o 4 x 64 x 64 = 16,384 + gate, up,
// down 3 x 64 x 128 = 24,576 + two norms 128 = 41,088, two layers 82,176; final norm 64;
// lm_head 8,192: 98,624 in all.

Estimate detailed(const std::string& document) { return estimate(setup_from(document), EstimateDetail::step); }

double max_of(const std::vector<TimelinePoint>& points, std::initializer_list<StepPoint> phases, double TimelinePoint::*field) {
  double best = -1;
  for (const auto& p : points)
    if (std::find(phases.begin(), phases.end(), p.phase) != phases.end()) best = std::max(best, p.*field);
  return best;
}

// The invariants every detailed estimate with an architecture keeps.
void check_step_invariants(const Estimate& e) {
  const PerGpu& g = e.per_gpu;
  REQUIRE(g.phases);
  REQUIRE(g.peak_allocated);
  const auto& t = e.timeline;
  const auto layers = static_cast<std::size_t>(e.layers_on_gpu);
  REQUIRE(!t.empty());
  CHECK(t.size() <= 2 * layers + 4);
  CHECK(t.front().phase == StepPoint::load);
  CHECK(t.back().phase == StepPoint::optimizer_step);
  // Forward layers count up from 1, backward layers down to 1.
  std::int64_t forward_next = 1, backward_next = static_cast<std::int64_t>(layers);
  for (const auto& p : t) {
    if (p.phase == StepPoint::forward) CHECK(p.layer == forward_next++);
    if (p.phase == StepPoint::backward) CHECK(p.layer == backward_next--);
    CHECK(p.reserved >= p.allocated);
  }
  CHECK(forward_next == static_cast<std::int64_t>(layers) + 1);
  CHECK(backward_next == 0);
  // Maxima: exactly the phase peaks (loss_forward belongs to forward, loss_backward to backward).
  CHECK(max_of(t, {StepPoint::load}, &TimelinePoint::allocated) == g.phases->load);
  CHECK(max_of(t, {StepPoint::forward, StepPoint::loss_forward}, &TimelinePoint::allocated) == g.phases->forward);
  CHECK(max_of(t, {StepPoint::backward, StepPoint::loss_backward}, &TimelinePoint::allocated) == g.phases->backward);
  CHECK(max_of(t, {StepPoint::optimizer_step}, &TimelinePoint::allocated) == g.phases->optimizer_step);
  const auto all = {StepPoint::load, StepPoint::forward, StepPoint::loss_forward, StepPoint::loss_backward, StepPoint::backward,
                    StepPoint::optimizer_step};
  CHECK(max_of(t, all, &TimelinePoint::allocated) == *g.peak_allocated);
  CHECK(max_of(t, all, &TimelinePoint::reserved) == *g.peak_reserved);
  for (std::size_t i = 1; i < t.size(); ++i) CHECK(t[i].reserved >= t[i - 1].reserved);  // cached blocks stay reserved

  // The breakdown: eight components in order, partial sums on the peaks.
  const auto& b = e.peak_breakdown;
  REQUIRE(b.size() == 8);
  double sum = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    CHECK(b[i].bytes >= 0);
    CHECK(b[i].bytes == std::round(b[i].bytes));
    sum += b[i].bytes;
    if (i == 4) CHECK(sum == std::round(*g.peak_allocated));
    if (i == 5) CHECK(sum == std::round(*g.peak_reserved));
  }
  CHECK(sum == std::round(*g.peak));
  CHECK(b[5].component == PeakComponentKind::allocator);
  const double userbuffers = g.userbuffers.value_or(0.0);
  CHECK(b[6].bytes == std::round(*g.peak - userbuffers) - std::round(*g.peak_reserved));
  CHECK(b[7].component == PeakComponentKind::userbuffers);
  CHECK(b[7].bytes == std::round(*g.peak) - std::round(*g.peak - userbuffers));
  // No activations are alive at a load or optimizer-step peak.
  if (g.peak_phase == "optimizer_step" || g.peak_phase == "load") CHECK(b[3].bytes == 0);

  // Stages: the most loaded one is the one per_gpu describes, its peak the largest.
  REQUIRE(!e.pipeline_stages.empty());
  double highest = 0;
  for (const auto& s : e.pipeline_stages) highest = std::max(highest, s.peak.value_or(0.0));
  CHECK(highest == *g.peak);
  const StageBudget& mine = e.pipeline_stages.at(g.pipeline_stage);
  CHECK(*mine.peak == *g.peak);
  CHECK(*mine.peak_allocated == *g.peak_allocated);
  CHECK(static_cast<double>(*mine.layers) == e.layers_on_gpu);
}

}  // namespace

TEST_CASE("timeline of a two-layer model, worked out by hand", "[timeline]") {
  // One GPU, HF Trainer defaults (bf16 weights and gradients, fp32 master and Adam moments:
  // 2 + 2 + 12 = 16 B per parameter), micro-batch 1 x 16 tokens, full checkpointing, flash attention.
  const std::string base = R"({"model": {"hf_config": )" + kTinyLlama + R"(}, "batch": {"micro_batch_size": 1, "seq_length": 16},
    "attention": "flash", "activation_checkpointing": )";
  const Estimate e = detailed(base + R"("full"})");
  // What full recompute rebuilds in backward: one layer's activations without checkpointing.
  const double rebuilt = *estimate(setup_from(base + R"("none"})")).per_gpu.activations_per_layer;

  const double P = 98624, T = 16, h = 64, V = 128;
  // The HF Trainer freed the gradients after the last step (zero_grad set_to_none) and the step has
  // one micro-batch: forward holds weights, master and moments only (14 B per parameter), backward
  // builds the 2 B gradients: the head's V x h x 2 = 16,384 B once the loss's backward is done,
  // then the rest (embedding and final norm included) spread over the two layers, 90,432 B each.
  const double states = 14 * P;                   // 1,380,736 B
  const double head_grads = V * h * 2, layer_share = (2 * P - head_grads) / 2;
  const double layer = T * h * 2;                 // full checkpointing keeps each block's bf16 input: 2,048 B
  const double head = T * h * (4 + 2 + 2) + T * 4;  // final RMSNorm input (bf16 + fp32 copy), lm_head input, rstd: 8,256 B
  const double logits = T * V;                    // 2,048 logits
  const double layer_grads = 2 * T * h * 2 + 3 * T * 128 * 2;  // residual and op gradients + three [T, I] MLP gradients: 16,384 B
  // PyTorch's two cuBLAS workspaces (the Python thread's and the autograd thread's; no GPU named:
  // the ":4096:2:16:8" default, 2 x 4096 KiB + 8 x 16 KiB = 8,519,680 B each), from the first
  // forward on, not while loading.
  const double workspaces = 2 * (2 * 4096 * 1024 + 8 * 16 * 1024);  // 17,039,360 B
  REQUIRE(e.timeline.size() == 8);                // 2 L + 4 on the last (only) stage
  const std::vector<std::pair<StepPoint, double>> expected = {
      {StepPoint::load, 2 * P},                                          // bf16 weights: 197,248
      {StepPoint::forward, states + head + layer + workspaces},          // 18,430,400
      {StepPoint::forward, states + head + 2 * layer + workspaces},      // 18,432,448
      {StepPoint::loss_forward, states + head + 2 * layer + 10 * logits + workspaces},  // HF fp32-upcast loss: 10 B per logit
      // and 12 B per logit in its backward (more than the head's backward: its gradient + 2 B per logit)
      {StepPoint::loss_backward, states + head + 2 * layer + 12 * logits + workspaces},
      {StepPoint::backward, states + (head_grads + layer_share) + (head + 2 * layer) + rebuilt + layer_grads + workspaces},
      {StepPoint::backward, states + (head_grads + 2 * layer_share) + (head + layer) + rebuilt + layer_grads + workspaces},
      // + fp32 gradient copies (4 B) + foreach AdamW sqrt temporaries (4 B)
      {StepPoint::optimizer_step, 24 * P + workspaces},
  };
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("point " << i);
    CHECK(e.timeline[i].phase == expected[i].first);
    CHECK(e.timeline[i].allocated == expected[i].second);
  }
  CHECK(e.timeline[1].layer == 1);
  CHECK(e.timeline[6].layer == 1);
  // reserved: the highest allocation so far in the proportion reserved / allocated of the peak.
  const double ratio = *e.per_gpu.peak_reserved / *e.per_gpu.peak_allocated;
  CHECK(e.timeline[0].reserved == Approx(2 * P * ratio));
  // backward of layer 1 builds its 90,432 B of gradients and frees its 2,048 B input: the highest so far
  CHECK(e.timeline[6].allocated > e.timeline[5].allocated);
  CHECK(e.timeline[6].reserved == Approx(e.timeline[6].allocated * ratio));
  CHECK(e.timeline[7].reserved == *e.per_gpu.peak_reserved);
  // The optimizer step is the peak: states (with the step's 8 B per parameter and the workspaces as
  // temporaries), no activations.
  CHECK(e.per_gpu.peak_phase == "optimizer_step");
  const auto& b = e.peak_breakdown;
  CHECK(b[0].bytes == 2 * P);
  CHECK(b[1].bytes == 2 * P);
  CHECK(b[2].bytes == 12 * P);
  CHECK(b[3].bytes == 0);
  CHECK(b[4].bytes == 8 * P + workspaces);
  check_step_invariants(e);
}

TEST_CASE("pipeline stages: 1F1B keeps earlier micro-batches alive; the busiest stage is per_gpu's", "[timeline]") {
  // Llama-3-8B on PP 2 (16 layers each), 8 micro-batches: 1F1B keeps min(p - stage, m) = 2 micro-batches
  // in flight on stage 0 and 1 on stage 1 (Narayanan et al. 2021, §2.2).
  const Estimate e = detailed(R"({"model": {"preset": "llama-3-8b"}, "parallel": {"world_size": 2, "pipeline_parallel_size": 2},
    "batch": {"micro_batch_size": 1, "seq_length": 4096, "gradient_accumulation_steps": 8}, "activation_checkpointing": "full"})");
  REQUIRE(e.pipeline_stages.size() == 2);
  CHECK(*e.pipeline_stages[0].layers == 16);
  CHECK(*e.pipeline_stages[1].layers == 16);
  // Stage 0 saves 2 micro-batches of 16 layers' block inputs (4096 x 4096 x 2 B each); its timeline
  // starts forward with the earlier micro-batch's 16 layers alive.
  const double block_input = 4096.0 * 4096 * 2;
  CHECK(*e.pipeline_stages[0].activations == 2 * 16 * block_input);
  check_step_invariants(e);
  if (e.per_gpu.pipeline_stage == 0) {
    CHECK(e.timeline.size() == 2 * 16 + 2);  // no loss on the first stage
    CHECK(e.timeline[2].allocated - e.timeline[1].allocated == block_input);
  }
}

TEST_CASE("timeline invariants across setups", "[timeline][property]") {
  const std::vector<std::string> setups = {
      // ZeRO-3 on 8 GPUs: gathered layers in forward and backward.
      R"({"model": {"preset": "llama-3.1-8b"}, "parallel": {"world_size": 8, "zero_stage": 3}, "batch": {"seq_length": 8192},
          "activation_checkpointing": "full"})",
      // DeepSpeed ZeRO-3: the fp32 gradient partition only in the optimizer step.
      R"({"model": {"preset": "llama-3.1-8b"}, "framework": "deepspeed", "parallel": {"world_size": 8, "zero_stage": 3},
          "batch": {"seq_length": 1024}})",
      // LoRA, eager attention (score transients inside each layer).
      R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora", "attention": "eager", "batch": {"seq_length": 2048}})",
      // QLoRA with a paged optimizer on a 24 GB card.
      R"({"model": {"preset": "llama-3.1-8b"}, "method": "qlora", "precision": {"optimizer": "paged_adamw_8bit"},
          "gpu": {"memory_bytes": 25769803776}})",
      // MoE with a dense first layer (DeepSeek-V2-Lite), expert parallelism.
      R"({"model": {"preset": "deepseek-v2-lite"}, "parallel": {"world_size": 8, "zero_stage": 1, "expert_parallel_size": 8},
          "batch": {"seq_length": 4096}, "activation_checkpointing": "selective"})",
      // Mixtral on PP 4 x TP 4, 1F1B.
      R"({"model": {"preset": "mixtral-8x7b"}, "parallel": {"world_size": 64, "zero_stage": 1, "tensor_parallel_size": 4,
          "pipeline_parallel_size": 4}, "batch": {"micro_batch_size": 2, "seq_length": 4096, "gradient_accumulation_steps": 16}})",
      // Interleaved 1F1B and GPipe.
      R"({"model": {"preset": "llama-3-70b"}, "framework": "megatron", "parallel": {"world_size": 32, "tensor_parallel_size": 8,
          "pipeline_parallel_size": 4, "pipeline_schedule": "interleaved_1f1b", "virtual_pipeline_stages": 2},
          "batch": {"seq_length": 4096, "gradient_accumulation_steps": 8}})",
      // Megatron's --tp-comm-overlap: userbuffers outside the allocator, the breakdown's eighth part.
      R"({"model": {"preset": "llama-3-70b"}, "framework": "megatron", "parallel": {"world_size": 32, "tensor_parallel_size": 8,
          "sequence_parallel": true, "tp_comm_overlap": true}, "batch": {"seq_length": 4096}})",
      R"({"model": {"preset": "llama-3-8b"}, "parallel": {"world_size": 4, "pipeline_parallel_size": 4, "pipeline_schedule": "gpipe"},
          "batch": {"seq_length": 2048, "gradient_accumulation_steps": 4}, "activation_checkpointing": "none"})",
      // A hybrid (Mamba and attention layers) and a vision-language model (vision tower on stage 0).
      R"({"model": {"preset": "jamba-1.5-mini"}, "parallel": {"world_size": 8, "zero_stage": 3}, "batch": {"seq_length": 4096}})",
      R"({"model": {"preset": "qwen2.5-vl-7b"}, "batch": {"seq_length": 2048}, "activation_checkpointing": "full"})",
      // Activation offload (torchtune), a partial checkpointed_layers, a full copy per GPU at load.
      R"({"model": {"preset": "llama-3.2-1b"}, "framework": "torchtune", "activation_offload": true, "activation_checkpointing": "full"})",
      R"({"model": {"preset": "llama-3.2-1b"}, "activation_checkpointing": "full", "checkpointed_layers": 5})",
      R"({"model": {"preset": "llama-2-7b"}, "model_loading": "full_copy_per_gpu", "parallel": {"world_size": 64, "zero_stage": 3},
          "batch": {"seq_length": 16}, "activation_checkpointing": "full"})",
  };
  for (const auto& document : setups) {
    INFO(document);
    check_step_invariants(detailed(document));
  }
}

TEST_CASE("peak breakdown at a forward/backward peak carries the activations", "[timeline]") {
  // Llama-3.1-8B LoRA at 8k tokens without checkpointing: the activations dominate, the peak is in
  // backward or forward, and the breakdown's activations are per_gpu.activations.
  const Estimate e = detailed(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora", "batch": {"seq_length": 8192},
    "activation_checkpointing": "none"})");
  REQUIRE((e.per_gpu.peak_phase == "backward" || e.per_gpu.peak_phase == "forward"));
  CHECK(e.peak_breakdown[3].bytes == Approx(*e.per_gpu.activations).margin(1));
  CHECK(e.peak_breakdown[4].bytes == Approx(*e.per_gpu.temporary_buffers).margin(1));
  check_step_invariants(e);
}

TEST_CASE("no timeline without an architecture; the searches skip the detail", "[timeline]") {
  const Estimate counted = estimate(setup_from(R"({"model": {"num_parameters": 7000000000}})"), EstimateDetail::step);
  CHECK(counted.timeline.empty());
  CHECK(counted.peak_breakdown.empty());
  REQUIRE(counted.pipeline_stages.size() == 1);
  CHECK_FALSE(counted.pipeline_stages[0].layers);
  CHECK(counted.pipeline_stages[0].parameters == counted.per_gpu.parameters);
  // A config may state 1e8 layers: the points would grow with them, so there are none beyond 1,024.
  const Estimate deep = estimate(setup_from(R"({"model": {"hf_config": {"model_type": "llama", "hidden_size": 8,
    "intermediate_size": 8, "num_attention_heads": 2, "num_hidden_layers": 1025, "vocab_size": 16}}})"), EstimateDetail::step);
  CHECK(deep.timeline.empty());
  CHECK(deep.peak_breakdown.size() == 8);
  const Estimate plain = estimate(setup_from(R"({"model": {"preset": "llama-3-8b"}})"));
  CHECK(plain.timeline.empty());
  CHECK(plain.pipeline_stages.empty());
}

TEST_CASE("the output document has per_gpu.timeline, per_gpu.peak_breakdown and pipeline_stages", "[timeline][json]") {
  const JsonResult r = estimate_json(R"({"model": {"preset": "llama-3.1-8b"}, "parallel": {"world_size": 8, "zero_stage": 3}})");
  REQUIRE(r.ok);
  const auto doc = nlohmann::json::parse(r.json);
  const auto& g = doc["per_gpu"];
  const auto& t = g["timeline"];
  REQUIRE(t.is_array());
  REQUIRE(t.size() == 2 * 32 + 4);  // 32 layers, the only stage is the last
  CHECK(t[0] == nlohmann::json{{"phase", "load"}, {"allocated", g["phases"]["load"]}, {"reserved", t[0]["reserved"]}});
  CHECK(t[1]["phase"] == "forward");
  CHECK(t[1]["layer"] == 1);
  CHECK(t[33]["phase"] == "loss_forward");
  CHECK_FALSE(t[33].contains("layer"));
  CHECK(t[34]["phase"] == "loss_backward");
  CHECK(t[35]["layer"] == 32);
  CHECK(t[67]["phase"] == "optimizer_step");
  std::int64_t allocated = 0, reserved = 0;
  for (const auto& p : t) {
    allocated = std::max(allocated, p["allocated"].get<std::int64_t>());
    reserved = std::max(reserved, p["reserved"].get<std::int64_t>());
  }
  CHECK(allocated == g["peak_allocated"].get<std::int64_t>());
  CHECK(reserved == g["peak_reserved"].get<std::int64_t>());
  const std::vector<std::string> names = {"parameters", "activations", "optimizer_states", "gradients", "temporary_buffers", "allocator", "cuda_context", "userbuffers"};
  std::int64_t sum = 0;
  REQUIRE(g["peak_breakdown"].size() == 8);
  for (const auto& c : g["peak_breakdown"]) {
    CHECK(std::find(names.begin(), names.end(), c["component"].get<std::string>()) != names.end());
    sum += c["bytes"].get<std::int64_t>();
  }
  CHECK(sum == g["peak"].get<std::int64_t>());
  REQUIRE(doc["pipeline_stages"].size() == 1);
  CHECK(doc["pipeline_stages"][0]["layers"] == 32);
  CHECK(doc["pipeline_stages"][0]["peak"] == g["peak"]);
  // Without an architecture: null.
  const auto counted = nlohmann::json::parse(estimate_json(R"({"model": {"num_parameters": 7000000000}})").json);
  CHECK(counted["per_gpu"]["timeline"].is_null());
  CHECK(counted["per_gpu"]["peak_breakdown"].is_null());
}
