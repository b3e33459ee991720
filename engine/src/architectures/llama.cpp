// Llama and Mistral: transformers src/transformers/models/llama/modeling_llama.py, checked at commit
// 002272831fba584eb30dca9729c1be456836960a (q/k/v/o_proj with bias = attention_bias; the head_dim and
// mlp_bias keys LlamaConfig gained later change only the widths and MLP biases read below)
// (LlamaAttention q/k/v/o_proj, LlamaMLP gate/up/down_proj, RMSNorm before attention and MLP) and
// models/mistral/modeling_mistral.py (the same modules, sliding_window attention).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> llama(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, false);
  read_sliding_window(f, r, 0);
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
