// Phi-3 (and Phi-4, which uses it): transformers src/transformers/models/phi3/modular_phi3.py, checked
// at commit 06053b84c14d72e9789fbf27844a75aa89b3ded7
// (Phi3Attention: one fused qkv_proj; Phi3MLP: one fused gate_up_proj and down_proj).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> phi3(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, false);
  r.lora_targets = {"qkv_proj"};
  r.fused_qkv = "qkv_proj";
  // Phi3Attention.forward: query/key/value_states = qkv[..., slices] (views), then
  // apply_rotary_pos_emb on the query and key only.
  r.value_view_of_fused_qkv = true;
  r.fused_gate_up = "gate_up_proj";
  read_sliding_window(f, r, 0);
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
