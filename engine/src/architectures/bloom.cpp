// BLOOM: transformers src/transformers/models/bloom/modeling_bloom.py, 4.x releases (GPT-NeoX module
// names with bias, word_embeddings_layernorm after the embedding, BloomMLP 4h wide, ALiBi: no
// position parameters).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> bloom(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_shape(f, r, {"hidden_size", "n_embed"}, {"n_layer", "num_hidden_layers"}, {"n_head", "num_attention_heads"});
  r.intermediate = 4 * r.hidden;
  r.vocab = f.size({"vocab_size"});
  r.tie = f.flag("tie_word_embeddings", true);
  neox_style(r, true);
  r.layers_prefix = "transformer.h";
  r.attention_parent = "self_attention";
  r.embedding_module = "transformer.word_embeddings";
  r.embedding_norm = true;
  r.alibi = true;  // BloomModel.build_alibi_tensor
  r.attention_dropout = f.probability("attention_dropout", 0.0);
  r.hidden_dropout = f.probability("hidden_dropout", 0.0);
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
