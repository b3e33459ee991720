// How long a GPU takes for one matmul, one attention kernel or one memory-bound op, in seconds.
//
// Matmuls (GEMM, M x K times K x N, 2 M N K FLOPs):
//   time = max(FLOPs / (peak x e x w x r), bytes / memory bandwidth)
//   e  the largest throughput a matmul reaches on this GPU over its peak: Maximum Achievable
//      Matmul FLOPS (MAMF) measured by a brute-force shape search (stas00/ml-engineering,
//      compute/accelerator/README.md, "Maximum Achievable Matmul FLOPS comparison table"); per GPU
//      in the catalog; 0.80 (the table's median NVIDIA bf16 row) where a GPU has no row.
//   w  tile and wave use (NVIDIA, "Matrix Multiplication Background User's Guide", DU-09799-001,
//      §3.1 Tile Quantization, §3.2 Wave Quantization): the output is cut into 128 x 128 tiles
//      (§2.3: cuBLAS tiles run from 64 x 64 to 256 x 128), each SM runs one tile at a time, and a
//      GEMM takes ceil(tiles / SMs) waves of a full tile each, so
//        w = m n / (ceil(ceil(m/128) ceil(n/128) / SMs) x SMs x 128 x 128)
//      (a partial tile costs a whole one; a partial last wave costs a whole wave; a side shorter
//      than 128 is taken as run by a tile that narrow, so a GEMM of fewer tiles than SMs runs at
//      tiles / SMs of the rate, never faster than one wave of full tiles allows). MAMF is the
//      best shape's rate, which fills its tiles and waves. Grouped GEMMs (MoE experts) count the
//      tiles of every group. Every GEMM of a step goes through this: forward (tokens x out),
//      input gradient (tokens x in) and weight gradient (in x out, reduced over the tokens).
//   r  the reduction's length (k) on Hopper: a GEMM with a short k spends more of each tile's time
//      loading and storing it than multiplying. cuBLAS bf16 on sm_90 as XLA's GPU cost model
//      measured it (openxla/xla via tensorflow/tensorflow @372d578,
//      third_party/xla/xla/service/gpu/model/matmul_interpolator_data.h, kDefaultMatmulPTable,
//      "sm_90", batch 4 of 4096 x 4096 x k): 503.9, 619.9, 725.5, 764.6 and 793.1 TFLOP/s at k =
//      256, 512, 1k, 2k and 4k, so r = 0.635, 0.782, 0.915, 0.964 and 1 of the k = 4k rate (which
//      matches MAMF, 794.5), linear in k between them and flat beyond (fp8 takes the bf16
//      curve). Other generations have no such measurement here: r = 1.
//   bytes  A, B and C read/written once (§2 "Math And Memory Bounds": below the ops:byte ratio a
//      GEMM is memory bound), in the operands' dtype.
// Attention (FlashAttention-class fused kernels): FLOPs / (peak x a), a the fraction of the dense
//   peak the kernel family reaches: FlashAttention-2 "50-73% of the theoretical maximum FLOPs/s
//   on A100" (Dao 2023, arXiv 2307.08691, abstract; the low end is taken, forward and backward).
//   FlashAttention-2 on Hopper runs its backward slower than its forward: on H100 SXM5, head dim
//   128, sequence 8k, 333 TFLOP/s forward with the causal mask and 318 TFLOP/s backward, of 989
//   (Shah et al. 2024, FlashAttention-3, arXiv 2407.08608, Figure 5 "Attention forward speed"
//   (causal, head dim 128) and Figure 6 "Attention backward speed" (head dim 128); the abstract's
//   "only 35% utilization on the H100" is the forward's best). Shorter sequences run slower: the
//   same figures' FlashAttention-2 bars from 512 to 16k (forward 309-370 TFLOP/s without the mask,
//   191-335 with it, backward 214-322), read linearly in log2 of the kernel's sequence length and
//   flat beyond 512 and 16k. FlashAttention-3 (`attention: flash3`, Hopper only: Dao-AILab/
//   flash-attention README, "FlashAttention-3 beta release", "Requirements: H100 / H800 GPU") takes
//   the same figures' FlashAttention-3 bars: forward 467-648 TFLOP/s without the mask, 292-616
//   with it, backward 316-561, by sequence length alike. The Hopper/Blackwell-native kernels
//   (FlashAttention-3/4, cuDNN fused attention under Transformer Engine, which Megatron runs) as
//   measured inside a Llama-3.1-8B training step: 447 of 989 TFLOP/s on H200, 834 of 2250 on B200
//   (stas00/ml-engineering, insights/when-to-upgrade-gpus/README.md, "Step decomposition @ 8k").
//   Other devices take the lowest figure (FlashAttention-2 on Hopper).
// Memory-bound ops (norms, activations, residual adds, softmax, casts, the optimizer step) and a
//   GEMM's memory floor: bytes / (vendor memory bandwidth x 0.852), the fraction a streaming
//   read + write kernel reaches: STREAM "scale" (A[i] = B[i] * c) at full occupancy on an H100 PCIe,
//   1704 GB/s of its 2.0 TB/s (te42kyfo/gpu-benches cuda-stream/h100_pcie.txt @cdcc732, last row;
//   NVIDIA H100 PCIe datasheet: 2 TB/s). Every GPU takes this fraction of its own figure.
#pragma once

#include "trainmem/training_setup.hpp"

namespace trainmem {

struct AttentionCurves;  // compute_time.cpp

// A device's rates as the time model uses them; FLOP/s and bytes/s.
struct DeviceRates {
  double peak_flops_per_s = 0;            // dense bf16
  double matmul_flops_per_s = 0;          // bf16 MAMF
  double fp8_matmul_flops_per_s = 0;      // fp8 MAMF; 0 without fp8 tensor cores
  double attention_flops_per_s = 0;       // fused attention kernel, forward (causal, 8k keys)
  double attention_backward_flops_per_s = 0;  // its backward (8k keys)
  // FlashAttention-2/-3 on Hopper: the measured rate by sequence length (the rates above are its 8k
  // points); null where one rate holds at every length.
  const AttentionCurves* attention_curves = nullptr;
  double memory_bytes_per_s = 0;          // achievable: the vendor figure x 0.852
  double streaming_multiprocessors = 0;   // 0: no wave model
  bool short_reduction_penalty = false;   // Hopper: the measured rate falls with a short k
};

// The rates of `gpu` for a job run by `framework` with the `attention` kernel the document names
// (the framework decides the kernel family; `flash3` runs FlashAttention-3 on Hopper only). Needs a
// bf16 peak and a memory bandwidth (both > 0).
DeviceRates device_rates(const GpuPerformance& gpu, Framework framework, AttentionImplementation attention);

// Time of `groups` GEMMs of [m x k] x [k x n] in one kernel, operands of `element_bytes`.
double gemm_seconds(double m, double n, double k, double groups, double element_bytes, bool fp8, const DeviceRates& rates);

// Time of `flops` of fused attention over sequences of `keys` tokens (the kernel's sequence length),
// forward (with the causal mask or not) or backward.
double attention_seconds(double flops, double keys, bool causal, const DeviceRates& rates);
double attention_backward_seconds(double flops, double keys, const DeviceRates& rates);

// Time of a memory-bound op moving `bytes`.
double memory_seconds(double bytes, const DeviceRates& rates);

}  // namespace trainmem
