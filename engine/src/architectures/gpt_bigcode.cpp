// GPT-BigCode (SantaCoder, StarCoder): transformers (4.x releases),
// src/transformers/models/gpt_bigcode/modeling_gpt_bigcode.py. GPT-2's modules (c_attn, c_proj,
// c_fc, mlp c_proj, all with bias; ln_1, ln_2, ln_f; learned positions wpe; head tied to wte), with
// multi-query attention: c_attn projects to h + 2 x head_dim when multi_query (one shared k/v head).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> gpt_bigcode(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_shape(f, r, {"n_embd", "hidden_size"}, {"n_layer", "num_hidden_layers"}, {"n_head", "num_attention_heads"});
  if (f.flag("multi_query", true)) r.kv_heads = 1;
  r.intermediate = f.optional_size("n_inner", 4 * r.hidden, 1);
  r.vocab = f.size({"vocab_size"});
  r.learned_positions = f.size({"n_positions", "max_position_embeddings"});
  r.tie = f.flag("tie_word_embeddings", true);
  gpt2_style(r);
  r.activation = mlp_activation(f.text("activation_function", "gelu_pytorch_tanh"));
  r.eager_softmax_fp32 = f.flag("attention_softmax_in_fp32", true);
  r.attention_dropout = f.probability("attn_pdrop", 0.1);
  r.hidden_dropout = f.probability("resid_pdrop", 0.1);
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
