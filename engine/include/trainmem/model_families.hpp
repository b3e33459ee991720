// Hugging Face config -> Architecture: the families the engine knows, one file each under
// engine/src/architectures/, each following the transformers modeling_<family>.py it cites.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trainmem/architecture.hpp"
#include "trainmem/errors.hpp"
#include "trainmem/hf_config.hpp"

namespace trainmem {

// The model_type values with a family layout of their own.
const std::vector<std::string>& supported_model_types();

// The architecture a config.json describes. A multimodal config's nested text_config is read for
// the language model. Problems are appended to `errors` with the config's document paths; the
// result is empty when any field the layout needs is missing or invalid.
std::optional<Architecture> architecture_from_hf_config(const HfConfig& config, Errors& errors);

}  // namespace trainmem
