// StableLM (StableLM-3B-4E1T, StableLM 2): transformers, checked at commit
// 00dcc6dda6f6d8e69541a6b51f97986a80242367:
// src/transformers/models/stablelm/modeling_stablelm.py. StableLmAttention: q/k/v_proj with bias when
// use_qkv_bias, o_proj without; with qk_layernorm, per-head LayerNorms without bias over every
// query head and every key head (StableLmLayerNormPerHead). StableLmMLP: gate/up/down_proj.
// LayerNorm with bias. Two layouts: sequential (input_layernorm, post_attention_layernorm) and,
// with use_parallel_residual (StableLM 2 12B), attention and MLP in parallel on one input_layernorm.
// The first remote-code configs (model_type "stablelm_epoch") name the norm epsilon norm_eps.
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> stablelm(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, false);
  r.norm = NormKind::layer_norm;
  r.norm_bias = true;
  r.qkv_bias = f.flag("use_qkv_bias", false);
  r.o_bias = false;
  if (f.flag("qk_layernorm", false)) r.qk_norm = DecoderLayout::QkNorm::full;
  if (f.flag("use_parallel_residual", false)) r.norms_per_layer = 1;
  r.hidden_dropout = f.probability("hidden_dropout", 0.0);
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
