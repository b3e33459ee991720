// What each training framework does by default where frameworks differ, as one table.
// Every field of the estimate document that is given explicitly overrides these.
#pragma once

#include "trainmem/training_setup.hpp"

namespace trainmem {

struct FrameworkBehaviour {
  // RMSNorm written in Python (HF transformers, torchtune): autograd keeps an fp32 copy of the
  // input and the normalized tensor (modeling_llama.py LlamaRMSNorm). Fused kernels (Megatron/TE,
  // torch.compile) keep the input and the per-token statistic only.
  bool unfused_rms_norm = true;
  // Megatron's fused scale-mask-softmax keeps one copy of the probabilities in the activation
  // dtype (Korthikanti et al. 2022, §4.1); HF eager attention follows the model family.
  bool fused_softmax = false;
  // SwiGLU/GeGLU in separate ops keeps the activation output as well (HF LlamaMLP); a fused
  // kernel recomputes it (Megatron bias_swiglu, torch.compile).
  bool unfused_gated_activation = true;
  // Loss defaults: HF computes cross-entropy on an fp32 copy of the full logits
  // (transformers loss_utils.py ForCausalLMLoss); torchtune chunks it (CEWithChunkedOutputLoss,
  // 8 chunks); Megatron's vocab-parallel cross-entropy works in fp32 in place.
  LossImplementation loss = LossImplementation::full;
  bool logits_fp32 = true;
  bool in_place_loss = false;  // Megatron: the softmax is computed in place of the fp32 logits
  // torch.compile fuses the upcast into the loss and saves the 16-bit logits plus a per-row
  // log-sum-exp instead of the fp32 log-softmax (min-cut recomputation, torch/_functorch/partitioners.py).
  bool compiled_loss = false;
  // DDP keeps gradient buckets as a second copy of all gradients unless gradient_as_bucket_view
  // (torch DistributedDataParallel default False; Accelerate/HF Trainer keep that default).
  bool ddp_bucket_copy = true;
  // DeepSpeed's communication buckets (deepspeed/runtime/zero/config.py defaults, elements).
  bool deepspeed_buckets = false;
};

FrameworkBehaviour framework_behaviour(Framework f, bool compile);

// parallel.zero_stage when not given: torchtune, torchtitan and FSDP shard fully on more than one
// GPU (FSDP FULL_SHARD is their default); the HF Trainer, DeepSpeed and Megatron replicate (DDP)
// unless told otherwise.
int default_zero_stage(Framework f, std::int64_t world_size);

// activation_checkpointing when not given: torchtune's recipes enable it
// (enable_activation_checkpointing: True), and PEFT's prepare_model_for_kbit_training turns on
// gradient checkpointing for QLoRA by default; otherwise none.
Checkpointing default_checkpointing(Framework f, Method m);

}  // namespace trainmem
