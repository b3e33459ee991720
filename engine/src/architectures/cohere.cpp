// Cohere Command-R (model_type "cohere") and Command R7B (model_type "cohere2"): transformers
// src/transformers/models/cohere/modular_cohere.py, checked at commit
// 03ea97ae17f461340572ce7c7250b22d7a146893, and models/cohere2/modeling_cohere2.py.
// q/k/v/o_proj (bias when attention_bias), gate/up/down_proj; one input_layernorm per layer with
// attention and MLP in parallel on it; CohereLayerNorm has a weight and no bias; with use_qk_norm a
// norm weight for every query and key head (Command R+); embeddings tied by default.
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> cohere(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, true);
  r.norm = NormKind::layer_norm;
  r.norm_bias = false;
  r.norms_per_layer = 1;
  r.mlp_bias = false;  // CohereMLP: gate/up/down_proj without bias whatever mlp_bias says
  if (f.flag("use_qk_norm", false)) r.qk_norm = DecoderLayout::QkNorm::full;
  read_sliding_window(f, r, 4);  // cohere2; Command-R (cohere) has no window
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
