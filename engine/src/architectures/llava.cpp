// LLaVA and LLaVA-NeXT (model_type llava, llava_next): transformers v4.56.0,
// src/transformers/models/llava/modeling_llava.py LlavaForConditionalGeneration = vision_tower
// (AutoModel of vision_config: CLIPVisionModel, or SiglipVisionModel) + multi_modal_projector
// (LlavaMultiModalProjector: linear_1 from the vision width times the number of
// vision_feature_layer entries to the text width, GELU, linear_2; bias = multimodal_projector_bias)
// + the language model of text_config (LlamaForCausalLM, MistralForCausalLM, ...);
// models/llava_next/modeling_llava_next.py adds image_newline (one text-width vector) and anyres
// tiling over image_grid_pinpoints. Defaults: configuration_llava.py / configuration_llava_next.py
// (a missing vision_config is CLIP ViT-L/14-336; the text model defaults to LlamaConfig) and
// clip/configuration_clip.py, llama/configuration_llama.py, mistral/configuration_mistral.py.
#include "decoder_layout.hpp"
#include "multimodal_families.hpp"
#include "vision_layout.hpp"

namespace trainmem::architectures {

namespace {

// LLaVA-NeXT's default image_grid_pinpoints (LlavaNextConfig).
const std::vector<std::pair<std::int64_t, std::int64_t>> kDefaultPinpoints{
    {336, 672}, {672, 336}, {672, 672}, {1008, 336}, {336, 1008}};

std::vector<std::pair<std::int64_t, std::int64_t>> read_pinpoints(ConfigFields& top) {
  const HfValue* v = top.config().find("image_grid_pinpoints");
  if (!v) return kDefaultPinpoints;
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  bool ok = v->kind == HfValue::Kind::list && !v->items.empty() && v->items.size() <= 1000;
  for (const auto& p : ok ? v->items : std::vector<HfValue>{}) {
    if (p.kind != HfValue::Kind::list || p.items.size() != 2 || p.items[0].kind != HfValue::Kind::number ||
        p.items[1].kind != HfValue::Kind::number || p.items[0].number < 1 || p.items[1].number < 1 ||
        p.items[0].number > 1e5 || p.items[1].number > 1e5) {
      ok = false;
      break;
    }
    out.emplace_back(static_cast<std::int64_t>(p.items[0].number), static_cast<std::int64_t>(p.items[1].number));
  }
  if (!ok) {
    top.fail("image_grid_pinpoints", error_code::wrong_type,
             top.field("image_grid_pinpoints") + " must be a list of [height, width] pairs (at most 1000)");
    return kDefaultPinpoints;
  }
  return out;
}

// vision_feature_layer: one index, or a list whose layers are concatenated.
std::int64_t feature_layer_count(ConfigFields& top) {
  const HfValue* v = top.config().find("vision_feature_layer");
  if (!v || v->kind == HfValue::Kind::number) return 1;
  if (v->kind == HfValue::Kind::list && !v->items.empty() && v->items.size() <= 1000) return static_cast<std::int64_t>(v->items.size());
  top.fail("vision_feature_layer", error_code::wrong_type, top.field("vision_feature_layer") + " must be an integer or a list of integers");
  return 1;
}

}  // namespace

std::optional<Architecture> llava(const HfConfig& config, const std::string& model_type, Errors& errors) {
  // The text model: LlamaConfig unless text_config names another family; a published llava-hf
  // text_config omits the keys at their class defaults.
  std::string text_type = "llama";
  if (const HfValue* t = config.find("text_config"); t && t->kind == HfValue::Kind::object)
    if (const HfValue* m = t->object->find("model_type"); m && m->kind == HfValue::Kind::string) text_type = m->text;
  std::optional<Architecture> a;
  if (text_type == "mistral")
    a = language_model(config, text_type, errors,
                       {{"vocab_size", 32000}, {"hidden_size", 4096}, {"intermediate_size", 14336}, {"num_hidden_layers", 32},
                        {"num_attention_heads", 32}, {"num_key_value_heads", 8}});
  else if (text_type == "llama")
    a = language_model(config, text_type, errors,
                       {{"vocab_size", 32000}, {"hidden_size", 4096}, {"intermediate_size", 11008}, {"num_hidden_layers", 32},
                        {"num_attention_heads", 32}});
  else
    a = language_model(config, text_type, errors);

  ConfigFields top(config, errors);
  const HfConfig* vision_config = top.object("vision_config");
  HfConfig defaults;
  defaults.path = config.field("vision_config");
  std::string vision_type = "clip_vision_model";
  VitConfig d{1024, 4096, 24, 16, 14, 336, 336, 3};  // LlavaConfig's default vision_config
  if (vision_config) {
    ConfigFields probe(*vision_config, errors);
    vision_type = probe.text("model_type", "clip_vision_model");
    d = vision_type == "siglip_vision_model" ? VitConfig{768, 3072, 12, 12, 16, 224, 224, 3}
                                             : VitConfig{768, 3072, 12, 12, 32, 224, 224, 3};
  }
  ConfigFields f(vision_config ? *vision_config : defaults, errors);
  const VitConfig c = read_vit(f, d);
  const bool use_head = f.flag("vision_use_head", true);
  const std::string strategy = top.text("vision_feature_select_strategy", "default");
  if (strategy != "default" && strategy != "full")
    top.fail("vision_feature_select_strategy", error_code::unknown_value,
             top.field("vision_feature_select_strategy") + " must be \"default\" or \"full\", got \"" + strategy + "\"");
  const std::int64_t feature_layers = feature_layer_count(top);
  const bool bias = top.flag("multimodal_projector_bias", true);
  const bool next = model_type == "llava_next";
  const auto pinpoints = next ? read_pinpoints(top) : std::vector<std::pair<std::int64_t, std::int64_t>>{};
  for (const auto& [ph, pw] : pinpoints) {
    if (!f.ok() || !top.ok()) break;
    if (ph % c.image_h != 0 || pw % c.image_w != 0) {
      top.fail("image_grid_pinpoints", error_code::not_divisible,
               top.field("image_grid_pinpoints") + " [" + std::to_string(ph) + ", " + std::to_string(pw) +
                   "] must be a multiple of the vision image_size " + std::to_string(c.image_h) + " x " + std::to_string(c.image_w));
    }
  }
  if (!a || !f.ok() || !top.ok()) return std::nullopt;

  VisionTower v;
  if (vision_type == "siglip_vision_model") {
    v = siglip_tower(c, use_head);
  } else {
    v = clip_tower(c);
    if (vision_type != "clip_vision_model")
      a->layout_assumptions.push_back(config.field("vision_config.model_type") + " \"" + vision_type +
                                      "\" has no vision layout here: counted as a CLIP ViT of its sizes");
  }
  v.model_type = vision_type;
  v.drop_class_token = strategy == "default" && v.class_token;
  v.feature_layers = feature_layers;
  // LlavaProcessor: (image/patch)^2 patches, plus the class token unless the default strategy drops it.
  const std::int64_t patches = (c.image_h / c.patch) * (c.image_w / c.patch);
  v.lm_tokens_per_image = patches + (v.class_token && !v.drop_class_token ? 1 : 0);
  mlp_projector(v, c.hidden * feature_layers, a->hidden_size, bias);
  if (next) {
    v.rule = ImageTokenRule::llava_next;
    v.grid_pinpoints = pinpoints;
    v.projector_other_params = a->hidden_size;  // image_newline
  }
  attach_vision(*a, v, model_type, "model.language_model", config);
  return a;
}

}  // namespace trainmem::architectures
