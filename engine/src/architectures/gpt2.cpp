// GPT-2: transformers src/transformers/models/gpt2/modeling_gpt2.py, 4.x releases (GPT2Attention: c_attn
// (Conv1D, 3h) and c_proj; GPT2MLP: c_fc and c_proj; LayerNorm with bias; learned positions wpe;
// softmax in the activation dtype; tied head).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> gpt2(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_shape(f, r, {"n_embd", "hidden_size"}, {"n_layer", "num_hidden_layers"}, {"n_head", "num_attention_heads"});
  r.intermediate = f.optional_size("n_inner", 4 * r.hidden, 1);
  r.vocab = f.size({"vocab_size"});
  r.learned_positions = f.size({"n_positions", "max_position_embeddings"});
  r.tie = f.flag("tie_word_embeddings", true);
  gpt2_style(r);
  r.conv1d = true;  // GPT2Attention and GPT2MLP build Conv1D modules (pytorch_utils.Conv1D)
  r.activation = mlp_activation(f.text("activation_function", "gelu_new"));
  r.eager_softmax_fp32 = false;
  r.attention_dropout = f.probability("attn_pdrop", 0.1);
  r.hidden_dropout = f.probability("resid_pdrop", 0.1);
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
