// The layout kind vision-language families share: a ViT encoder (pre-norm attention and MLP per
// layer, a patch embedding) and a projector into the language model, attached to a language model
// built by the text families. A multimodal family file reads its vision_config and wrapper keys and
// fills a VisionTower; multimodal_families.cpp dispatches on the wrapper's model_type.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config_fields.hpp"
#include "trainmem/architecture.hpp"
#include "trainmem/errors.hpp"
#include "trainmem/hf_config.hpp"

namespace trainmem::architectures {

// One encoder layer of a ViT, in its family's module names.
struct VitLayer {
  std::int64_t hidden = 0, intermediate = 0, heads = 0, layers = 0;
  // Module path of the layer list and of the attention and MLP modules in a layer (transformers
  // v4.56.0 names, as PEFT matches them).
  std::string prefix = "model.vision_tower.vision_model.encoder.layers";
  std::string attention_parent = "self_attn", mlp_parent = "mlp";
  std::string fused_qkv;  // non-empty: one fused q/k/v projection ("qkv")
  std::string q = "q_proj", k = "k_proj", v = "v_proj", o = "out_proj";
  std::string fc1 = "fc1", fc2 = "fc2";
  bool attention_bias = true, o_bias = true, mlp_bias = true;
  bool gated = false;  // gate_proj/up_proj/down_proj (Qwen2.5-VL)
  NormKind norm = NormKind::layer_norm;
  std::int64_t qk_norm = 0;          // per-layer q_norm/k_norm width (InternViT-6B), 0: none
  std::int64_t other_per_layer = 0;  // layer scales, gates
};

LayerGroup vit_layer_group(const VitLayer& v, const std::string& name);

// A copy of `config` with numeric keys added where absent (the configuration class defaults a
// published config.json omits).
HfConfig with_number_defaults(const HfConfig& config, std::initializer_list<std::pair<const char*, double>> defaults);
// A copy of `config` with model_type set when it has none.
HfConfig with_model_type(const HfConfig& config, const std::string& model_type);

// The language model of a multimodal config: text_config (with `text_type` as its model_type when
// it names none), or the top-level keys when the family keeps them there (Qwen2-VL as published).
// `defaults` fill keys the text configuration class defaults. `force_type` reads the text model
// as `text_type` whatever it names (Qwen2-VL's qwen2_vl_text is Qwen2's layout).
std::optional<Architecture> language_model(const HfConfig& config, const std::string& text_type, Errors& errors,
                                           std::initializer_list<std::pair<const char*, double>> defaults = {},
                                           bool force_type = false);

// Sub-configs of `config` (objects with a model_type, or with hidden_size and a layer count) other
// than `used`: named in Architecture::unpriced_parts with a generic encoder count where countable.
void note_unpriced_parts(const HfConfig& config, std::initializer_list<const char*> used, Architecture& a);

// The square image side of a vision_config (image_size as a number or [h, w]); 0 when absent.
std::pair<std::int64_t, std::int64_t> image_side(ConfigFields& f, std::int64_t fallback);

// Reads the ViT shape keys of a SigLIP / CLIP / Idefics3 vision_config with the given defaults.
struct VitConfig {
  std::int64_t hidden, intermediate, layers, heads, patch, image_h, image_w, channels;
};
VitConfig read_vit(ConfigFields& f, const VitConfig& defaults);

// SigLIP (siglip_vision_model, SiglipVisionTransformer; also Idefics3's vision model): patch
// embedding with bias, (image/patch)^2 positions, post_layernorm, the attention-pooling head when
// vision_use_head. CLIP (clip_vision_model): class token, bias-free patch embedding, pre and post
// layer norms.
VisionTower siglip_tower(const VitConfig& c, bool use_head);
VisionTower clip_tower(const VitConfig& c);

// A multimodal model's language model sits under `module` ("model.language_model" in transformers
// v4.56.0's VLMs): its layer prefixes and embedding module are renamed from "model." to it.
void nest_language_model(Architecture& a, const std::string& module);

// Completes a vision-language model from its language model `a`: the tower `v` attached, the
// checkpoint's model_type, the language model nested under `language_module`, and every other
// sub-config named as unpriced (text_config and vision_config are read).
void attach_vision(Architecture& a, VisionTower v, const std::string& model_type, const std::string& language_module,
                   const HfConfig& config);

// The two-linear GELU projector of LLaVA-style models: in -> out -> out, with bias.
void mlp_projector(VisionTower& v, std::int64_t in, std::int64_t out, bool bias, const std::string& first = "linear_1",
                   const std::string& second = "linear_2");

}  // namespace trainmem::architectures
