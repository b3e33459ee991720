// OLMo 2: transformers v4.56.0, src/transformers/models/olmo2/modeling_olmo2.py (Olmo2Attention:
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
