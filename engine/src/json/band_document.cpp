// The uncertainty band and the verdict in the estimate output (docs/api.md, "Output (estimate)"):
// per_gpu.peak_range, peak_reserved_range, peak_allocated_range, verdict,
// uncertainty, and fits = (verdict == "fits").
#include "documents.hpp"
#include "trainmem/uncertainty.hpp"

namespace trainmem::json_io {

namespace {

const char* level_name(BandLevel l) {
  switch (l) {
    case BandLevel::peak_allocated: return "peak_allocated";
    case BandLevel::peak_reserved: return "peak_reserved";
    case BandLevel::peak: return "peak";
  }
  return "";
}

nlohmann::json range_json(const Range& r) {
  return {{"low", bytes_value(r.low)}, {"expected", bytes_value(r.expected)}, {"high", bytes_value(r.high)}};
}

}  // namespace

void write_band(const TrainingSetup& s, const Estimate& e, nlohmann::json& out) {
  const std::optional<Band> band = uncertainty_band(s, e);
  nlohmann::json& g = out["per_gpu"];
  g["peak_allocated_range"] = band ? range_json(band->peak_allocated) : nlohmann::json(nullptr);
  g["peak_reserved_range"] = band ? range_json(band->peak_reserved) : nlohmann::json(nullptr);
  g["peak_range"] = band ? range_json(band->peak) : nlohmann::json(nullptr);
  out["uncertainty"] = nlohmann::json::array();
  if (band) {
    for (const auto& t : band->terms) {
      // The width is the sum of the two halves as written (whole bytes each), not the rounded sum.
      const nlohmann::json below = bytes_value(t.below), above = bytes_value(t.above);
      out["uncertainty"].push_back({{"source", t.source},
                                    {"bytes", bytes_value(below.get<double>() + above.get<double>())},
                                    {"below_bytes", below},
                                    {"above_bytes", above},
                                    {"level", level_name(t.level)},
                                    {"widens_compared_band", widens_compared_band(s, t)},
                                    {"alternative", t.alternative.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.alternative)},
                                    {"reference", t.reference}});
    }
  }
  const std::optional<Verdict> verdict = judge_verdict(s, e, band);
  out["verdict"] = verdict ? nlohmann::json(verdict_name(*verdict)) : nlohmann::json(nullptr);
  const UncertaintyTerm* deciding = band ? deciding_term(s, e, *band, verdict) : nullptr;
  out["deciding_term"] = deciding ? nlohmann::json(deciding->source) : nlohmann::json(nullptr);
  out["fits"] = verdict ? nlohmann::json(*verdict == Verdict::fits) : nlohmann::json(nullptr);
  // The quantity the verdict and the margins compare with the GPU's capacity, so that a reader shows
  // that band beside them: peak_reserved against a usable figure, else peak (compared_peak).
  out["compared_quantity"] = !s.gpu ? nlohmann::json(nullptr) : nlohmann::json(compares_reserved(*s.gpu) ? "peak_reserved" : "peak");
  // The point estimate's own margin, beside the verdict: capacity minus the compared quantity.
  const std::optional<double> compared = compared_peak(s, e);
  out["margin_bytes"] = compared && e.gpu_capacity_bytes ? bytes_value(*e.gpu_capacity_bytes - *compared) : nlohmann::json(nullptr);
  const std::optional<Range> r = band ? compared_range(s, *band) : std::nullopt;
  out["margin_range"] = r && e.gpu_capacity_bytes
                            ? nlohmann::json{{"low", bytes_value(*e.gpu_capacity_bytes - r->high)},
                                             {"expected", bytes_value(*e.gpu_capacity_bytes - r->expected)},
                                             {"high", bytes_value(*e.gpu_capacity_bytes - r->low)}}
                            : nlohmann::json(nullptr);
}

}  // namespace trainmem::json_io
