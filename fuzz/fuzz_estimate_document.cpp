// libFuzzer target: any bytes as an estimate document, through parsing, validation, the estimate
// and the output writer. Never crashes; every output is either the estimate or the error document.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trainmem/json_api.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view document(reinterpret_cast<const char*>(data), size);
  const trainmem::JsonResult r = trainmem::estimate_json(document);
  if (r.json.empty()) __builtin_trap();
  return 0;
}
