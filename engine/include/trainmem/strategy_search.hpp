// Strategy search: every way to run a model on a GPU count, by the memory it needs and its
// modelled step time. Enumerates data x tensor x pipeline x context parallel factorizations the
// model allows (heads and kv heads divisible by TP, layers by PP, the sequence by CP) and the
// setup's framework offers (framework_parallelism.hpp), the ZeRO/FSDP stages it offers,
// activation checkpointing modes (selective where the framework has it), optimizer offload and, for each, finds the largest fitting
// micro-batch (the peak grows with it, so every smaller one fits too). With a global batch
// (sequences per optimizer step) every candidate keeps it: micro-batch x gradient accumulation x
// data parallel equals it, so the micro-batch divides the global batch over data parallel and a
// split whose data parallel does not divide it is skipped. Each candidate is
// checked by the same estimate() as everything else and timed by the same step_time()
// (step_time.hpp): compute, recompute, exposed communication, pipeline bubble, optimizer, offload.
//
// Ranked by tokens per second per GPU from the modelled step time (the step time per token: the
// candidates' micro-batches differ), or by tokens per dollar (tokens per second per GPU over the
// price of a GPU-hour); ties by headroom, then a fixed order of the strategy's sizes. Without the
// GPU's speeds (a custom device without gpu.bf16_dense_flops_per_s) candidates rank by headroom.
//
// Work is bounded: the search visits the (tp, pp, cp) splits in order of growing model-parallel
// size tp x pp x cp and stops once it has estimated max_work pipeline stages (an estimate of a
// p-stage strategy costs p: the engine evaluates each stage). A stopped search returns what it
// covered, best first, with truncated = true and the reason.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trainmem/catalog.hpp"
#include "trainmem/estimate.hpp"
#include "trainmem/uncertainty.hpp"

namespace trainmem {

struct StrategyCandidate {
  std::int64_t data_parallel_size = 1, tensor_parallel_size = 1, pipeline_parallel_size = 1, context_parallel_size = 1;
  int zero_stage = 0;
  Checkpointing activation_checkpointing = Checkpointing::none;
  OffloadTarget offload_optimizer = OffloadTarget::none;
  ContextParallelKind context_parallel_kind = ContextParallelKind::ring;  // the framework's, where cp > 1
  bool tp_comm_overlap = false;  // the document's parallel.tp_comm_overlap, where tp > 1 (it needs tensor parallelism)
  // Transformer layers per pipeline stage where the split is not the framework's own rule
  // (parallel.pipeline_layers): the document's, when it has one entry per stage; under Megatron,
  // layers that do not divide over the stages, split with the embedding and the loss counted as
  // one layer each (--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split,
  // megatron/core/transformer/transformer_block.py get_num_layers_to_build). Empty otherwise.
  std::vector<std::int64_t> pipeline_layers;
  std::int64_t micro_batch_size = 1;
  std::int64_t gradient_accumulation_steps = 1;  // the base's, or what keeps the global batch
  double peak = 0;      // compared peak, bytes
  double headroom = 0;  // gpu_capacity - peak, bytes (the estimate's margin_bytes for this strategy)
  std::optional<double> step_time_s;           // modelled seconds per optimizer step
  std::optional<double> tokens_per_gpu_per_s;
  std::optional<double> mfu;
  std::optional<double> exposed_communication_s;
  std::optional<double> tokens_per_dollar;     // with a price per GPU-hour
  Warning explanation;  // for the top choices: what the choice costs and frees (reason_code::strategy_*)
  // For the returned (top `limit`) candidates: the three-way verdict at this strategy
  // (uncertainty.hpp; the search itself compares the point peak with the budget, so a returned
  // strategy can be borderline when its band reaches past the GPU).
  std::optional<Verdict> verdict;
};

enum class StrategyOrder { throughput, tokens_per_dollar };

struct StrategySearchResult {
  std::vector<StrategyCandidate> ranked;  // feasible, best first (see StrategyOrder), then headroom
  std::int64_t candidates = 0;            // strategies covered, micro-batch sizes 1..max_micro_batch each
  std::int64_t estimates = 0;             // estimate() calls made
  std::int64_t work = 0;                  // pipeline stages estimated: the sum of pp over the estimates
  std::int64_t feasible = 0;
  bool truncated = false;                 // the work budget ran out before every strategy was covered
  std::optional<Warning> truncated_reason;  // what was covered and how to narrow the search
  std::vector<Warning> reasons;           // why nothing fits, or why the search stopped early (reason_code::)
};

// The default work budget: 4 x what a 1,024-GPU search of Llama-3.1-405B (126 layers) needs, and
// 40 x a 1,024-GPU search of Llama-3.1-70B; about a second of WebAssembly on a laptop.
inline constexpr std::int64_t kStrategySearchWork = 2'000'000;

struct StrategySearchOptions {
  std::int64_t world_size = 8;
  std::int64_t max_micro_batch_size = 64;
  std::size_t limit = 10;                 // how many ranked candidates to return
  bool include_offload = true;
  StrategyOrder order = StrategyOrder::throughput;
  std::optional<double> price_per_gpu_hour_usd;  // default: the setup's GPU price
  std::optional<std::int64_t> global_batch_size;  // sequences per optimizer step every candidate keeps
  std::int64_t max_work = kStrategySearchWork;  // pipeline stages estimated, at most (one strategy may overshoot)
};

StrategySearchResult search_strategies(const TrainingSetup& base, const StrategySearchOptions& options, double budget_bytes);

}  // namespace trainmem
