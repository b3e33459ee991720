// Idefics3 and SmolVLM (model_type idefics3): transformers v4.56.0,
// src/transformers/models/idefics3/modeling_idefics3.py Idefics3ForConditionalGeneration =
// vision_model (Idefics3VisionTransformer: SigLIP-shaped, a Conv2d patch embedding with bias,
// (image/patch)^2 positions, encoder layers, post_layernorm) + connector (Idefics3Connector: pixel
// shuffle by scale_factor, then modality_projection.proj, a bias-free linear from
// vision hidden x scale_factor^2 to the text width) + text_model (a Llama) + lm_head (untied).
// Defaults: configuration_idefics3.py (Idefics3VisionConfig; text_config defaults to LlamaConfig;
// scale_factor 2). Image tokens: image_processing_idefics3.py; the processor's longest_edge (the
// resize target) is not in config.json: every released preprocessor_config.json sets it to 4 tiles
// of the encoder's image_size (HuggingFaceM4/Idefics3-8B-Llama3: 1456 = 4 x 364, the class default;
// HuggingFaceTB/SmolVLM-256M-Instruct and -500M-Instruct: 2048 = 4 x 512).
#include "decoder_layout.hpp"
#include "multimodal_families.hpp"
#include "vision_layout.hpp"

namespace trainmem::architectures {

std::optional<Architecture> idefics3(const HfConfig& config, const std::string& model_type, Errors& errors) {
  std::optional<Architecture> a =
      language_model(config, "llama", errors,
                     {{"vocab_size", 32000}, {"hidden_size", 4096}, {"intermediate_size", 11008}, {"num_hidden_layers", 32},
                      {"num_attention_heads", 32}});
  ConfigFields top(config, errors);
  const HfConfig* vision_config = top.object("vision_config");
  HfConfig empty;
  empty.path = config.field("vision_config");
  ConfigFields f(vision_config ? *vision_config : empty, errors);
  const VitConfig c = read_vit(f, {1152, 3072, 12, 16, 32, 224, 224, 3});
  const std::int64_t scale = top.optional_size("scale_factor", 2, 1, 64);
  if (f.ok() && ((c.image_h / c.patch) % scale != 0 || c.image_h != c.image_w))
    f.fail("image_size", error_code::not_divisible,
           f.field("image_size") + " must be square with image_size / patch_size divisible by scale_factor = " + std::to_string(scale));
  if (f.ok()) f.within_parameter_limit("hidden_size", static_cast<double>(c.hidden) * static_cast<double>(scale * scale) * 1e8);
  if (!a || !f.ok() || !top.ok()) return std::nullopt;
  VisionTower v = siglip_tower(c, false);
  v.model_type = "idefics3_vision";
  v.module = "vision_model";
  v.layers.front().prefix = "model.vision_model.encoder.layers";
  v.rule = ImageTokenRule::idefics3;
  v.merge_size = scale;
  v.longest_edge = 4 * c.image_h;
  v.projector.push_back(linear("modality_projection.proj", c.hidden * scale * scale, a->hidden_size, false));
  attach_vision(*a, v, model_type, "model.text_model", config);
  return a;
}

}  // namespace trainmem::architectures
