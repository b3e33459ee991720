#include "trainmem/dtype.hpp"

#include <array>
#include <utility>

namespace trainmem {

namespace {
constexpr std::array<std::pair<Dtype, std::string_view>, 7> kDtypeNames{{
    {Dtype::fp32, "fp32"}, {Dtype::bf16, "bf16"}, {Dtype::fp16, "fp16"}, {Dtype::fp8, "fp8"},
    {Dtype::int8, "int8"}, {Dtype::int4, "int4"}, {Dtype::nf4, "nf4"},
}};
}  // namespace

std::string_view dtype_name(Dtype d) {
  for (const auto& [dtype, name] : kDtypeNames)
    if (dtype == d) return name;
  return "?";
}

std::optional<Dtype> parse_dtype(std::string_view name) {
  for (const auto& [dtype, n] : kDtypeNames)
    if (n == name) return dtype;
  return std::nullopt;
}

}  // namespace trainmem
