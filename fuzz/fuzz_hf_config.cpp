// libFuzzer target: any bytes as a Hugging Face config.json, imported through model.hf_config and
// estimated (parameter counts, activations, the peak).
#include <cstddef>
#include <cstdint>
#include <string>

#include "answer_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string config(reinterpret_cast<const char*>(data), size);
  require_answer(trainmem::estimate_json(R"({"model": {"hf_config": )" + config + R"(}, "batch": {"seq_length": 512}})"));
  return 0;
}
