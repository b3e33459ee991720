// Baichuan and Baichuan 2 (model_type "baichuan", remote code published with the checkpoints:
// modeling_baichuan.py in baichuan-inc/Baichuan2-7B-Base and Baichuan2-13B-Base): one fused W_pack
// (h -> 3h, no bias), o_proj, gate/up/down_proj, two RMSNorms per layer, untied lm_head (Baichuan 2's
// NormHead has the same vocab x h weight). The 7B models use RoPE, the 13B models ALiBi: neither
// has parameters. Every head has its own k and v.
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> baichuan(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, false);
  r.kv_heads = r.heads;
  r.fused_qkv = "W_pack";
  r.lora_targets = {"W_pack"};  // no PEFT default for Baichuan; W_pack is what its fine-tuning scripts target
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
