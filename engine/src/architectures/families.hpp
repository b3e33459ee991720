// One builder per family file in this folder: reads the config keys its modeling file uses (with
// the configuration file's defaults) and returns the architecture, or nullopt after an error.
#pragma once

#include <optional>
#include <string>

#include "config_fields.hpp"
#include "trainmem/architecture.hpp"
#include "trainmem/hf_config.hpp"

namespace trainmem::architectures {

using FamilyBuilder = std::optional<Architecture> (*)(ConfigFields& fields, const std::string& model_type);

std::optional<Architecture> llama(ConfigFields& f, const std::string& model_type);     // llama, mistral
std::optional<Architecture> qwen2(ConfigFields& f, const std::string& model_type);     // qwen2, qwen2_moe
std::optional<Architecture> qwen3(ConfigFields& f, const std::string& model_type);     // qwen3, qwen3_moe
std::optional<Architecture> mixtral(ConfigFields& f, const std::string& model_type);
std::optional<Architecture> gemma(ConfigFields& f, const std::string& model_type);     // gemma, gemma2, gemma3_text
std::optional<Architecture> phi3(ConfigFields& f, const std::string& model_type);
std::optional<Architecture> olmo2(ConfigFields& f, const std::string& model_type);
std::optional<Architecture> deepseek(ConfigFields& f, const std::string& model_type);  // deepseek_v2, deepseek_v3
std::optional<Architecture> gpt2(ConfigFields& f, const std::string& model_type);
std::optional<Architecture> gpt_neox(ConfigFields& f, const std::string& model_type);
std::optional<Architecture> falcon(ConfigFields& f, const std::string& model_type);     // falcon, RefinedWeb, RefinedWebModel
std::optional<Architecture> mpt(ConfigFields& f, const std::string& model_type);
std::optional<Architecture> bloom(ConfigFields& f, const std::string& model_type);
std::optional<Architecture> bert(ConfigFields& f, const std::string& model_type);
std::optional<Architecture> t5(ConfigFields& f, const std::string& model_type);        // t5, mt5
std::optional<Architecture> baichuan(ConfigFields& f, const std::string& model_type);
std::optional<Architecture> phi(ConfigFields& f, const std::string& model_type);       // phi, phi-msft
std::optional<Architecture> stablelm(ConfigFields& f, const std::string& model_type);  // stablelm, stablelm_epoch
std::optional<Architecture> gpt_bigcode(ConfigFields& f, const std::string& model_type);
std::optional<Architecture> gptj(ConfigFields& f, const std::string& model_type);
std::optional<Architecture> internlm2(ConfigFields& f, const std::string& model_type);
std::optional<Architecture> chatglm(ConfigFields& f, const std::string& model_type);
std::optional<Architecture> glm(ConfigFields& f, const std::string& model_type);       // glm, glm4
std::optional<Architecture> olmo(ConfigFields& f, const std::string& model_type);
std::optional<Architecture> cohere(ConfigFields& f, const std::string& model_type);    // cohere, cohere2
std::optional<Architecture> gpt_oss(ConfigFields& f, const std::string& model_type);
std::optional<Architecture> qwen(ConfigFields& f, const std::string& model_type);        // Qwen v1 (remote code)
std::optional<Architecture> opt(ConfigFields& f, const std::string& model_type);
std::optional<Architecture> starcoder2(ConfigFields& f, const std::string& model_type);
std::optional<Architecture> minicpm(ConfigFields& f, const std::string& model_type);

std::optional<Architecture> mamba(ConfigFields& f, const std::string& model_type);     // mamba, mamba2
std::optional<Architecture> jamba(ConfigFields& f, const std::string& model_type);

// Any other model_type: a decoder inferred from the standard config keys, every assumption named
// in Architecture::layout_assumptions (generic_decoder.cpp).
std::optional<Architecture> generic_decoder(ConfigFields& f, const std::string& model_type);

// Gemma 3's multimodal config omits text_config keys equal to Gemma3TextConfig's defaults.
HfConfig with_gemma3_text_defaults(const HfConfig& text_config);

}  // namespace trainmem::architectures
