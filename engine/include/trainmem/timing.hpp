// Engine-only speed, measured where the engine runs (native or WebAssembly): nanoseconds per
// estimate() from an already parsed setup. Used by the benchmarks only.
#pragma once

#include "trainmem/training_setup.hpp"

namespace trainmem {

double estimate_nanoseconds(const TrainingSetup& setup, int iterations);

}  // namespace trainmem
