// gpt-oss: transformers v4.56.0, src/transformers/models/gpt_oss/modeling_gpt_oss.py.
// GptOssAttention: q/k/v/o_proj with bias (attention_bias) and one learned sink logit per head
// (`sinks`); GptOssMLP: a router (Linear with bias, h -> num_local_experts) and experts held as
// parameters, not nn.Linear modules: gate_up_proj (experts x h x 2I) with its bias and down_proj
// (experts x I x h) with its bias; two RMSNorms per layer; untied lm_head. Every layer is MoE.
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
  r.expert_gate_up = "gate_up_proj";
  r.expert_down = "down_proj";
  r.expert_bias = true;
  r.experts_are_parameters = true;
  r.moe_layers = r.layers;
  r.sliding_window = f.optional_size("sliding_window", 0);
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
