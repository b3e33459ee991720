// Llama and Mistral: transformers src/transformers/models/llama/modeling_llama.py, checked at commit
// 002272831fba584eb30dca9729c1be456836960a (q/k/v/o_proj with bias = attention_bias; the head_dim and
// mlp_bias keys LlamaConfig gained later change only the widths and MLP biases read below)
// (LlamaAttention q/k/v/o_proj, LlamaMLP gate/up/down_proj, RMSNorm before attention and MLP) and
// models/mistral/modeling_mistral.py (the same modules, sliding_window attention).
// Two model types load into the same modules: Yi as first published (01-ai/Yi-34B config.json,
// model_type "Yi", architectures LlamaForCausalLM), and Granite (transformers v4.45.0
// models/granite/modeling_granite.py: Llama's modules; its embedding_multiplier,
// residual_multiplier, attention_multiplier and logits_scaling are scalars, no parameters).
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
