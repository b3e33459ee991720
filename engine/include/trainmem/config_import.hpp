// Trainer configuration files -> an estimate input document (docs/api.md "Import" and
// docs/import.md), and an estimate setup -> trainer configuration files (docs/import.md "Export").
//
// The mapping from each framework's keys to the document lives here, once: the CLI (yaml-cpp,
// toml++) and the page (npm yaml, smol-toml) parse files at the edge into ConfigValues with the
// same scalar rules and call these functions. Every mapped key cites the framework file and version
// that defines its meaning and default (docs/import.md lists them).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trainmem/catalog.hpp"
#include "trainmem/config_value.hpp"
#include "trainmem/errors.hpp"

namespace trainmem {

namespace error_code {
inline constexpr const char* unknown_config_format = "unknown_config_format";
inline constexpr const char* conflicting_values = "conflicting_values";
inline constexpr const char* model_config_needed = "model_config_needed";
inline constexpr const char* invalid_yaml = "invalid_yaml";
inline constexpr const char* invalid_toml = "invalid_toml";
inline constexpr const char* invalid_encoding = "invalid_encoding";
// --document-only with a field a script leaves to a variable it does not set: the document alone
// cannot say so, and an estimate would take the engine's default in its place.
inline constexpr const char* unresolved_value = "unresolved_value";
}  // namespace error_code

// One file as the user gave it.
struct ConfigFile {
  std::string name;                 // as named by the user; provenance cites it ("read from NAME:key")
  ConfigValue content;              // a parsed JSON, YAML or TOML file
  std::optional<std::string> text;  // or: a command line or shell script (the engine splits its words)
};

// A key of an input file the import reports: "FILE:key", why, and the value as read.
struct ImportNote {
  std::string key;
  std::string reason;
  ConfigValue value;
};

struct ImportOptions {
  // The model when the files name none, or one that is not in the catalog: a catalog id.
  std::optional<std::string> model_preset;
};

// Where one document field's value came from.
struct FieldOrigin {
  std::string field;   // document path, e.g. "parallel.world_size"
  // As shown: "read from FILE:key" | "framework default (source)" | "engine default" |
  // "unresolved: FILE:--flag $VARIABLE" (the field is absent from the document: a value the script
  // leaves to a variable it does not set).
  std::string origin;
  // "FILE:key" (or the file, or "--model") the value was read from; for an unresolved field, the
  // flag and variable as written ("FILE:--flag $VARIABLE"); "" for a default.
  std::string source;
  bool unresolved = false;
};

struct ImportResult {
  ConfigValue document = ConfigValue::object();  // an estimate input document
  // Every document field the estimate uses, with where its value came from, in document order.
  std::vector<FieldOrigin> provenance;
  std::vector<ImportNote> ignored;     // keys without an effect on memory
  std::vector<ImportNote> unmodelled;  // keys that affect memory but have no document field yet
  std::vector<ImportNote> unresolved;  // values the files leave open: "auto", $VARIABLES, files named but not given
  // The document fields those values leave out of `document` (an estimate would fill each with the
  // engine's default): field path -> the key of its note in `unresolved`. `model` is not among them:
  // an estimate refuses a document without one by itself (missing_field).
  std::vector<std::pair<std::string, std::string>> open_fields;
  std::vector<std::pair<std::string, std::string>> formats;  // file -> the format it was read as
  Errors errors;  // malformed values, unknown formats, conflicts between files, a model config needed
};

// Reads one or several files of one run together (e.g. a TRL command line, its accelerate config
// and the DeepSpeed JSON that names). Values two files both set must agree.
ImportResult import_configs(const std::vector<ConfigFile>& files, const Catalog& catalog,
                            const ImportOptions& options = {});

}  // namespace trainmem
