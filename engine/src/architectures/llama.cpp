// Llama and Mistral: transformers v4.56.0, src/transformers/models/llama/modeling_llama.py
// (LlamaAttention q/k/v/o_proj, LlamaMLP gate/up/down_proj, RMSNorm before attention and MLP) and
// models/mistral/modeling_mistral.py (the same modules, sliding_window attention).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> llama(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, false);
  r.sliding_window = f.optional_size("sliding_window", 0);
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
