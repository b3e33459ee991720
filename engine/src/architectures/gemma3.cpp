// Gemma 3 (model_type gemma3): transformers v4.56.0, src/transformers/models/gemma3/
// modeling_gemma3.py Gemma3ForConditionalGeneration = vision_tower (SiglipVisionModel; Gemma 3's
// vision_config sets vision_use_head false) + multi_modal_projector (Gemma3MultiModalProjector:
// mm_input_projection_weight, a raw [vision hidden, text hidden] parameter; mm_soft_emb_norm, an
// RMSNorm of the vision width; an AvgPool2d from (image/patch)^2 patches to mm_tokens_per_image)
// + the Gemma 3 text model (tied lm_head). Defaults from configuration_gemma3.py (Gemma3Config,
// Gemma3TextConfig) and siglip/configuration_siglip.py (SiglipVisionConfig).
#include "decoder_layout.hpp"
#include "families.hpp"
#include "multimodal_families.hpp"
#include "trainmem/model_families.hpp"
#include "vision_layout.hpp"

namespace trainmem::architectures {

std::optional<Architecture> gemma3(const HfConfig& config, const std::string& model_type, Errors& errors) {
  const HfValue* text = config.find("text_config");
  if (!text) {
    errors.push_back({error_code::missing_field, config.field("text_config"),
                      "model_type \"gemma3\" is multimodal: its text model is read from text_config, which is missing",
                      {{"reason", "text_config_required"}, {"model_type", "gemma3"}}});
    return std::nullopt;
  }
  if (text->kind != HfValue::Kind::object) {
    errors.push_back({error_code::wrong_type, config.field("text_config"),
                      config.field("text_config") + " must be an object, got " + text->type_name()});
    return std::nullopt;
  }
  HfConfig text_config = with_gemma3_text_defaults(with_model_type(*text->object, "gemma3_text"));
  std::optional<Architecture> a = architecture_from_hf_config(text_config, errors);
  ConfigFields top(config, errors);
  const HfConfig* vision_config = top.object("vision_config");
  HfConfig empty;
  empty.path = config.field("vision_config");
  ConfigFields f(vision_config ? *vision_config : empty, errors);
  const VitConfig c = read_vit(f, {768, 3072, 12, 12, 16, 224, 224, 3});
  const bool use_head = f.flag("vision_use_head", true);
  const std::int64_t tokens = top.optional_size("mm_tokens_per_image", 256, 1, 1e6);
  if (!a || !f.ok() || !top.ok()) return std::nullopt;
  VisionTower v = siglip_tower(c, use_head);
  v.model_type = "siglip_vision_model";
  v.lm_tokens_per_image = tokens;
  // mm_input_projection_weight (a matmul over the pooled, normalized patches) and mm_soft_emb_norm.
  v.projector.push_back(linear("mm_input_projection_weight", c.hidden, a->hidden_size));
  v.projector_other_params = c.hidden;
  v.projector_norm = true;
  attach_vision(*a, v, model_type, "model.language_model", config);
  return a;
}

}  // namespace trainmem::architectures
