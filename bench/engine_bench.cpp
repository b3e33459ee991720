// Engine speed: nanoseconds per estimate from an already parsed setup (no JSON), native, and the
// JSON call (document in, document out) beside the same engine work, printed as a ratio.
//   build-native/bench/engine_bench [--benchmark_repetitions=7]
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>

#include "trainmem/estimate.hpp"
#include "trainmem/json_api.hpp"
#include "trainmem/solver.hpp"
#include "trainmem/step_time.hpp"
#include "trainmem/strategy_search.hpp"
#include "trainmem/uncertainty.hpp"

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

// A setup that fits (no suggestions are re-estimated): the JSON call, and the engine work that call
// does without JSON (the estimate, its step time and its uncertainty band with the verdict).
const char* const kFitsDocument = R"({"model": {"preset": "llama-3-8b"}, "parallel": {"world_size": 8, "zero_stage": 3},
  "batch": {"micro_batch_size": 1, "seq_length": 8192}, "activation_checkpointing": "full", "gpu": "h100-sxm-80gb"})";

void BM_EstimateJsonFits(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(trainmem::estimate_json(kFitsDocument));
}
BENCHMARK(BM_EstimateJsonFits);

void BM_EngineWorkFits(benchmark::State& state) {
  const auto s = setup(kFitsDocument);
  for (auto _ : state) {
    const trainmem::Estimate e = trainmem::estimate(s, trainmem::EstimateDetail::step);  // as the JSON call does
    benchmark::DoNotOptimize(trainmem::step_time(s, e));
    benchmark::DoNotOptimize(trainmem::judge_verdict(s, e, trainmem::uncertainty_band(s, e)));
  }
}
BENCHMARK(BM_EngineWorkFits);

// The strategy search on 1,024 GPUs: candidates covered per second (under torchtitan, which offers
// every split the search knows).
void BM_StrategySearch1024(benchmark::State& state) {
  const auto s = setup(R"({"model": {"preset": "llama-3.1-70b"}, "framework": "torchtitan", "gpu": "h100-sxm-80gb", "batch": {"seq_length": 4096,
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

// The console table, and the CPU time per run of each benchmark (the median where repeated).
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  RatioReporter() : benchmark::ConsoleReporter(benchmark::ConsoleReporter::OO_Tabular) {}
  std::map<std::string, double> cpu_ns;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs)
      if (r.aggregate_name.empty() || r.aggregate_name == "median") cpu_ns[r.run_name.function_name] = r.GetAdjustedCPUTime();
    ConsoleReporter::ReportRuns(runs);
  }
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const auto json = reporter.cpu_ns.find("BM_EstimateJsonFits"), engine = reporter.cpu_ns.find("BM_EngineWorkFits");
  if (json != reporter.cpu_ns.end() && engine != reporter.cpu_ns.end() && engine->second > 0)
    std::printf("estimate_json (document in, document out) against the same engine work without JSON, a setup that fits: "
                "%.1f us against %.2f us CPU time, ratio %.0fx (target <= 5x)\n",
                json->second / 1e3, engine->second / 1e3, json->second / engine->second);
  benchmark::Shutdown();
  return 0;
}
