// Each component of an estimate as a formula with the setup's numbers and its source, for the
// page's explanations and the CLI's output. Text only; every number comes from the Estimate.
#pragma once

#include <vector>

#include "trainmem/estimate.hpp"

namespace trainmem {

std::vector<Explanation> explain(const TrainingSetup& setup, const Estimate& e);

// Common estimation mistakes (docs/memory-model.md) and other caveats that apply to this setup (stable codes).
std::vector<Warning> estimate_warnings(const TrainingSetup& setup, const Estimate& e);

// Appends what the setup asks of its GPU that the GPU cannot do (bf16, FlashAttention-2).
void hardware_warnings(const TrainingSetup& setup, const Estimate& e, std::vector<Warning>& warnings);

}  // namespace trainmem
