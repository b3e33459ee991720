// Qwen3 and Qwen3-MoE: transformers src/transformers/models/qwen3/modular_qwen3.py, checked at commit
// 02e8340b967815b4a5417c6273a7774aae298a03 (Qwen3Attention is LlamaAttention, q/k/v/o bias from
// attention_bias, default false, plus per-head RMSNorm q_norm/k_norm of head_dim), and
// models/qwen3_moe/modeling_qwen3_moe.py as in the 4.x releases (routed experts, no shared expert; MoE
// layers as Qwen2-MoE places them).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::int64_t qwen_moe_layer_count(ConfigFields& f, std::int64_t layers);  // qwen2.cpp

std::optional<Architecture> qwen3(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, false);
  r.qk_norm = DecoderLayout::QkNorm::per_head;
  if (model_type == "qwen3_moe") {
    r.experts = f.size({"num_experts"});
    r.top_k = f.size({"num_experts_per_tok"});
    r.expert_intermediate = f.size({"moe_intermediate_size"});
    r.moe_layers = qwen_moe_layer_count(f, r.layers);
  }
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
