// Element types and their sizes (docs/memory-model.md, "Bytes per parameter"): fp32 4, bf16/fp16 2,
// fp8/int8 1, int4/nf4 0.5 bytes per element.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace trainmem {

enum class Dtype { fp32, bf16, fp16, fp8, int8, int4, nf4 };

// Size of one element, in bits (int4/nf4 are half a byte, so bits keep it exact).
constexpr int dtype_bits(Dtype d) {
  switch (d) {
    case Dtype::fp32: return 32;
    case Dtype::bf16: return 16;
    case Dtype::fp16: return 16;
    case Dtype::fp8: return 8;
    case Dtype::int8: return 8;
    case Dtype::int4: return 4;
    case Dtype::nf4: return 4;
  }
  return 0;
}

// Size of one element, in bytes (0.5 for int4/nf4).
constexpr double dtype_bytes(Dtype d) { return dtype_bits(d) / 8.0; }
constexpr double kFp32Bytes = dtype_bytes(Dtype::fp32);

// Name as used in documents ("fp32", "bf16", ...).
std::string_view dtype_name(Dtype d);
// Parses a document name; nullopt when unknown.
std::optional<Dtype> parse_dtype(std::string_view name);

}  // namespace trainmem
