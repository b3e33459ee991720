// The import's JSON boundary: request and files in, {document, provenance, ...} out
// (docs/api.md "Import"). The mapping itself is engine/src/import/.
#include <algorithm>
#include <string>

#include "documents.hpp"
#include "object_reader.hpp"
#include "trainmem/catalog.hpp"
#include "trainmem/json_api.hpp"

namespace trainmem {

namespace {

using json_io::json;

// Depth is bounded before conversion (kMaxNestingDepth), so the recursion is too.
ConfigValue from_json(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return nullptr;
    case json::value_t::boolean: return j.get<bool>();
    case json::value_t::number_integer: return j.get<std::int64_t>();
    case json::value_t::number_unsigned: {
      const auto u = j.get<std::uint64_t>();
      if (u <= static_cast<std::uint64_t>(INT64_MAX)) return static_cast<std::int64_t>(u);
      return static_cast<double>(u);
    }
    case json::value_t::number_float: return j.get<double>();
    case json::value_t::string: return j.get<std::string>();
    case json::value_t::array: {
      ConfigValue::Array a;
      for (const auto& e : j) a.push_back(from_json(e));
      return a;
    }
    case json::value_t::object: {
      // Keys are unique here (read_document refuses repeats): appended, not looked up, so a wide
      // object costs its size, not its size squared.
      ConfigValue o = ConfigValue::object();
      auto& members = o.as_object();
      members.reserve(j.size());
      for (auto it = j.begin(); it != j.end(); ++it) members.emplace_back(it.key(), from_json(it.value()));
      return o;
    }
    default: return nullptr;
  }
}

json to_json(const ConfigValue& v) {
  switch (v.kind()) {
    case ConfigValue::Kind::null: return nullptr;
    case ConfigValue::Kind::boolean: return v.as_bool();
    case ConfigValue::Kind::integer: return v.as_integer();
    case ConfigValue::Kind::number: return v.as_double();
    case ConfigValue::Kind::string: return v.as_string();
    case ConfigValue::Kind::array: {
      json a = json::array();
      for (const auto& e : v.as_array()) a.push_back(to_json(e));
      return a;
    }
    case ConfigValue::Kind::object: {
      json o = json::object();
      for (const auto& [k, e] : v.as_object()) o[k] = to_json(e);
      return o;
    }
  }
  return nullptr;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Notes ordered by key ("FILE:key"): the readers meet a file's keys in the order its parser keeps
// them (yaml-cpp keeps the file's order; the page's files arrive as JSON objects, whose keys
// nlohmann::json orders), so the order of reading is not the order shown, and the CLI and the page
// list the same notes alike.
json notes(std::vector<ImportNote> list) {
  std::stable_sort(list.begin(), list.end(), [](const ImportNote& a, const ImportNote& b) { return a.key < b.key; });
  json out = json::array();
  for (const auto& n : list) out.push_back({{"key", n.key}, {"reason", n.reason}, {"value", to_json(n.value)}});
  return out;
}

// What the estimate's document reader would refuse in the imported document (a value past the
// engine's limits, a model config it cannot build), named by the key it was read from: "run.sh:--nproc_per_node" rather
// than parallel.world_size, whose value the user never wrote. A field the provenance does not
// list takes its nearest listed parent's origin (model.hf_config.n_embd: the model's). A document
// without a model is not checked (its model is listed as unresolved).
Errors refused_by_estimate(const ImportResult& r) {
  Errors out;
  const json document = to_json(r.document);
  if (!document.contains("model")) return out;
  // The document reader's checks alone (types, ranges, a model it cannot build): the checks across
  // fields would meet the defaults of fields the import leaves open (no GPU count in the files).
  Errors errors;
  json_io::read_setup(document, errors);
  for (const auto& e : errors) {
    const FieldOrigin* from = nullptr;
    for (std::string path = e.field; !from && !path.empty();) {
      for (const auto& o : r.provenance)
        if (o.field == path) from = &o;
      const auto dot = path.rfind('.');
      path = dot == std::string::npos ? std::string() : path.substr(0, dot);
    }
    const std::string where = from && !from->source.empty() ? from->source : e.field;
    const std::string how = from && from->source.empty() ? ", " + from->origin : "";
    out.push_back({e.code, where, where + ": " + e.message + " (imported as " + e.field + how + ")", e.params});
  }
  return out;
}

}  // namespace

std::optional<ConfigValue> parse_json_config(std::string_view text, const std::string& name, Errors& errors) {
  // The limits of every input document (docs/api.md "Limits"): size, NUL bytes, nesting, duplicate keys.
  const auto parsed = json_io::read_document(text, errors, name);
  if (!parsed) return std::nullopt;
  return from_json(*parsed);
}

namespace {
// Files read by the CLI (YAML, TOML, command lines) may hold invalid UTF-8: such bytes are
// written as U+FFFD, never an exception.
std::string dump(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace); }
}  // namespace

std::string config_value_json(const ConfigValue& value) { return dump(to_json(value)); }

JsonResult import_files_json(const std::vector<ConfigFile>& files, const ImportOptions& options, bool document_only) {
  try {
    const ImportResult r = import_configs(files, builtin_catalog(), options);
    if (!r.errors.empty()) return {error_document(r.errors), false};
    if (const Errors refused = refused_by_estimate(r); !refused.empty()) return {error_document(refused), false};
    if (document_only) {
      // The document alone cannot say that a field is open; `trainmem estimate` would fill it with
      // the engine's default. Every such field stops --document-only instead, whatever left it open
      // (a variable the script does not set, no GPU count, an "auto" nothing fills): docs/api.md "Import".
      Errors open;
      for (const auto& o : r.provenance)
        if (o.unresolved)
          open.push_back({error_code::unresolved_value, o.field,
                          o.field + " is " + o.origin + " (a variable the script does not set); set it in the script or give the "
                                                        "value (trainmem import without --document-only lists every value it read)",
                          {{"origin", o.source}}});
      for (const auto& open_field : r.open_fields) {
        const std::string& field = open_field.first;  // named references: a lambda may not capture a structured binding (C++17)
        const std::string& key = open_field.second;
        if (std::any_of(open.begin(), open.end(), [&](const FieldError& e) { return e.field == field; })) continue;
        const auto note = std::find_if(r.unresolved.begin(), r.unresolved.end(), [&](const ImportNote& n) { return n.key == key; });
        open.push_back({error_code::unresolved_value, field,
                        field + " is not in the files: " + (note == r.unresolved.end() ? key : note->reason) +
                            " (trainmem import without --document-only lists every value it read)",
                        {{"origin", key}}});
      }
      if (!open.empty()) return {error_document(open), false};
      return {dump(to_json(r.document)), true};
    }
    json out;
    out["document"] = to_json(r.document);
    json provenance = json::object();
    for (const auto& o : r.provenance) provenance[o.field] = o.origin;
    out["provenance"] = provenance;
    out["ignored"] = notes(r.ignored);
    out["unmodelled"] = notes(r.unmodelled);
    out["unresolved"] = notes(r.unresolved);
    json formats = json::object();
    for (const auto& [file, format] : r.formats) formats[file] = format;
    out["formats"] = formats;
    return {dump(out), true};
  } catch (const std::exception& ex) {
    return {error_document({{error_code::internal, "(document)", std::string("internal error: ") + ex.what()}}), false};
  }
}

JsonResult import_json(std::string_view request) {
  try {
    Errors errors;
    const auto doc = json_io::read_document(request, errors);
    if (!doc) return {error_document(errors), false};
    json_io::ObjectReader r(*doc, "", errors);
    if (!r.valid()) return {error_document(errors), false};
    ImportOptions options;
    options.model_preset = r.string("model");
    const bool document_only = r.boolean("document_only").value_or(false);
    std::vector<ConfigFile> files;
    const json* list = r.get("files");
    if (!list || !list->is_array() || list->empty()) {
      errors.push_back({error_code::missing_field, "files", "files must be a non-empty list of {\"name\", \"text\" | \"content\"}",
                        {{"reason", "files_required"}}});
    } else {
      for (std::size_t i = 0; i < list->size(); ++i) {
        json_io::ObjectReader f((*list)[i], "files[" + std::to_string(i) + "]", errors);
        if (!f.valid()) continue;
        ConfigFile file;
        file.name = f.string("name").value_or("file" + std::to_string(i + 1));
        auto text = f.string("text");
        const json* content = f.get("content");
        if (text && ends_with(file.name, ".json") && text->find_first_not_of(" \t\r\n") != std::string::npos) {
          auto parsed = parse_json_config(*text, file.name, errors);
          if (!parsed) continue;
          file.content = *parsed;
        } else if (text) {
          file.text = *text;
        } else if (content) {
          file.content = from_json(*content);
        } else if ((*list)[i].contains("content")) {
          // "content": null, an empty YAML or TOML file as the page parsed it: the import names it.
        } else {
          errors.push_back({error_code::missing_field, f.field("text"), f.path() + " needs \"text\" or \"content\"", {{"reason", "file_text_required"}}});
          continue;
        }
        f.finish();
        files.push_back(std::move(file));
      }
    }
    r.finish();
    if (!errors.empty()) return {error_document(errors), false};
    return import_files_json(files, options, document_only);
  } catch (const std::exception& ex) {
    return {error_document({{error_code::internal, "(document)", std::string("internal error: ") + ex.what()}}), false};
  }
}

}  // namespace trainmem
