// The layout kind of selective state-space layers: the Mamba and Mamba-2 mixers as transformers
// builds them (models/mamba/modeling_mamba.py MambaMixer, models/mamba2/modeling_mamba2.py
// Mamba2Mixer, models/jamba/modeling_jamba.py JambaMambaMixer), for the SSM and hybrid families.
#pragma once

#include "config_fields.hpp"
#include "trainmem/architecture.hpp"

namespace trainmem::architectures {

// MambaMixer: in_proj (hidden -> 2 d_inner, bias = use_bias), a depthwise conv1d (d_inner x
// conv_kernel, bias = use_conv_bias), x_proj (d_inner -> dt_rank + 2 N, no bias), dt_proj
// (dt_rank -> d_inner, bias), A_log (d_inner x N), D (d_inner), out_proj (d_inner -> hidden).
// dt_bc_norms adds Jamba's dt_layernorm, b_layernorm and c_layernorm (RMSNorm weights).
// Replaces the layer's mixer: its linears are put first, its other parameters added.
void set_mamba_mixer(LayerGroup& g, std::int64_t hidden, const SsmShape& m, bool proj_bias, bool conv_bias, bool dt_bc_norms);

// Mamba2Mixer: in_proj (hidden -> 2 d_inner + 2 G N + H), a depthwise conv1d over
// d_inner + 2 G N channels, dt_bias, A_log and D (H each), a gated RMSNorm (d_inner), out_proj.
void set_mamba2_mixer(LayerGroup& g, std::int64_t hidden, const SsmShape& m, bool proj_bias, bool conv_bias);

// time_step_rank: an integer, or "auto" = ceil(hidden_size / 16) (MambaConfig).
std::int64_t time_step_rank(ConfigFields& f, const char* key, std::int64_t hidden);

}  // namespace trainmem::architectures
