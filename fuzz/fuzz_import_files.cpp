// libFuzzer target: any bytes as the files of `trainmem import`, through the CLI's own readers
// (yaml-cpp, toml++, the JSON reader) and the import. The input is one or more files separated by
// a line "#=#"; each file's first byte picks its kind (j: JSON, y: YAML, t: TOML, anything else: a
// command line or script), the rest is its text. Never crashes or hangs; every output is the
// import's answer or the error document.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "answer_check.hpp"
#include "config_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  constexpr std::string_view kSeparator = "\n#=#\n";
  std::vector<trainmem::ConfigFile> files;
  trainmem::Errors errors;
  std::size_t start = 0;
  for (int i = 0; start <= input.size(); ++i) {
    const std::size_t end = std::min(input.find(kSeparator, start), input.size());
    const std::string_view part = input.substr(start, end - start);
    start = end + kSeparator.size();
    if (part.empty()) continue;
    const char kind = part[0];
    const char* extension = kind == 'j' ? ".json" : kind == 'y' ? ".yaml" : kind == 't' ? ".toml" : ".sh";
    const std::string name = "f" + std::to_string(i) + extension;
    if (auto f = trainmem::cli::load_config_file(name, std::string(part.substr(1)), errors)) files.push_back(std::move(*f));
  }
  if (!errors.empty()) {
    if (trainmem::error_document(errors).empty()) __builtin_trap();
    return 0;
  }
  if (files.empty()) return 0;
  require_answer(trainmem::import_files_json(files, {}, false));
  return 0;
}
