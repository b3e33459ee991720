// A count of the engine's steps whose number depends on the input: layers and list entries walked,
// edit-distance cells compared, pipeline stages estimated, strategies enumerated. Tests reset it,
// run a document and assert that the count stays within a bound set by the document's size and
// the documented limits (docs/api.md, "Limits"), so a freeze is caught without timing anything.
// One counter per thread; it never changes an answer.
#pragma once

#include <cstdint>

namespace trainmem::work_meter {

void add(std::uint64_t steps);
std::uint64_t steps();
void reset();

}  // namespace trainmem::work_meter
