#include "trainmem/number_text.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace trainmem {

bool whole_number(double d) { return std::isfinite(d) && std::floor(d) == d && std::fabs(d) <= kMaxExactInteger; }

std::string number_text(double d) {
  if (whole_number(d)) return std::to_string(static_cast<std::int64_t>(d));
  // %g at increasing precision until the text reads back as d: at most 17 significant digits.
  char buffer[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, d);
    if (std::strtod(buffer, nullptr) == d) break;
  }
  return buffer;
}

std::string gib_text(double bytes, int decimals) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*f GiB", decimals, bytes / (1024.0 * 1024.0 * 1024.0));
  return buffer;
}

}  // namespace trainmem
