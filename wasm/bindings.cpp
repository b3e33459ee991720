// Embind bindings of the estimating engine (engine.js + engine.wasm): the engine's JSON documents,
// unchanged (docs/api.md). Each function returns the output or the error document; nothing throws
// into JavaScript. The trainer-config import and export are a module of their own
// (config_bindings.cpp), which the page loads only when a config is imported or exported.
#include <emscripten/bind.h>

#include <string>

#include "trainmem/json_api.hpp"
#include "trainmem/timing.hpp"

namespace {
std::string estimate(const std::string& document) { return trainmem::estimate_json(document).json; }
std::string catalog(const std::string& which) { return trainmem::catalog_json(which).json; }
std::string activations(const std::string& document) { return trainmem::activations_json(document).json; }
std::string solve(const std::string& document) { return trainmem::solve_json(document).json; }
// Estimate document -> {"estimate", "gpus": every catalog GPU's verdict} (the page's one call per input).
std::string overview(const std::string& document) { return trainmem::overview_json(document).json; }
// Benchmarks only: nanoseconds per engine-only estimate of a valid document (-1 when invalid).
double estimate_nanoseconds(const std::string& document, int iterations) {
  const auto parsed = trainmem::parse_estimate_document(document);
  return parsed.errors.empty() ? trainmem::estimate_nanoseconds(parsed.setup, iterations) : -1;
}
}  // namespace

EMSCRIPTEN_BINDINGS(trainmem) {
  emscripten::function("estimate", &estimate);
  emscripten::function("catalog", &catalog);
  emscripten::function("activations", &activations);
  emscripten::function("solve", &solve);
  emscripten::function("overview", &overview);
  emscripten::function("estimate_nanoseconds", &estimate_nanoseconds);
}
