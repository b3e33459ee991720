// The export's JSON boundary: estimate document + format in, {format, config, not_exported} out.
#include <algorithm>
#include <set>

#include "documents.hpp"
#include "object_reader.hpp"
#include "trainmem/catalog.hpp"
#include "trainmem/config_export.hpp"
#include "trainmem/json_api.hpp"

namespace trainmem {

namespace {

using json_io::json;

// Leaf field paths of a document; objects that are one setting (model, gpu, rlhf, lora, ...) stay whole.
void given_fields(const json& j, const std::string& path, std::vector<std::string>& out) {
  static const std::set<std::string> nested = {"precision", "batch", "parallel", "loss", "checkpoint", "overhead"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string p = path.empty() ? it.key() : path + "." + it.key();
    if (it->is_null()) continue;
    if (it->is_object() && path.empty() && nested.count(it.key())) given_fields(*it, p, out);
    else out.push_back(p);
  }
}

bool covers(const std::string& carried, const std::string& field) {
  return field == carried || field.rfind(carried + ".", 0) == 0;
}

}  // namespace

JsonResult export_json(std::string_view document, std::string_view format) {
  try {
    ExportFormat f;
    if (format == "deepspeed") f = ExportFormat::deepspeed;
    else if (format == "accelerate") f = ExportFormat::accelerate;
    else if (format == "axolotl") f = ExportFormat::axolotl;
    else if (format == "torchtune") f = ExportFormat::torchtune;
    else
      return {error_document({{error_code::unknown_value, "format",
                               "format \"" + std::string(format) + "\" is not one of: deepspeed, accelerate, axolotl, torchtune"}}), false};
    ParsedSetup parsed = parse_estimate_document(document);
    if (!parsed.errors.empty()) return {error_document(parsed.errors), false};
    Errors ignored;
    const auto doc = json_io::read_document(document, ignored);
    // The model's Hugging Face id, for the formats that name the model: a catalog preset's, or the
    // `_name_or_path` transformers writes into a config.json it saves (configuration_utils.py
    // PretrainedConfig.to_dict); none for a model given by num_parameters alone.
    std::string hf_model_id;
    if (const ModelPreset* m = parsed.setup.model.preset.empty() ? nullptr : builtin_model(parsed.setup.model.preset))
      hf_model_id = m->hf_id;
    else if (doc && doc->contains("model") && (*doc)["model"].is_object() && (*doc)["model"].contains("hf_config") &&
             (*doc)["model"]["hf_config"].is_object()) {
      const auto& config = (*doc)["model"]["hf_config"];
      if (const auto it = config.find("_name_or_path"); it != config.end() && it->is_string()) hf_model_id = it->get<std::string>();
    }
    const ExportResult r = export_config(parsed.setup, f, hf_model_id);
    std::vector<std::string> fields;
    if (doc) given_fields(*doc, "", fields);
    json not_exported = json::array();
    std::set<std::string> listed;
    for (const auto& [field, why] : r.not_expressible) {
      not_exported.push_back({{"field", field}, {"reason", why}});
      listed.insert(field);
    }
    for (const auto& field : fields) {
      const bool carried = std::any_of(r.carried.begin(), r.carried.end(), [&](const std::string& c) { return covers(c, field); });
      if (carried || listed.count(field)) continue;
      not_exported.push_back({{"field", field}, {"reason", "the " + std::string(format) + (f == ExportFormat::torchtune ? " line" : " file") + " has no key for it"}});
    }
    json out;
    out["format"] = std::string(format);
    out["config"] = json::parse(config_value_json(r.config));
    out["not_exported"] = not_exported;
    return {out.dump(2), true};
  } catch (const std::exception& ex) {
    return {error_document({{error_code::internal, "(document)", std::string("internal error: ") + ex.what()}}), false};
  }
}

}  // namespace trainmem
