// Phi-3 (and Phi-4, which uses it): transformers v4.56.0, src/transformers/models/phi3/modeling_phi3.py
// (Phi3Attention: one fused qkv_proj; Phi3MLP: one fused gate_up_proj and down_proj).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> phi3(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, false);
  r.lora_targets = {"qkv_proj"};
  r.fused_qkv = "qkv_proj";
  r.fused_gate_up = "gate_up_proj";
  r.sliding_window = f.optional_size("sliding_window", 0);
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
