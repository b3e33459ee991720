// GPT-NeoX (Pythia): transformers src/transformers/models/gpt_neox/modular_gpt_neox.py, checked at
// commit 00dcc6dda6f6d8e69541a6b51f97986a80242367
// (query_key_value, dense, dense_h_to_4h, dense_4h_to_h, all with bias; two LayerNorms per layer).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> gpt_neox(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_shape(f, r, {"hidden_size"}, {"num_hidden_layers"}, {"num_attention_heads"});
  r.intermediate = f.size({"intermediate_size"});
  r.vocab = f.size({"vocab_size"});
  r.tie = f.flag("tie_word_embeddings", false);
  neox_style(r, true);
  // GPTNeoXAttention.forward: qkv.view(...) sliced into q, k, v (views); the rotary part of q and
  // k is rotated and concatenated with the rest into new tensors, v stays a view.
  r.value_view_of_fused_qkv = true;
  r.activation = mlp_activation(f.text("hidden_act", "gelu"));  // Pythia: gelu; GPT-NeoX-20B: gelu_fast
  r.layers_prefix = "gpt_neox.layers";
  r.attention_parent = "attention";
  r.embedding_module = "gpt_neox.embed_in";
  r.lm_head_module = "embed_out";
  r.qkv_bias = r.o_bias = f.flag("attention_bias", true);
  r.attention_dropout = f.probability("attention_dropout", 0.0);
  r.hidden_dropout = f.probability("hidden_dropout", 0.0);
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
