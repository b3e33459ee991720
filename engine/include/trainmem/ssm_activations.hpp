// What a selective state-space mixer keeps for backward, from the kernels that train it
// (state-spaces/mamba v2.2.2, the reference implementation transformers calls when mamba-ssm and
// causal-conv1d are installed):
//  - Mamba, fused (transformers' MambaMixer.cuda_kernels_forward -> mamba_inner_fn;
//    mamba_ssm/ops/selective_scan_interface.py MambaInnerFn, checkpoint_lvl 1, which recomputes the
//    conv output and delta in backward): xz [T, 2 d_inner], x_dbl [T, dt_rank + 2 N], B and C made
//    contiguous [T, N] each, the scan output `out` [T, d_inner], and scan_intermediates, the fp32
//    chunk states [b, d_inner, ceil(L / 2048), 2 N] (csrc/selective_scan/selective_scan.cpp:
//    n_chunks = (seqlen + 2048 - 1) / 2048).
//  - Mamba, separate kernels (Jamba's JambaMambaMixer.cuda_kernels_forward: causal_conv1d_fn,
//    x_proj, RMSNorms on dt, B and C, dt_proj, selective_scan_fn, out_proj as their own autograd
//    nodes): in_proj's output [T, 2 d_inner] (the conv input and the gate z are its halves), the
//    conv output [T, d_inner], x_proj's output [T, dt_rank + 2 N], the three norms' inputs,
//    dt_proj's output delta [T, d_inner], B and C contiguous, the chunk states, the scan output and
//    the gated output out_proj keeps [T, d_inner] each.
//  - Mamba-2 (Mamba2Mixer.cuda_kernels_forward -> mamba_split_conv1d_scan_combined;
//    mamba_ssm/ops/triton/ssd_combined.py MambaSplitConv1dScanCombinedFn): zxbcdt
//    [T, 2 d_inner + 2 G N + H], out_x [T, d_inner] and the gated RMSNorm's fp32 rstd [T, G];
//    the conv output, dt, the chunk states and the chunked scan are recomputed in backward.
// The input of in_proj is the block norm's output, already counted by layer_activations. Tensors
// inside the mixer are split by tensor parallelism (Megatron's MambaMixer splits d_inner and the
// heads). T = tokens of the micro-batch on this GPU. Bytes.
#pragma once

#include <vector>

#include "trainmem/activations.hpp"

namespace trainmem {

// Appends the saved tensors of one SSM mixer of `g` (mixer mamba or mamba2) for `tokens` tokens.
void append_ssm_mixer(std::vector<SavedTensor>& out, const LayerGroup& g, const ActivationContext& c, double tokens);

}  // namespace trainmem
