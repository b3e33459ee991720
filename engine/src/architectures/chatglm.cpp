// GLM family.
//  - ChatGLM2/3 and GLM-4 as first published (model_type "chatglm", remote code modeling_chatglm.py
//    in THUDM/chatglm3-6b and THUDM/glm-4-9b-chat): self_attention.query_key_value (heads x
//    kv_channels queries plus multi_query_group_num key/value groups), self_attention.dense,
//    mlp.dense_h_to_4h (gate and up fused, 2 x ffn_hidden_size), mlp.dense_4h_to_h; biases from
//    add_bias_linear / add_qkv_bias; RMSNorm when rmsnorm; final_layernorm when post_layer_norm;
//    embedding of padded_vocab_size rows and an untied output_layer.
//  - GLM-4 in transformers (model_type "glm"): models/glm/modular_glm.py, checked at commit
//    0325dc46d07792e6dbe7603465c5d952f6a8ecf5
//    (q/k/v_proj with bias, o_proj, fused gate_up_proj, down_proj, two RMSNorms), and GLM-4-0414
//    (model_type "glm4", models/glm4/modeling_glm4.py: two more norms after attention and MLP).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> chatglm(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  r.hidden = f.size({"hidden_size"});
  r.layers = f.size({"num_layers", "num_hidden_layers"});
  r.heads = f.size({"num_attention_heads"});
  r.head_dim = f.size({"kv_channels"}, 0);
  if (r.head_dim == 0) r.head_dim = heads_divide_hidden(f, r.hidden, r.heads, "num_attention_heads");
  r.kv_heads = f.flag("multi_query_attention", false) ? f.size({"multi_query_group_num"}) : r.heads;
  r.intermediate = f.size({"ffn_hidden_size"});
  r.vocab = f.size({"padded_vocab_size", "vocab_size"});
  r.tie = f.flag("tie_word_embeddings", false);
  const bool linear_bias = f.flag("add_bias_linear", false);
  r.qkv_bias = linear_bias || f.flag("add_qkv_bias", false);
  r.o_bias = r.mlp_bias = linear_bias;
  r.norm = f.flag("rmsnorm", true) ? NormKind::rms_norm : NormKind::layer_norm;
  r.norm_bias = r.norm == NormKind::layer_norm;
  r.final_norm = f.flag("post_layer_norm", true);
  r.fused_qkv = "query_key_value";
  r.o_name = "dense";
  r.fused_gate_up = "dense_h_to_4h";
  r.down = "dense_4h_to_h";
  r.lora_targets = {"query_key_value"};  // PEFT's mapping for "chatglm"
  r.layers_prefix = "transformer.encoder.layers";
  r.attention_parent = "self_attention";
  r.embedding_module = "transformer.embedding.word_embeddings";
  r.lm_head_module = "transformer.output_layer";
  r.max_positions = f.optional_size("seq_length", 0);
  r.attention_dropout = f.probability("attention_dropout", 0.0);
  r.hidden_dropout = f.probability("hidden_dropout", 0.0);
  return finish(f, model_type, r);
}

std::optional<Architecture> glm(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, false);
  r.qkv_bias = f.flag("attention_bias", true);
  r.o_bias = false;
  r.fused_gate_up = "gate_up_proj";
  if (model_type == "glm4") r.norms_per_layer = 4;
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
