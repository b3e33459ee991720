// DeepSeek-V2 and -V3: transformers src/transformers/models/deepseek_v3/modular_deepseek_v3.py, checked
// at commit 000c33fdfde12e1ffafbfcdb3c926df5727a00b6, and models/deepseek_v2/modeling_deepseek_v2.py
// (4.x releases). Multi-head latent attention: q_a/q_b or q_proj, kv_a_proj_with_mqa, kv_b_proj, their
// RMSNorms; MoE layers from first_k_dense_replace on, every moe_layer_freq-th; n_shared_experts shared
// experts. V3's DeepseekV3TopkRouter holds its weight as a raw parameter (not an nn.Linear) and keeps a
// per-expert e_score_correction_bias as a buffer the checkpoint stores, counted here with the router.
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

namespace {

// Layers i in [first, layers) with i % freq == 0, counted without walking them.
std::int64_t multiples_in(std::int64_t first, std::int64_t layers, std::int64_t freq) {
  if (first >= layers) return 0;
  auto up_to = [freq](std::int64_t n) { return (n + freq - 1) / freq; };  // multiples of freq in [0, n)
  return up_to(layers) - up_to(first);
}

}  // namespace

std::optional<Architecture> deepseek(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  r.hidden = f.size({"hidden_size"});
  r.layers = f.size({"num_hidden_layers"});
  r.heads = f.size({"num_attention_heads"});
  r.kv_heads = r.heads;
  r.intermediate = f.size({"intermediate_size"});
  r.vocab = f.size({"vocab_size"});
  r.tie = f.flag("tie_word_embeddings", false);
  r.qkv_bias = f.flag("attention_bias", false);
  r.o_bias = r.qkv_bias;
  read_mla(f, r);
  r.max_positions = f.optional_size("max_position_embeddings", 0);
  // No PEFT default for DeepSeek: the query projection and the key/value up-projection.
  r.lora_targets = {r.q_lora_rank > 0 ? "q_b_proj" : "q_proj", "kv_b_proj"};
  r.experts = f.optional_size("n_routed_experts", 0);
  if (r.experts > 0) {
    r.top_k = f.size({"num_experts_per_tok"});
    r.expert_intermediate = f.size({"moe_intermediate_size"});
    r.shared_intermediate = f.optional_size("n_shared_experts", 0) * r.expert_intermediate;
    r.shared_parent = "shared_experts";
    const std::int64_t first_dense = f.optional_size("first_k_dense_replace", 0);
    const std::int64_t freq = f.optional_size("moe_layer_freq", 1, 1);
    r.moe_layers = multiples_in(first_dense, r.layers, freq);
    if (f.text("topk_method", "") == "noaux_tc") r.router_bias_per_expert = 1;
    // DeepseekV3TopkRouter keeps its weight as a raw nn.Parameter used through F.linear.
    if (model_type == "deepseek_v3") r.router_nn_linear = false;
  }
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
