// libFuzzer target: any bytes as a solve document (an estimate document with "solve": {...}):
// the inverse queries, calibration, the curves and the strategy search. Never crashes or hangs
// (libFuzzer's -timeout in scripts/fuzz.sh); every output is the answer or the error document.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "answer_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view document(reinterpret_cast<const char*>(data), size);
  require_answer(trainmem::solve_json(document));
  return 0;
}
