// Phi-1, Phi-1.5 and Phi-2: transformers src/transformers/models/phi/modeling_phi.py, 4.x releases
// (PhiAttention q/k/v_proj and dense, all with bias; optional per-model q/k LayerNorms; PhiMLP fc1
// and fc2 with bias; one input_layernorm per layer: attention and MLP run in parallel on it; final
// LayerNorm; lm_head with bias, untied). The earlier remote-code configs (model_type "phi-msft",
// modeling_phi.py in microsoft/phi-2 before transformers 4.37) name the same tensors mixer.Wqkv,
// mixer.out_proj, mlp.fc1/fc2 and read n_embd, n_layer, n_head, n_inner.
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> phi(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  const bool msft = model_type == "phi-msft";
  if (msft) {
    read_shape(f, r, {"n_embd"}, {"n_layer"}, {"n_head"});
    r.kv_heads = f.size({"n_head_kv"}, r.heads);
    r.intermediate = f.optional_size("n_inner", 4 * r.hidden, 1);
    r.vocab = f.size({"vocab_size"});
    r.tie = f.flag("tie_word_embeddings", false);
    r.fused_qkv = "Wqkv";
    r.o_name = "out_proj";
    r.lora_targets = {"Wqkv", "out_proj", "fc1", "fc2"};
    r.attention_dropout = f.probability("attn_pdrop", 0.0);
    r.hidden_dropout = f.probability("resid_pdrop", 0.0);
    r.max_positions = f.optional_size("n_positions", 0);
    r.layers_prefix = "transformer.h";
    r.attention_parent = "mixer";
    r.embedding_module = "transformer.embd.wte";
    r.lm_head_module = "lm_head.linear";
  } else {
    read_llama_like(f, r, false);
    r.o_name = "dense";
    r.lora_targets = {"q_proj", "v_proj", "fc1", "fc2"};  // PEFT's mapping for "phi"
    if (f.flag("qk_layernorm", false)) {
      r.qk_norm = DecoderLayout::QkNorm::per_head;
      r.qk_norm_bias = true;
    }
    r.hidden_dropout = f.probability("resid_pdrop", 0.0);
  }
  r.norm = NormKind::layer_norm;
  r.norm_bias = true;
  r.norms_per_layer = 1;
  r.qkv_bias = r.o_bias = r.mlp_bias = true;
  r.gated = false;
  r.activation = mlp_activation(f.text(msft ? "activation_function" : "hidden_act", "gelu_new"));
  r.fc1 = "fc1";
  r.fc2 = "fc2";
  r.lm_head_bias = true;
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
