// Hugging Face config.json -> Architecture (JSON boundary only).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trainmem/architecture.hpp"
#include "trainmem/errors.hpp"

namespace trainmem::json_io {

// The model_type values the importer understands.
const std::vector<std::string>& supported_model_types();

// Reads a config.json object as published (unknown keys are ignored: a real config has dozens).
// `path` is the document path used in errors (e.g. "model.hf_config"). A multimodal config's
// nested "text_config" is used for the text model.
std::optional<Architecture> import_hf_config(const nlohmann::json& config, const std::string& path, Errors& errors);

}  // namespace trainmem::json_io
