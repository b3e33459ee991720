// Each component of an estimate as a formula with the setup's numbers and its source, for the
// page's explanations and the CLI's output. Text only; every number comes from the Estimate.
#pragma once

#include <vector>

#include "trainmem/estimate.hpp"

namespace trainmem {

std::vector<Explanation> explain(const TrainingSetup& setup, const Estimate& e);

// Common estimation mistakes (docs/memory-model.md) and other caveats that apply to this setup (stable codes).
std::vector<Warning> estimate_warnings(const TrainingSetup& setup, const Estimate& e);

}  // namespace trainmem
