#include "trainmem/work_meter.hpp"

namespace trainmem::work_meter {

namespace {
thread_local std::uint64_t counted = 0;
}

void add(std::uint64_t steps) { counted += steps; }
std::uint64_t steps() { return counted; }
void reset() { counted = 0; }

}  // namespace trainmem::work_meter
