// libFuzzer target: any bytes as an estimate document, through parsing, validation, the estimate
// and the output writer, and the same bytes as an activations request. Never crashes; every
// output is either the answer or the error document.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "answer_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view document(reinterpret_cast<const char*>(data), size);
  require_answer(trainmem::estimate_json(document));
  require_answer(trainmem::activations_json(document));
  return 0;
}
