// The catalog compiled into this build: the GPUs as C++ data (written by tools/gpu_table from
// catalog/gpus/*.json when the engine is built: trainmem/gpu_table.hpp), the model presets as their
// JSON files (embedded by cmake/embed_catalog.cmake), each parsed when first asked for.
#include <map>
#include <mutex>

#include "trainmem/catalog.hpp"
#include "trainmem/gpu_table.hpp"

namespace trainmem {

// Generated at build time (CMakeLists.txt).
extern const GpuTableData kBuiltInGpuTable;
struct EmbeddedModelFile {
  const char* path;  // "models/<id>.json"
  const char* text;
};
extern const EmbeddedModelFile kEmbeddedModelFiles[];
extern const std::size_t kEmbeddedModelFileCount;

const Catalog& builtin_catalog() {
  static const Catalog catalog = [] {
    std::vector<std::pair<std::string, std::string>> files;
    for (std::size_t i = 0; i < kEmbeddedModelFileCount; ++i) files.emplace_back(kEmbeddedModelFiles[i].path, kEmbeddedModelFiles[i].text);
    Catalog c = parse_model_files(files);
    c.gpus = builtin_gpus().gpus;
    return c;
  }();
  return catalog;
}

const Catalog& builtin_gpus() {
  static const Catalog catalog = [] {
    Catalog c;
    c.gpus = read_gpu_table(kBuiltInGpuTable);
    return c;
  }();
  return catalog;
}

const ModelPreset* builtin_model(const std::string& id) {
  // Parsed presets by id (a one-model catalog each; empty when the file is missing or malformed).
  static std::mutex guard;
  static std::map<std::string, Catalog> parsed;
  const std::lock_guard<std::mutex> lock(guard);
  auto it = parsed.find(id);
  if (it == parsed.end()) {
    const std::string path = "models/" + id + ".json";
    std::vector<std::pair<std::string, std::string>> file;
    for (std::size_t i = 0; i < kEmbeddedModelFileCount; ++i)
      if (path == kEmbeddedModelFiles[i].path) file.emplace_back(path, kEmbeddedModelFiles[i].text);
    if (file.empty()) return nullptr;  // not a preset: nothing kept, so the cache holds presets only
    it = parsed.emplace(id, parse_model_files(file)).first;
  }
  return it->second.find_model(id);
}

}  // namespace trainmem
