// MiniCPM (model_type "minicpm"): Llama's modules (q/k/v/o_proj, gate/up/down_proj, RMSNorm before
// attention and MLP) with a scaled embedding and scaled residuals, which add no parameters.
// transformers src/transformers/models/minicpm/modular_minicpm.py, read at commit
// 346cd6ff65e6e55b67b110058b4038f3dca39075 (https://github.com/huggingface/transformers/blob/346cd6ff65e6e55b67b110058b4038f3dca39075/src/transformers/models/minicpm/modular_minicpm.py):
// MiniCPMConfig(LlamaConfig) with tie_word_embeddings = True, MiniCPMMLP(LlamaMLP),
// MiniCPMAttention(LlamaAttention), MiniCPMScaledWordEmbedding (embed_scale is a buffer). The
// OpenBMB remote-code modeling_minicpm.py of the earlier releases (MiniCPM-2B) has the same modules
// and default; its MoE variant (num_experts > 0, MiniCPM-MoE-8x2B) replaces the MLP with a router
// `gate` (no bias) and num_experts experts of w1 (gate), w3 (up) and w2 (down), intermediate_size
// wide, as Mixtral does (the tensor names mlc-llm's MiniCPM loader reads).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> minicpm(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, true);
  if (const std::int64_t experts = f.optional_size("num_experts", 0); experts > 0) mixtral_style_experts(f, r, experts);
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
