// The accuracy programs' shared conventions: error = (predicted - measured) / measured; a published
// case the engine cannot express, rejects or answers with null is a miss, counted as |error| 100 %
// and signed error -100 % (never skipped); quantiles interpolate linearly between order statistics
// (rank q (n - 1), numpy's default).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace trainmem::accuracy {

constexpr double kMissAbsError = 1.0;      // 100 %
constexpr double kMissSignedError = -1.0;  // -100 %
constexpr double kWithin = 0.15;

inline double quantile(std::vector<double> v, double q) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const double rank = q * static_cast<double>(v.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(rank)), hi = static_cast<std::size_t>(std::ceil(rank));
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}

}  // namespace trainmem::accuracy
