#include "trainmem/gpu_table.hpp"

#include <optional>
#include <stdexcept>
#include <string>

#include "trainmem/gpu_entry_fields.hpp"

namespace trainmem {
namespace {

// Takes each field's value from the next element of its type's array; past an array's end is a
// build fault.
struct TableReader {
  const GpuTableData& table;
  std::size_t strings = 0, numbers = 0, integers = 0, flags = 0;

  static std::size_t next(std::size_t& at, std::size_t count) {
    if (at >= count) throw std::logic_error("the built-in GPU table has fewer values than this build's GPU fields take");
    return at++;
  }
  void operator()(const char*, std::string& v) {
    const TableString& s = table.strings[next(strings, table.string_count)];
    v.assign(s.text, s.size);
  }
  void operator()(const char*, double& v) { v = table.numbers[next(numbers, table.number_count)]; }
  void operator()(const char*, std::int64_t& v) { v = table.integers[next(integers, table.integer_count)]; }
  void operator()(const char*, bool& v) { v = table.flags[next(flags, table.flag_count)]; }
  void operator()(const char*, GpuGeneration& v) {
    v = static_cast<GpuGeneration>(table.integers[next(integers, table.integer_count)]);
  }
  template <class T>
  void operator()(const char* name, std::optional<T>& v) {
    v.reset();
    if (!table.flags[next(flags, table.flag_count)]) return;
    T value{};
    (*this)(name, value);
    v = value;
  }
  void operator()(const char*, std::vector<PriceOffer>& offers) {
    offers.resize(static_cast<std::size_t>(table.integers[next(integers, table.integer_count)]));
    for (PriceOffer& o : offers) for_each_price_offer_field(o, *this);
  }
};

}  // namespace

std::vector<GpuEntry> read_gpu_table(const GpuTableData& table) {
  std::vector<GpuEntry> gpus(table.entries);
  TableReader reader{table};
  for (GpuEntry& g : gpus) for_each_gpu_entry_field(g, reader);
  if (reader.strings != table.string_count || reader.numbers != table.number_count ||
      reader.integers != table.integer_count || reader.flags != table.flag_count)
    throw std::logic_error("the built-in GPU table has more values than this build's GPU fields take");
  return gpus;
}

}  // namespace trainmem
