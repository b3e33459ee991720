// The solve document: an estimate document plus a "solve" object; the answer to every inverse
// query, the calibrated variant, the strategy search and the page's curves.
#include <cmath>

#include "documents.hpp"
#include "object_reader.hpp"
#include "params_json.hpp"
#include "trainmem/catalog.hpp"
#include "trainmem/json_api.hpp"
#include "trainmem/solver.hpp"
#include "trainmem/strategy_search.hpp"

namespace trainmem {

namespace {

using json_io::json;
using json_io::ObjectReader;

// A reason as the documents carry it: {code, message, params} (message_codes.hpp, kind reason).
json message_json(const Warning& m) {
  return {{"code", m.code}, {"message", m.message}, {"params", json_io::params_json(m.params)}};
}

// `reasons` keeps the English messages for scripts; `reason_messages` the same list, coded.
void put_reasons(json& out, const std::vector<Warning>& reasons) {
  json texts = json::array(), messages = json::array();
  for (const Warning& m : reasons) {
    texts.push_back(m.message);
    messages.push_back(message_json(m));
  }
  out["reasons"] = texts;
  out["reason_messages"] = messages;
}

struct SolveRequest {
  SolveOptions options;
  std::optional<StrategySearchOptions> strategies;
};

// solve.strategies.order: "throughput" (tokens per second per GPU) or "tokens_per_dollar".
void set_order(ObjectReader& so, StrategySearchOptions& opts) {
  if (auto order = so.choice<StrategyOrder>("order", {{"throughput", StrategyOrder::throughput},
                                                      {"tokens_per_dollar", StrategyOrder::tokens_per_dollar}}))
    opts.order = *order;
}

SolveRequest read_solve(const json& v, const TrainingSetup& s, Errors& errors) {
  SolveRequest q;
  ObjectReader r(v, "solve", errors);
  if (!r.valid()) return q;
  if (auto m = r.number("safety_margin", 0, 0.9)) q.options.safety_margin = *m;
  q.options.target_global_batch_size = r.integer("target_global_batch_size", 1, 1e9);
  if (auto g = r.integer("max_gpus", 1, 1e6)) q.options.max_gpus = *g;
  if (const json* prices = r.get("prices")) {
    ObjectReader pr(*prices, "solve.prices", errors);
    if (pr.valid())
      for (auto it = prices->begin(); it != prices->end(); ++it)
        if (auto p = pr.number(it.key(), 0, 1e5)) {
          if (!builtin_gpus().find_gpu(it.key()))
            errors.push_back({error_code::unknown_gpu, pr.field(it.key()), "solve.prices: \"" + excerpt(it.key()) + "\" is not a catalog GPU"});
          q.options.prices[it.key()] = *p;
        }
  }
  if (const json* cal = r.get("calibration")) {
    if (cal->is_array() && cal->size() > 2) {
      errors.push_back({error_code::out_of_range, "solve.calibration",
                        "solve.calibration has " + std::to_string(cal->size()) + " measured points; the limit is 2",
                        {{"entries", static_cast<double>(cal->size())}, {"limit", 2.0}}});
    } else if (!cal->is_array() || cal->empty()) {
      r.type_error("calibration", "a list of one or two measured points", *cal);
    } else {
      for (std::size_t i = 0; i < cal->size(); ++i) {
        ObjectReader m((*cal)[i], "solve.calibration." + std::to_string(i), errors);
        Measurement point;
        auto bytes = m.number("measured_bytes", 0, 1e15, true);
        if (!bytes && !m.has("measured_bytes"))
          errors.push_back({error_code::missing_field, m.field("measured_bytes"), m.field("measured_bytes") + " is required",
                             {{"reason", "measured_bytes_required"}}});
        point.bytes = bytes.value_or(0);
        point.micro_batch_size = m.integer("micro_batch_size", 1, 1e6).value_or(s.batch.micro_batch_size);
        point.seq_length = m.integer("seq_length", 1, 1e8).value_or(s.batch.seq_length.value_or(4096));
        using Mm = Measurement::Measure;
        point.measure = m.choice<Mm>("measure", {{"allocated", Mm::allocated}, {"reserved", Mm::reserved}, {"nvidia-smi", Mm::device}})
                            .value_or(Mm::allocated);
        m.finish();
        const std::string at = "solve.calibration." + std::to_string(i);
        const Architecture* a = s.model.architecture ? &*s.model.architecture : nullptr;
        if (a && a->learned_positions && point.seq_length > a->max_position_embeddings)
          errors.push_back({error_code::out_of_range, at + ".seq_length",
                            at + ".seq_length exceeds the model's " + std::to_string(a->max_position_embeddings) + " positions"});
        if (point.seq_length % s.parallel.context_parallel_size != 0)
          errors.push_back({error_code::not_divisible, at + ".seq_length",
                            "parallel.context_parallel_size must divide " + at + ".seq_length"});
        q.options.calibration.push_back(point);
      }
      if (q.options.calibration.size() == 2) {
        const Measurement& a = q.options.calibration[0];
        const Measurement& b = q.options.calibration[1];
        if (a.measure != b.measure)
          errors.push_back({error_code::inconsistent, "solve.calibration.1.measure", "both calibration points need the same measure",
                            {{"reason", "calibration_measures_differ"}}});
        if (a.micro_batch_size * a.seq_length == b.micro_batch_size * b.seq_length)
          errors.push_back({error_code::inconsistent, "solve.calibration.1",
                            "the two calibration points need different token counts (micro_batch_size x seq_length)",
                            {{"reason", "calibration_same_tokens"}}});
      }
    }
  }
  if (const json* st = r.get("strategies")) {
    ObjectReader so(*st, "solve.strategies", errors);
    StrategySearchOptions opts;
    opts.world_size = so.integer("world_size", 1, 1e6).value_or(s.parallel.world_size);
    if (auto m = so.integer("max_micro_batch_size", 1, 4096)) opts.max_micro_batch_size = *m;
    if (auto l = so.integer("limit", 1, 1000)) opts.limit = static_cast<std::size_t>(*l);
    if (auto off = so.boolean("include_offload")) opts.include_offload = *off;
    set_order(so, opts);
    so.finish();
    q.strategies = opts;
  }
  r.finish();
  return q;
}

json fit_point(const std::optional<FitPoint>& p) {
  if (!p) return nullptr;
  return {{"value", p->value}, {"peak", json_io::bytes_value(p->peak)}, {"verdict", p->verdict ? json(verdict_name(*p->verdict)) : json(nullptr)}};
}

json number_or_null(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

const char* checkpointing_name(Checkpointing c) {
  return c == Checkpointing::none ? "none" : c == Checkpointing::selective ? "selective" : "full";
}

json write_solve(const SolveResult& r, const std::optional<StrategySearchResult>& search) {
  json out;
  out["budget_bytes"] = json_io::bytes_value(r.budget_bytes);
  out["max_micro_batch_size"] = fit_point(r.max_micro_batch_size);
  out["max_seq_length"] = fit_point(r.max_seq_length);
  out["min_gpus"] = fit_point(r.min_gpus);
  out["min_gpus_whole_band"] = fit_point(r.min_gpus_whole_band);
  out["gpu_options"] = json::array();
  for (const auto& g : r.gpu_options)
    out["gpu_options"].push_back({{"gpu", g.id}, {"min_gpus", fit_point(g.min_gpus)}, {"min_gpus_whole_band", fit_point(g.min_gpus_whole_band)},
                                  {"price_per_gpu_hour", g.price_per_gpu_hour ? json(*g.price_per_gpu_hour) : json(nullptr)},
                                  {"cost_per_hour", g.cost_per_hour ? json(*g.cost_per_hour) : json(nullptr)},
                                  {"usd_per_million_tokens", g.usd_per_million_tokens ? json(*g.usd_per_million_tokens) : json(nullptr)},
                                  {"cannot_run", g.cannot_run}});
  out["cheapest"] = r.cheapest ? json{{"gpu", r.cheapest->id}, {"gpus", r.cheapest->min_gpus->value},
                                      {"cost_per_hour", *r.cheapest->cost_per_hour},
                                      {"verdict", r.cheapest->min_gpus->verdict ? json(verdict_name(*r.cheapest->min_gpus->verdict)) : json(nullptr)}}
                               : json(nullptr);
  out["cheapest_per_token"] = r.cheapest_per_token
                                  ? json{{"gpu", r.cheapest_per_token->id}, {"gpus", r.cheapest_per_token->min_gpus->value},
                                         {"cost_per_hour", *r.cheapest_per_token->cost_per_hour},
                                         {"usd_per_million_tokens", *r.cheapest_per_token->usd_per_million_tokens},
                                         {"verdict", r.cheapest_per_token->min_gpus->verdict ? json(verdict_name(*r.cheapest_per_token->min_gpus->verdict)) : json(nullptr)}}
                                  : json(nullptr);
  out["global_batch"] = r.global_batch ? json{{"micro_batch_size", r.global_batch->micro_batch_size},
                                              {"gradient_accumulation_steps", r.global_batch->gradient_accumulation_steps},
                                              {"global_batch_size", r.global_batch->global_batch_size},
                                              {"exact", r.global_batch->exact}}
                                       : json(nullptr);
  if (r.calibrated) {
    const Calibrated& c = *r.calibrated;
    out["calibrated"] = {{"fixed_bytes", c.fixed_bytes ? json_io::bytes_value(*c.fixed_bytes) : json(nullptr)},
                         {"bytes_per_token", number_or_null(c.bytes_per_token)},
                         {"analytic_fixed_bytes", json_io::bytes_value(c.analytic_fixed_bytes)},
                         {"analytic_bytes_per_token", c.analytic_bytes_per_token},
                         {"analytic_at_measurement", json_io::bytes_value(c.predicted_at_measurement)},
                         {"relative_difference", c.relative_difference},
                         {"max_micro_batch_size", c.max_micro_batch_size ? json(*c.max_micro_batch_size) : json(nullptr)},
                         {"max_seq_length", c.max_seq_length ? json(*c.max_seq_length) : json(nullptr)}};
  } else {
    out["calibrated"] = nullptr;
  }
  json curves = {{"peak_vs_seq_length", json::array()}, {"peak_vs_micro_batch", json::array()}};
  for (const auto& [x, y] : r.peak_vs_seq_length) curves["peak_vs_seq_length"].push_back({x, json_io::bytes_value(y)});
  for (const auto& [x, y] : r.peak_vs_micro_batch) curves["peak_vs_micro_batch"].push_back({x, json_io::bytes_value(y)});
  out["curves"] = curves;
  if (search) {
    json ranked = json::array();
    for (const auto& c : search->ranked)
      ranked.push_back({{"data_parallel_size", c.data_parallel_size}, {"tensor_parallel_size", c.tensor_parallel_size},
                        {"pipeline_parallel_size", c.pipeline_parallel_size}, {"context_parallel_size", c.context_parallel_size},
                        {"zero_stage", c.zero_stage}, {"activation_checkpointing", checkpointing_name(c.activation_checkpointing)},
                        {"offload_optimizer", c.offload_optimizer == OffloadTarget::none ? "none" : "cpu"},
                        {"offload_param", "none"}, {"sequence_parallel", c.tensor_parallel_size > 1},
                        {"tp_comm_overlap", c.tp_comm_overlap},
                        {"pipeline_layers", c.pipeline_layers.empty() ? json(nullptr) : json(c.pipeline_layers)},
                        {"context_parallel_kind", c.context_parallel_kind == ContextParallelKind::ulysses ? "ulysses" : "ring"},
                        {"micro_batch_size", c.micro_batch_size}, {"gradient_accumulation_steps", c.gradient_accumulation_steps},
                        {"peak", json_io::bytes_value(c.peak)},
                        {"headroom", json_io::bytes_value(c.headroom)}, {"step_time_s", number_or_null(c.step_time_s)},
                        {"tokens_per_gpu_per_s", number_or_null(c.tokens_per_gpu_per_s)}, {"mfu", number_or_null(c.mfu)},
                        {"exposed_communication_s", number_or_null(c.exposed_communication_s)},
                        {"tokens_per_dollar", number_or_null(c.tokens_per_dollar)}, {"explanation", c.explanation.message},
                        {"explanation_message", message_json(c.explanation)},
                        {"verdict", c.verdict ? json(verdict_name(*c.verdict)) : json(nullptr)}});
    out["strategies"] = {{"ranked", ranked}, {"candidates", search->candidates}, {"estimates", search->estimates},
                         {"work", search->work}, {"feasible", search->feasible}, {"truncated", search->truncated},
                         {"truncated_reason", search->truncated_reason ? json(search->truncated_reason->message) : json(nullptr)}};
    put_reasons(out["strategies"], search->reasons);
  } else {
    out["strategies"] = nullptr;
  }
  put_reasons(out, r.reasons);
  return out;
}

}  // namespace

JsonResult solve_json(std::string_view document) {
  try {
    Errors errors;
    auto doc = json_io::read_document(document, errors);
    if (!doc) return {error_document(errors), false};
    json solve_block = json::object();
    if (doc->is_object() && doc->contains("solve")) {
      // A field given as null is not given (docs/api.md): the defaults of every question.
      if (!(*doc)["solve"].is_null()) solve_block = (*doc)["solve"];
      doc->erase("solve");
    }
    TrainingSetup s = json_io::read_setup(*doc, errors);
    if (errors.empty()) errors = validate(s);
    if (errors.empty() && !s.gpu)
      errors.push_back({error_code::missing_field, "gpu", "solve needs a gpu: a catalog id or {\"memory_bytes\": ...}",
                        {{"reason", "solve_needs_gpu"}}});
    const SolveRequest q = read_solve(solve_block, s, errors);
    if (!errors.empty()) return {error_document(errors), false};
    const SolveResult r = solve(s, q.options, builtin_gpus());
    std::optional<StrategySearchResult> search;
    if (q.strategies) {
      StrategySearchOptions options = *q.strategies;
      // solve.prices (USD per GPU-hour by catalog id) prices this GPU's tokens too.
      if (const auto it = q.options.prices.find(s.gpu->id); it != q.options.prices.end()) options.price_per_gpu_hour_usd = it->second;
      // solve.target_global_batch_size is kept by every ranked strategy.
      options.global_batch_size = q.options.target_global_batch_size;
      search = search_strategies(s, options, r.budget_bytes);
    }
    return {write_solve(r, search).dump(2), true};
  } catch (const std::exception& ex) {
    return {error_document({{error_code::internal, "(document)", std::string("internal error: ") + ex.what()}}), false};
  }
}

}  // namespace trainmem
