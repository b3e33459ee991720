// Engine speed: nanoseconds per estimate from an already parsed setup (no JSON), native.
//   build-native/bench/engine_bench
#include <benchmark/benchmark.h>

#include "trainmem/estimate.hpp"
#include "trainmem/json_api.hpp"
#include "trainmem/solver.hpp"
#include "trainmem/step_time.hpp"
#include "trainmem/strategy_search.hpp"

namespace {

trainmem::TrainingSetup setup(const char* document) { return trainmem::parse_estimate_document(document).setup; }

void BM_EstimateLlama3_8B_Zero3(benchmark::State& state) {
  const auto s = setup(R"({"model": {"preset": "llama-3-8b"}, "parallel": {"world_size": 8, "zero_stage": 3},
    "batch": {"micro_batch_size": 1, "seq_length": 8192}, "activation_checkpointing": "full", "gpu": "h100-sxm-80gb"})");
  for (auto _ : state) benchmark::DoNotOptimize(trainmem::estimate(s));
}
BENCHMARK(BM_EstimateLlama3_8B_Zero3);

void BM_EstimateMixtral_PP(benchmark::State& state) {
  const auto s = setup(R"({"model": {"preset": "mixtral-8x7b"}, "parallel": {"world_size": 64, "zero_stage": 1,
    "tensor_parallel_size": 4, "pipeline_parallel_size": 4}, "batch": {"micro_batch_size": 2, "seq_length": 4096,
    "gradient_accumulation_steps": 16}, "gpu": "h100-sxm-80gb"})");
  for (auto _ : state) benchmark::DoNotOptimize(trainmem::estimate(s));
}
BENCHMARK(BM_EstimateMixtral_PP);

// One estimate with its step time (memory, FLOPs, kernels, communication), as the API returns it.
void BM_EstimateWithTimeLlama3_8B_Zero3(benchmark::State& state) {
  const auto s = setup(R"({"model": {"preset": "llama-3-8b"}, "parallel": {"world_size": 8, "zero_stage": 3},
    "batch": {"micro_batch_size": 1, "seq_length": 8192}, "activation_checkpointing": "full", "gpu": "h100-sxm-80gb"})");
  for (auto _ : state) {
    const trainmem::Estimate e = trainmem::estimate(s);
    benchmark::DoNotOptimize(trainmem::step_time(s, e));
  }
}
BENCHMARK(BM_EstimateWithTimeLlama3_8B_Zero3);

void BM_EstimateWithTimeMixtral_PP(benchmark::State& state) {
  const auto s = setup(R"({"model": {"preset": "mixtral-8x7b"}, "parallel": {"world_size": 64, "zero_stage": 1,
    "tensor_parallel_size": 4, "pipeline_parallel_size": 4, "expert_parallel_size": 4}, "batch": {"micro_batch_size": 2,
    "seq_length": 4096, "gradient_accumulation_steps": 16}, "gpu": "h100-sxm-80gb"})");
  for (auto _ : state) {
    const trainmem::Estimate e = trainmem::estimate(s);
    benchmark::DoNotOptimize(trainmem::step_time(s, e));
  }
}
BENCHMARK(BM_EstimateWithTimeMixtral_PP);

void BM_EstimateJson(benchmark::State& state) {
  const char* doc = R"({"model": {"preset": "llama-3-8b"}, "parallel": {"world_size": 8, "zero_stage": 3}, "gpu": "h100-sxm-80gb"})";
  for (auto _ : state) benchmark::DoNotOptimize(trainmem::estimate_json(doc));
}
BENCHMARK(BM_EstimateJson);

void BM_EstimateJsonFits(benchmark::State& state) {
  const char* doc = R"({"model": {"preset": "llama-3-8b"}, "parallel": {"world_size": 8, "zero_stage": 3},
    "batch": {"micro_batch_size": 1, "seq_length": 8192}, "activation_checkpointing": "full", "gpu": "h100-sxm-80gb"})";
  for (auto _ : state) benchmark::DoNotOptimize(trainmem::estimate_json(doc));
}
BENCHMARK(BM_EstimateJsonFits);

// The strategy search on 1,024 GPUs: candidates covered per second.
void BM_StrategySearch1024(benchmark::State& state) {
  const auto s = setup(R"({"model": {"preset": "llama-3.1-70b"}, "gpu": "h100-sxm-80gb", "batch": {"seq_length": 4096,
    "gradient_accumulation_steps": 16}})");
  trainmem::StrategySearchOptions options;
  options.world_size = 1024;
  const double budget = trainmem::gpu_capacity(*s.gpu) * 0.95;
  double candidates = 0;
  for (auto _ : state) {
    const auto r = trainmem::search_strategies(s, options, budget);
    candidates += static_cast<double>(r.candidates);
    benchmark::DoNotOptimize(r);
  }
  state.counters["candidates_per_s"] = benchmark::Counter(candidates, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_StrategySearch1024)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
