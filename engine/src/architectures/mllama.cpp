// Llama 3.2 Vision (model_type mllama): transformers v4.56.0,
// src/transformers/models/mllama/modeling_mllama.py MllamaForConditionalGeneration =
//  - vision_model (MllamaVisionModel): a bias-free Conv2d patch embedding, class_embedding, a gated
//    positional embedding (gate, (image/patch)^2 + 1 positions, tile_embedding of
//    (max_aspect_ratio_id + 1) x max_num_tiles x positions x hidden), gated pre- and post-tile
//    aspect-ratio embeddings ((max_aspect_ratio_id + 1) x max_num_tiles x hidden, a gate each),
//    layernorm_pre/post, num_hidden_layers encoder layers (q/k/v/o_proj without bias, fc1/fc2 with
//    bias, two LayerNorms) and num_global_layers gated layers (plus gate_attn, gate_ffn);
//  - multi_modal_projector: Linear(vision_output_dim, text hidden) with bias;
//  - language_model (MllamaTextModel): embed_tokens of vocab_size + 8 rows, Llama self-attention
//    layers, and at cross_attention_layers MllamaCrossAttentionDecoderLayers (q/k/v/o_proj,
//    per-head q_norm/k_norm, cross_attn_attn_gate and cross_attn_mlp_gate, the MLP, two norms);
//    lm_head of vocab_size rows.
// Defaults: configuration_mllama.py (MllamaVisionConfig, MllamaTextConfig). The image processor
// pads every image to max_image_tiles tiles; each tile's positions are padded to a multiple of 8.
#include "decoder_layout.hpp"
#include "multimodal_families.hpp"
#include "vision_layout.hpp"

namespace trainmem::architectures {

namespace {

std::optional<Architecture> mllama_text(const HfConfig& config, Errors& errors) {
  const HfValue* text = config.find("text_config");
  HfConfig empty;
  empty.path = config.field("text_config");
  if (text && text->kind != HfValue::Kind::object) {
    errors.push_back({error_code::wrong_type, config.field("text_config"),
                      config.field("text_config") + " must be an object, got " + text->type_name()});
    return std::nullopt;
  }
  const HfConfig source = with_number_defaults(text ? *text->object : empty,
                                               {{"vocab_size", 128256}, {"hidden_size", 4096}, {"intermediate_size", 14336},
                                                {"num_hidden_layers", 40}, {"num_attention_heads", 32},
                                                {"num_key_value_heads", 8}});
  ConfigFields f(source, errors);
  DecoderLayout r;
  read_llama_like(f, r, false);
  std::vector<std::int64_t> cross = f.integer_list("cross_attention_layers");
  if (!source.find("cross_attention_layers")) cross = {3, 8, 13, 18, 23, 28, 33, 38};
  std::int64_t cross_layers = 0;
  for (std::size_t i = 0; i < cross.size(); ++i) {
    bool repeated = false;
    for (std::size_t j = 0; j < i; ++j) repeated = repeated || cross[j] == cross[i];
    if (!repeated && cross[i] >= 0 && cross[i] < r.layers) ++cross_layers;
    if (i >= 10000) break;  // a published list is short; bound the work
  }
  std::optional<Architecture> a = finish(f, "mllama_text_model", r);
  if (!a) return std::nullopt;
  a->embedding_params = (r.vocab + 8) * r.hidden;  // 8 extra rows for the image and special tokens
  LayerGroup self = a->layers.front();
  a->layers.clear();
  self.count = r.layers - cross_layers;
  LayerGroup x = self;
  x.name = "cross_attention_layer";
  x.count = cross_layers;
  x.mixer = Mixer::cross_attention;
  for (std::size_t i = 0; i < 4 && i < x.linears.size(); ++i) x.linears[i].parent = "cross_attn";  // q, k, v, o
  x.norms.push_back({"q_norm", r.head_dim, false});
  x.norms.push_back({"k_norm", r.head_dim, false});
  x.other_params = 2;  // cross_attn_attn_gate, cross_attn_mlp_gate
  x.attention.kv_cache_elements_per_token = 0;  // keys and values come from the vision states
  if (self.count > 0) a->layers.push_back(self);
  if (x.count > 0) a->layers.push_back(x);
  return a;
}

}  // namespace

std::optional<Architecture> mllama(const HfConfig& config, const std::string& model_type, Errors& errors) {
  std::optional<Architecture> a = mllama_text(config, errors);
  ConfigFields top(config, errors);
  const HfConfig* vision_config = top.object("vision_config");
  HfConfig empty;
  empty.path = config.field("vision_config");
  ConfigFields f(vision_config ? *vision_config : empty, errors);
  const VitConfig c = read_vit(f, {1280, 5120, 32, 16, 14, 448, 448, 3});
  const std::int64_t global_layers = f.optional_size("num_global_layers", 8, 0);
  const std::int64_t tiles = f.optional_size("max_num_tiles", 4, 1, 1024);
  const std::int64_t output_dim = f.optional_size("vision_output_dim", 7680, 1);
  std::int64_t aspect_ratios = 8;  // len(supported_aspect_ratios) of the default
  if (const HfValue* s = f.config().find("supported_aspect_ratios")) {
    if (s->kind == HfValue::Kind::list && s->items.size() <= 100000) aspect_ratios = static_cast<std::int64_t>(s->items.size());
    else f.fail("supported_aspect_ratios", error_code::wrong_type, f.field("supported_aspect_ratios") + " must be a list of [h, w] pairs");
  }
  if (f.ok())
    f.within_parameter_limit("max_num_tiles", static_cast<double>(aspect_ratios + 1) * static_cast<double>(tiles) *
                                                  static_cast<double>(c.image_h) * static_cast<double>(c.image_w) * static_cast<double>(c.hidden) +
                                              static_cast<double>(global_layers) * 6 * static_cast<double>(c.hidden) * static_cast<double>(c.intermediate) +
                                              static_cast<double>(output_dim) * 1e8);
  if (!a || !f.ok() || !top.ok()) return std::nullopt;
  const std::int64_t h = c.hidden;
  const std::int64_t positions = (c.image_h / c.patch) * (c.image_w / c.patch) + 1;
  VitLayer l;
  l.hidden = h;
  l.intermediate = c.intermediate;
  l.heads = c.heads;
  l.layers = c.layers;
  l.o = "o_proj";
  l.prefix = "model.vision_model.transformer.layers";
  l.attention_bias = false;
  l.o_bias = false;
  VisionTower v;
  v.model_type = "mllama_vision_model";
  v.module = "vision_model";
  v.hidden_size = h;
  v.norm = NormKind::layer_norm;
  v.layers.push_back(vit_layer_group(l, "vision_layer"));
  if (global_layers > 0) {
    l.layers = global_layers;
    l.other_per_layer = 2;  // gate_attn, gate_ffn
    l.prefix = "model.vision_model.global_transformer.layers";
    v.layers.push_back(vit_layer_group(l, "global_layer"));
  }
  const std::int64_t rows = aspect_ratios + 1;  // max_aspect_ratio_id + 1
  v.embedding_params = c.channels * c.patch * c.patch * h + h  // patch embedding, class_embedding
                       + 1 + positions * h + rows * tiles * positions * h  // gated positional embedding
                       + 2 * (rows * tiles * h + 1);  // pre/post tile positional embeddings
  v.other_params = 4 * h;                            // layernorm_pre, layernorm_post
  v.rule = ImageTokenRule::mllama;
  v.patch_size = c.patch;
  v.image_height = c.image_h;
  v.image_width = c.image_w;
  v.max_tiles = tiles;
  v.padded_positions = (positions + 7) / 8 * 8;
  v.class_token = true;
  v.projector.push_back(linear("multi_modal_projector", output_dim, a->hidden_size, true));
  attach_vision(*a, v, model_type, "model.language_model", config);
  return a;
}

}  // namespace trainmem::architectures
