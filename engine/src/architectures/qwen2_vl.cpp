// Qwen2-VL and Qwen2.5-VL (model_type qwen2_vl, qwen2_5_vl): transformers v4.56.0,
// src/transformers/models/qwen2_vl/modeling_qwen2_vl.py = visual
// (Qwen2VisionTransformerPretrainedModel: PatchEmbed, a bias-free Conv3d over temporal_patch_size
// x patch_size^2 pixels; depth Qwen2VLVisionBlocks of LayerNorm norm1/norm2, VisionAttention qkv
// and proj with bias, VisionMlp fc1/fc2 of mlp_ratio x embed_dim; PatchMerger: LayerNorm ln_q,
// Linear(4 e, 4 e), GELU, Linear(4 e, hidden_size)) + the Qwen2 language model (q/k/v bias);
// models/qwen2_5_vl/modeling_qwen2_5_vl.py: RMSNorm norm1/norm2 and ln_q, a gated MLP
// (gate/up/down_proj with bias) of intermediate_size, merger to out_hidden_size; windowed
// attention in all but fullatt_block_indexes (no parameters). The language model's keys sit at the
// top level of the published config.json (text_config in configs saved by newer transformers).
// Image tokens: image_processing_qwen2_vl.py smart_resize; min_pixels 3136 and max_pixels
// 12845056 as the published preprocessor_config.json of Qwen/Qwen2-VL-7B-Instruct sets them.
#include "decoder_layout.hpp"
#include "multimodal_families.hpp"
#include "vision_layout.hpp"

namespace trainmem::architectures {

std::optional<Architecture> qwen2_vl(const HfConfig& config, const std::string& model_type, Errors& errors) {
  std::optional<Architecture> a = language_model(config, "qwen2", errors, {}, true);
  ConfigFields top(config, errors);
  const HfConfig* vision_config = top.object("vision_config");
  HfConfig empty;
  empty.path = config.field("vision_config");
  ConfigFields f(vision_config ? *vision_config : empty, errors);
  const bool v25 = model_type == "qwen2_5_vl";
  // Qwen2VLVisionConfig / Qwen2_5_VLVisionConfig defaults.
  const std::int64_t depth = f.size({"depth"}, 32);
  const std::int64_t width = v25 ? f.size({"hidden_size"}, 3584) : f.size({"embed_dim"}, 1280);
  const std::int64_t heads = f.size({"num_heads"}, 16);
  const std::int64_t channels = f.has("in_channels") ? f.optional_size("in_channels", 3, 1, 64) : f.optional_size("in_chans", 3, 1, 64);
  const std::int64_t patch = f.has("patch_size") ? f.optional_size("patch_size", 14, 1, 1e4) : f.optional_size("spatial_patch_size", 14, 1, 1e4);
  const std::int64_t temporal = f.optional_size("temporal_patch_size", 2, 1, 64);
  const std::int64_t merge = f.optional_size("spatial_merge_size", 2, 1, 64);
  const std::int64_t mlp = v25 ? f.size({"intermediate_size"}, 3420) : width * f.size({"mlp_ratio"}, 4);
  const std::int64_t out = v25 ? f.size({"out_hidden_size"}, 3584) : f.size({"hidden_size"}, 3584);
  if (f.ok()) {
    const double w = static_cast<double>(width), merged = w * static_cast<double>(merge * merge);
    f.within_parameter_limit("depth", static_cast<double>(channels * temporal) * static_cast<double>(patch * patch) * w +
                                          static_cast<double>(depth) * (4 * w * w + 3 * w * static_cast<double>(mlp)) +
                                          merged * merged + merged * static_cast<double>(out));
  }
  if (f.ok() && width % heads != 0)
    f.fail("num_heads", error_code::not_divisible,
           f.field("num_heads") + " = " + std::to_string(heads) + " must divide the vision width " + std::to_string(width));
  if (!a || !f.ok() || !top.ok()) return std::nullopt;
  VitLayer l;
  l.hidden = width;
  l.intermediate = mlp;
  l.heads = heads;
  l.layers = depth;
  l.fused_qkv = "qkv";
  l.o = "proj";
  l.prefix = "model.visual.blocks";
  l.attention_parent = "attn";
  l.gated = v25;
  l.norm = v25 ? NormKind::rms_norm : NormKind::layer_norm;
  VisionTower v;
  v.model_type = v25 ? "qwen2_5_vl" : "qwen2_vl";
  v.module = "visual";
  v.hidden_size = width;
  v.norm = l.norm;
  v.layers.push_back(vit_layer_group(l, "vision_block"));
  v.embedding_params = channels * temporal * patch * patch * width;  // Conv3d, no bias
  v.rule = ImageTokenRule::qwen2_vl;
  v.patch_size = patch;
  v.merge_size = merge;
  v.min_pixels = 56 * 56;
  v.max_pixels = 16384 * 28 * 28;
  const std::int64_t merged = width * merge * merge;
  v.projector_other_params = width * (v25 ? 1 : 2);  // ln_q
  v.projector_norm = true;
  v.projector.push_back(linear("mlp.0", merged, merged, true));
  v.projector.push_back(linear("mlp.2", merged, out, true));
  attach_vision(*a, v, model_type, "model.language_model", config);
  return a;
}

}  // namespace trainmem::architectures
