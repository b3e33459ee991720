// Qwen3 and Qwen3-MoE: transformers v4.56.0, src/transformers/models/qwen3/modeling_qwen3.py
// (no q/k/v bias, per-head RMSNorm q_norm/k_norm) and models/qwen3_moe/modeling_qwen3_moe.py
// (routed experts, no shared expert; MoE layers as Qwen2-MoE places them).
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
