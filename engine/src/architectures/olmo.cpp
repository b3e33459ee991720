// OLMo (v1).
//  - transformers layout (model_type "olmo", allenai/OLMo-*-hf): transformers (4.x releases),
//    src/transformers/models/olmo/modeling_olmo.py: Llama's modules with OlmoLayerNorm, a LayerNorm
//    without parameters (so norms add nothing); clip_qkv has no parameters.
//  - the first release's layout (model_type "olmo" read by the hf_olmo package, allenai/OLMo-7B):
//    d_model, n_heads, n_layers; a fused att_proj (3 d_model), attn_out, ff_proj (mlp_hidden_size,
//    gate and up together) and ff_out (mlp_hidden_size / 2 -> d_model); embedding_size rows;
//    weight_tying; norms with parameters only when layer_norm_with_affine.
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> olmo(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  r.norm = NormKind::layer_norm;
  r.norm_weights = false;
  if (f.has("d_model")) {
    read_shape(f, r, {"d_model"}, {"n_layers"}, {"n_heads"});
    const std::int64_t mlp_ratio = f.optional_size("mlp_ratio", 4, 1);
    const std::int64_t fused = f.optional_size("mlp_hidden_size", mlp_ratio * r.hidden, 2);
    r.intermediate = fused / 2;
    r.vocab = f.size({"embedding_size", "vocab_size"});
    r.tie = f.flag("weight_tying", true);
    r.norm_weights = f.flag("layer_norm_with_affine", true);
    r.norm_bias = r.norm_weights && f.flag("bias_for_layer_norm", false);
    r.fused_qkv = "att_proj";
    r.o_name = "attn_out";
    r.fused_gate_up = "ff_proj";
    r.down = "ff_out";
    r.lora_targets = {"att_proj"};
    r.layers_prefix = "model.transformer.blocks";
    r.attention_parent = r.mlp_parent = "";
    r.embedding_module = "model.transformer.wte";
    r.lm_head_module = "model.transformer.ff_out";
    r.max_positions = f.optional_size("max_sequence_length", 0);
  } else {
    read_llama_like(f, r, false);
  }
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
