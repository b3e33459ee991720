// GPT-J: transformers src/transformers/models/gptj/modeling_gptj.py, checked at commit
// 00b676f8f0489b88652a31d70751cc540dd06305 (GPTJAttention:
// q/k/v_proj and out_proj without bias; GPTJMLP: fc_in and fc_out with bias, n_inner or 4h wide;
// one ln_1 per layer, attention and MLP in parallel; ln_f; untied lm_head with bias; rotary
// positions without parameters).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> gptj(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_shape(f, r, {"n_embd", "hidden_size"}, {"n_layer", "num_hidden_layers"}, {"n_head", "num_attention_heads"});
  r.intermediate = f.optional_size("n_inner", 4 * r.hidden, 1);
  r.vocab = f.size({"vocab_size"});
  r.max_positions = f.optional_size("n_positions", 0);
  r.tie = f.flag("tie_word_embeddings", false);
  r.norm = NormKind::layer_norm;
  r.norm_bias = true;
  r.norms_per_layer = 1;
  r.o_name = "out_proj";
  r.mlp_bias = true;
  r.gated = false;
  r.activation = mlp_activation(f.text("activation_function", "gelu_new"));
  r.fc1 = "fc_in";
  r.fc2 = "fc_out";
  r.lm_head_bias = true;
  r.layers_prefix = "transformer.h";
  r.attention_parent = "attn";
  r.embedding_module = "transformer.wte";
  r.attention_dropout = f.probability("attn_pdrop", 0.0);
  r.hidden_dropout = f.probability("resid_pdrop", 0.0);
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
