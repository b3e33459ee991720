// PaliGemma and PaliGemma 2 (model_type paligemma): transformers v4.56.0,
// src/transformers/models/paligemma/modeling_paligemma.py PaliGemmaForConditionalGeneration =
// vision_tower (SiglipVisionModel of vision_config) + multi_modal_projector
// (PaliGemmaMultiModalProjector: one linear, vision hidden -> projection_dim, with bias) + the
// Gemma / Gemma 2 language model of text_config (lm_head tied to the embeddings).
// configuration_paligemma.py: text_config defaults to Gemma; num_image_tokens =
// (image_size / patch_size)^2.
#include "decoder_layout.hpp"
#include "multimodal_families.hpp"
#include "vision_layout.hpp"

namespace trainmem::architectures {

std::optional<Architecture> paligemma(const HfConfig& config, const std::string& model_type, Errors& errors) {
  // GemmaConfig defaults for keys a text_config omits (gemma/configuration_gemma.py).
  std::optional<Architecture> a =
      language_model(config, "gemma", errors,
                     {{"vocab_size", 256000}, {"hidden_size", 3072}, {"intermediate_size", 24576}, {"num_hidden_layers", 28},
                      {"num_attention_heads", 16}, {"num_key_value_heads", 16}, {"head_dim", 256}});
  ConfigFields top(config, errors);
  const HfConfig* vision_config = top.object("vision_config");
  HfConfig empty;
  empty.path = config.field("vision_config");
  ConfigFields f(vision_config ? *vision_config : empty, errors);
  // PaliGemmaConfig's default vision_config (SigLIP So400m/14 at 224).
  const VitConfig c = read_vit(f, vision_config ? VitConfig{768, 3072, 12, 12, 16, 224, 224, 3}
                                                : VitConfig{1152, 4304, 27, 16, 14, 224, 224, 3});
  const bool use_head = f.flag("vision_use_head", vision_config == nullptr ? false : true);
  const std::int64_t projection = f.optional_size("projection_dim", a ? a->hidden_size : 1, 1);
  if (!a || !f.ok() || !top.ok()) return std::nullopt;
  VisionTower v = siglip_tower(c, use_head);
  v.model_type = "siglip_vision_model";
  v.projector.push_back(linear("linear", c.hidden, projection, true));
  attach_vision(*a, v, model_type, "model.language_model", config);
  return a;
}

}  // namespace trainmem::architectures
