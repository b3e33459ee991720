// The multimodal wrappers: one builder per vision-language family file, each reading the whole
// config.json (its text_config through the text families, its vision_config itself).
#pragma once

#include <optional>
#include <string>

#include "trainmem/architecture.hpp"
#include "trainmem/errors.hpp"
#include "trainmem/hf_config.hpp"

namespace trainmem::architectures {

using MultimodalBuilder = std::optional<Architecture> (*)(const HfConfig& config, const std::string& model_type, Errors& errors);

std::optional<Architecture> gemma3(const HfConfig& c, const std::string& model_type, Errors& errors);
std::optional<Architecture> llava(const HfConfig& c, const std::string& model_type, Errors& errors);  // llava, llava_next
std::optional<Architecture> paligemma(const HfConfig& c, const std::string& model_type, Errors& errors);
std::optional<Architecture> qwen2_vl(const HfConfig& c, const std::string& model_type, Errors& errors);  // qwen2_vl, qwen2_5_vl
std::optional<Architecture> mllama(const HfConfig& c, const std::string& model_type, Errors& errors);
std::optional<Architecture> idefics3(const HfConfig& c, const std::string& model_type, Errors& errors);
std::optional<Architecture> internvl(const HfConfig& c, const std::string& model_type, Errors& errors);

// The builder for a wrapper model_type, or nullptr.
MultimodalBuilder multimodal_builder(const std::string& model_type);
// The wrapper model_types (for the list of supported types).
const std::vector<std::string>& multimodal_model_types();

}  // namespace trainmem::architectures
