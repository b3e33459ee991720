// InternVL (model_type internvl, the transformers-native InternVL 2.5/3 checkpoints "-hf"):
// transformers v4.56.0, src/transformers/models/internvl/modeling_internvl.py
// InternVLForConditionalGeneration = vision_tower (InternVLVisionModel: cls_token, a Conv2d patch
// embedding with bias, num_patches + 1 absolute positions; layers of q/k/v_proj (bias =
// attention_bias), projection_layer (bias), optional q_norm/k_norm, fc1/fc2, layernorm_before/after
// of norm_type, layer scales lambda_1/lambda_2; no final norm with use_mean_pooling) +
// multi_modal_projector (InternVLMultiModalProjector: LayerNorm over vision hidden x
// (1/downsample_ratio)^2, linear_1, GELU, linear_2) + the language model (Qwen2, InternLM2...) +
// lm_head. Defaults: configuration_internvl.py (InternVLVisionConfig, downsample_ratio 0.5).
// The original InternVLChatModel checkpoints (model_type internvl_chat, remote code, llm_config)
// are not this layout.
#include <algorithm>
#include <cmath>

#include "decoder_layout.hpp"
#include "multimodal_families.hpp"
#include "vision_layout.hpp"

namespace trainmem::architectures {

namespace {

// A size given as a number or as [h, w] (InternVLVisionConfig writes lists); square sizes only.
std::int64_t square_size(ConfigFields& f, const char* key, std::int64_t fallback) {
  const HfValue* v = f.config().find(key);
  if (v && v->kind == HfValue::Kind::list) {
    if (v->items.size() == 2 && v->items[0].kind == HfValue::Kind::number && v->items[1].kind == HfValue::Kind::number &&
        v->items[0].number == v->items[1].number && v->items[0].number >= 1 && v->items[0].number <= 1e5 &&
        std::floor(v->items[0].number) == v->items[0].number)
      return static_cast<std::int64_t>(v->items[0].number);
    f.fail(key, error_code::wrong_type, f.field(key) + " must be a whole number or a square [size, size]");
    return 1;
  }
  return f.optional_size(key, fallback, 1, 1e5);
}

}  // namespace

std::optional<Architecture> internvl(const HfConfig& config, const std::string& model_type, Errors& errors) {
  std::optional<Architecture> a = language_model(config, "qwen2", errors);
  ConfigFields top(config, errors);
  const HfConfig* vision_config = top.object("vision_config");
  HfConfig empty;
  empty.path = config.field("vision_config");
  ConfigFields f(vision_config ? *vision_config : empty, errors);
  VitConfig c;
  c.hidden = f.size({"hidden_size"}, 1024);
  c.intermediate = f.size({"intermediate_size"}, 4096);
  c.layers = f.size({"num_hidden_layers"}, 24);
  c.heads = f.size({"num_attention_heads"}, 16);
  c.channels = f.optional_size("num_channels", 3, 1, 64);
  c.patch = square_size(f, "patch_size", 14);
  c.image_h = c.image_w = square_size(f, "image_size", 448);
  const bool attention_bias = f.flag("attention_bias", false);
  const bool qk_norm = f.flag("use_qk_norm", false);
  const std::string norm_type = f.text("norm_type", "layer_norm");
  const bool mean_pooling = f.flag("use_mean_pooling", true);
  const bool mask_token = f.flag("use_mask_token", false);
  const bool absolute_positions = f.flag("use_absolute_position_embeddings", true);
  const double ratio = top.number("downsample_ratio", 0.5, 1e-3, 1);
  if (norm_type != "layer_norm" && norm_type != "rms_norm")
    f.fail("norm_type", error_code::unknown_value, f.field("norm_type") + " must be \"layer_norm\" or \"rms_norm\"");
  const auto shuffle = static_cast<std::int64_t>(std::llround(1.0 / ratio));
  if (f.ok() && (c.hidden % c.heads != 0 || c.image_h % c.patch != 0 || (c.image_h / c.patch) % shuffle != 0))
    f.fail("image_size", error_code::not_divisible,
           f.field("image_size") + ", patch_size, num_attention_heads and downsample_ratio must divide evenly");
  if (f.ok()) {
    const double merged = static_cast<double>(c.hidden) * static_cast<double>(shuffle * shuffle);
    f.within_parameter_limit("hidden_size", static_cast<double>(c.layers) * 6 * static_cast<double>(c.hidden) *
                                                static_cast<double>(std::max(c.hidden, c.intermediate)) +
                                            static_cast<double>(c.image_h) * static_cast<double>(c.image_h) * static_cast<double>(c.hidden) +
                                            merged * 1e8);
  }
  if (!a || !f.ok() || !top.ok()) return std::nullopt;
  VitLayer l;
  l.hidden = c.hidden;
  l.intermediate = c.intermediate;
  l.heads = c.heads;
  l.layers = c.layers;
  l.o = "projection_layer";
  l.prefix = "model.vision_tower.encoder.layer";
  l.attention_parent = "attention";
  l.attention_bias = attention_bias;
  l.norm = norm_type == "layer_norm" ? NormKind::layer_norm : NormKind::rms_norm;
  l.qk_norm = qk_norm ? c.hidden : 0;
  l.other_per_layer = 2 * c.hidden;  // lambda_1, lambda_2
  VisionTower v;
  v.model_type = "internvl_vision";
  v.hidden_size = c.hidden;
  v.norm = l.norm;
  v.layers.push_back(vit_layer_group(l, "vision_layer"));
  const std::int64_t patches = (c.image_h / c.patch) * (c.image_w / c.patch);
  v.embedding_params = c.hidden + c.channels * c.patch * c.patch * c.hidden + c.hidden +
                       (absolute_positions ? (patches + 1) * c.hidden : 0) + (mask_token ? c.hidden : 0);
  v.other_params = mean_pooling ? 0 : 2 * c.hidden;
  v.class_token = true;
  v.rule = ImageTokenRule::internvl;
  v.patch_size = c.patch;
  v.image_height = v.image_width = c.image_h;
  v.merge_size = shuffle;
  v.max_tiles = 12;
  const std::int64_t merged = c.hidden * shuffle * shuffle;
  v.projector_other_params = 2 * merged;  // layer_norm
  v.projector_norm = true;
  mlp_projector(v, merged, a->hidden_size, true);
  attach_vision(*a, v, model_type, "model.language_model", config);
  return a;
}

}  // namespace trainmem::architectures
