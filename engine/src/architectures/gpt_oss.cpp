// gpt-oss: transformers src/transformers/models/gpt_oss/modular_gpt_oss.py, read at commit
// 0261a467116de4a9103b58200f9d82f8fb5a0e86 (https://github.com/huggingface/transformers/blob/0261a467116de4a9103b58200f9d82f8fb5a0e86/src/transformers/models/gpt_oss/modular_gpt_oss.py).
// GptOssAttention: q/k/v/o_proj with bias (attention_bias) and one learned sink logit per head
// (`sinks`); GptOssMLP: GptOssTopKRouter, which holds a weight (num_local_experts x h) and a bias as
// raw nn.Parameters used through F.linear, and GptOssExperts, also raw parameters: gate_up_proj
// (experts x h x 2I) with its bias and down_proj (experts x I x h) with its bias. Neither is an
// nn.Linear, so PEFT's target_modules cannot wrap them. Two RMSNorms per layer; untied lm_head.
// Every layer is MoE.
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> gpt_oss(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_llama_like(f, r, false);
  r.qkv_bias = r.o_bias = f.flag("attention_bias", true);
  r.attention_sinks_per_head = 1;
  r.experts = f.size({"num_local_experts"});
  r.top_k = f.size({"num_experts_per_tok", "experts_per_token"});
  r.expert_intermediate = r.intermediate;
  r.router = "router";
  r.router_bias = true;
  r.router_nn_linear = false;
  r.expert_gate_up = "gate_up_proj";
  r.expert_down = "down_proj";
  r.expert_bias = true;
  r.experts_are_parameters = true;
  r.moe_layers = r.layers;
  read_sliding_window(f, r, 2);
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
