#include "trainmem/strategy_search.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <utility>

#include "trainmem/framework_parallelism.hpp"
#include "trainmem/message_codes.hpp"
#include "trainmem/number_text.hpp"
#include "trainmem/pipeline_split.hpp"
#include "trainmem/solver.hpp"
#include "trainmem/step_time.hpp"
#include "trainmem/work_meter.hpp"

namespace trainmem {

namespace {

// The rules a split the search tried had to meet ("data" where a global batch is kept; the others
// where the framework offers the dimension or the document sets expert parallelism): `words` for
// the no-factorization reasons' "constraints" param ("data tensor pipeline"), `text` in English.
struct SplitRules {
  std::string words, text;
};

SplitRules split_rules(const FrameworkParallelism& offered, bool global_batch, bool expert) {
  const std::pair<bool, std::pair<const char*, const char*>> all[] = {
      {global_batch, {"data", "data parallel must divide it"}},
      {offered.tensor, {"tensor", "tensor parallel must divide the heads"}},
      {offered.pipeline, {"pipeline", "pipeline parallel must split the layers as the framework does (Megatron: the layers or the "
                                       "layers + 2 divide; torchtitan: every stage keeps a layer)"}},
      {offered.context.has_value(), {"context", "context parallel must divide the sequence"}},
      {expert, {"expert", "expert parallel must divide the data x context group"}}};
  std::vector<std::pair<const char*, const char*>> kept;
  for (const auto& [applies, rule] : all)
    if (applies) kept.push_back(rule);
  SplitRules r;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    r.words += (i == 0 ? "" : " ") + std::string(kept[i].first);
    r.text += (i == 0 ? "" : i + 1 == kept.size() ? " and " : ", ") + std::string(kept[i].second);
  }
  return r;
}

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> d;
  for (std::int64_t i = 1; i * i <= n; ++i)
    if (n % i == 0) {
      d.push_back(i);
      if (i != n / i) d.push_back(n / i);
    }
  std::sort(d.begin(), d.end());
  return d;
}

bool divides_heads(const Architecture& a, std::int64_t tp) {
  for (const auto& g : a.layers)
    if (g.attention.num_attention_heads % tp != 0 || g.attention.num_key_value_heads % tp != 0) return false;
  return true;
}

std::string gib(double bytes) { return gib_text(bytes, 1); }

// Writes a candidate's strategy into a copy of the base setup (every field the search varies is
// set, so one copy serves every candidate without copying the architecture again).
void apply_candidate(TrainingSetup& s, const StrategyCandidate& c, std::int64_t world_size) {
  ParallelSettings& p = s.parallel;
  p.world_size = world_size;
  p.tensor_parallel_size = c.tensor_parallel_size;
  p.pipeline_parallel_size = c.pipeline_parallel_size;
  p.context_parallel_size = c.context_parallel_size;
  if (c.context_parallel_size > 1) p.context_parallel_kind = c.context_parallel_kind;
  p.data_parallel_size = c.data_parallel_size;
  p.zero_stage = c.zero_stage;
  p.sharding_group_size.reset();
  p.virtual_pipeline_stages = 1;
  if (p.pipeline_schedule == PipelineSchedule::interleaved_1f1b) p.pipeline_schedule = PipelineSchedule::one_f_one_b;
  p.sequence_parallel = c.tensor_parallel_size > 1;
  p.tp_comm_overlap = c.tp_comm_overlap;
  p.pipeline_layers = c.pipeline_layers;
  p.offload_optimizer = c.offload_optimizer;
  p.offload_param = OffloadTarget::none;  // the search explores optimizer offload only
  s.activation_checkpointing = c.activation_checkpointing;
  s.batch.micro_batch_size = c.micro_batch_size;
  s.batch.gradient_accumulation_steps = c.gradient_accumulation_steps;
}

}  // namespace

StrategySearchResult search_strategies(const TrainingSetup& base, const StrategySearchOptions& o, double budget) {
  StrategySearchResult r;
  if (!base.model.architecture) {
    r.reasons.push_back({reason_code::answer_needs_architecture,
                         "the strategy search needs an architecture: give model.preset or model.hf_config", {}});
    return r;
  }
  const Architecture& a = *base.model.architecture;
  const std::int64_t seq = base.batch.seq_length.value_or(4096);
  const std::int64_t layers = a.num_hidden_layers();
  std::int64_t experts = 0;
  for (const auto& g : a.layers) experts = std::max(experts, g.mlp.num_local_experts);

  // USD per GPU-hour for tokens per dollar; 0 when unknown.
  const double price = o.price_per_gpu_hour_usd.value_or(base.gpu ? base.gpu->price_per_gpu_hour_usd.value_or(0.0) : 0.0);
  auto estimate_counted = [&](const TrainingSetup& s) {
    ++r.estimates;
    r.work += s.parallel.pipeline_parallel_size;
    return estimate(s);
  };
  auto peak = [&](const TrainingSetup& s) { return compared_peak(s, estimate_counted(s)); };
  const FrameworkParallelism offered = framework_parallelism(base);
  // The splits the model allows (TP divides the heads, PP the layers within kMaxPipelineStages, CP
  // the sequence, EP the D x CP group) and the framework offers, least model parallelism first: a
  // stopped search has covered the plainest strategies.
  struct Split {
    std::int64_t tp, pp, cp, dp;
  };
  // Layers that do not divide over pp stages: Megatron-Core splits them with the embedding and the
  // loss counted as one layer each (pipeline_split.hpp megatron_counted_split). torchtitan splits any count by its own rule (pipeline_split.hpp), as long as
  // every stage keeps a layer with the embedding and the output counted (the split's validation
  // refuses the rest).
  const bool megatron = base.framework == Framework::megatron;
  auto pipeline_splits = [&](std::int64_t pp) {
    return megatron ? layers % pp == 0 || !megatron_counted_split(layers, pp, true, true).empty() : pp <= layers + 2;
  };
  std::vector<Split> splits;
  const std::vector<std::int64_t> sizes = divisors(o.world_size);  // ascending
  for (std::int64_t tp : sizes) {
    if (!divides_heads(a, tp) || (tp > 1 && !offered.tensor)) continue;
    for (std::int64_t pp : sizes) {
      if (pp > o.world_size / tp) break;
      if ((o.world_size / tp) % pp != 0 || pp > kMaxPipelineStages || !pipeline_splits(pp) || (pp > 1 && !offered.pipeline)) continue;
      for (std::int64_t cp : sizes) {
        work_meter::add(1);
        if (cp > o.world_size / (tp * pp)) break;
        if ((o.world_size / (tp * pp)) % cp != 0 || seq % cp != 0 || (cp > 1 && !offered.context)) continue;
        const std::int64_t dp = o.world_size / (tp * pp * cp);
        if (o.global_batch_size && *o.global_batch_size % dp != 0) continue;
        if (base.parallel.expert_parallel_size > 1 && ((dp * cp) % base.parallel.expert_parallel_size != 0 ||
                                                       experts % base.parallel.expert_parallel_size != 0))
          continue;
        splits.push_back({tp, pp, cp, dp});
      }
    }
  }
  std::stable_sort(splits.begin(), splits.end(),
                   [](const Split& x, const Split& y) { return x.tp * x.pp * x.cp < y.tp * y.pp * y.cp; });
  std::vector<StrategyCandidate> feasible;
  TrainingSetup work = base;
  std::size_t covered_splits = 0;
  for (const Split& split : splits) {
    if (r.work >= o.max_work) {
      r.truncated = true;
      break;
    }
    ++covered_splits;
    const std::int64_t tp = split.tp, pp = split.pp, cp = split.cp, dp = split.dp;
    // Micro-batch sizes a candidate may take, ascending: 1 .. max_micro_batch_size, or with a
    // global batch the divisors of its share per data-parallel rank (up to the same maximum).
    std::vector<std::int64_t> micro_batches;
    if (o.global_batch_size) {
      for (std::int64_t m : divisors(*o.global_batch_size / dp))
        if (m <= o.max_micro_batch_size) micro_batches.push_back(m);
    }
    // The split's sizes, shared by its candidates; a split the document rules would refuse is no
    // strategy (DeepSpeed-Ulysses, for one, needs the heads and key/value heads divisible by the
    // context-parallel size): checked at each ZeRO stage below.
    StrategyCandidate split_sizes;
    split_sizes.data_parallel_size = dp;
    split_sizes.tensor_parallel_size = tp;
    split_sizes.pipeline_parallel_size = pp;
    split_sizes.context_parallel_size = cp;
    if (offered.context) split_sizes.context_parallel_kind = *offered.context;
    split_sizes.tp_comm_overlap = base.parallel.tp_comm_overlap && tp > 1;
    if (static_cast<std::int64_t>(base.parallel.pipeline_layers.size()) == pp && base.parallel.virtual_pipeline_stages == 1 && pp > 1) {
      split_sizes.pipeline_layers = base.parallel.pipeline_layers;
    } else if (megatron && layers % pp != 0) {
      split_sizes.pipeline_layers = megatron_counted_split(layers, pp, true, true);
    }
    // The micro-batch and, keeping the global batch, the accumulation that goes with it.
    auto set_micro_batch = [&](StrategyCandidate& c, std::int64_t m) {
      c.micro_batch_size = m;
      c.gradient_accumulation_steps = o.global_batch_size ? *o.global_batch_size / dp / m : base.batch.gradient_accumulation_steps;
    };
    for (int zero : offered.zero_stages) {
      // A layout the document rules refuse at this stage is no strategy (an int8 or HQQ base
      // cannot be sharded by ZeRO-3): checked at micro-batch 1.
      StrategyCandidate staged = split_sizes;
      staged.zero_stage = zero;
      set_micro_batch(staged, 1);
      apply_candidate(work, staged, o.world_size);
      if (!validate(work).empty()) continue;
      for (Checkpointing ckpt : {Checkpointing::none, Checkpointing::selective, Checkpointing::full}) {
        if (ckpt == Checkpointing::selective && !selective_checkpointing_available(base.framework)) continue;
        for (OffloadTarget off : {OffloadTarget::none, OffloadTarget::cpu}) {
          work_meter::add(1);
          // The budget holds between candidates too: a split's candidates together may run
          // many micro-batch searches.
          if (r.work >= o.max_work) {
            r.truncated = true;
            break;
          }
          // ZeRO stages shard over D x CP; with nothing to shard they only matter for offload
          // (ZeRO-Offload on one GPU).
          if (zero > 0 && dp * cp == 1 && off == OffloadTarget::none) continue;
          if (off == OffloadTarget::cpu && (!o.include_offload || zero == 0)) continue;
          StrategyCandidate cand = split_sizes;
          cand.zero_stage = zero;
          cand.activation_checkpointing = ckpt;
          cand.offload_optimizer = off;
          std::int64_t lo = 0, fitting_sizes = 0;  // the largest fitting micro-batch, and how many fit
          auto fits_at = [&](std::int64_t m) {
            set_micro_batch(cand, m);
            apply_candidate(work, cand, o.world_size);
            const auto p = peak(work);
            return p && *p <= budget;
          };
          if (o.global_batch_size) {
            // The largest fitting divisor: bisect the ascending list.
            r.candidates += static_cast<std::int64_t>(micro_batches.size());
            std::size_t good = 0, bad = micro_batches.size() + 1;  // positions 1-based; 0: none fits
            while (bad - good > 1) {
              const std::size_t mid = (good + bad) / 2;
              if (fits_at(micro_batches[mid - 1])) good = mid;
              else bad = mid;
            }
            if (good == 0) continue;
            lo = micro_batches[good - 1];
            fitting_sizes = static_cast<std::int64_t>(good);
          } else {
            // Largest fitting micro-batch: double, then bisect.
            r.candidates += o.max_micro_batch_size;
            std::int64_t hi = 1;
            while (hi <= o.max_micro_batch_size && fits_at(hi)) {
              lo = hi;
              hi *= 2;
            }
            if (lo == 0) continue;
            std::int64_t bad = std::min(hi, o.max_micro_batch_size + 1);
            while (bad - lo > 1) {
              const std::int64_t mid = (lo + bad) / 2;
              if (fits_at(mid)) lo = mid;
              else bad = mid;
            }
            fitting_sizes = lo;
          }
          set_micro_batch(cand, lo);
          apply_candidate(work, cand, o.world_size);
          const Estimate e = estimate_counted(work);
          r.feasible += fitting_sizes;
          cand.peak = compared_peak(work, e).value_or(0);
          // Headroom, as everywhere: the GPU's capacity minus the compared peak (the safety
          // margin only decides what fits).
          cand.headroom = gpu_capacity(*work.gpu) - cand.peak;
          if (const auto t = step_time(work, e)) {
            cand.step_time_s = t->step_seconds;
            cand.tokens_per_gpu_per_s = t->tokens_per_second_per_gpu;
            cand.mfu = t->mfu;
            cand.exposed_communication_s = t->exposed_communication_seconds;
            if (price > 0) cand.tokens_per_dollar = t->tokens_per_second_per_gpu * 3600.0 / price;
          }
          feasible.push_back(cand);
        }
      }
    }
  }
  if (r.truncated) {
    const Split& last = splits[covered_splits - 1];
    const std::int64_t model_parallel = last.tp * last.pp * last.cp;
    r.truncated_reason = Warning{reason_code::strategy_search_truncated,
                                 "the search stopped at its work budget (" + std::to_string(o.max_work) +
                                     " pipeline stages estimated) after " + std::to_string(covered_splits) + " of " +
                                     std::to_string(splits.size()) + " tensor x pipeline x context splits, up to " +
                                     std::to_string(model_parallel) +
                                     "-way model parallelism; fewer GPUs (solve.strategies.world_size), a smaller "
                                     "max_micro_batch_size or include_offload false narrow it",
                                 {{"max_work", static_cast<double>(o.max_work)},
                                  {"covered_splits", static_cast<double>(covered_splits)},
                                  {"splits", static_cast<double>(splits.size())},
                                  {"model_parallel", static_cast<double>(model_parallel)}}};
    r.reasons.push_back(*r.truncated_reason);
  }
  if (feasible.empty() && r.truncated) {
    r.reasons.push_back({reason_code::no_covered_strategy_fits, "no strategy covered before the search stopped fits", {}});
    return r;
  }
  if (feasible.empty()) {
    const double world_size = static_cast<double>(o.world_size);
    const std::string gpus = std::to_string(o.world_size) + (o.world_size == 1 ? " GPU" : " GPUs");
    const SplitRules rules = split_rules(offered, o.global_batch_size.has_value(), base.parallel.expert_parallel_size > 1);
    if (r.candidates == 0 && o.global_batch_size)
      r.reasons.push_back({reason_code::no_factorization_keeping_global_batch,
                           "no factorization of " + gpus + " suits this model and keeps the global batch of " +
                               std::to_string(*o.global_batch_size) + (*o.global_batch_size == 1 ? " sequence" : " sequences") +
                               " (" + rules.text + ")",
                           {{"world_size", world_size},
                            {"global_batch_size", static_cast<double>(*o.global_batch_size)},
                            {"constraints", rules.words}}});
    else if (r.candidates == 0)
      r.reasons.push_back({reason_code::no_factorization,
                           "no factorization of " + gpus + " suits this model" +
                               (rules.text.empty() ? std::string() : " (" + rules.text + ")"),
                           {{"world_size", world_size}, {"constraints", rules.words}}});
    else
    {
      // The framework's highest sharding stage (framework_parallelism.hpp) the document's rules
      // accept (an int8 or HQQ base refuses ZeRO-3), with offload where searched.
      const std::vector<int> accepted = accepted_zero_stages(base);
      const int zero = accepted.empty() ? offered.zero_stages.front() : accepted.back();
      const bool offload = o.include_offload && zero > 0;
      // Adapters are advice only for a run that trains every weight, where the framework has them.
      const bool adapters = adapters_would_help(base);
      r.reasons.push_back({reason_code::no_strategy_fits,
                           "no strategy on " + gpus + " fits, down to micro-batch 1 with ZeRO-" + std::to_string(zero) +
                               (offload ? ", full checkpointing and optimizer offload" : " and full checkpointing") +
                               (adapters ? ": add GPUs, shorten the sequence, or train fewer parameters (LoRA/QLoRA)"
                                         : ": add GPUs or shorten the sequence"),
                           {{"world_size", world_size}, {"include_offload", offload ? "true" : "false"},
                            {"zero_stage", static_cast<double>(zero)}, {"adapters", adapters ? "true" : "false"}}});
    }
    return r;
  }
  // Best throughput (or tokens per dollar) first, then headroom, then a fixed order of the
  // strategy's sizes, so that every build ranks ties the same way.
  auto key = [](const StrategyCandidate& c) {
    return std::make_tuple(c.tensor_parallel_size, c.pipeline_parallel_size, c.context_parallel_size, c.zero_stage,
                           static_cast<int>(c.activation_checkpointing), static_cast<int>(c.offload_optimizer), c.micro_batch_size);
  };
  auto merit = [&](const StrategyCandidate& c) {
    const auto& m = o.order == StrategyOrder::tokens_per_dollar ? c.tokens_per_dollar : c.tokens_per_gpu_per_s;
    return m.value_or(0.0);
  };
  std::sort(feasible.begin(), feasible.end(), [&](const StrategyCandidate& x, const StrategyCandidate& y) {
    if (merit(x) != merit(y)) return merit(x) > merit(y);
    if (x.headroom != y.headroom) return x.headroom > y.headroom;
    return key(x) < key(y);
  });
  if (feasible.size() > o.limit) feasible.resize(o.limit);
  // Untimed (a device without speeds, a PPO or GRPO job): ranked by headroom, and said why.
  if (!feasible.front().step_time_s) {
    apply_candidate(work, feasible.front(), o.world_size);
    std::string why, key;
    if (!step_time(work, estimate(work), &why, &key))
      r.reasons.push_back({reason_code::strategies_untimed, "strategies are ranked by headroom: " + why, {{"reason", key}}});
  }
  // Judge the top choices with their bands, and explain them against the same strategy without
  // checkpointing.
  for (auto& c : feasible) {
    apply_candidate(work, c, o.world_size);
    const Estimate judged = estimate(work);
    c.verdict = judge_verdict(work, judged, uncertainty_band(work, judged));
    if (c.activation_checkpointing == Checkpointing::none) {
      c.explanation = {reason_code::strategy_without_recompute, "no recompute; " + gib(c.headroom) + " of headroom",
                       {{"headroom", c.headroom}}};
      continue;
    }
    StrategyCandidate plain = c;
    plain.activation_checkpointing = Checkpointing::none;
    apply_candidate(work, plain, o.world_size);
    const auto without = peak(work);
    // The recompute's share of the modelled step.
    apply_candidate(work, c, o.world_size);
    const auto t = step_time(work, judged);
    const std::string kind = c.activation_checkpointing == Checkpointing::full ? "full" : "selective";
    const double freed = without ? *without - c.peak : 0;
    c.explanation = {reason_code::strategy_checkpointing_frees, kind + " checkpointing frees " + gib(freed),
                     {{"checkpointing", kind}, {"freed", freed}}};
    if (t && t->step_seconds > t->breakdown.recompute) {
      const double increase = t->breakdown.recompute / (t->step_seconds - t->breakdown.recompute);
      char pct[48];
      std::snprintf(pct, sizeof pct, " at +%.0f%% step time", 100 * increase);
      c.explanation.code = reason_code::strategy_checkpointing_frees_at_cost;
      c.explanation.message += pct;
      c.explanation.params.values.emplace_back("step_time_increase", increase);
    }
  }
  r.ranked = std::move(feasible);
  return r;
}

}  // namespace trainmem
