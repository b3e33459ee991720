#include "trainmem/ssm_activations.hpp"

#include <cmath>

namespace trainmem {

namespace {

// Chunk length of selective_scan_cuda's forward (selective_scan.cpp: n_chunks over 2048).
constexpr double kScanChunk = 2048;

struct Appender {
  std::vector<SavedTensor>& out;
  const ActivationContext& c;
  void add(const char* name, double rows, double cols, Dtype dtype, TensorRole role) {
    out.push_back({"mixer", name, rows, cols, dtype, rows * cols * dtype_bytes(dtype) / c.tp, role, false});
  }
};

}  // namespace

void append_ssm_mixer(std::vector<SavedTensor>& out, const LayerGroup& g, const ActivationContext& c, double tokens) {
  const SsmShape& m = g.ssm;
  const double d = static_cast<double>(m.intermediate_size), n = static_cast<double>(m.state_size);
  Appender a{out, c};
  if (g.mixer == Mixer::mamba2) {
    const double groups = static_cast<double>(m.n_groups), heads = static_cast<double>(m.num_heads);
    a.add("zxbcdt", tokens, 2 * d + 2 * groups * n + heads, c.dtype, TensorRole::matmul_output);
    a.add("out_x", tokens, d, c.dtype, TensorRole::attention_output);
    a.add("rstd", tokens, groups, Dtype::fp32, TensorRole::norm_internal);
    return;
  }
  const double rank = static_cast<double>(m.time_step_rank);
  // Chunk states: [b, d_inner, ceil(L / 2048), 2 N] fp32 per sequence of L = c.seq tokens.
  const double sequences = tokens / c.seq;
  const double chunks = std::ceil(c.seq / kScanChunk);
  if (m.fused_inner) {
    a.add("xz", tokens, 2 * d, c.dtype, TensorRole::matmul_output);
    a.add("x_dbl", tokens, rank + 2 * n, c.dtype, TensorRole::matmul_output);
    a.add("B_C", tokens, 2 * n, c.dtype, TensorRole::elementwise);
    a.add("scan_intermediates", sequences * chunks, d * 2 * n, Dtype::fp32, TensorRole::attention_core);
    a.add("out", tokens, d, c.dtype, TensorRole::attention_output);
    return;
  }
  a.add("in_proj_output", tokens, 2 * d, c.dtype, TensorRole::matmul_output);
  a.add("conv_output", tokens, d, c.dtype, TensorRole::elementwise);
  a.add("x_proj_output", tokens, rank + 2 * n, c.dtype, TensorRole::matmul_output);
  // dt/B/C RMSNorms in Python: the fp32 input copy and the normalized tensor, plus rstd.
  a.add("dt_B_C_norm_input_fp32", tokens, rank + 2 * n, Dtype::fp32, TensorRole::norm_internal);
  a.add("dt_B_C_normalized", tokens, rank + 2 * n, c.dtype, TensorRole::norm_internal);
  a.add("dt_B_C_norm_statistics", tokens, 3, Dtype::fp32, TensorRole::norm_internal);
  a.add("delta", tokens, d, c.dtype, TensorRole::matmul_output);
  a.add("B_C", tokens, 2 * n, c.dtype, TensorRole::elementwise);
  a.add("scan_intermediates", sequences * chunks, d * 2 * n, Dtype::fp32, TensorRole::attention_core);
  a.add("scan_output", tokens, d, c.dtype, TensorRole::attention_output);
  a.add("gated_output", tokens, d, c.dtype, TensorRole::attention_output);
}

}  // namespace trainmem
