// Numbers as messages and their params show them, one format everywhere (docs/api.md, Errors): a
// whole number of magnitude up to 2^53, which a double (and JavaScript) holds exactly, as its
// digits ("1000000000000", "1", not "1000000000000.0" or "1e+12"); any other number as the
// shortest decimal that reads back as the same double ("0.1", "1e+30").
#pragma once

#include <string>

namespace trainmem {

// Largest integer a double (and JavaScript) holds exactly: 2^53.
inline constexpr double kMaxExactInteger = 9007199254740992.0;

// Whether number_text writes `d` as an integer.
bool whole_number(double d);

std::string number_text(double d);

// Bytes in GiB (2^30 bytes) for an English message, with `decimals` decimals: "25.87 GiB".
std::string gib_text(double bytes, int decimals);

}  // namespace trainmem
