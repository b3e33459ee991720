// Hugging Face config.json (JSON) -> Architecture, through the engine's model families (JSON
// boundary only: it converts values and hands them over).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "trainmem/architecture.hpp"
#include "trainmem/errors.hpp"

namespace trainmem::json_io {

// Reads a config.json object as published (unknown keys are ignored: a real config has dozens).
// `path` is the document path used in errors (e.g. "model.hf_config").
std::optional<Architecture> import_hf_config(const nlohmann::json& config, const std::string& path, Errors& errors);

}  // namespace trainmem::json_io
