// The JSON documents of docs/api.md: the one interface of the CLI and the WASM module.
// These functions never throw; invalid input returns the error document with ok = false.
#pragma once

#include <string>
#include <string_view>
#include <optional>
#include <vector>

#include "trainmem/config_import.hpp"
#include "trainmem/errors.hpp"
#include "trainmem/training_setup.hpp"

namespace trainmem {

// Limits on input documents (docs/api.md, "Limits"); kMaxListedErrors is in errors.hpp.
// Documents larger than this are rejected (code document_too_large).
inline constexpr std::size_t kMaxDocumentBytes = 1 << 20;
// Deeper nesting of arrays/objects is refused before parsing (code invalid_json): printing or
// destroying deep values recurses, and WebAssembly's stack is small. Documents nest a few levels;
// config.json files a few more.
inline constexpr std::size_t kMaxNestingDepth = 64;
// Longest list the engine reads (lora.target_modules, hf_config mlp_only_layers; code
// out_of_range): 10 x the linear modules of the deepest published model, named one by one.
inline constexpr std::size_t kMaxListEntries = 10000;

struct JsonResult {
  std::string json;  // the output document, or {"error": {...}, "errors": [...]}
  bool ok = false;
};

// Parses an estimate input document into a setup; errors list every problem found.
struct ParsedSetup {
  TrainingSetup setup;
  Errors errors;
};
ParsedSetup parse_estimate_document(std::string_view document);

// Estimate document in, output document out.
JsonResult estimate_json(std::string_view document);

// The saved tensors of one layer of each layer group for an estimate document (name, shape, dtype,
// bytes per GPU, role, recomputed), and the logits/loss terms.
JsonResult activations_json(std::string_view document);

// An estimate document with a "solve" object in, the inverse queries' answers out (see
// solver.hpp, calibration.hpp, strategy_search.hpp).
JsonResult solve_json(std::string_view document);

// What the page shows for one input, in one call. An estimate document in (as estimate_json takes
// it); out: {"estimate": estimate_json's output, "gpus": [one row per catalog GPU, in catalog
// order]}, each row {"gpu": id, "gpu_capacity_bytes", "peak", "verdict"} (bytes; verdict "fits" |
// "borderline" | "does_not_fit" | null) as estimate_json gives them for the document with "gpu" set
// to that id, or {"gpu": id, "error": {code, field, message, params}} where that estimate fails.
// When the document's own estimate fails, its error document.
JsonResult overview_json(std::string_view document);

// {"models": [...], "gpus": [...], "errors": [...]}; `which` is "models", "gpus" or "" for both.
// "gpus" reads the GPU files alone (no model is parsed; errors: the GPU files'); "models" and ""
// parse the whole catalog (errors: every malformed entry's).
JsonResult catalog_json(std::string_view which);

// Every code the documents' "errors" and "warnings" carry (message_codes.hpp):
// {"codes": [{"code": "out_of_range", "kind": "error" | "warning", "params": ["value", ...]}]}.
std::string message_codes_json();

// Trainer configuration files -> {"document", "provenance", "ignored", "unmodelled", "unresolved",
// "formats"} (docs/api.md "Import"); with document_only, the document alone.
// The request: {"files": [{"name": "ds.json", "text": "..."} | {"name": "a.yaml", "content": {...}}],
// "model": "catalog-id"?, "document_only": false}. A file's "text" is parsed as JSON when its name
// ends in .json and split as a command line otherwise; "content" is a file the caller parsed
// (YAML, TOML) with PyYAML's YAML 1.1 scalar rules.
JsonResult import_json(std::string_view request);
// The same for files already read (the CLI).
JsonResult import_files_json(const std::vector<ConfigFile>& files, const ImportOptions& options, bool document_only);
// A JSON configuration file as a ConfigValue; errors name the file, line and column.
std::optional<ConfigValue> parse_json_config(std::string_view text, const std::string& name, Errors& errors);
// A ConfigValue as JSON text (for `trainmem parse`, the page's parity test).
std::string config_value_json(const ConfigValue& value);

// An estimate document -> {"format", "config", "not_exported": [{field, reason}]}; format is
// "deepspeed" (a DeepSpeed config JSON) or "accelerate" (an accelerate config, as JSON; the CLI
// writes it as YAML). not_exported lists the document's fields the file cannot carry.
JsonResult export_json(std::string_view document, std::string_view format);

// The error document for a list of problems.
std::string error_document(const Errors& errors);

}  // namespace trainmem
