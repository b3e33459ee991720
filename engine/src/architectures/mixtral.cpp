// Mixtral: transformers src/transformers/models/mixtral/modular_mixtral.py, checked at commit
// 008f5c8c29be84d4721dc6d1e0fcd72300580be4
// (MixtralSparseMoeBlock: router `gate`, num_local_experts experts of w1 (gate), w3 (up), w2 (down),
// every layer MoE).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> mixtral(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, false);
  mixtral_style_experts(f, r, f.size({"num_local_experts"}));
  r.mlp_parent = "block_sparse_moe";
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
