// Embind bindings: the engine's JSON documents, unchanged (shared/ESTIMATE-API.md).
// Each function returns the output or the error document; nothing throws into JavaScript.
#include <emscripten/bind.h>

#include <string>

#include "trainmem/json_api.hpp"

namespace {
std::string estimate(const std::string& document) { return trainmem::estimate_json(document).json; }
std::string catalog(const std::string& which) { return trainmem::catalog_json(which).json; }
std::string activations(const std::string& document) { return trainmem::activations_json(document).json; }
}  // namespace

EMSCRIPTEN_BINDINGS(trainmem) {
  emscripten::function("estimate", &estimate);
  emscripten::function("catalog", &catalog);
  emscripten::function("activations", &activations);
}
