// Gemma, Gemma 2 and Gemma 3 (text): transformers src/transformers/models/gemma/modeling_gemma.py
// (Llama modules, tied embeddings by default), models/gemma2/modular_gemma2.py, checked at commit
// 006e86931247d7bacf94ad00ada1fb6baf11e94b (four norms per layer: input, post-attention,
// pre-feed-forward and post-feed-forward), and models/gemma3/modeling_gemma3.py (Gemma 2's norms plus
// per-head q_norm/k_norm of head_dim); defaults from models/gemma3/configuration_gemma3.py
// (Gemma3TextConfig). Gemma and Gemma 3 as in the 4.x releases.
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> gemma(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, true);
  if (model_type == "gemma2" || model_type == "gemma3_text") r.norms_per_layer = 4;
  if (model_type == "gemma3_text") r.qk_norm = DecoderLayout::QkNorm::per_head;
  // Gemma 2 alternates sliding and full layers, Gemma 3 attends fully every sixth; Gemma (1) has
  // no window.
  read_sliding_window(f, r, model_type == "gemma3_text" ? 6 : 2);
  // Gemma2ForCausalLM / Gemma3ForCausalLM.forward cap the logits when final_logit_softcapping is
  // set (Gemma2Config: 30.0 by default; Gemma 3: None); a config that sets it to null turns it off.
  const bool nulled = f.config().null_keys.count("final_logit_softcapping") > 0;
  r.final_logit_softcapping = f.has("final_logit_softcapping") ? f.number("final_logit_softcapping", 0, 0, 1e9) > 0
                                                                : model_type == "gemma2" && !nulled;
  return finish(f, model_type, r);
}

HfConfig with_gemma3_text_defaults(const HfConfig& text_config) {
  HfConfig out = text_config;
  const std::pair<const char*, double> defaults[] = {
      {"vocab_size", 262208}, {"hidden_size", 2304}, {"intermediate_size", 9216}, {"num_hidden_layers", 26},
      {"num_attention_heads", 8}, {"num_key_value_heads", 4}, {"head_dim", 256}, {"sliding_window", 4096},
  };
  for (const auto& [key, value] : defaults) {
    if (out.find(key)) continue;
    HfValue v;
    v.kind = HfValue::Kind::number;
    v.number = value;
    v.shown = std::to_string(static_cast<long long>(value));
    out.values[key] = v;
  }
  return out;
}

}  // namespace trainmem::architectures
