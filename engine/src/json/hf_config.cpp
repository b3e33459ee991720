// config.json (JSON) -> HfConfig (plain values) -> the engine's model families. This file reads
// values only: which keys a family uses and what they mean lives in engine/src/architectures/.
#include "hf_config.hpp"

#include "object_reader.hpp"
#include "trainmem/model_families.hpp"

namespace trainmem::json_io {

namespace {

// Scalars as written, for messages; long strings shortened as ObjectReader does (on a character
// boundary: a cut inside one makes the answer invalid UTF-8).
std::string shown(const json& v) { return excerpt(scalar_text(v)); }

HfConfig to_config(const json& object, const std::string& path);

HfValue to_value(const json& v, const std::string& path) {
  HfValue out;
  if (v.is_boolean()) {
    out.kind = HfValue::Kind::boolean;
    out.boolean = v.get<bool>();
  } else if (v.is_number()) {
    out.kind = HfValue::Kind::number;
    out.number = v.get<double>();
  } else if (v.is_string()) {
    out.kind = HfValue::Kind::string;
    out.text = v.get<std::string>();
  } else if (v.is_array()) {
    out.kind = HfValue::Kind::list;
    out.items.reserve(v.size());
    for (const auto& item : v) out.items.push_back(to_value(item, path));
  } else if (v.is_object()) {
    out.kind = HfValue::Kind::object;
    out.object = std::make_shared<const HfConfig>(to_config(v, path));
  }
  if (!v.is_structured()) out.shown = shown(v);
  return out;
}

// The document is nesting-limited before parsing (kMaxNestingDepth), which bounds the recursion.
HfConfig to_config(const json& object, const std::string& path) {
  HfConfig c;
  c.path = path;
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (it->is_null()) {
      c.null_keys.insert(it.key());
      continue;
    }
    c.values.emplace(it.key(), to_value(*it, join_path(path, it.key())));
  }
  return c;
}

}  // namespace

std::optional<Architecture> import_hf_config(const json& config, const std::string& path, Errors& errors) {
  if (!config.is_object()) {
    errors.push_back({error_code::wrong_type, path, path + " must be a config.json object, got " + type_name(config)});
    return std::nullopt;
  }
  return architecture_from_hf_config(to_config(config, path), errors);
}

}  // namespace trainmem::json_io
