// ViT encoders and projectors (transformers v4.56.0): models/siglip/modeling_siglip.py
// (SiglipVisionEmbeddings: Conv2d patch embedding with bias and num_patches positions;
// SiglipEncoderLayer: layer_norm1, q/k/v/out_proj with bias, layer_norm2, fc1/fc2;
// post_layernorm; SiglipMultiheadAttentionPoolingHead: probe, nn.MultiheadAttention, layernorm,
// MLP) and models/clip/modeling_clip.py (CLIPVisionEmbeddings: class_embedding, Conv2d without
// bias, num_patches + 1 positions; pre_layrnorm; the same encoder layer; post_layernorm).
#include "vision_layout.hpp"

#include "decoder_layout.hpp"
#include "trainmem/model_families.hpp"

namespace trainmem::architectures {

LayerGroup vit_layer_group(const VitLayer& v, const std::string& name) {
  LayerGroup g;
  g.name = name;
  g.count = v.layers;
  g.stack = Stack::encoder;
  g.prefix = v.prefix;
  const std::int64_t h = v.hidden;
  if (!v.fused_qkv.empty()) {
    g.linears.push_back(linear(v.fused_qkv, h, 3 * h, v.attention_bias));
  } else {
    g.linears.push_back(linear(v.q, h, h, v.attention_bias));
    g.linears.push_back(linear(v.k, h, h, v.attention_bias));
    g.linears.push_back(linear(v.v, h, h, v.attention_bias));
  }
  g.linears.push_back(linear(v.o, h, h, v.o_bias));
  for (auto& l : g.linears) l.parent = v.attention_parent;
  const std::size_t mlp_from = g.linears.size();
  if (v.gated) {
    g.linears.push_back(linear("gate_proj", h, v.intermediate, v.mlp_bias));
    g.linears.push_back(linear("up_proj", h, v.intermediate, v.mlp_bias));
    g.linears.push_back(linear("down_proj", v.intermediate, h, v.mlp_bias));
  } else {
    g.linears.push_back(linear(v.fc1, h, v.intermediate, v.mlp_bias));
    g.linears.push_back(linear(v.fc2, v.intermediate, h, v.mlp_bias));
  }
  for (std::size_t i = mlp_from; i < g.linears.size(); ++i) g.linears[i].parent = v.mlp_parent;
  const bool norm_bias = v.norm == NormKind::layer_norm;
  g.norms.push_back({"layer_norm1", h, norm_bias});
  g.norms.push_back({"layer_norm2", h, norm_bias});
  if (v.qk_norm > 0) {
    g.norms.push_back({"q_norm", v.qk_norm, false});
    g.norms.push_back({"k_norm", v.qk_norm, false});
  }
  g.other_params = v.other_per_layer;
  g.attention.num_attention_heads = v.heads;
  g.attention.num_key_value_heads = v.heads;
  g.attention.head_dim = h / v.heads;
  g.attention.v_head_dim = h / v.heads;
  g.mlp.gated = v.gated;
  g.mlp.intermediate_size = v.intermediate;
  return g;
}

HfConfig with_number_defaults(const HfConfig& config, std::initializer_list<std::pair<const char*, double>> defaults) {
  HfConfig out = config;
  for (const auto& [key, value] : defaults) {
    if (out.find(key)) continue;
    HfValue v;
    v.kind = HfValue::Kind::number;
    v.number = value;
    v.shown = std::to_string(static_cast<long long>(value));
    out.values[key] = v;
  }
  return out;
}

HfConfig with_model_type(const HfConfig& config, const std::string& model_type) {
  if (config.find("model_type")) return config;
  HfConfig out = config;
  HfValue v;
  v.kind = HfValue::Kind::string;
  v.text = model_type;
  v.shown = "\"" + model_type + "\"";
  out.values["model_type"] = v;
  return out;
}

std::optional<Architecture> language_model(const HfConfig& config, const std::string& text_type, Errors& errors,
                                           std::initializer_list<std::pair<const char*, double>> defaults, bool force_type) {
  const HfValue* text = config.find("text_config");
  if (text && text->kind != HfValue::Kind::object) {
    errors.push_back({error_code::wrong_type, config.field("text_config"),
                      config.field("text_config") + " must be an object, got " + text->type_name()});
    return std::nullopt;
  }
  HfConfig source = text ? *text->object : config;
  // The top level names the wrapper, not the text model.
  if (!text || force_type) source.values.erase("model_type");
  // A text_config naming its own family (LLaVA on Mistral, PaliGemma 2 on Gemma 2) keeps it.
  return architecture_from_hf_config(with_number_defaults(with_model_type(source, text_type), defaults), errors);
}

namespace {

bool is_sub_model(const HfConfig& c) {
  const bool layers = c.find("num_hidden_layers") || c.find("depth") || c.find("num_layers") || c.find("encoder_layers");
  return c.find("model_type") != nullptr || (c.find("hidden_size") && layers);
}

// A generic transformer encoder: per layer 4 h^2 + 4 h (attention with bias), 2 h I + I + h (MLP),
// 4 h (two LayerNorms). Needs hidden_size, a layer count and intermediate_size.
std::int64_t generic_encoder_count(const HfConfig& c) {
  auto number = [&](std::initializer_list<const char*> keys) -> double {
    for (const char* k : keys)
      if (const HfValue* v = c.find(k); v && v->kind == HfValue::Kind::number && v->number > 0 && v->number < 1e7) return v->number;
    return 0;
  };
  const double h = number({"hidden_size", "d_model", "embed_dim"});
  const double layers = number({"num_hidden_layers", "depth", "num_layers", "encoder_layers"});
  const double inter = number({"intermediate_size", "encoder_ffn_dim", "ffn_dim"});
  if (h == 0 || layers == 0 || inter == 0) return 0;
  return static_cast<std::int64_t>(layers * (4 * h * h + 4 * h + 2 * h * inter + inter + h + 4 * h));
}

}  // namespace

void note_unpriced_parts(const HfConfig& config, std::initializer_list<const char*> used, Architecture& a) {
  for (const auto& [key, value] : config.values) {
    if (value.kind != HfValue::Kind::object || !value.object) continue;
    bool consumed = false;
    for (const char* u : used) consumed = consumed || key == u;
    if (consumed || !is_sub_model(*value.object)) continue;
    const HfValue* type = value.object->find("model_type");
    UnpricedPart part;
    part.field = config.field(key);
    part.description = type && type->kind == HfValue::Kind::string ? "model_type \"" + type->text + "\"" : "a sub-model";
    part.parameters = generic_encoder_count(*value.object);
    a.unpriced_parts.push_back(part);
  }
}

std::pair<std::int64_t, std::int64_t> image_side(ConfigFields& f, std::int64_t fallback) {
  const HfValue* v = f.config().find("image_size");
  if (v && v->kind == HfValue::Kind::list && v->items.size() == 2 && v->items[0].kind == HfValue::Kind::number &&
      v->items[1].kind == HfValue::Kind::number && v->items[0].number >= 1 && v->items[1].number >= 1 &&
      v->items[0].number <= 1e5 && v->items[1].number <= 1e5)
    return {static_cast<std::int64_t>(v->items[0].number), static_cast<std::int64_t>(v->items[1].number)};
  if (v && v->kind == HfValue::Kind::list) {
    f.fail("image_size", error_code::wrong_type, f.field("image_size") + " must be a number or [height, width]");
    return {1, 1};
  }
  const std::int64_t side = f.optional_size("image_size", fallback, 1, 1e5);
  return {side, side};
}

VitConfig read_vit(ConfigFields& f, const VitConfig& d) {
  VitConfig c;
  c.hidden = f.size({"hidden_size"}, d.hidden);
  c.intermediate = f.size({"intermediate_size"}, d.intermediate);
  c.layers = f.size({"num_hidden_layers"}, d.layers);
  c.heads = f.size({"num_attention_heads"}, d.heads);
  c.patch = f.size({"patch_size"}, d.patch);
  c.channels = f.optional_size("num_channels", d.channels, 1, 64);
  const auto [image_h, image_w] = image_side(f, d.image_h);
  c.image_h = image_h;
  c.image_w = image_w;
  // A value the config left out is the family's default: the message says so, rather than naming a
  // number the user never wrote as theirs.
  const auto given = [&](const char* key, std::int64_t v) {
    return f.field(key) + (f.has(key) ? " = " : " (not given: the default ") + std::to_string(v) + (f.has(key) ? "" : ")");
  };
  if (f.ok() && c.hidden % c.heads != 0)
    f.fail("num_attention_heads", error_code::not_divisible,
           given("num_attention_heads", c.heads) + " must divide hidden_size = " + std::to_string(c.hidden),
           {{"divisor", static_cast<double>(c.heads)}, {"of", "hidden_size"}, {"value", static_cast<double>(c.hidden)}});
  const double h = static_cast<double>(c.hidden), channels = static_cast<double>(c.channels);
  const double p = static_cast<double>(c.patch), inter = static_cast<double>(c.intermediate);
  if (f.ok())
    f.within_parameter_limit("hidden_size", channels * p * p * h + static_cast<double>(c.image_h) * static_cast<double>(c.image_w) * h +
                                                static_cast<double>(c.layers) * (4 * h * h + 2 * h * inter) + 3 * h * h + 2 * h * inter);
  if (f.ok() && (c.image_h % c.patch != 0 || c.image_w % c.patch != 0))
    f.fail("patch_size", error_code::not_divisible,
           given("patch_size", c.patch) + " must divide image_size " + std::to_string(c.image_h) + " x " +
               std::to_string(c.image_w),
           {{"divisor", static_cast<double>(c.patch)}, {"of", "image_size"}, {"value", static_cast<double>(c.image_h % c.patch != 0 ? c.image_h : c.image_w)}});
  return c;
}

namespace {

VitLayer vit_layer(const VitConfig& c) {
  VitLayer l;
  l.hidden = c.hidden;
  l.intermediate = c.intermediate;
  l.heads = c.heads;
  l.layers = c.layers;
  return l;
}

}  // namespace

VisionTower siglip_tower(const VitConfig& c, bool use_head) {
  VisionTower v;
  v.hidden_size = c.hidden;
  v.norm = NormKind::layer_norm;
  v.patch_size = c.patch;
  v.image_height = c.image_h;
  v.image_width = c.image_w;
  const std::int64_t patches = (c.image_h / c.patch) * (c.image_w / c.patch);
  v.embedding_params = c.channels * c.patch * c.patch * c.hidden + c.hidden + patches * c.hidden;
  v.layers.push_back(vit_layer_group(vit_layer(c), "vision_layer"));
  v.other_params = 2 * c.hidden;  // post_layernorm
  if (use_head) {
    // probe, in_proj (3h x h + 3h), out_proj, layernorm, MLP fc1/fc2.
    const std::int64_t h = c.hidden;
    v.other_params += h + 3 * h * h + 3 * h + h * h + h + 2 * h + 2 * h * c.intermediate + c.intermediate + h;
  }
  return v;
}

VisionTower clip_tower(const VitConfig& c) {
  VisionTower v;
  v.hidden_size = c.hidden;
  v.norm = NormKind::layer_norm;
  v.patch_size = c.patch;
  v.image_height = c.image_h;
  v.image_width = c.image_w;
  v.class_token = true;
  const std::int64_t patches = (c.image_h / c.patch) * (c.image_w / c.patch);
  v.embedding_params = c.hidden + c.channels * c.patch * c.patch * c.hidden + (patches + 1) * c.hidden;
  v.layers.push_back(vit_layer_group(vit_layer(c), "vision_layer"));
  v.other_params = 2 * c.hidden + 2 * c.hidden;  // pre_layrnorm, post_layernorm
  return v;
}

void attach_vision(Architecture& a, VisionTower v, const std::string& model_type, const std::string& language_module,
                   const HfConfig& config) {
  a.vision = std::move(v);
  a.model_type = model_type;
  nest_language_model(a, language_module);
  note_unpriced_parts(config, {"text_config", "vision_config"}, a);
}

void nest_language_model(Architecture& a, const std::string& module) {
  auto nest = [&](std::string& name) {
    if (name.rfind("model.", 0) == 0) name = module + "." + name.substr(6);
  };
  for (auto& g : a.layers) nest(g.prefix);
  nest(a.embedding_module);
}

void mlp_projector(VisionTower& v, std::int64_t in, std::int64_t out, bool bias, const std::string& first,
                   const std::string& second) {
  v.projector.push_back(linear(first, in, out, bias));
  v.projector.push_back(linear(second, out, out, bias));
}

}  // namespace trainmem::architectures
