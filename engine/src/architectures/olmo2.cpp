// OLMo 2: transformers src/transformers/models/olmo2/modular_olmo2.py, checked at commit
// 008f5c8c29be84d4721dc6d1e0fcd72300580be4 (Olmo2Attention:
// RMSNorm q_norm/k_norm over all heads of q and k; norms after attention and MLP).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> olmo2(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, false);
  r.qk_norm = DecoderLayout::QkNorm::full;
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
