// OPT: transformers src/transformers/models/opt/modeling_opt.py, read at commit
// 0184d2087e15afbd83ffa3cef25044a4f6c05047 (https://github.com/huggingface/transformers/blob/0184d2087e15afbd83ffa3cef25044a4f6c05047/src/transformers/models/opt/modeling_opt.py).
// OPTLearnedPositionalEmbedding: max_position_embeddings + 2 rows (offset 2). OPTAttention: q/k/v_proj
// and out_proj, with bias when enable_bias (default true). OPTDecoderLayer: self_attn_layer_norm and
// final_layer_norm (nn.LayerNorm, weight and bias when layer_norm_elementwise_affine, default true),
// fc1 (hidden -> ffn_dim) and fc2 with bias when enable_bias. OPTDecoder: embed_tokens (vocab x
// word_embed_proj_dim); project_in and project_out (no bias) only when word_embed_proj_dim differs
// from hidden_size (OPT-350m); a final LayerNorm when do_layer_norm_before and not
// _remove_final_layer_norm. OPTForCausalLM: lm_head (word_embed_proj_dim -> vocab, no bias), tied to
// embed_tokens (tie_word_embeddings defaults to true).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> opt(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_shape(f, r, {"hidden_size"}, {"num_hidden_layers"}, {"num_attention_heads"});
  r.intermediate = f.size({"ffn_dim"});
  r.vocab = f.size({"vocab_size"});
  const std::int64_t positions = f.size({"max_position_embeddings"});
  const std::int64_t projection = f.size({"word_embed_proj_dim"}, r.hidden);
  r.learned_positions = positions + 2;  // OPTLearnedPositionalEmbedding's offset
  r.tie = f.flag("tie_word_embeddings", true);
  const bool bias = f.flag("enable_bias", true);
  r.qkv_bias = r.o_bias = r.mlp_bias = bias;
  r.norm = NormKind::layer_norm;
  r.norm_bias = true;
  r.norm_weights = f.flag("layer_norm_elementwise_affine", true);
  r.final_norm = f.flag("do_layer_norm_before", true) && !f.flag("_remove_final_layer_norm", false);
  r.gated = false;
  r.fc1 = "fc1";
  r.fc2 = "fc2";
  r.mlp_parent = "";
  r.o_name = "out_proj";
  r.attention_dropout = f.probability("attention_dropout", 0.0);
  r.hidden_dropout = f.probability("dropout", 0.1);
  r.layers_prefix = "model.decoder.layers";
  r.embedding_module = "model.decoder.embed_tokens";
  r.eager_softmax_fp32 = true;  // eager_attention_forward: softmax in float32
  std::optional<Architecture> a = finish(f, model_type, r);
  if (!a) return a;
  // Token embedding and head are word_embed_proj_dim wide; project_in/out bridge to hidden_size.
  a->embedding_params = r.vocab * projection;
  a->lm_head_params = r.tie ? 0 : r.vocab * projection;
  if (projection != r.hidden) a->head_other_params += 2 * projection * r.hidden;
  a->max_position_embeddings = positions;
  return a;
}

}  // namespace trainmem::architectures
