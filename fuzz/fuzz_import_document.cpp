// libFuzzer target: any bytes as an import request (the WASM import: {"files": [{"name", "text" |
// "content"}], "model"?, "document_only"?}), read by every trainer-config reader (DeepSpeed,
// accelerate, HF TrainingArguments / TRL, command lines). Never crashes or hangs (libFuzzer's
// -timeout in scripts/fuzz.sh); every output is the import's answer or the error document.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "answer_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view request(reinterpret_cast<const char*>(data), size);
  require_answer(trainmem::import_json(request));
  return 0;
}
