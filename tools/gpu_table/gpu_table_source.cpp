#include "gpu_table_source.hpp"

#include <cstdio>
#include <optional>
#include <string>

#include "trainmem/gpu_entry_fields.hpp"

namespace trainmem {
namespace {

// A TableString holding `text` byte for byte, NULs included: a string literal (printable ASCII as
// is, '?' escaped so that no "??=" reads as a trigraph, everything else as a three-digit octal
// escape, which cannot run into the next character the way \x escapes do) and its length.
std::string literal(const std::string& text) {
  std::string out = "{\"";
  for (const unsigned char c : text) {
    if (c == '"' || c == '\\' || c == '?') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\%03o", c);
      out += escaped;
    }
  }
  return out + "\", " + std::to_string(text.size()) + "}";
}

// 17 significant digits read back to the same double; a decimal point or exponent keeps the
// literal a double.
std::string literal(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  std::string out = text;
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

std::string literal(std::int64_t value) { return std::to_string(value) + "LL"; }
std::string literal(bool value) { return value ? "true" : "false"; }

// The table's four arrays, by the type of value each holds.
enum class Column { strings, numbers, integers, flags };

struct Value {
  Column column;
  std::string name, literal;
};

// Appends each field's value, in visiting order, as the table holds it.
struct ValueWriter {
  std::vector<Value>* values;
  std::string prefix;

  void add(Column column, const std::string& name, std::string text) const {
    values->push_back({column, prefix + name, std::move(text)});
  }
  void operator()(const char* name, const std::string& v) const { add(Column::strings, name, literal(v)); }
  void operator()(const char* name, double v) const { add(Column::numbers, name, literal(v)); }
  void operator()(const char* name, std::int64_t v) const { add(Column::integers, name, literal(v)); }
  void operator()(const char* name, bool v) const { add(Column::flags, name, literal(v)); }
  void operator()(const char* name, GpuGeneration v) const {
    add(Column::integers, name, literal(static_cast<std::int64_t>(v)));
  }
  template <class T>
  void operator()(const char* name, const std::optional<T>& v) const {
    add(Column::flags, std::string(name) + " set", literal(v.has_value()));
    if (v) (*this)(name, *v);
  }
  void operator()(const char* name, const std::vector<PriceOffer>& offers) const {
    add(Column::integers, std::string(name) + " count", literal(static_cast<std::int64_t>(offers.size())));
    for (std::size_t i = 0; i < offers.size(); ++i)
      for_each_price_offer_field(offers[i], ValueWriter{values, prefix + name + "[" + std::to_string(i) + "]."});
  }
};

std::vector<Value> values_of(const GpuEntry& g) {
  std::vector<Value> values;
  for_each_gpu_entry_field(g, ValueWriter{&values, ""});
  return values;
}

// `const TYPE NAME[] = {...};` with one value per line, plus an unused last element (`spare`) so
// that no array is empty; returns the count of real values through `count`.
std::string array(const char* type, const char* name, const std::vector<Value>& values, Column column,
                  const char* spare, std::size_t& count) {
  std::string out = std::string("const ") + type + " " + name + "[] = {\n";
  count = 0;
  for (const Value& v : values) {
    if (v.column != column) continue;
    out += "    " + v.literal + ",  // " + v.name + "\n";
    ++count;
  }
  return out + "    " + spare + "};\n";
}

}  // namespace

std::string gpu_entry_values(const GpuEntry& g) {
  std::string out;
  for (const Value& v : values_of(g)) out += v.name + " = " + v.literal + "\n";
  return out;
}

std::string gpu_table_source(const std::vector<GpuEntry>& gpus) {
  std::vector<Value> values;
  for (const GpuEntry& g : gpus) {
    const std::vector<Value> entry = values_of(g);
    values.insert(values.end(), entry.begin(), entry.end());
  }
  std::size_t strings = 0, numbers = 0, integers = 0, flags = 0;
  std::string out =
      "// Generated from catalog/gpus/*.json by tools/gpu_table (the build). Do not edit.\n"
      "#include \"trainmem/gpu_table.hpp\"\n\n"
      "namespace trainmem {\nnamespace {\n\n";
  out += array("TableString", "kStrings", values, Column::strings, "{nullptr, 0}", strings);
  out += array("double", "kNumbers", values, Column::numbers, "0.0", numbers);
  out += array("std::int64_t", "kIntegers", values, Column::integers, "0", integers);
  out += array("bool", "kFlags", values, Column::flags, "false", flags);
  out += "\n}  // namespace\n\nextern const GpuTableData kBuiltInGpuTable = {" + std::to_string(gpus.size()) +
         ", kStrings, " + std::to_string(strings) + ", kNumbers, " + std::to_string(numbers) + ", kIntegers, " +
         std::to_string(integers) + ", kFlags, " + std::to_string(flags) + "};\n\n}  // namespace trainmem\n";
  return out;
}

}  // namespace trainmem
