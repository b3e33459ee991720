// Mixtral: transformers v4.56.0, src/transformers/models/mixtral/modeling_mixtral.py
// (MixtralSparseMoeBlock: router `gate`, num_local_experts experts of w1 (gate), w3 (up), w2 (down),
// every layer MoE).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> mixtral(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, false);
  r.experts = f.size({"num_local_experts"});
  r.top_k = f.size({"num_experts_per_tok"});
  r.expert_intermediate = r.intermediate;
  r.expert_gate = "w1";
  r.expert_up = "w3";
  r.expert_down = "w2";
  r.mlp_parent = "block_sparse_moe";
  r.moe_layers = r.layers;
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
