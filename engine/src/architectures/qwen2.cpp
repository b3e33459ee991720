// Qwen2 and Qwen2-MoE: transformers src/transformers/models/qwen2/modular_qwen2.py, checked at commit
// 022c4a9b8834f5bac216562fae138b8124814ce3 (q/k/v with bias, o_proj without), and
// models/qwen2_moe/modular_qwen2_moe.py, checked at 001f85b38fb432858ace93f18622f07cec46d874 (routed
// experts, a shared expert with a sigmoid shared_expert_gate, MoE layers by decoder_sparse_step and
// mlp_only_layers). That commit is transformers 5 development, where the router and the experts are
// fused parameters; the 4.x releases keep an nn.Linear `gate` and per-expert gate/up/down_proj modules,
// the names PEFT targets, which this layout keeps.
#include <algorithm>

#include "decoder_layout.hpp"
#include "families.hpp"
#include "trainmem/work_meter.hpp"

namespace trainmem::architectures {

// Layers that are MoE: on the decoder_sparse_step grid ((i + 1) % step == 0) and not listed in
// mlp_only_layers (Qwen2MoeDecoderLayer). Work is bounded by the list, not the layer count.
std::int64_t qwen_moe_layer_count(ConfigFields& f, std::int64_t layers) {
  const std::int64_t step = f.optional_size("decoder_sparse_step", 1, 1);
  std::vector<std::int64_t> mlp_only = f.integer_list("mlp_only_layers");
  work_meter::add(mlp_only.size());
  std::sort(mlp_only.begin(), mlp_only.end());
  mlp_only.erase(std::unique(mlp_only.begin(), mlp_only.end()), mlp_only.end());
  std::int64_t moe = layers / step;
  for (const std::int64_t i : mlp_only)
    if (i >= 0 && i < layers && (i + 1) % step == 0) --moe;
  return moe;
}

std::optional<Architecture> qwen2(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, false);
  r.qkv_bias = true;  // Qwen2Attention: q/k/v with bias, o_proj without
  r.o_bias = false;
  if (model_type == "qwen2_moe") {
    r.experts = f.size({"num_experts"});
    r.top_k = f.size({"num_experts_per_tok"});
    r.expert_intermediate = f.size({"moe_intermediate_size"});
    r.shared_intermediate = f.optional_size("shared_expert_intermediate_size", 0);
    r.shared_expert_gate = r.shared_intermediate > 0;
    r.moe_layers = qwen_moe_layer_count(f, r.layers);
  }
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
