#include <catch2/catch.hpp>

#include "trainmem/dtype.hpp"

using namespace trainmem;

// The bytes-per-element table (docs/memory-model.md, "Bytes per parameter"), one row each.
TEST_CASE("dtype sizes follow the bytes-per-element table", "[dtype]") {
  struct Row { const char* name; double bytes; };
  const Row row = GENERATE(Row{"fp32", 4}, Row{"bf16", 2}, Row{"fp16", 2}, Row{"fp8", 1}, Row{"int8", 1},
                           Row{"int4", 0.5}, Row{"nf4", 0.5});
  const auto d = parse_dtype(row.name);
  REQUIRE(d);
  CHECK(dtype_bytes(*d) == row.bytes);
  CHECK(dtype_name(*d) == row.name);
}

TEST_CASE("unknown dtype names are refused", "[dtype]") {
  CHECK_FALSE(parse_dtype("float32"));
  CHECK_FALSE(parse_dtype(""));
}
