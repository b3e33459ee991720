#include "trainmem/calibration.hpp"

#include <cmath>

#include "trainmem/message_codes.hpp"

namespace trainmem {

namespace {

double in_measure(const Estimate& e, Measurement::Measure m) {
  switch (m) {
    case Measurement::Measure::allocated: return e.per_gpu.peak_allocated.value_or(0);
    case Measurement::Measure::reserved: return e.per_gpu.peak_reserved.value_or(0);
    case Measurement::Measure::device: return e.per_gpu.peak.value_or(0);
  }
  return 0;
}

TrainingSetup at(const TrainingSetup& base, std::int64_t mbs, std::int64_t seq) {
  TrainingSetup s = base;
  s.batch.micro_batch_size = mbs;
  s.batch.seq_length = seq;
  return s;
}

}  // namespace

std::optional<Calibrated> calibrate(const TrainingSetup& base, const std::vector<Measurement>& points, double budget) {
  if (points.empty()) return std::nullopt;
  const Measurement& m0 = points.front();
  const double t0 = static_cast<double>(m0.micro_batch_size * m0.seq_length);
  const TrainingSetup s0 = at(base, m0.micro_batch_size, m0.seq_length);
  const Estimate e0 = estimate(s0);
  // The analytic slope between the measured shape and the document's, where the answers are given:
  // at a small measured shape the peak can sit in a phase that no token reaches (the optimizer
  // step), and a slope taken there alone would be 0. Same token count: twice the measured micro-batch.
  const std::int64_t doc_mbs = base.batch.micro_batch_size, doc_seq = base.batch.seq_length.value_or(m0.seq_length);
  const bool doc_differs = doc_mbs * doc_seq != m0.micro_batch_size * m0.seq_length;
  const std::int64_t mbs1 = doc_differs ? doc_mbs : 2 * m0.micro_batch_size, seq1 = doc_differs ? doc_seq : m0.seq_length;
  const double t1_analytic = static_cast<double>(mbs1 * seq1);
  const Estimate e1 = estimate(at(base, mbs1, seq1));
  Calibrated c;
  const double p0 = in_measure(e0, m0.measure), p1 = in_measure(e1, m0.measure);
  c.analytic_bytes_per_token = (p1 - p0) / (t1_analytic - t0);
  c.analytic_fixed_bytes = p0 - c.analytic_bytes_per_token * t0;
  c.predicted_at_measurement = p0;
  c.relative_difference = p0 > 0 ? (m0.bytes - p0) / p0 : 0;
  // A peak below the model states (weights, gradients, optimizer states held through the step) is
  // not this setup's: no fit is drawn from it.
  if (m0.bytes < e0.per_gpu.model_states) {
    c.reasons.push_back({reason_code::calibration_below_model_states,
                         "calibration: the measured peak is below the model states alone (" +
                             std::to_string(std::llround(e0.per_gpu.model_states)) + " bytes): check the measure and the setup",
                         {{"model_states", e0.per_gpu.model_states}}});
    return c;
  }
  double per_token = c.analytic_bytes_per_token;
  if (points.size() >= 2) {
    const Measurement& m1 = points[1];
    const double t1 = static_cast<double>(m1.micro_batch_size * m1.seq_length);
    per_token = (m1.bytes - m0.bytes) / (t1 - t0);  // validated: different token counts
  }
  const double fixed = m0.bytes - per_token * t0;
  if (per_token <= 0) {  // no fit: bytes_per_token and fixed_bytes stay null (a byte count is never negative)
    c.reasons.push_back({reason_code::calibration_per_token_not_positive,
                         "calibration: the fitted per-token part is not positive: the two points do not grow with tokens", {}});
    return c;
  }
  // A line through the measurement that crosses zero before it reaches zero tokens has no fixed
  // part to report (bytes are never negative). Where the engine's own line does so too (a peak that
  // grows faster than the tokens, eager attention's scores) the fit stands, its fixed part left
  // null; where the engine's own line keeps a fixed part, the measurement and the slope disagree:
  // no fit.
  if (fixed < 0 && c.analytic_fixed_bytes >= 0) {
    c.reasons.push_back({reason_code::calibration_fixed_part_negative,
                         std::string("calibration: the fit leaves a negative fixed part: the measurement grows with tokens at ") +
                             (points.size() >= 2 ? "another rate than its two points give" : "another rate than the engine prices") +
                             "; check the measure and the setup" + (points.size() >= 2 ? "" : ", or give a second point"),
                         {{"points", static_cast<double>(std::min<std::size_t>(points.size(), 2))}}});
    return c;
  }
  c.bytes_per_token = per_token;
  if (fixed >= 0) c.fixed_bytes = fixed;
  // The budget in the measurement's terms: remove what the compared peak adds on top of the
  // measured quantity (fragmentation and/or the CUDA context), as the engine prices it.
  const double compared = compared_peak(s0, e0).value_or(p0);
  const double room = budget - (compared - p0) - fixed;
  if (room <= 0) {
    c.reasons.push_back({reason_code::calibration_fixed_part_fills_budget, "calibration: the fitted fixed part alone fills the budget", {}});
    return c;
  }
  // Answers at the document's sequence length and micro-batch (as the analytic ones), capped as
  // the solver caps its searches.
  constexpr double kCap = 16777216.0;  // 2^24
  const double tokens = room / per_token;
  const double seq = static_cast<double>(base.batch.seq_length.value_or(m0.seq_length));
  const double mbs = static_cast<double>(base.batch.micro_batch_size);
  const double max_mbs = std::min(kCap, std::floor(tokens / seq));
  const double max_seq = std::min(kCap, std::floor(tokens / mbs));
  if (max_mbs >= 1) c.max_micro_batch_size = static_cast<std::int64_t>(max_mbs);
  if (max_seq >= 1) c.max_seq_length = static_cast<std::int64_t>(max_seq);
  const auto cap = static_cast<std::int64_t>(kCap);
  if (max_mbs == kCap) c.reasons.push_back(answer_at_search_cap("calibrated.max_micro_batch_size", cap));
  if (max_seq == kCap) c.reasons.push_back(answer_at_search_cap("calibrated.max_seq_length", cap));
  return c;
}

}  // namespace trainmem
