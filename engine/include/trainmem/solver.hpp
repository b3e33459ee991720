// Inverse queries (docs/memory-model.md, "Working backwards"): the largest micro-batch and the longest
// sequence that fit a GPU, the fewest GPUs that fit, the cheapest fitting catalog GPU, and the
// gradient accumulation that reaches a target global batch. Every answer is checked with the same
// estimate() as everything else; the searches rely on the peak growing with micro-batch and
// sequence length and not growing with the data-parallel size.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trainmem/catalog.hpp"
#include "trainmem/estimate.hpp"
#include "trainmem/uncertainty.hpp"

namespace trainmem {

// A measured peak for a small run of the same setup (docs/memory-model.md, "Working backwards": profile, then work back).
struct Measurement {
  double bytes = 0;                 // what the profiler reported
  std::int64_t micro_batch_size = 1;
  std::int64_t seq_length = 1;
  enum class Measure { allocated, reserved, device } measure = Measure::allocated;  // max_memory_allocated, max_memory_reserved, nvidia-smi
};

struct SolveOptions {
  double safety_margin = 0.05;  // fraction of the GPU's memory kept free
  std::optional<std::int64_t> target_global_batch_size;
  std::int64_t max_gpus = 4096;
  std::map<std::string, double> prices;  // USD per GPU-hour by catalog id (overrides the catalog)
  std::vector<Measurement> calibration;  // one or two measured points
};

struct FitPoint {
  std::int64_t value = 0;  // micro-batch, sequence length or GPU count
  double peak = 0;         // the estimate's peak there, bytes
  // The three-way verdict there (uncertainty.hpp: the band against the whole GPU, no safety
  // margin): a point that fits the budget can still be borderline when its band reaches past the
  // GPU's memory. Empty when the estimate has no band.
  std::optional<Verdict> verdict;
};

struct GpuOption {
  std::string id;
  std::optional<FitPoint> min_gpus;  // empty: does not fit within max_gpus
  // The fewest GPUs at which the whole band fits (verdict fits): min_gpus itself when its verdict
  // is fits, more when it is borderline; empty when no count up to max_gpus clears the band.
  std::optional<FitPoint> min_gpus_whole_band;
  std::optional<double> price_per_gpu_hour;
  std::optional<double> cost_per_hour;
  // What a million trained tokens cost there, USD: cost_per_hour over the tokens min_gpus GPUs
  // train in an hour at the modelled step time (step_time.hpp); empty without a price, a step time
  // (no GPU speeds in the catalog, an RLHF job) or a runnable setup.
  std::optional<double> usd_per_million_tokens;
  // Why the setup cannot run there as it is written, empty when it can: the hardware warnings it
  // raises on that device (bf16_unsupported, fp8_unsupported, flash_attention_unsupported,
  // flash_attention_3_unsupported: explain.hpp) and "other_accelerator_kind" for a device of
  // another kind than the setup's GPU (a TPU or Gaudi for a CUDA/ROCm setup, catalog "kind"),
  // whose runtime neither runs the same framework code nor allocates as PyTorch's CUDA caching
  // allocator does. `cheapest` is chosen among the devices where this is empty.
  std::vector<std::string> cannot_run;
};

struct GlobalBatchPlan {
  std::int64_t micro_batch_size = 0, gradient_accumulation_steps = 0, global_batch_size = 0;
  bool exact = false;  // global batch equals the target
};

// A run's fixed and per-token parts fitted from measurements; answers in the same terms.
struct Calibrated {
  // Measured-measure bytes; nullopt when the measurement cannot be this setup's peak (below its
  // model states), so that no fit is drawn from it.
  std::optional<double> fixed_bytes, bytes_per_token;
  double analytic_fixed_bytes = 0, analytic_bytes_per_token = 0;
  // At the document's sequence length and micro-batch, like the analytic answers.
  std::optional<std::int64_t> max_micro_batch_size, max_seq_length;
  double predicted_at_measurement = 0;  // the analytic estimate in the measurement's terms
  double relative_difference = 0;       // (measured - analytic) / analytic at the measured point
  std::vector<Warning> reasons;         // why an answer is missing or the fit is doubtful (reason_code::)
};

struct SolveResult {
  double budget_bytes = 0;  // capacity x (1 - safety margin), compared with the peak
  std::optional<FitPoint> max_micro_batch_size, max_seq_length, min_gpus;
  std::optional<FitPoint> min_gpus_whole_band;  // as GpuOption's, for the document's GPU
  std::vector<GpuOption> gpu_options;
  std::optional<GpuOption> cheapest;
  // The lowest usd_per_million_tokens among the runnable options: a faster GPU at a higher hourly
  // price can train the same tokens for less.
  std::optional<GpuOption> cheapest_per_token;
  std::optional<GlobalBatchPlan> global_batch;
  std::optional<Calibrated> calibrated;
  std::vector<std::pair<std::int64_t, double>> peak_vs_seq_length, peak_vs_micro_batch;  // curves (bytes)
  std::vector<Warning> reasons;  // why a question has no answer (reason_code::, message_codes.hpp)
};

// Runs every inverse query for a validated setup that names a GPU.
SolveResult solve(const TrainingSetup& setup, const SolveOptions& options, const Catalog& catalog);

// The reason given with an answer that stopped at its search's cap (`answer`: the output field,
// e.g. "max_micro_batch_size"): the setup fits at least that much.
Warning answer_at_search_cap(const char* answer, std::int64_t cap);

}  // namespace trainmem
