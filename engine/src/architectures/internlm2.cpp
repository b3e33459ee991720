// InternLM2 and InternLM2.5 (model_type "internlm2", remote code published with the checkpoints:
// modeling_internlm2.py in internlm/internlm2-7b): attention.wqkv fuses q, k and v
// ((heads + 2 kv_heads) x head_dim outputs, bias when `bias`), attention.wo, feed_forward.w1 (gate),
// w3 (up), w2 (down); attention_norm and ffn_norm (RMSNorm); tok_embeddings, norm and an untied
// output head.
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> internlm2(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, false);
  r.qkv_bias = r.o_bias = f.flag("bias", false);
  r.fused_qkv = "wqkv";
  r.o_name = "wo";
  r.gate = "w1";
  r.up = "w3";
  r.down = "w2";
  r.attention_parent = "attention";
  r.mlp_parent = "feed_forward";
  r.embedding_module = "model.tok_embeddings";
  r.lm_head_module = "output";
  r.lora_targets = {"wqkv"};  // no PEFT default for InternLM2; its fused attention projection
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
