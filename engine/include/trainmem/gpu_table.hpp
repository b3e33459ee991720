// The GPU catalog as C++ data: the build writes catalog/gpus/*.json, validated by the catalog reader,
// as four flat arrays (tools/gpu_table), and the engine reads its entries back from them without
// parsing JSON. Both sides walk each entry's fields in gpu_entry_fields.hpp's order; an optional
// field is a flag, then its value when present; a list of price offers is its length, then each
// offer's fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "trainmem/catalog.hpp"

namespace trainmem {

// Values in field order, by type, with each array's length (the generated arrays carry one unused
// element more, so that none is empty).
// A string value with its length in bytes (a catalog string may hold a NUL, "\u0000" in JSON).
struct TableString {
  const char* text;
  std::size_t size;
};

struct GpuTableData {
  std::size_t entries;
  const TableString* strings;    // std::string fields
  std::size_t string_count;
  const double* numbers;         // double fields
  std::size_t number_count;
  const std::int64_t* integers;  // std::int64_t fields, enum values and list lengths
  std::size_t integer_count;
  const bool* flags;             // bool fields and whether each optional field is set
  std::size_t flag_count;
};

// The entries, in the order written. The arrays must be what the table writer wrote for this
// build's fields: a table with more or fewer values of a type than the entries' fields take is a
// build fault and throws std::logic_error.
std::vector<GpuEntry> read_gpu_table(const GpuTableData& table);

}  // namespace trainmem
