// model_type -> family builder, the multimodal text_config rule and the size limit.
#include <algorithm>
#include <map>

#include "families.hpp"
#include "multimodal_families.hpp"
#include "transformers_attention.hpp"
#include "vision_layout.hpp"
#include "trainmem/model_families.hpp"

namespace trainmem {

namespace {

using architectures::ConfigFields;
using architectures::FamilyBuilder;

// Largest accepted model: beyond this no GPU catalog matters and byte counts leave exact doubles.
constexpr double kMaxParameters = 1e15;

const std::map<std::string, FamilyBuilder>& builders() {
  namespace a = architectures;
  static const std::map<std::string, FamilyBuilder> table{
      {"llama", a::llama},          {"mistral", a::llama},        {"Yi", a::llama},           {"yi", a::llama},
      {"granite", a::llama},        {"mixtral", a::mixtral},      {"qwen2", a::qwen2},        {"qwen2_moe", a::qwen2},
      {"qwen3", a::qwen3},          {"qwen3_moe", a::qwen3},      {"gemma", a::gemma},        {"gemma2", a::gemma},
      {"gemma3_text", a::gemma},    {"phi3", a::phi3},            {"phi", a::phi},            {"phi-msft", a::phi},
      {"olmo", a::olmo},            {"olmo2", a::olmo2},          {"deepseek_v2", a::deepseek}, {"deepseek_v3", a::deepseek},
      {"gpt2", a::gpt2},            {"gpt_bigcode", a::gpt_bigcode}, {"gptj", a::gptj},       {"gpt_neox", a::gpt_neox},
      {"falcon", a::falcon},        {"RefinedWeb", a::falcon},    {"RefinedWebModel", a::falcon},
      {"mpt", a::mpt},              {"bloom", a::bloom},          {"baichuan", a::baichuan},  {"internlm2", a::internlm2},
      {"chatglm", a::chatglm},      {"glm", a::glm},              {"glm4", a::glm},           {"stablelm", a::stablelm},
      {"stablelm_epoch", a::stablelm}, {"cohere", a::cohere},     {"cohere2", a::cohere},     {"gpt_oss", a::gpt_oss},
      {"bert", a::bert},            {"roberta", a::bert},         {"xlm-roberta", a::bert},   {"t5", a::t5},
      {"mt5", a::t5},               {"qwen", a::qwen},            {"opt", a::opt},            {"starcoder2", a::starcoder2},
      {"minicpm", a::minicpm},      {"mamba", a::mamba},          {"mamba2", a::mamba},       {"jamba", a::jamba},
  };
  return table;
}

// model_type keys of PEFT's TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING (PEFT v0.20.0,
// src/peft/utils/constants.py) that have a family here: PEFT picks target_modules itself for
// these and raises an error for any other model_type when target_modules is not given.
bool peft_has_default_targets(const std::string& model_type) {
  static const char* const kPeftDefaults[] = {"t5",      "mt5",    "gpt2",     "bloom",   "gptj",    "gpt_neox",
                                              "bert",    "roberta", "xlm-roberta", "llama", "chatglm", "gpt_bigcode",
                                              "falcon",  "mistral", "mixtral",  "stablelm", "phi",    "gemma",
                                              "gemma2",  "gemma3_text", "qwen2", "qwen3", "opt", "mpt",
                                              "RefinedWeb", "RefinedWebModel"};
  for (const char* k : kPeftDefaults)
    if (model_type == k) return true;
  return false;
}

// The parameter count in doubles (no integer overflow however large the shapes), against the limit.
bool within_limits(const Architecture& a) {
  double total = static_cast<double>(a.embedding_params) + static_cast<double>(a.position_embedding_params) +
                 static_cast<double>(a.lm_head_params);
  if (a.vision) {
    total += static_cast<double>(a.vision->embedding_params) + static_cast<double>(a.vision->other_params);
    for (const auto& g : a.vision->layers)
      for (const auto& l : g.linears) total += static_cast<double>(l.in_features) * static_cast<double>(l.out_features) * static_cast<double>(g.count);
  }
  for (const auto& g : a.layers) {
    double layer = 0;
    for (const auto& l : g.linears)
      layer += static_cast<double>(l.in_features) * static_cast<double>(l.out_features) * static_cast<double>(l.copies);
    total += layer * static_cast<double>(g.count);
  }
  return total <= kMaxParameters;
}

// The model_type of a config ("" when absent); false after a type error.
bool read_model_type(const HfConfig& config, Errors& errors, std::string& out) {
  const HfValue* t = config.find("model_type");
  if (!t) return true;
  if (t->kind != HfValue::Kind::string) {
    errors.push_back({error_code::wrong_type, config.field("model_type"),
                      config.field("model_type") + " must be a string, got " + t->type_name()});
    return false;
  }
  out = t->text;
  return true;
}

// A checkpoint stored quantized says so in its config's quantization_config (transformers
// quantizers/auto.py reads quant_method from it); one naming no method, or bitsandbytes loading
// neither 4- nor 8-bit weights, is not.
void note_quantization(const HfConfig& config, Architecture& a) {
  const HfValue* q = config.find("quantization_config");
  if (!q || q->kind != HfValue::Kind::object) return;
  const HfValue* method = q->object->find("quant_method");
  if (!method || method->kind != HfValue::Kind::string || method->text.empty()) return;
  auto flag = [&](const char* key) {
    const HfValue* v = q->object->find(key);
    return v && v->kind == HfValue::Kind::boolean && v->boolean;
  };
  if (method->text == "bitsandbytes" && !flag("load_in_4bit") && !flag("load_in_8bit")) return;
  a.checkpoint_quantization = excerpt(method->text);
}

}  // namespace

const std::vector<std::string>& supported_model_types() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& [k, v] : builders()) n.push_back(k);
    for (const auto& m : architectures::multimodal_model_types()) n.push_back(m);
    std::sort(n.begin(), n.end());
    return n;
  }();
  return names;
}

std::optional<Architecture> architecture_from_hf_config(const HfConfig& config, Errors& errors) {
  std::string type;
  if (!read_model_type(config, errors, type)) return std::nullopt;
  if (const auto multimodal = architectures::multimodal_builder(type)) {
    std::optional<Architecture> a = multimodal(config, type, errors);
    if (a) {
      a->peft_default_targets = peft_has_default_targets(type);
      a->transformers_attention = architectures::transformers_attention(type);
      note_quantization(config, *a);
    }
    if (a && !within_limits(*a)) {
      errors.push_back({error_code::out_of_range, config.path,
                        config.path + " describes a model of more than 1e15 parameters; the limit is 1e15", {{"limit", 1e15}}});
      return std::nullopt;
    }
    return a;
  }
  const HfConfig* source = &config;
  HfConfig text_with_defaults;
  if (const HfValue* text = config.find("text_config")) {
    if (text->kind != HfValue::Kind::object) {
      errors.push_back({error_code::wrong_type, config.field("text_config"),
                        config.field("text_config") + " must be an object, got " + text->type_name()});
      return std::nullopt;
    }
    // Multimodal configs: the language model sits in text_config; its model_type may be absent.
    std::string text_type;
    if (!read_model_type(*text->object, errors, text_type)) return std::nullopt;
    if (text_type.empty()) text_type = type;
    type = text_type;
    source = text->object.get();
    if (type == "gemma3_text") {
      text_with_defaults = architectures::with_gemma3_text_defaults(*source);
      source = &text_with_defaults;
    }
  }
  auto it = builders().find(type);
  ConfigFields fields(*source, errors);
  const std::size_t errors_before = errors.total();
  std::optional<Architecture> a = it != builders().end() ? it->second(fields, type) : architectures::generic_decoder(fields, type);
  if (it == builders().end()) {
    // No layout of its own: read as a generic decoder. A near miss of a known model_type is named.
    const std::string near = type.empty() ? "" : closest_match(type, supported_model_types());
    const std::string shown = type.empty() ? "model_type absent" : "model_type \"" + excerpt(type) + "\"";
    if (a) {
      a->layout_assumptions.insert(a->layout_assumptions.begin(),
                                   shown + " has no family layout here" +
                                       (near.empty() ? "" : " (closest: \"" + near + "\")") + ": read as a generic decoder");
    } else if (errors.total() > errors_before) {
      errors.push_back({error_code::unsupported_model_type, source->field("model_type"),
                        shown + " has no family layout here" + (near.empty() ? "" : " (closest: \"" + near + "\")") +
                            "; read as a generic decoder it lacks the fields named in the other errors",
                        near.empty() ? Params{{"model_type", excerpt(type)}}
                                     : Params{{"model_type", excerpt(type)}, {"suggestion", near}}});
    }
  }
  if (a) {
    a->peft_default_targets = peft_has_default_targets(type);
    a->transformers_attention = architectures::transformers_attention(type);
    note_quantization(config, *a);
  }
  // A wrapper without a layout here (read through its text_config): its other parts are named.
  if (a && source != &config) architectures::note_unpriced_parts(config, {"text_config"}, *a);
  if (a && !within_limits(*a)) {
    errors.push_back({error_code::out_of_range, source->path,
                      source->path + " describes a model of more than 1e15 parameters; the limit is 1e15", {{"limit", 1e15}}});
    return std::nullopt;
  }
  return a;
}

}  // namespace trainmem
