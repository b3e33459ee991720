#include "trainmem/timing.hpp"

#include <chrono>

#include "trainmem/estimate.hpp"

namespace trainmem {

double estimate_nanoseconds(const TrainingSetup& setup, int iterations) {
  double sink = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) sink += estimate(setup).per_gpu.model_states;
  const auto end = std::chrono::steady_clock::now();
  const double ns = std::chrono::duration<double, std::nano>(end - start).count();
  return sink > 0 ? ns / iterations : ns / iterations;  // sink keeps the loop from being optimized away
}

}  // namespace trainmem
