// The band around the point estimate and the three-way verdict drawn from it.
//
// A point estimate alone draws a hard line through a number whose inputs are partly unknown: the
// caching allocator's fragmentation, the CUDA context the driver creates, and settings the document
// left to a default that the framework itself sets differently across its configurations and
// versions. Each of these is one named term: how far it can move a quantity below and above the
// expected value, in bytes, read from a source a reader can open (docs/memory-model.md,
// "Uncertainty band"). Beyond them, the engine's own error on published runs it was not developed
// against is one more term (estimator_error), the only one read from measurements. The terms add
// linearly (a worst case, not a statistical interval), so the band's width is the sum of its
// terms' contributions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trainmem/estimate.hpp"

namespace trainmem {

// The engine's own error on runs it was not developed against, beyond every other named source:
// over the 53 measured peaks of tests/fixtures/measured_cases.json marked split "outside" (none of
// the handed set), the distance of the measurement above the band the other terms draw, relative
// to the expected allocated peak (reserved for a reserved or device figure), is 0 for 30 of them
// (28 inside that band, 2 below it, at most 3.8 % under its low end) and 17.5 % at the 90th
// percentile (linear interpolation between 14.15 % and 18.36 %; at commit 9b14224). So the
// allocated peak's band reaches 17.5 % above the expected value, carried to reserved and peak at
// their ratio, and nothing below it (2 of 53 below is under the 10 % a 90th percentile leaves).
// It is the one term fitted to measurements, and never to the handed cases: the accuracy program
// checks the figure against the outside cases on every run, and the handed cases' coverage is its
// held-out check (docs/memory-model.md, "Uncertainty band").
inline constexpr double kEstimatorErrorAbove = 0.175;

struct Range {  // bytes
  double low = 0, expected = 0, high = 0;
};

// The quantity a term moves directly (and with it every quantity built on it: allocated ->
// reserved -> peak).
enum class BandLevel { peak_allocated, peak_reserved, peak };

struct UncertaintyTerm {
  std::string source;       // stable code: estimator_error, allocator_fragmentation, cuda_context, unstated_..., framework_version_...
  BandLevel level = BandLevel::peak_allocated;
  double below = 0;         // bytes the quantity can lie under the expected value
  double above = 0;         // bytes it can lie over it
  std::string alternative;  // the other setting re-estimated, e.g. "activation_checkpointing: none" (empty if none)
  std::string reference;    // where the range comes from
};

struct Band {
  Range peak_allocated, peak_reserved, peak;
  std::vector<UncertaintyTerm> terms;  // every term that widens the band (zero-width ones left out)
};

// The band of an estimate of `s` (the estimate's own numbers as `expected`). Re-estimates `s` once
// for each alternative value of an unstated setting. nullopt when the estimate has no peak (a
// parameter count without an architecture).
std::optional<Band> uncertainty_band(const TrainingSetup& s, const Estimate& e);

enum class Verdict { fits, borderline, does_not_fit };
const char* verdict_name(Verdict v);

// The band of the quantity `fits` compares (compared_peak: peak_reserved against a usable figure,
// else peak) against gpu_capacity: fits when its high end fits, does_not_fit when its low end does
// not, borderline between. Without a band, does_not_fit when the model states alone exceed the
// GPU, else unknown. nullopt without a GPU.
std::optional<Verdict> judge_verdict(const TrainingSetup& s, const Estimate& e, const std::optional<Band>& band);

// The band of the quantity judge_verdict compares.
std::optional<Range> compared_range(const TrainingSetup& s, const Band& band);

// Whether `t` widens the band of the quantity judge_verdict compares: every term does, but where
// that is peak_reserved (a GPU with a usable figure), the device peak's own terms (the context and
// userbuffers) do not. Without a GPU every term widens the device peak, the band a reader shows.
bool widens_compared_band(const TrainingSetup& s, const UncertaintyTerm& t);

// The term a borderline verdict turns on: of the terms that widen the compared band
// (widens_compared_band), the one that raises it
// most where the point estimate fits, else the one that lowers it most. nullptr when the verdict is
// not borderline or no term moves the band that way.
const UncertaintyTerm* deciding_term(const TrainingSetup& s, const Estimate& e, const Band& band, std::optional<Verdict> verdict);

}  // namespace trainmem
