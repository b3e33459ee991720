// Step time: how long one optimizer step takes (all gradient-accumulation micro-batches), built
// from the kernels each GPU runs and the communication it cannot hide.
//
// Per micro-batch, each pipeline stage runs its layers' forward, backward and recompute kernels
// (compute_time.hpp: matmuls at the GPU's achievable matmul rate, fused attention at its kernel
// family's rate, memory-bound ops at the memory bandwidth) and the blocking communication inside
// them (communication.hpp: tensor-parallel collectives, expert all-to-alls, pipeline sends, and
// the part of ring-attention traffic the attention kernel does not cover).
//
// Memory-bound ops per layer and token (forward; the backward reads the saved input and the
// incoming gradient and writes the input gradient, taken as twice the forward's bytes):
//   RMSNorm written in Python (HF LlamaRMSNorm: fp32 upcast, pow, mean, rsqrt-multiply, downcast,
//   weight multiply) 36 bytes per element in bf16; a fused norm (Megatron/TE, torch.compile,
//   torch LayerNorm) reads and writes once. Rotary embeddings in Python (HF apply_rotary_pos_emb:
//   two multiplies, rotate_half's negate and concatenation, an add) 11 element passes, fused 2;
//   none for learned position tables and ALiBi (its bias is added inside the score computation).
//   SwiGLU in separate ops (silu, multiply) 5 passes over the intermediate, fused 3; GeLU 2.
//   Residual adds 3 passes each. MoE token permutation and unpermutation 2 passes each of the
//   routed copies; with more than one expert per rank the all-to-all dispatcher also sorts the
//   received copies (gathered over the expert-tensor-parallel group: etp times the rank's own)
//   by local expert and restores their order (2 passes each more;
//   NVIDIA/Megatron-LM megatron/core/transformer/moe/token_dispatcher.py @d98e8a6,
//   MoEAlltoAllTokenDispatcher, sort_chunks_by_idxs). fp8 matmuls add the casts of their
//   inputs, weights and output gradients (read 16-bit, write 8-bit, read again for the amax of
//   tensorwise scaling). Transformer Engine under Megatron casts each weight once per optimizer
//   step, writing its transposed fp8 copy beside it, and reuses both for the later micro-batches
//   and the backward (Megatron-LM megatron/core/extensions/transformer_engine.py @d98e8a6:
//   forward(..., is_first_microbatch), set by schedules.py on the step's first micro-batch):
//   (2 b + 2) bytes per weight element per step instead of 2 (2 b + 1) per micro-batch.
// LoRA and QLoRA adapters (PEFT v0.17.0 src/peft/tuners/lora/layer.py, Linear.forward; bnb.py
// Linear4bit.forward the same): besides the two low-rank matmuls, each adapted linear
// casts its input to the adapter's dtype (_cast_input_dtype), which autocast casts back for the
// matmul, 2 (a + b) bytes per input element where the adapter dtype (b bytes) differs from the
// compute dtype (a); runs nn.Dropout when lora_dropout > 0 (read, write, one-byte mask: 2 b + 1);
// and multiplies the adapter's output by the scaling and adds it to the base output (2 a + 3 a
// per output element). Backward: the casts and the dropout again, the scaled output gradient
// (2 a per output element), and the adapter's input gradient added to the base's (3 a per input
// element). Measured on one H200 (Llama-3.1-8B, all-linear r 16, fp32 adapters, bf16 compute,
// 8,192 tokens, full checkpointing): the step's copy and cast kernels took 287 ms and its other
// elementwise kernels 157 ms of 1,127 (scripts/measure/h200-profile-results-2026-12-04.jsonl).
// Loss: the logits' cross-entropy, 32 bytes per logit unfused (fp32 upcast, log-softmax, loss,
// and their backward), 8 fused (one read and one write each way). The optimizer step, as one
// fused kernel (torch's fused=True, Apex/Transformer Engine and DeepSpeed FusedAdam, bitsandbytes),
// reads the gradient and the optimizer states and writes the states and the weights: 2 b_o + b_p
// + 3 b_g bytes per trained parameter (gradient zeroing and clipping add a write and a read).
// torch's Adam and AdamW on their foreach or for-loop paths (precision.optimizer_implementation)
// run one kernel per op instead (pytorch/pytorch torch/optim/adam.py @dc80ccd, _multi_tensor_adam
// and _single_tensor_adam; torch/optim/adamw.py the same with decoupled decay): lerp_ of the first
// moment toward the gradient, mul_ and addcmul_ of the second, sqrt of the second into a
// temporary, div_ and add_ on it, addcdiv_ into the weights: 14 b_s + 2 b_g + 2 b_p bytes, b_s
// one moment's bytes, against the fused kernel's 4 b_s + b_g + 2 b_p: 10 b_s + b_g more.
// (Measured on one H200, torch 2.11, HF Trainer adamw_torch: the step's multi_tensor_apply
// kernels took 28 ms for Llama-3.2-1B in fp32, 107 ms for Llama-3.1-8B in bf16, where these bytes
// at the memory bandwidth give 23 and 75 ms; scripts/measure/h200-profile-results-2026-12-04.jsonl.)
//
// FSDP2 (PyTorch fully_shard; torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py
// @8fc2039, foreach_all_gather_copy_out and foreach_reduce) copies on the compute stream: after
// every parameter all-gather, split_with_sizes_copy reads the gathered buffer and writes the
// unsharded parameters, 2 P b_p bytes (P the GPU's parameters before sharding, b_p the gathered
// dtype); before every gradient reduce-scatter, chunk_cat reads the unsharded gradients and writes
// the reduce-scatter input in the reduce dtype, P_trained (b_p + b_g) bytes. Counted in compute.
// (FSDP1 gathers into its flat parameter, whose views the modules use: no copy-out.)
//
// Pipeline (Narayanan et al. 2021, §2.2): m micro-batches on p stages take
// m x t_slowest + (sum of the stage times - t_slowest) / v, v the virtual stages of the
// interleaved schedule (1 for 1F1B and GPipe): the bubble (p - 1) / v x t for equal stages.
//
// Data-parallel traffic runs under the compute when the framework overlaps it (PyTorch DDP
// bucketing and FSDP prefetch; DeepSpeed overlap_comm, on by default for ZeRO-3 only, DeepSpeed
// runtime/zero/config.py; Megatron --overlap-grad-reduce/--overlap-param-gather, off by default in
// megatron/training/arguments.py), exposing only what exceeds the compute it hides under plus one
// layer's share (the first gather, the last reduction); otherwise it is all exposed. Both sharding
// engines gather at least one unit ahead, so a layer's gather runs under the layer before it:
// DeepSpeed ZeRO-3, after a submodule's own gather, prefetches the next submodules of the recorded
// trace until stage3_prefetch_bucket_size elements (5e7; at least one submodule) while fewer than
// stage3_max_live_parameters (1e9) are gathered (deepspeed/runtime/zero/partitioned_param_coordinator.py
// @v0.13.5, fetch_sub_module), and reduce-scatters full buckets of reduce_bucket_size elements
// (5e8) on its own stream, the last after the backward (stage3.py @v0.13.5); FSDP1 with
// limit_all_gathers keeps two all-gathers in flight (torch/distributed/fsdp/_limiter_utils.py
// @e6401a2, _max_num_inflight_all_gathers) and prefetches the next unit in backward, where its
// gathers and reductions queue on one NCCL stream (torch/distributed/fsdp/api.py @acd8c9e,
// BackwardPrefetch): the backward's gathers and reduction add up against its compute.
// Parameter and activation offload overlap the compute; optimizer offload's transfers do not.
// An offloaded optimizer steps on the host, after the backward, over every shard the node's GPUs
// hold: min(world_size, gpus_per_node) x the GPU's trained shard / the host's rate, in parameters
// per second of one node's CPUs as Ren et al. measured them on a DGX-2 host ("ZeRO-Offload:
// Democratizing Billion-Scale Model Training", arXiv 2101.06840, Table 3, 10-billion-parameter
// row): DeepSpeed's CPU-Adam 10e9 / 2.57 s, a vectorized multi-threaded kernel, which DeepSpeed's
// engine runs for an offloaded optimizer (zero_force_ds_cpu_optimizer, deepspeed/runtime/engine.py)
// and which a fused torch optimizer is taken to match (torch.optim.AdamW(fused=True) on CPU tensors
// since PyTorch 2.4: torchtune's configs, whose CPU offload steps through torchao's
// CPUOffloadOptimizer or FSDP2's CPUOffloadPolicy); PyTorch's per-tensor Adam on CPU tensors
// 10e9 / 14.76 s for the foreach and for-loop implementations (on CPU tensors both run tensor by
// tensor: torch/optim/optimizer.py _default_to_fused_or_foreach picks foreach for CUDA tensors
// only), as under FSDP1's CPUOffload behind the HF Trainer or accelerate, and for Megatron's
// --optimizer-cpu-offload (torch.optim.AdamW as CPUAdam, megatron/core/optimizer/__init__.py
// @d98e8a6). NVMe offload's swapping of the states is not counted.
// Tensor-parallel collectives block the compute unless parallel.tp_comm_overlap pipelines them
// with the linears' GEMMs (Megatron --tp-comm-overlap: Transformer Engine's userbuffers run each
// sequence-parallel all-gather and reduce-scatter in chunks beside the GEMM that reads or writes
// them, megatron/core/extensions/transformer_engine.py @d98e8a6, ub_overlap_ag/ub_overlap_rs): then only
// what exceeds the layer's GEMM time (forward, backward and a full recompute's forward) is exposed.
// Compute that hides a collective runs slower beside it (its kernels share the SMs and the memory
// bandwidth): 18.9 % on average over the GEMMs and collectives Lee et al. measured against the same
// compute alone ("Characterizing Compute-Communication Overlap in GPU-Accelerated Distributed Deep
// Learning", arXiv 2507.03114, 2025, abstract), so 0.189 s are added per second of data-parallel
// or ring-attention traffic hidden under compute (`overlap_slowdown`); none for host-link copies,
// which the copy engines run.
//
// MFU counts model FLOPs as PaLM does (flops.hpp) against the GPU's dense bf16 peak; HFU counts the
// FLOPs executed, recompute included (Korthikanti et al. 2022, §6.3), against the same peak.
#pragma once

#include <optional>
#include <string>

#include "trainmem/estimate.hpp"

namespace trainmem {

// Per GPU, per optimizer step.
struct CommunicationByKind {
  double data_parallel = 0, tensor_parallel = 0, pipeline = 0, context = 0, expert = 0;
};

// Seconds of one optimizer step on the slowest pipeline stage; they add up to the step time.
struct TimeBreakdown {
  double compute = 0;                // forward and backward kernels
  double recompute = 0;              // activation checkpointing's repeated forward work
  double exposed_communication = 0;  // communication not hidden under compute
  double overlap_slowdown = 0;       // the compute's slowdown beside the communication it hides
  double pipeline_bubble = 0;        // stages idle while the pipeline fills and drains
  double optimizer = 0;              // the optimizer step, on the GPU or, offloaded, on the host
  double offload = 0;                // host-link transfers not hidden under compute
};

struct RunCost {
  double usd = 0;
  double price_per_gpu_hour_usd = 0;
  std::string source;  // the offer: provider, kind, where and when it was read
};

struct StepTime {
  double step_seconds = 0;
  double tokens_per_second_per_gpu = 0;
  double mfu = 0, hfu = 0;               // fractions of the dense bf16 peak
  double flops_per_step = 0;             // executed, all GPUs
  double model_flops_per_step = 0;       // PaLM's count, all GPUs
  CommunicationByKind bytes_per_step;    // bus bytes per GPU
  CommunicationByKind seconds_per_step;  // link time per GPU, hidden or not
  double exposed_communication_seconds = 0;
  TimeBreakdown breakdown;
  // With training.total_tokens:
  std::optional<double> time_to_train_seconds, gpu_hours;
  std::optional<RunCost> cost;  // empty without a price
};

// The step time of a validated setup and its estimate; empty with the reason in `why_not` when the
// setup cannot be timed (no GPU speeds, no architecture, a PPO or GRPO job), and in `reason` as a
// key a page words: "no_architecture", "no_gpu", "rlhf", "no_gpu_speeds" or "not_finite".
// A DPO job's step is the policy's training step on the chosen and rejected sequences plus the
// reference model's forward on them (its compute, the forward's half of the layers' blocking
// collectives and its exposed parameter gathers); its tokens and MFU count the policy's
// sequences, its model FLOPs the reference's forward too (2 N per token).
std::optional<StepTime> step_time(const TrainingSetup& setup, const Estimate& estimate, std::string* why_not = nullptr,
                                  std::string* reason = nullptr);

}  // namespace trainmem
