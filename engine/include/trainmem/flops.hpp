// FLOPs of training, counted from the architecture (one multiply-add = 2 FLOPs).
//
// Per layer and token, forward pass:
//   matmul     2 x the weights the token runs through: every linear once, routed experts
//              num_experts_per_tok times, the router once (Kaplan et al. 2020, arXiv 2001.08361,
//              Table 1: 2N per token forward; Narayanan et al. 2021, arXiv 2104.04473, Appendix:
//              24 b s h^2 per GPT layer = 2 x 12 h^2 weights). Biases and norms are not counted.
//   attention  QK^T and PV: 2 s_kv (d_qk + d_v) per query head, s_kv the keys a query sees (the
//              sequence, or the sliding window); 4 s h for multi-head attention (Narayanan et al.
//              2021, Appendix; PaLM's 12 L H Q T over forward and backward, Chowdhery et al. 2022,
//              arXiv 2204.02311, Appendix B). A causal kernel (FlashAttention, SDPA) skips the
//              masked half; eager attention computes the whole score matrix and masks it.
//   LoRA       2 r (in + out) per targeted linear (x A, then (x A) B; Hu et al. 2021, §4.1).
// Head: 2 h V per token when the model produces vocabulary logits.
// Backward: the input gradient of every linear the backward pass crosses (as many FLOPs as its
// forward) and the weight gradient of every trained weight (as many again): 2x forward for full
// training (Kaplan et al. 2020, §2.1). Attention backward is 2.5x its forward with FlashAttention
// (QK^T recomputed: Dao-AILab/flash-attention benchmarks/benchmark_flash_attention.py, flops()),
// 2x for eager attention. The backward pass stops below the lowest trained layer (freeze).
// Recompute (activation checkpointing): full re-runs each checkpointed layer's forward
// (Korthikanti et al. 2022, arXiv 2205.05198, §5: 4 passes instead of 3); selective
// "attention_core" re-runs the attention core (Megatron --recompute-granularity selective);
// "op_level" re-runs every second matmul of a layer in execution order (torchtitan's op-level SAC
// policy: "Save every odd mm, recompute every even mm") and the cheap elementwise ops.
#pragma once

#include "trainmem/training_setup.hpp"

namespace trainmem {

// One layer of a group, one token, forward pass, whole model (no parallel split). FLOPs.
struct LayerForwardFlops {
  double matmul = 0;            // base linears
  double trained_matmul = 0;    // the part whose weights receive gradients
  double adapter_matmul = 0;    // LoRA/DoRA adapters (their weights always train)
  double op_level_recompute = 0;  // every second linear in execution order (op-level SAC)
  double attention = 0;           // QK^T + PV, non-causal count
  double attention_executed = 0;  // what the attention kernel runs (causal half skipped)
};

// What the per-layer count needs besides the layer's shapes.
struct FlopsContext {
  double seq = 1;          // tokens per sequence this layer's queries attend over (self-attention)
  double encoder_seq = 1;  // keys of cross-attention (encoder-decoder decoder layers)
  bool causal = true;      // decoder self-attention is causal; encoder attention is not
  bool kernel_skips_masked = true;  // flash/SDPA skip masked blocks; eager does not
  bool base_trained = true;         // this layer's base weights train (full, or a trainable freeze layer)
  const TrainingSetup* setup = nullptr;  // LoRA targets and rank (method lora/qlora)
};

LayerForwardFlops layer_forward_flops(const LayerGroup& layer, const FlopsContext& context);

// The attention part alone: {non-causal count, what the kernel runs}, FLOPs per token.
struct AttentionFlops {
  double counted = 0, executed = 0;
};
AttentionFlops attention_forward_flops(const AttentionShape& attention, const FlopsContext& context);

// The FLOPs of one optimizer step (all micro-batches, all GPUs).
struct TrainingFlops {
  double tokens_per_step = 0;  // global batch x sequence length
  // PaLM's model FLOPs (Chowdhery et al. 2022, Appendix B): forward + backward, attention counted
  // non-causal, no recompute; the backward pass computes weight gradients only for trained weights.
  double model_per_step = 0;
  double model_forward = 0;  // the forward passes' part of model_per_step
  // Everything executed: causal attention as the kernel runs it, recompute, adapters.
  double forward = 0, backward = 0, recompute = 0;
  double executed_per_step() const { return forward + backward + recompute; }
};

// nullopt-free: a setup without an architecture counts 6 N per token (Kaplan et al. 2020) with
// no attention term.
TrainingFlops training_flops(const TrainingSetup& setup);

}  // namespace trainmem
