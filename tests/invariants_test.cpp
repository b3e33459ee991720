// Invariants over many generated configurations (fixed seed, so a failure reproduces).
#include <random>

#include "test_support.hpp"

#include "trainmem/catalog.hpp"

using namespace trainmem;

namespace {

struct Generated {
  TrainingSetup setup;
  std::string description;
};

// Random but valid setups over the catalog's presets and the main knobs.
std::vector<Generated> generate(std::size_t count) {
  std::mt19937 rng(20261129);
  const auto& models = builtin_catalog().models;
  auto pick = [&](auto n) { return static_cast<std::size_t>(rng() % n); };
  std::vector<Generated> out;
  while (out.size() < count) {
    const ModelPreset& m = models[pick(models.size())];
    const char* methods[] = {"full", "lora", "qlora", "freeze"};
    const char* ckpts[] = {"none", "selective", "full"};
    const char* attentions[] = {"flash", "sdpa", "eager"};
    const char* optimizers[] = {"adamw", "adamw_8bit", "sgd_momentum", "lion", "adafactor"};
    const char* frameworks[] = {"hf_trainer", "torchtune", "deepspeed", "fsdp", "megatron", "torchtitan"};
    const int gpus = 1 << pick(6);
    const std::string doc = std::string(R"({"model": {"preset": ")") + m.id + R"("}, "method": ")" + methods[pick(4)] +
                            R"(", "framework": ")" + frameworks[pick(6)] + R"(", "activation_checkpointing": ")" + ckpts[pick(3)] +
                            R"(", "attention": ")" + attentions[pick(3)] + R"(", "precision": {"optimizer": ")" + optimizers[pick(5)] +
                            R"("}, "batch": {"micro_batch_size": )" + std::to_string(1 + pick(4)) + R"(, "seq_length": )" +
                            std::to_string(128 << pick(5)) + R"(}, "parallel": {"world_size": )" + std::to_string(gpus) +
                            R"(, "zero_stage": )" + std::to_string(pick(4)) + R"(}, "freeze": {"trainable_layers": 1}})";
    ParsedSetup parsed = parse_estimate_document(doc);
    if (!parsed.errors.empty()) continue;  // e.g. a sequence beyond a learned position table
    out.push_back({parsed.setup, doc});
  }
  return out;
}

double model_states(TrainingSetup s) { return estimate(s).per_gpu.model_states; }

// One byte: a difference of sums of doubles (model states less the gathered module) rounds apart
// from the sum it left out by far less.
constexpr double kRounding = 1.0;

}  // namespace

TEST_CASE("invariants hold for generated configurations", "[invariants][property]") {
  for (const auto& [s, doc] : generate(300)) {
    CAPTURE(doc);
    const Estimate e = estimate(s);
    const PerGpu& g = e.per_gpu;
    // Every byte count is finite and non-negative; the peak is at least the model states.
    for (double v : {g.parameters, g.gradients, g.optimizer_states, g.model_states, *g.activations, *g.temporary_buffers,
                     *g.peak_allocated, *g.peak_reserved, *g.peak, e.checkpoint.training_state_bytes.value_or(0.0), e.cpu_bytes_per_node}) {
      CHECK(std::isfinite(v));
      CHECK(v >= 0);
    }
    // All model states are on the device together in some phase, but DeepSpeed ZeRO-3's gathered
    // module and its gradient, which the optimizer step does not hold (model_states.hpp).
    CHECK(*g.peak_allocated + g.paged_optimizer_states.value_or(0) + kRounding >= g.model_states - e.gathered_module_bytes - e.gathered_module_gradient_bytes);
    CHECK(*g.peak >= *g.peak_reserved);
    CHECK(*g.peak_reserved >= *g.peak_allocated);

    // Under one sharding engine, a higher ZeRO stage never raises model states (DeepSpeed's
    // stages 0-3; FSDP's SHARD_GRAD_OP to FULL_SHARD), but for the largest module DeepSpeed's
    // ZeRO-3 gathers, which it counts as a model state (model_states.hpp).
    for (int z = 0; z < 3; ++z) {
      TrainingSetup lo = s, hi = s;
      lo.parallel.zero_stage = z;
      hi.parallel.zero_stage = z + 1;
      lo.parallel.sharding_engine = hi.parallel.sharding_engine = ShardingEngine::deepspeed;
      const Estimate higher = estimate(hi);
      CHECK(higher.per_gpu.model_states - higher.gathered_module_bytes - higher.gathered_module_gradient_bytes <= model_states(lo) + kRounding);
    }
    for (ShardingEngine engine : {ShardingEngine::fsdp, ShardingEngine::fsdp2}) {
      TrainingSetup lo = s, hi = s;
      lo.parallel.zero_stage = 2;
      hi.parallel.zero_stage = 3;
      lo.parallel.sharding_engine = hi.parallel.sharding_engine = engine;
      CHECK(model_states(hi) <= model_states(lo));
    }
    // More GPUs under ZeRO-3 never raise model states per GPU, but for the module DeepSpeed starts
    // to gather beyond one rank.
    TrainingSetup z3 = s, z3_more = s;
    z3.parallel.zero_stage = z3_more.parallel.zero_stage = 3;
    z3_more.parallel.world_size *= 2;
    z3_more.parallel.data_parallel_size *= 2;
    const Estimate more = estimate(z3_more);
    CHECK(more.per_gpu.model_states - more.gathered_module_bytes <= model_states(z3) + kRounding);
    // Checkpointing never raises activations.
    TrainingSetup none = s, full = s;
    none.activation_checkpointing = Checkpointing::none;
    full.activation_checkpointing = Checkpointing::full;
    CHECK(*estimate(full).per_gpu.activations <= *estimate(none).per_gpu.activations);
    // Activations scale linearly with the micro-batch.
    TrainingSetup twice = s;
    twice.batch.micro_batch_size *= 2;
    CHECK(*estimate(twice).per_gpu.activations == Approx(2 * *g.activations).epsilon(1e-9));
    // Offloading the optimizer never raises GPU bytes.
    if (s.parallel.zero_stage >= 1) {
      TrainingSetup off = s;
      off.parallel.offload_optimizer = OffloadTarget::cpu;
      CHECK(model_states(off) <= g.model_states);
      CHECK(*estimate(off).per_gpu.peak_allocated <= *g.peak_allocated);
    }
    // QLoRA <= LoRA <= full for model states.
    TrainingSetup q = s, l = s, f = s;
    q.method = Method::qlora;
    l.method = Method::lora;
    f.method = Method::full;
    CHECK(model_states(q) <= model_states(l));
    CHECK(model_states(l) <= model_states(f));
  }
}
