// Embind bindings of the trainer-config import and export (config-engine.js + config-engine.wasm):
// the readers of every framework's config files and the exporters are about half of the engine's
// code, and a page that only estimates never needs them, so they are a second module that the page
// loads on the first import or export. Same JSON documents as the CLI (docs/api.md, "Import" and
// "Export"); nothing throws into JavaScript.
#include <emscripten/bind.h>

#include <string>

#include "trainmem/json_api.hpp"

namespace {
// {"files": [{"name", "text" | "content"}], "model"?, "document_only"?} -> the import document.
std::string import_configs(const std::string& request) { return trainmem::import_json(request).json; }
// Estimate document + "deepspeed" | "accelerate" | ... -> {format, config, not_exported}.
std::string export_config(const std::string& document, const std::string& format) { return trainmem::export_json(document, format).json; }
}  // namespace

EMSCRIPTEN_BINDINGS(trainmem_config) {
  emscripten::function("import", &import_configs);
  emscripten::function("export", &export_config);
}
