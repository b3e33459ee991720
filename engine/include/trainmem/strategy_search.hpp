// Strategy search: every way to run a model on a GPU count, by the memory it needs and a simple
// cost proxy. Enumerates data x tensor x pipeline x context parallel factorizations the model
// allows (heads and kv heads divisible by TP, layers by PP, the sequence by CP), ZeRO/FSDP stages,
// activation checkpointing modes, optimizer offload and, for each, finds the largest fitting
// micro-batch (the peak grows with it, so every smaller one fits too). Each candidate is checked
// by the same estimate() as everything else.
//
// Cost proxy per optimizer step (documented assumptions, for ranking only):
//   compute   6 x active params x tokens / (tp x pp x cp) FLOPs per micro-batch (Kaplan et al.
//             2020), at 40% of the GPU's dense bf16 peak; full recompute adds one forward (+1/3),
//             selective adds the attention core's share of the forward, (1/3) x s / (6h + s)
//   tensor    2 all-reduces per layer forward and 2 backward of the [tokens, h] activations
//   context   ring attention moves each layer's k/v around the group: 3 x k/v bytes (fwd + bwd)
//   data      DDP/ZeRO-1/2 all-reduce 2 x params x b_g; ZeRO-3 3 x params x b_compute (two
//             all-gathers and a reduce-scatter; Rajbhandari et al. 2020, §7) once per step
//   pipeline  bubble (p - 1) / (m + p - 1) for m micro-batches (Narayanan et al. 2021)
//   offload   the optimizer shard crosses PCIe twice per step (32 GB/s)
// Communication uses the catalog GPU's interconnect bandwidth.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trainmem/catalog.hpp"
#include "trainmem/estimate.hpp"

namespace trainmem {

struct StrategyCandidate {
  std::int64_t data_parallel_size = 1, tensor_parallel_size = 1, pipeline_parallel_size = 1, context_parallel_size = 1;
  int zero_stage = 0;
  Checkpointing activation_checkpointing = Checkpointing::none;
  OffloadTarget offload_optimizer = OffloadTarget::none;
  std::int64_t micro_batch_size = 1;
  double peak = 0;      // compared peak, bytes
  double headroom = 0;  // budget - peak, bytes
  double step_time_s = 0;
  double tokens_per_gpu_per_s = 0;
  std::string explanation;  // for the top choices: what the choice costs and frees
};

struct StrategySearchResult {
  std::vector<StrategyCandidate> ranked;  // feasible, best first (throughput, then headroom)
  std::int64_t candidates = 0;            // strategies covered, micro-batch sizes 1..max_micro_batch each
  std::int64_t estimates = 0;             // estimate() calls made
  std::int64_t feasible = 0;
  std::vector<std::string> reasons;       // why nothing fits, when nothing does
};

struct StrategySearchOptions {
  std::int64_t world_size = 8;
  std::int64_t max_micro_batch_size = 64;
  std::size_t limit = 10;                 // how many ranked candidates to return
  bool include_offload = true;
};

StrategySearchResult search_strategies(const TrainingSetup& base, const StrategySearchOptions& options, double budget_bytes,
                                       const GpuEntry* gpu);

}  // namespace trainmem
