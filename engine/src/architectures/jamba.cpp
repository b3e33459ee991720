// Jamba (model_type jamba), a hybrid of attention, Mamba and mixture-of-experts layers:
// transformers v4.56.0, src/transformers/models/jamba/modeling_jamba.py JambaForCausalLM. Layer i
// mixes with attention (JambaAttention: q/k/v/o_proj without bias) when
// i % attn_layer_period == attn_layer_offset, else with a JambaMambaMixer (the Mamba mixer plus
// RMSNorms on dt, B and C); its feed-forward is a JambaSparseMoeBlock (router, num_experts
// JambaMLPs, num_experts_per_tok active) when i % expert_layer_period == expert_layer_offset,
// else a JambaMLP. Every layer has input_layernorm and pre_ff_layernorm; final_layernorm;
// lm_head untied. Defaults from configuration_jamba.py (JambaConfig).
#include <algorithm>
#include <numeric>

#include "decoder_layout.hpp"
#include "families.hpp"
#include "ssm_layout.hpp"

namespace trainmem::architectures {

namespace {

// Layers i in [0, layers) with i % a_period == a_offset (attention) and i % e_period == e_offset
// (experts), by kind: [attention][moe]. Counted over one common period and scaled.
void count_layers(std::int64_t layers, std::int64_t a_period, std::int64_t a_offset, std::int64_t e_period, std::int64_t e_offset,
                  bool moe, std::int64_t out[2][2]) {
  out[0][0] = out[0][1] = out[1][0] = out[1][1] = 0;
  const std::int64_t period = std::lcm(a_period, e_period);
  auto kind = [&](std::int64_t i, int& attention, int& expert) {
    attention = i % a_period == a_offset ? 1 : 0;
    expert = moe && i % e_period == e_offset ? 1 : 0;
  };
  const std::int64_t full = layers / period;
  for (std::int64_t i = 0; i < period; ++i) {
    int at, ex;
    kind(i, at, ex);
    out[at][ex] += full + (i < layers % period ? 1 : 0);
  }
}

}  // namespace

std::optional<Architecture> jamba(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  r.hidden = f.size({"hidden_size"}, 4096);
  r.layers = f.size({"num_hidden_layers"}, 32);
  r.heads = f.size({"num_attention_heads"}, 32);
  r.kv_heads = f.size({"num_key_value_heads"}, 8);
  r.head_dim = heads_divide_hidden(f, r.hidden, r.heads, "num_attention_heads");
  r.intermediate = f.size({"intermediate_size"}, 14336);
  r.vocab = f.size({"vocab_size"}, 65536);
  r.tie = f.flag("tie_word_embeddings", false);
  r.max_positions = f.optional_size("max_position_embeddings", 0);
  const std::int64_t experts = f.optional_size("num_experts", 16, 1);
  const std::int64_t top_k = f.optional_size("num_experts_per_tok", 2, 1);
  const std::int64_t e_period = f.optional_size("expert_layer_period", 2, 1, 1024);
  const std::int64_t e_offset = f.optional_size("expert_layer_offset", 1, 0, 1023);
  const std::int64_t a_period = f.optional_size("attn_layer_period", 8, 1, 1024);
  const std::int64_t a_offset = f.optional_size("attn_layer_offset", 4, 0, 1023);
  SsmShape m;
  m.intermediate_size = f.optional_size("mamba_expand", 2, 1, 1024) * r.hidden;
  m.state_size = f.size({"mamba_d_state"}, 16);
  m.conv_kernel = f.optional_size("mamba_d_conv", 4, 1, 1024);
  m.time_step_rank = time_step_rank(f, "mamba_dt_rank", r.hidden);
  m.fused_inner = false;
  const bool conv_bias = f.flag("mamba_conv_bias", true);
  const bool proj_bias = f.flag("mamba_proj_bias", false);
  if (f.ok() && (a_offset >= a_period || e_offset >= e_period))
    f.fail("attn_layer_offset", error_code::out_of_range,
           f.field("attn_layer_offset") + " and expert_layer_offset must be below their periods");
  // Attention layers, dense and MoE, as the decoder layout builds them (two template layers, one
  // of each kind); the groups are then counted and the Mamba ones get their mixer.
  r.experts = experts > 1 ? experts : 0;
  r.top_k = experts > 1 ? top_k : 0;
  r.expert_intermediate = r.intermediate;
  const std::int64_t layers = r.layers;
  r.layers = 2;
  r.moe_layers = experts > 1 ? 1 : 0;
  if (f.ok()) {
    const double h = static_cast<double>(r.hidden), d = static_cast<double>(m.intermediate_size);
    f.within_parameter_limit("num_hidden_layers", static_cast<double>(layers) * (3 * h * d + d * (static_cast<double>(m.state_size) +
                                                      static_cast<double>(m.conv_kernel) + 2 * static_cast<double>(m.time_step_rank)) +
                                                      3 * h * static_cast<double>(r.intermediate) * static_cast<double>(std::max<std::int64_t>(1, experts))));
  }
  std::optional<Architecture> a = finish(f, model_type, r);
  if (!a) return std::nullopt;
  const LayerGroup dense = a->layers.front();
  const LayerGroup sparse = a->layers.back();
  std::int64_t counts[2][2];
  count_layers(layers, a_period, a_offset, e_period, e_offset, experts > 1, counts);
  a->layers.clear();
  auto attention_free = [](LayerGroup g) {
    g.linears.erase(g.linears.begin(), g.linears.begin() + 4);  // q, k, v, o
    return g;
  };
  for (int attention = 1; attention >= 0; --attention) {
    for (int expert = 0; expert < 2; ++expert) {
      if (counts[attention][expert] == 0) continue;
      LayerGroup g = expert ? sparse : dense;
      g.count = counts[attention][expert];
      g.name = std::string(attention ? "attention" : "mamba") + (expert ? "_moe_layer" : "_layer");
      if (!attention) {
        g = attention_free(g);
        set_mamba_mixer(g, r.hidden, m, proj_bias, conv_bias, true);
      }
      a->layers.push_back(g);
    }
  }
  a->default_lora_targets = {"q_proj", "v_proj", "in_proj", "out_proj"};
  return a;
}

}  // namespace trainmem::architectures
