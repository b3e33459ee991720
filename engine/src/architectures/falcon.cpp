// Falcon: transformers src/transformers/models/falcon/modeling_falcon.py, checked at commit
// 00dcc6dda6f6d8e69541a6b51f97986a80242367 (FalconAttention:
// kv heads = num_kv_heads with new_decoder_architecture, 1 with multi_query, else all heads; softmax
// in the activation dtype; FalconDecoderLayer: ln_attn + ln_mlp for the new architecture with two
// norms, one input_layernorm for parallel attention, else input + post-attention norms).
// The first Falcon releases (remote code, model_type "RefinedWeb" for Falcon-40B, "RefinedWebModel" for
// Falcon-7B) name the kv heads n_head_kv; transformers' conversion of those checkpoints
// (src/transformers/models/falcon/convert_custom_code_checkpoint.py at commit
// 15ea02a2add1672acbeee158a9448720d6093de1) maps n_head_kv to num_kv_heads and sets
// new_decoder_architecture exactly when n_head_kv is present; read here the same way.
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> falcon(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_shape(f, r, {"hidden_size", "n_embed"}, {"num_hidden_layers", "n_layer"}, {"num_attention_heads", "n_head"});
  const bool new_arch = f.flag("new_decoder_architecture", f.has("n_head_kv"));
  const bool multi_query = f.flag("multi_query", true);
  const bool parallel_attn = f.flag("parallel_attn", true);
  r.kv_heads = new_arch ? f.size({"num_kv_heads", "n_head_kv"}, r.heads) : (multi_query ? 1 : r.heads);
  r.intermediate = f.optional_size("ffn_hidden_size", 4 * r.hidden, 1);
  r.vocab = f.size({"vocab_size"});
  r.tie = f.flag("tie_word_embeddings", true);
  neox_style(r, f.flag("bias", false));
  r.layers_prefix = "transformer.h";
  r.attention_parent = "self_attention";
  r.embedding_module = "transformer.word_embeddings";
  r.eager_softmax_fp32 = false;
  const std::int64_t parallel_norms = f.optional_size("num_ln_in_parallel_attn", 2, 1, 2);
  r.norms_per_layer = new_arch ? static_cast<int>(parallel_norms) : (parallel_attn ? 1 : 2);
  r.attention_dropout = f.probability("attention_dropout", 0.0);
  r.hidden_dropout = f.probability("hidden_dropout", 0.0);
  r.alibi = f.flag("alibi", false);  // FalconConfig.alibi: ALiBi biases, else rotary (FalconRotaryEmbedding)
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
