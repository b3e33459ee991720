#include "trainmem/solver.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "trainmem/calibration.hpp"
#include "trainmem/explain.hpp"
#include "trainmem/framework_parallelism.hpp"
#include "trainmem/message_codes.hpp"
#include "trainmem/number_text.hpp"
#include "trainmem/step_time.hpp"
#include "trainmem/work_meter.hpp"

namespace trainmem {

namespace {

// Actions (code, words) as params.actions' codes ("a b c") and an English list ("a, b or c").
std::pair<std::string, std::string> listed(const std::vector<std::pair<std::string, std::string>>& actions) {
  std::string codes, words;
  for (std::size_t i = 0; i < actions.size(); ++i) {
    codes += (i ? " " : "") + actions[i].first;
    words += (i == 0 ? "" : i + 1 == actions.size() ? " or " : ", ") + actions[i].second;
  }
  return {codes, words};
}

constexpr std::int64_t kMaxMicroBatch = std::int64_t{1} << 24;
constexpr std::int64_t kMaxSeqLength = std::int64_t{1} << 24;

// Largest x in [lo, hi] with fits(x), given fits(lo) and fits monotone decreasing in x.
std::int64_t largest(std::int64_t lo, std::int64_t hi, const std::function<bool(std::int64_t)>& fits) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// Largest x in [start, cap] with fits(x). The peak is not monotone at the short end: the caching
// allocator's blocks that no later request fits (allocator_cache) are largest when the activations
// are small (a 4,096-token setup can fit where 256 tokens do not). So every doubling of `start` up
// to `cap` is tried (at most 25), and the largest that fits is bisected up to the next doubling,
// over which the activations' growth decides.
std::optional<std::int64_t> largest_fitting(std::int64_t start, std::int64_t cap, const std::function<bool(std::int64_t)>& fits) {
  std::optional<std::int64_t> best;
  for (std::int64_t x = start;; x = std::min(cap, x * 2)) {
    if (fits(x)) best = x;
    if (x >= cap) break;
  }
  if (!best || *best >= cap) return best;
  return largest(*best, std::min(cap, *best * 2) - 1, fits);
}

}  // namespace

Warning answer_at_search_cap(const char* answer, std::int64_t cap) {
  return {reason_code::answer_at_search_cap,
          std::string(answer) + " stops at the search's cap of " + std::to_string(cap) + ": the setup fits at least that much",
          {{"answer", answer}, {"cap", static_cast<double>(cap)}}};
}

SolveResult solve(const TrainingSetup& base, const SolveOptions& o, const Catalog& catalog) {
  SolveResult r;
  const double margin = 1.0 - o.safety_margin;
  auto peak_of = [&](const TrainingSetup& s) -> std::optional<double> {
    const Estimate e = estimate(s);
    if (auto p = compared_peak(s, e)) return p;
    return std::nullopt;
  };
  auto fits = [&](const TrainingSetup& s) {
    const auto p = peak_of(s);
    return p && *p <= gpu_capacity(*s.gpu) * margin;
  };
  // An answer: its peak and its verdict (one band, re-estimated only for the answers themselves).
  auto answer = [&](const TrainingSetup& s, std::int64_t value) {
    const Estimate e = estimate(s);
    return FitPoint{value, compared_peak(s, e).value_or(0.0), judge_verdict(s, e, uncertainty_band(s, e))};
  };
  auto clears_band = [&](const TrainingSetup& s) {
    const Estimate e = estimate(s);
    return judge_verdict(s, e, uncertainty_band(s, e)) == Verdict::fits;
  };
  r.budget_bytes = gpu_capacity(*base.gpu) * margin;
  const bool has_architecture = base.model.architecture.has_value();
  if (!has_architecture)
    r.reasons.push_back({reason_code::answer_needs_architecture, "the peak needs an architecture: give model.preset or model.hf_config", {}});

  const std::int64_t cp = base.parallel.context_parallel_size;
  const std::int64_t seq = base.batch.seq_length.value_or(4096);
  // Optimizer offload as advice: not on yet, and runnable at the setup's ZeRO stage (plain DDP and
  // DeepSpeed or Megatron-LM at stage 0 have nothing to offload with: fields_beyond_framework).
  TrainingSetup offloaded = base;
  offloaded.parallel.offload_optimizer = OffloadTarget::cpu;
  const bool offload_runs =
      base.parallel.offload_optimizer == OffloadTarget::none && !adds_fields_beyond_framework(base, offloaded);
  // The setup on `gpus` of `gpu`, the model-parallel sizes kept and the rest data-parallel.
  const std::int64_t mp = base.parallel.tensor_parallel_size * base.parallel.pipeline_parallel_size * cp;
  auto on_gpus = [&](const GpuSpec& gpu, std::int64_t gpus) {
    TrainingSetup t = base;
    t.gpu = gpu;
    t.parallel.sharding_group_size.reset();
    t.parallel.data_parallel_size = gpus / mp;
    t.parallel.world_size = gpus;
    return t;
  };
  // The most GPUs up to max_gpus that keep D x CP divisible by EP (D moves in steps of
  // EP / gcd(EP, CP)), or 0 when not even one step fits under max_gpus.
  const std::int64_t gpu_step = base.parallel.expert_parallel_size / std::gcd(base.parallel.expert_parallel_size, cp) * mp;
  const std::int64_t most_gpus = o.max_gpus / gpu_step * gpu_step;
  if (has_architecture) {
    // Largest micro-batch at the given sequence length.
    auto with_mbs = [&](std::int64_t m) {
      TrainingSetup s = base;
      s.batch.micro_batch_size = m;
      return s;
    };
    if (auto m = largest_fitting(1, kMaxMicroBatch, [&](std::int64_t m) { return fits(with_mbs(m)); })) {
      r.max_micro_batch_size = answer(with_mbs(*m), *m);
      if (*m == kMaxMicroBatch) r.reasons.push_back(answer_at_search_cap("max_micro_batch_size", kMaxMicroBatch));
    } else {
      // The changes that can still lower the peak, none already on: the highest ZeRO stage above the
      // setup's that its framework offers and its rules accept, where there is more than one
      // data-parallel rank to shard over (Megatron-LM's distributed optimizer is its ZeRO-1; an int8
      // or HQQ base under DeepSpeed stops at ZeRO-2), more GPUs where something is sharded. Where
      // the model states alone exceed the budget, a shorter sequence or checkpointing cannot make
      // room until they come down: offload, adapters (not under torchtitan or Megatron-LM) can;
      // else a shorter sequence, and checkpointing below full.
      const bool states_over = estimate(with_mbs(1)).per_gpu.model_states > r.budget_bytes;
      // Offload, adapters and a higher stage are named where they bring the model states under the
      // budget, not where they only lower them (a frozen base replicated on every GPU stays where
      // it is); the adapters at their smallest, QLoRA's 4-bit base.
      const auto states_fit = [&](TrainingSetup t) {
        t.batch.micro_batch_size = 1;
        return estimate(t).per_gpu.model_states <= r.budget_bytes;
      };
      std::vector<std::pair<std::string, std::string>> actions;
      if (!states_over) {
        actions.emplace_back("shorter_sequence", "shorten the sequence");
        if (base.activation_checkpointing != Checkpointing::full) actions.emplace_back("checkpointing", "checkpoint activations");
      }
      const std::vector<int> accepted = accepted_zero_stages(base);
      if (base.parallel.data_parallel_size > 1 && !accepted.empty() && accepted.back() > base.parallel.zero_stage) {
        static const char* const kShardingWords[] = {"", "shard the optimizer states (ZeRO-1)",
                                                     "shard the optimizer states and gradients (ZeRO-2)", "shard more (ZeRO-3)"};
        TrainingSetup staged = base;
        staged.parallel.zero_stage = accepted.back();
        if (!states_over || states_fit(staged))
          actions.emplace_back("zero_" + std::to_string(accepted.back()), kShardingWords[accepted.back()]);
      }
      // More GPUs where something is sharded and micro-batch 1 fits on the most GPUs searched.
      if (base.parallel.zero_stage >= 1 && most_gpus > base.parallel.world_size) {
        TrainingSetup most = on_gpus(*base.gpu, most_gpus);
        most.batch.micro_batch_size = 1;
        if (fits(most)) actions.emplace_back("more_gpus", "add GPUs");
      }
      TrainingSetup quantized = base;
      quantized.method = Method::qlora;
      if (states_over && offload_runs && states_fit(offloaded)) actions.emplace_back("offload", "offload the optimizer to the CPU");
      if (states_over && adapters_would_help(base) && states_fit(quantized))
        actions.emplace_back("lora", "train LoRA/QLoRA adapters");
      if (actions.empty()) actions.emplace_back("larger_gpu", "use a GPU with more memory");
      const auto [codes, words] = listed(actions);
      r.reasons.push_back({reason_code::micro_batch_one_does_not_fit,
                           "micro-batch 1 does not fit at seq_length " + std::to_string(seq) + ": " + words,
                           {{"seq_length", static_cast<double>(seq)}, {"actions", codes}}});
    }
    // Longest sequence (a multiple of the context-parallel size) at the given micro-batch.
    auto with_seq = [&](std::int64_t k) {
      TrainingSetup s = base;
      s.batch.seq_length = k * cp;
      return s;
    };
    const Architecture& a = *base.model.architecture;
    const std::int64_t seq_cap = (a.learned_positions ? a.max_position_embeddings : kMaxSeqLength) / cp;
    if (seq_cap >= 1) {
      if (auto k = largest_fitting(1, seq_cap, [&](std::int64_t k) { return fits(with_seq(k)); })) {
        r.max_seq_length = answer(with_seq(*k), *k * cp);
        if (!a.learned_positions && *k == seq_cap) r.reasons.push_back(answer_at_search_cap("max_seq_length", seq_cap * cp));
      } else if (const Estimate shortest = estimate(with_seq(1)); shortest.per_gpu.model_states > r.budget_bytes) {
        r.reasons.push_back({reason_code::model_states_exceed_budget,
                             "even the shortest sequence does not fit: the model states alone exceed the budget", {}});
      } else {
        const double peak = compared_peak(with_seq(1), shortest).value_or(0.0);
        const int decimals = std::max(peak, r.budget_bytes) >= 1024.0 * 1024.0 * 1024.0 ? 2 : 4;  // a small GPU's MiB show
        r.reasons.push_back({reason_code::no_sequence_length_fits,
                             "no sequence length fits at micro-batch " + std::to_string(base.batch.micro_batch_size) +
                                 ": the model states fit the budget, but at " + std::to_string(cp) + (cp == 1 ? " token" : " tokens") +
                                 " the peak is already " + gib_text(peak, decimals) + " against a budget of " + gib_text(r.budget_bytes, decimals),
                             {{"micro_batch_size", static_cast<double>(base.batch.micro_batch_size)},
                              {"seq_length", static_cast<double>(cp)},
                              {"peak", peak},
                              {"budget", r.budget_bytes}}});
      }
    }
  }

  // Fewest GPUs of a given kind: grow the data-parallel size D under the same model parallelism.
  // D x CP must stay divisible by EP, so D moves in steps of EP / gcd(EP, CP). One replica is
  // checked on its own: going to two adds communication buffers, so the peak is not monotone there;
  // from two on, more sharding never raises it (nor the band's high end, built on the same terms).
  // Returns the fewest that fit the budget and the fewest whose whole band fits the GPU.
  struct Fewest {
    std::optional<FitPoint> fits, whole_band;
  };
  auto min_gpus_for = [&](const GpuSpec& gpu) -> Fewest {
    const std::int64_t max_k = o.max_gpus / gpu_step;
    if (max_k < 1) return {};
    auto with_k = [&](std::int64_t k) { return on_gpus(gpu, k * gpu_step); };
    auto point = [&](std::int64_t k) { return answer(with_k(k), k * gpu_step); };
    // The first k in [from, max_k] that passes `test`, or 0 when none does.
    auto first = [&](std::int64_t from, const std::function<bool(const TrainingSetup&)>& test) -> std::int64_t {
      if (base.parallel.zero_stage == 0 || from > max_k || !test(with_k(max_k))) return 0;
      std::int64_t lo = from, hi = max_k;
      while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (test(with_k(mid))) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    };
    Fewest out;
    const std::int64_t k = fits(with_k(1)) ? 1 : first(2, fits);
    if (k == 0) return out;
    out.fits = point(k);
    if (out.fits->verdict == Verdict::fits) out.whole_band = out.fits;
    else if (out.fits->verdict == Verdict::borderline) {
      if (const std::int64_t clear = first(std::max<std::int64_t>(2, k + 1), clears_band)) out.whole_band = point(clear);
    }
    return out;
  };
  if (has_architecture) {
    const Fewest own = min_gpus_for(*base.gpu);
    r.min_gpus = own.fits;
    r.min_gpus_whole_band = own.whole_band;
    const double zero_stage = static_cast<double>(base.parallel.zero_stage), max_gpus = static_cast<double>(o.max_gpus);
    if (own.fits && own.fits->verdict == Verdict::borderline && !own.whole_band)
      r.reasons.push_back(
          {reason_code::band_past_gpu_at_every_count,
           "at " + std::to_string(own.fits->value) + (own.fits->value == 1 ? " GPU" : " GPUs") + " the estimate fits the budget but its band reaches past the GPU, and no count up to " +
               std::to_string(o.max_gpus) + " fits with the whole band" +
               (base.parallel.zero_stage < 3 ? " (below ZeRO-3 data parallelism does not shard the parameters: more GPUs do not shrink them)" : "") +
               "; try checkpointing, a shorter sequence, offload, LoRA/QLoRA or a larger GPU",
           {{"gpus", static_cast<double>(own.fits->value)}, {"max_gpus", max_gpus}, {"zero_stage", zero_stage}}});
    if (!r.min_gpus) {
      // What is left to try, none already on.
      std::vector<std::pair<std::string, std::string>> left;
      if (offload_runs) left.emplace_back("offload", "offload");
      if (adapters_would_help(base)) left.emplace_back("lora", "LoRA/QLoRA");
      if (base.activation_checkpointing != Checkpointing::full) left.emplace_back("checkpointing", "checkpointing");
      left.emplace_back("shorter_sequence", "a shorter sequence");
      const auto [codes, words] = listed(left);
      // At stage 0, whether a sharding stage the framework offers accepts the setup (FSDP refuses
      // an int8 or HQQ base at every stage it has): params.can_shard.
      const std::vector<int> accepted = accepted_zero_stages(base);
      const bool can_shard = base.parallel.zero_stage == 0 && !accepted.empty() && accepted.back() > 0;
      r.reasons.push_back({reason_code::no_gpu_count_fits,
                           "no GPU count up to " + std::to_string(o.max_gpus) + " fits with this strategy" +
                               (can_shard ? " (ZeRO stage 0 replicates everything: shard with ZeRO/FSDP)" : "") + "; try " + words,
                           {{"max_gpus", max_gpus}, {"zero_stage", zero_stage}, {"actions", codes}, {"can_shard", can_shard ? "true" : "false"}}});
    }
    // The setup's kind of device: its catalog entry's, a custom device's "gpu".
    const GpuEntry* own_entry = catalog.find_gpu(base.gpu->id);
    const std::string own_kind = own_entry ? own_entry->kind : "gpu";
    for (const auto& g : catalog.gpus) {
      GpuOption opt;
      opt.id = g.spec.id;
      TrainingSetup there = base;
      there.gpu = g.spec;
      opt.cannot_run = cannot_run_codes(there, estimate(there));
      if (g.kind != own_kind) opt.cannot_run.emplace_back("other_accelerator_kind");
      const Fewest fewest = min_gpus_for(g.spec);
      opt.min_gpus = fewest.fits;
      opt.min_gpus_whole_band = fewest.whole_band;
      auto price = o.prices.find(g.spec.id);
      opt.price_per_gpu_hour = price != o.prices.end() ? std::optional<double>(price->second) : g.price_per_gpu_hour_usd;
      if (opt.min_gpus && opt.price_per_gpu_hour) opt.cost_per_hour = *opt.price_per_gpu_hour * static_cast<double>(opt.min_gpus->value);
      if (opt.cost_per_hour && opt.cannot_run.empty()) {
        // The modelled step at that count: tokens per hour over those GPUs.
        const TrainingSetup at = on_gpus(g.spec, opt.min_gpus->value);
        if (validate(at).empty())
          if (const auto t = step_time(at, estimate(at)); t && t->tokens_per_second_per_gpu > 0)
            opt.usd_per_million_tokens = *opt.cost_per_hour / (t->tokens_per_second_per_gpu * static_cast<double>(opt.min_gpus->value) * 3600.0) * 1e6;
      }
      if (opt.usd_per_million_tokens && (!r.cheapest_per_token || *opt.usd_per_million_tokens < *r.cheapest_per_token->usd_per_million_tokens))
        r.cheapest_per_token = opt;
      if (opt.cost_per_hour && opt.cannot_run.empty() && (!r.cheapest || *opt.cost_per_hour < *r.cheapest->cost_per_hour))
        r.cheapest = opt;
      r.gpu_options.push_back(opt);
    }
  }

  if (has_architecture && !o.calibration.empty()) {
    r.calibrated = calibrate(base, o.calibration, r.budget_bytes);
    for (const auto& reason : r.calibrated->reasons) r.reasons.push_back(reason);
  }

  // Target global batch: the nearest at or above it that D ranks reach, ceil(target / D) x D
  // (exactly the target when D divides it), as the largest fitting micro-batch that divides
  // ceil(target / D) times GA.
  if (o.target_global_batch_size && r.max_micro_batch_size) {
    const std::int64_t target = *o.target_global_batch_size, d = base.parallel.data_parallel_size;
    const std::int64_t n = (target + d - 1) / d, cap = r.max_micro_batch_size->value;
    // Divisors come in pairs (i, n / i) with i <= sqrt(n): sqrt(n) steps, not one per micro-batch size.
    std::int64_t best = 1;
    for (std::int64_t i = 1; i <= n / i; ++i) {
      work_meter::add(1);
      if (n % i != 0) continue;
      if (i <= cap) best = std::max(best, i);
      if (n / i <= cap) best = std::max(best, n / i);
    }
    r.global_batch = GlobalBatchPlan{best, n / best, n * d, n * d == target};
  }

  // Curves for the page: the peak against sequence length and micro-batch.
  if (has_architecture) {
    const Architecture& a = *base.model.architecture;
    const std::int64_t seq_top = a.learned_positions ? a.max_position_embeddings : std::max<std::int64_t>(seq * 4, 8192);
    for (std::int64_t q = 256; q <= seq_top; q *= 2) {
      if (q % cp != 0) continue;
      TrainingSetup s = base;
      s.batch.seq_length = q;
      if (auto p = peak_of(s)) r.peak_vs_seq_length.emplace_back(q, *p);
    }
    const std::int64_t mbs_top = std::max<std::int64_t>(8, r.max_micro_batch_size ? r.max_micro_batch_size->value * 2 : 8);
    for (std::int64_t m = 1; m <= std::min<std::int64_t>(mbs_top, 1024); m *= 2) {
      TrainingSetup s = base;
      s.batch.micro_batch_size = m;
      if (auto p = peak_of(s)) r.peak_vs_micro_batch.emplace_back(m, *p);
    }
  }
  return r;
}

}  // namespace trainmem
