#include "trainmem/compute_time.hpp"

#include <algorithm>
#include <cmath>

namespace trainmem {

namespace {

// Median NVIDIA bf16 row of the MAMF table (A100 SXM 86.9, GH200 83.8, A100 PCIe 81.1, H100 SXM
// 80.3, B300 78.6, B200 77.6, GB200 72.9 %) for a GPU without its own measurement.
constexpr double kDefaultMatmulEfficiency = 0.803;
// Output tile of the wave model (NVIDIA Matrix Multiplication Background User's Guide, §2.3:
// cuBLAS tiles from 64 x 64 to 256 x 128; the middle is taken).
constexpr double kTileRows = 128, kTileColumns = 128;
// Streaming read + write at full occupancy over the vendor bandwidth: STREAM "scale" on an H100
// PCIe, 1704 of 2000 GB/s (te42kyfo/gpu-benches cuda-stream/h100_pcie.txt @cdcc732).
constexpr double kAchievableMemoryBandwidth = 1704.0 / 2000.0;
// Fraction of the dense peak fused attention reaches (see the header for the sources).
constexpr double kFlashAttention2Ampere = 0.50;  // Dao 2023: 50-73% on A100
}  // namespace

// A fused attention kernel's TFLOP/s by the kernel's sequence length 512, 1k, 2k, 4k, 8k and 16k:
// forward without and with the causal mask, backward.
struct AttentionCurves {
  double forward[6], causal_forward[6], backward[6];
};

namespace {

// FlashAttention-2 and FlashAttention-3 on H100 SXM5 (989 TFLOP/s dense bf16), bf16, head dim 128
// (Shah et al. 2024, FlashAttention-3, arXiv 2407.08608: Figure 5, forward without and with the
// causal mask; Figure 6, backward). At 512 without the mask the figure's FlashAttention-3 and cuDNN
// bars read 467 and 497 in one order or the other; the slower, 467, is taken for FlashAttention-3.
constexpr double kH100SxmPeakTflops = 989;
constexpr AttentionCurves kFa2Hopper{{309, 350, 362, 368, 370, 370}, {191, 260, 298, 319, 333, 335}, {214, 260, 291, 310, 318, 322}};
constexpr AttentionCurves kFa3Hopper{{467, 565, 625, 638, 646, 648}, {292, 423, 521, 579, 602, 616}, {316, 424, 501, 542, 559, 561}};
constexpr std::size_t kCurveReference = 4;  // 8k: the rates device_rates reports

// cuBLAS bf16 on sm_90 by reduction length k = 256, 512, 1k, 2k, 4k, TFLOP/s (XLA's
// matmul_interpolator_data.h "sm_90", batch 4 of 4096 x 4096 x k; see the header).
constexpr double kHopperByReduction[] = {503.874974234136, 619.859436746254, 725.508891943538, 764.575547036718,
                                         793.131337247852};

// The share of the k = 4096 rate a GEMM reducing over `k` reaches: linear in k between the
// measured points, flat beyond them (no transcendental call: this runs for every GEMM).
double short_reduction_share(double k) {
  if (k >= 4096) return 1;
  if (k <= 256) return kHopperByReduction[0] / kHopperByReduction[4];
  std::size_t i = 0;
  double low = 256;
  while (k > 2 * low) {
    low *= 2;
    ++i;
  }
  const double rate = kHopperByReduction[i] + (kHopperByReduction[i + 1] - kHopperByReduction[i]) * (k - low) / low;
  return rate / kHopperByReduction[4];
}

// A curve's value at `keys`: linear in log2(keys) between its points (512 x 2^i), flat beyond them.
double curve_at(const double (&curve)[6], double keys) {
  const double x = std::clamp(std::log2(std::max(keys, 1.0) / 512.0), 0.0, 5.0);
  const auto i = static_cast<std::size_t>(std::min(4.0, std::floor(x)));
  return curve[i] + (curve[i + 1] - curve[i]) * (x - static_cast<double>(i));
}
// FlashAttention-3 measured inside a Llama-3.1-8B training step on H200 (8k, causal FLOPs):
// 447 of 989 TFLOP/s; FlashAttention-4 on B200: 834 of 2250 (stas00/ml-engineering @744d01e,
// insights/when-to-upgrade-gpus/README.md, "Step decomposition @ 8k").
constexpr double kFusedAttentionHopper = 447.0 / 989.0;
constexpr double kFusedAttentionBlackwell = 834.0 / 2250.0;

struct AttentionEfficiency {
  double forward, backward;
  const AttentionCurves* curves = nullptr;  // the kernel's rate by sequence length, where measured
};

AttentionEfficiency from_curves(const AttentionCurves& c) {
  return {c.causal_forward[kCurveReference] / kH100SxmPeakTflops, c.backward[kCurveReference] / kH100SxmPeakTflops, &c};
}

AttentionEfficiency attention_efficiency(GpuGeneration g, Framework f, AttentionImplementation attention) {
  // Megatron runs Transformer Engine's cuDNN fused attention; the PyTorch-based stacks run
  // FlashAttention-2 (flash-attn or SDPA's flash backend), or FlashAttention-3 where the document
  // says so (a Hopper-only kernel: elsewhere the run falls back, and hardware_warnings says so).
  // The in-step figures of the native kernels cover forward and backward together.
  const bool fused_cudnn = f == Framework::megatron;
  if (g == GpuGeneration::hopper && attention == AttentionImplementation::flash3) return from_curves(kFa3Hopper);
  switch (g) {
    case GpuGeneration::ampere:
    case GpuGeneration::ada: return {kFlashAttention2Ampere, kFlashAttention2Ampere};
    case GpuGeneration::hopper:
      return fused_cudnn ? AttentionEfficiency{kFusedAttentionHopper, kFusedAttentionHopper} : from_curves(kFa2Hopper);
    case GpuGeneration::blackwell:
      return fused_cudnn ? AttentionEfficiency{kFusedAttentionBlackwell, kFusedAttentionBlackwell} : from_curves(kFa2Hopper);
    default: return from_curves(kFa2Hopper);
  }
}

}  // namespace

DeviceRates device_rates(const GpuPerformance& gpu, Framework framework, AttentionImplementation attention) {
  DeviceRates r;
  r.peak_flops_per_s = gpu.bf16_dense_flops_per_s;
  const double e = gpu.matmul_efficiency_bf16 > 0 ? gpu.matmul_efficiency_bf16 : kDefaultMatmulEfficiency;
  r.matmul_flops_per_s = gpu.bf16_dense_flops_per_s * e;
  if (gpu.fp8_dense_flops_per_s > 0) {
    // Without an fp8 row, fp8 reaches the bf16 fraction of its own peak.
    const double e8 = gpu.matmul_efficiency_fp8 > 0 ? gpu.matmul_efficiency_fp8 : e;
    r.fp8_matmul_flops_per_s = gpu.fp8_dense_flops_per_s * e8;
  }
  const AttentionEfficiency a = attention_efficiency(gpu.generation, framework, attention);
  r.attention_flops_per_s = gpu.bf16_dense_flops_per_s * a.forward;
  r.attention_backward_flops_per_s = gpu.bf16_dense_flops_per_s * a.backward;
  r.attention_curves = a.curves;
  r.memory_bytes_per_s = gpu.memory_bandwidth_bytes_per_s * kAchievableMemoryBandwidth;
  r.streaming_multiprocessors = static_cast<double>(gpu.streaming_multiprocessors);
  r.short_reduction_penalty = gpu.generation == GpuGeneration::hopper;
  return r;
}

double gemm_seconds(double m, double n, double k, double groups, double element_bytes, bool fp8, const DeviceRates& r) {
  if (m <= 0 || n <= 0 || k <= 0 || groups <= 0) return 0;
  const double flops = 2 * m * n * k * groups;
  const double rate = fp8 && r.fp8_matmul_flops_per_s > 0 ? r.fp8_matmul_flops_per_s : r.matmul_flops_per_s;
  double use = 1;  // useful share of the tile slots the kernel occupies
  if (r.streaming_multiprocessors > 0) {
    // Tile quantization (§3.1): every output tile costs a full tile's work, so the padded
    // ceil(m/128) x ceil(n/128) tiles hold m x n useful outputs; a side shorter than one tile is
    // taken as run by a tile that narrow. Wave quantization (§3.2): the tiles run in
    // ceil(tiles / SMs) waves of one tile per SM, the last one partly idle.
    const double rows = std::min(m, kTileRows), columns = std::min(n, kTileColumns);
    const double tiles = std::ceil(m / rows) * std::ceil(n / columns) * groups;
    const double slots = std::ceil(tiles / r.streaming_multiprocessors) * r.streaming_multiprocessors;
    use = m * n * groups / (slots * rows * columns);
  }
  if (r.short_reduction_penalty) use *= short_reduction_share(k);
  const double bytes = element_bytes * (m * k + k * n + m * n) * groups;
  return std::max(flops / (rate * use), bytes / r.memory_bytes_per_s);
}

double attention_seconds(double flops, double keys, bool causal, const DeviceRates& r) {
  double rate = r.attention_flops_per_s;
  if (const AttentionCurves* c = r.attention_curves) {
    const auto& curve = causal ? c->causal_forward : c->forward;
    rate *= curve_at(curve, keys) / c->causal_forward[kCurveReference];
  }
  return flops / rate;
}

double attention_backward_seconds(double flops, double keys, const DeviceRates& r) {
  double rate = r.attention_backward_flops_per_s;
  if (const AttentionCurves* c = r.attention_curves) rate *= curve_at(c->backward, keys) / c->backward[kCurveReference];
  return flops / rate;
}

double memory_seconds(double bytes, const DeviceRates& r) { return bytes / r.memory_bytes_per_s; }

}  // namespace trainmem
