// Mamba and Mamba-2 (model_type mamba, mamba2): transformers v4.56.0,
// src/transformers/models/mamba/modeling_mamba.py MambaForCausalLM (backbone.embeddings, blocks of
// an RMSNorm and a MambaMixer, norm_f, lm_head tied by default) and
// models/mamba2/modeling_mamba2.py Mamba2ForCausalLM (blocks of an RMSNorm and a Mamba2Mixer,
// lm_head untied by default). Defaults from configuration_mamba.py and configuration_mamba2.py.
// Neither has attention or an MLP: each block is norm + mixer.
#include "decoder_layout.hpp"
#include "families.hpp"
#include "ssm_layout.hpp"

namespace trainmem::architectures {

std::optional<Architecture> mamba(ConfigFields& f, const std::string& model_type) {
  const bool two = model_type == "mamba2";
  const std::int64_t hidden = f.size({"hidden_size", "d_model"}, two ? 4096 : 768);
  const std::int64_t layers = f.size({"num_hidden_layers", "n_layer"}, two ? 64 : 32);
  const std::int64_t vocab = f.size({"vocab_size"}, two ? 32768 : 50280);
  const std::int64_t expand = f.optional_size("expand", 2, 1, 1024);
  SsmShape m;
  m.intermediate_size = expand * hidden;
  m.state_size = f.size({"state_size"}, two ? 128 : 16);
  m.conv_kernel = f.optional_size("conv_kernel", 4, 1, 1024);
  const bool proj_bias = f.flag("use_bias", false);
  const bool conv_bias = f.flag("use_conv_bias", true);
  const bool tie = f.flag("tie_word_embeddings", !two);
  if (two) {
    m.num_heads = f.size({"num_heads"}, 128);
    m.head_dim = f.size({"head_dim"}, 64);
    m.n_groups = f.size({"n_groups"}, 8);
    m.chunk_size = f.size({"chunk_size"}, 256);
    if (f.ok() && m.num_heads * m.head_dim != m.intermediate_size)
      f.fail("num_heads", error_code::inconsistent,
             f.field("num_heads") + " x head_dim = " + std::to_string(m.num_heads * m.head_dim) +
                 " must equal expand x hidden_size = " + std::to_string(m.intermediate_size),
             {{"reason", "mamba_heads_width"}, {"value", static_cast<double>(m.num_heads * m.head_dim)},
              {"intermediate_size", static_cast<double>(m.intermediate_size)}});
    if (f.ok() && m.num_heads % m.n_groups != 0)
      f.fail("n_groups", error_code::not_divisible,
             f.field("n_groups") + " = " + std::to_string(m.n_groups) + " must divide num_heads = " + std::to_string(m.num_heads),
             {{"divisor", static_cast<double>(m.n_groups)}, {"of", "num_heads"}, {"value", static_cast<double>(m.num_heads)}});
  } else {
    m.time_step_rank = time_step_rank(f, "time_step_rank", hidden);
  }
  if (f.ok()) {
    const double h = static_cast<double>(hidden), d = static_cast<double>(m.intermediate_size);
    const double gn = static_cast<double>(m.n_groups) * static_cast<double>(m.state_size);
    f.within_parameter_limit("num_hidden_layers", static_cast<double>(vocab) * h * 2 +
                                                      static_cast<double>(layers) * (h * (3 * d + 2 * gn + static_cast<double>(m.num_heads)) +
                                                                                     d * (static_cast<double>(m.state_size + m.conv_kernel) + 2 * gn) +
                                                                                     d * static_cast<double>(m.time_step_rank) * 2));
  }
  if (!f.ok()) return std::nullopt;
  Architecture a;
  a.model_type = model_type;
  a.vocab_size = vocab;
  a.hidden_size = hidden;
  a.norm = NormKind::rms_norm;
  a.tie_word_embeddings = tie;
  a.embedding_params = vocab * hidden;
  a.final_norm_params = hidden;
  a.lm_head_params = tie ? 0 : vocab * hidden;
  a.default_lora_targets = {"in_proj", "out_proj"};
  LayerGroup g;
  g.name = "mamba_block";
  g.count = layers;
  g.norms.push_back({"norm", hidden, false});
  if (two) set_mamba2_mixer(g, hidden, m, proj_bias, conv_bias);
  else set_mamba_mixer(g, hidden, m, proj_bias, conv_bias, false);
  g.mlp.intermediate_size = 0;
  a.layers.push_back(g);
  return a;
}

}  // namespace trainmem::architectures
