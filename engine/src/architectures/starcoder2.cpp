// StarCoder2: transformers src/transformers/models/starcoder2/modeling_starcoder2.py, read at commit
// 00d4b3d2142cb4ced2f51b90614b5d26bc045015 (https://github.com/huggingface/transformers/blob/00d4b3d2142cb4ced2f51b90614b5d26bc045015/src/transformers/models/starcoder2/modeling_starcoder2.py),
// and configuration_starcoder2.py at 008e574391258935f3ecc3035c882e73bbcac419 for the defaults.
// Starcoder2Attention: q/k/v/o_proj (grouped k/v heads) with bias when use_bias (default true);
// Starcoder2MLP: c_fc and c_proj (a plain MLP, gelu) with bias when use_bias; input_layernorm and
// post_attention_layernorm are nn.LayerNorm (weight and bias), and so is the final norm; rotary
// positions (no parameters); lm_head tied to embed_tokens unless tie_word_embeddings is false
// (Starcoder2Config: tie_word_embeddings = True).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> starcoder2(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, true);
  const bool bias = f.flag("use_bias", true);
  r.qkv_bias = r.o_bias = r.mlp_bias = bias;
  r.norm = NormKind::layer_norm;
  r.norm_bias = true;
  r.gated = false;
  r.fc1 = "c_fc";
  r.fc2 = "c_proj";
  read_sliding_window(f, r, 0);
  r.hidden_dropout = f.probability("residual_dropout", 0.0);
  r.lora_targets = {"q_proj", "v_proj"};
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
