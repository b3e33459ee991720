// Calibration from a measured peak (docs/memory-model.md, "Working backwards"): the engine's peak as a fixed part plus a
// per-token part, refitted to one or two measured points, then the inverse queries answered with
// the fitted line beside the analytic ones.
//
// With one point the per-token slope stays the analytic one (taken between the measured shape and
// the document's) and the fixed part absorbs the difference; with two points both are fitted.
// Slopes are per token (micro_batch x seq_length), so an eager s^2 term is linearised over that span. Bytes in the measure the user
// reported (max_memory_allocated, max_memory_reserved or nvidia-smi).
#pragma once

#include <optional>
#include <vector>

#include "trainmem/solver.hpp"

namespace trainmem {

// `budget_bytes` is what the solver compares the peak with (capacity x (1 - safety margin)).
std::optional<Calibrated> calibrate(const TrainingSetup& base, const std::vector<Measurement>& points, double budget_bytes);

}  // namespace trainmem
