// The GPU catalog written as C++ data (trainmem/gpu_table.hpp): the build parses catalog/gpus/*.json
// once (tools/gpu_table/main.cpp) and compiles the values into the engine, which reads its entries
// from them (read_gpu_table) without parsing JSON.
#pragma once

#include <string>
#include <vector>

#include "trainmem/catalog.hpp"

namespace trainmem {

// One line per field value as the table holds it ("spec.usable_bytes set = false",
// "spec.memory_bytes = 42949672960LL", in gpu_entry_fields.hpp's order): equal text is equal
// values, doubles bit for bit.
std::string gpu_entry_values(const GpuEntry& g);

// A whole C++ source defining `extern const GpuTableData kBuiltInGpuTable` with the entries in order.
std::string gpu_table_source(const std::vector<GpuEntry>& gpus);

}  // namespace trainmem
