#include "ssm_layout.hpp"

#include "decoder_layout.hpp"

namespace trainmem::architectures {

namespace {

void clear_attention(LayerGroup& g) {
  g.attention = AttentionShape{};
}

}  // namespace

void set_mamba_mixer(LayerGroup& g, std::int64_t hidden, const SsmShape& m, bool proj_bias, bool conv_bias, bool dt_bc_norms) {
  const std::int64_t d = m.intermediate_size, n = m.state_size, r = m.time_step_rank;
  std::vector<Linear> mixer{linear("in_proj", hidden, 2 * d, proj_bias), linear("x_proj", d, r + 2 * n, false),
                            linear("dt_proj", r, d, true), linear("out_proj", d, hidden, proj_bias)};
  g.linears.insert(g.linears.begin(), mixer.begin(), mixer.end());
  g.other_params += d * m.conv_kernel + (conv_bias ? d : 0) + d * n + d;  // conv1d, A_log, D
  if (dt_bc_norms) {
    g.norms.push_back({"dt_layernorm", r, false});
    g.norms.push_back({"b_layernorm", n, false});
    g.norms.push_back({"c_layernorm", n, false});
  }
  g.mixer = Mixer::mamba;
  g.ssm = m;
  clear_attention(g);
}

void set_mamba2_mixer(LayerGroup& g, std::int64_t hidden, const SsmShape& m, bool proj_bias, bool conv_bias) {
  const std::int64_t d = m.intermediate_size, gn = m.n_groups * m.state_size, h = m.num_heads;
  std::vector<Linear> mixer{linear("in_proj", hidden, 2 * d + 2 * gn + h, proj_bias), linear("out_proj", d, hidden, proj_bias)};
  g.linears.insert(g.linears.begin(), mixer.begin(), mixer.end());
  const std::int64_t conv_dim = d + 2 * gn;
  g.other_params += conv_dim * m.conv_kernel + (conv_bias ? conv_dim : 0) + 3 * h;  // conv1d, dt_bias, A_log, D
  g.norms.push_back({"norm", d, false});  // MambaRMSNormGated
  g.mixer = Mixer::mamba2;
  g.ssm = m;
  clear_attention(g);
}

std::int64_t time_step_rank(ConfigFields& f, const char* key, std::int64_t hidden) {
  const HfValue* v = f.config().find(key);
  if (v && v->kind == HfValue::Kind::string) {
    if (v->text != "auto") f.fail(key, error_code::unknown_value, f.field(key) + " must be an integer or \"auto\"");
    return (hidden + 15) / 16;
  }
  return f.optional_size(key, (hidden + 15) / 16, 1);
}

}  // namespace trainmem::architectures
