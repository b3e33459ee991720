// What each training framework does by default where frameworks differ, as one table.
// Every field of the estimate document that is given explicitly overrides these. The framework
// versions each default follows are listed in docs/memory-model.md ("Framework defaults").
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
  // A plain MLP's activation runs as the model's code writes it: transformers' Python GELUs
  // (MlpShape::activation) op by op. Megatron builds its own MLP (fused bias-GeLU) and
  // torch.compile fuses the ops: one op that keeps its input.
  bool python_plain_activation = true;
  // Liger's SwiGLU backward writes the gate's and up's gradients over the saved gate and up
  // (ops/swiglu.py _swiglu_backward_kernel stores into a_ptr and b_ptr): of the gated MLP's
  // intermediate gradients only the down_proj input's is a new tensor.
  bool in_place_gated_backward = false;
  // Loss defaults: HF computes cross-entropy on an fp32 copy of the full logits
  // (transformers loss_utils.py ForCausalLMLoss); torchtune chunks it (CEWithChunkedOutputLoss,
  // 8 chunks); Megatron's vocab-parallel cross-entropy works in fp32 in place.
  LossImplementation loss = LossImplementation::full;
  bool logits_fp32 = true;
  bool in_place_loss = false;  // Megatron: the softmax is computed in place of the fp32 logits
  // torch.compile over the loss fuses the upcast into the loss and saves the 16-bit logits plus a
  // per-row log-sum-exp instead of the fp32 log-softmax (min-cut recomputation,
  // torch/_functorch/partitioners.py). Only when compile's scope includes the loss.
  bool compiled_loss = false;
  // The loop's reference to the model output through backward, the optimizer step and the next
  // forward (rebinding `outputs = model(**batch)` frees the old one only after the new forward).
  // The HF Trainer's training_step keeps only the loss (transformers v4.46+ trainer.py: compute_loss
  // returns the loss, inputs are deleted before backward); torchtune's recipes and torchtitan's
  // train step `del` the logits before backward ("free logits otherwise it peaks backward
  // memory"); Megatron's forward_step returns the loss. Loops written as `outputs = model(**batch);
  // backward(outputs.loss)` hold them: accelerate's examples (examples/nlp_example.py) for
  // framework "fsdp", DeepSpeed-Chat's training scripts (DeepSpeedExamples
  // applications/DeepSpeed-Chat/training/step1_supervised_finetuning/main.py) for "deepspeed";
  // their logits are in the compute dtype from transformers v4.46 (the upcast moved into
  // ForCausalLMLoss).
  HeldLogits held_logits = HeldLogits::none;
  // DDP keeps gradient buckets as a second copy of all gradients unless gradient_as_bucket_view
  // (torch DistributedDataParallel default False; Accelerate/HF Trainer keep that default).
  bool ddp_bucket_copy = true;
  // The loop frees every gradient after the optimizer step, so a step's first micro-batch starts
  // its backward with none: PyTorch's Optimizer.zero_grad and Module.zero_grad default to
  // set_to_none=True since v2.0 (torch/optim/optimizer.py), which the HF Trainer calls after each
  // step (transformers v4.46+ trainer.py _inner_training_loop: model.zero_grad()), as do torchtune's
  // recipes (optimizer.zero_grad(set_to_none=True)) and torchtitan's train step; FSDP's sharded
  // gradients are the sharded parameters' .grad, freed the same way. DeepSpeed keeps its own
  // gradient partitions and buckets and Megatron a persistent contiguous main-grad buffer: there
  // gradients are priced as alive through the whole step. The document's zero_grad_set_to_none
  // false (PyTorch 1.x, or a loop that zeroes in place) keeps them too.
  bool gradients_freed_between_steps = true;
};

// A plain MLP's activation as the framework runs it: the model's own (MlpShape::activation) where
// it runs transformers' code op by op, else one fused op.
inline MlpActivation plain_mlp_activation(const MlpShape& m, const FrameworkBehaviour& f) {
  return f.python_plain_activation ? m.activation : MlpActivation::fused;
}

// The behaviour of the setup's framework, sharding engine, compile scope and Liger kernels.
FrameworkBehaviour framework_behaviour(const TrainingSetup& s);

// Whether the sharding engine keeps gradient buffers of its own through the step (DeepSpeed,
// Megatron), whatever the loop's zero_grad does (FrameworkBehaviour::gradients_freed_between_steps).
bool engine_keeps_gradients(const TrainingSetup& s);

// Whether the framework trains a Hugging Face transformers model (with PEFT's adapters and
// bitsandbytes' 4-bit layers): the HF Trainer and the accelerate ("fsdp") and DeepSpeed loops over
// one; Megatron, torchtitan and torchtune build models of their own.
constexpr bool trains_transformers_model(Framework f) {
  return f == Framework::hf_trainer || f == Framework::fsdp || f == Framework::deepspeed;
}

// Whether use_liger_kernel applies to the setup: Liger patches Hugging Face transformers model
// classes (the HF Trainer and the loops of "fsdp" and "deepspeed" over them; Megatron, torchtitan
// and torchtune build their own models) of the model types it has kernels for
// (linkedin/Liger-Kernel src/liger_kernel/transformers/monkey_patch.py @ead96b6,
// MODEL_TYPE_TO_APPLY_LIGER_FN; for any other type transformers' Trainer logs that no kernels apply).
bool liger_applies(const TrainingSetup& s);

// Whether the setup's 4-bit base runs through bitsandbytes (Linear4bit, as transformers' and
// PEFT's QLoRA load it under the HF Trainer, accelerate's FSDP and DeepSpeed), where
// qlora.saves_base_inputs applies; torchtune quantizes with torchao's NF4Tensor, whose linear_nf4
// keeps only the weight for its backward (torchao nf4_tensor.py, LinearNF4).
bool qlora_through_bitsandbytes(const TrainingSetup& s);
// Whether the base is quantized by HQQ (qlora.quant_method "hqq"): transformers' HqqConfig turns
// every nn.Linear but lm_head into an HQQLinear, whose matmul (HQQMatmulNoCacheMul, or
// HQQMatmulNoCacheDeq on the ATen backend) keeps its input for the backward and dequantizes the
// whole weight in forward and again in backward (mobiusml/hqq hqq/core/quantize.py @e0b1d00).
bool qlora_through_hqq(const TrainingSetup& s);
// Whether the QLoRA quantizer converts `l` (`hqq`: qlora_through_hqq): bitsandbytes replaces
// torch.nn.Linear and transformers' Conv1D modules (transformers src/transformers/integrations/
// bitsandbytes.py _replace_with_bnb_linear), HQQ torch.nn.Linear only (integrations/hqq.py
// _prepare_for_hqq_linear); weights held as raw parameters (gpt-oss's experts) stay 16-bit under both.
bool quantizer_converts(const Linear& l, bool hqq);

// The loss implementation when loss.implementation is not given: the framework's, or Liger's fused
// linear cross-entropy where its patch applies; not under rlhf, whose TRL trainers call the model
// without labels and compute their losses on its logits, so Liger's patched forward returns them
// and its fused loss never runs (TRL's separate use_liger_loss would fuse the trainers' own losses).
LossImplementation default_loss(const TrainingSetup& s);

// parallel.sharding_engine when not given: DeepSpeed and Megatron shard with their own engines;
// torchtune (recipes since v0.2, training/_distributed.py shard_model) and torchtitan
// (parallelize.py apply_fsdp) with FSDP2's fully_shard; framework "fsdp" is FSDP1
// (FullyShardedDataParallel as accelerate wraps it), and so is the HF Trainer's own path (DDP at
// zero_stage 0, FSDP through its fsdp argument at 2 and 3; stage 1 follows the ZeRO paper's
// optimizer-state partition). An HF Trainer run configured with a DeepSpeed file says
// sharding_engine "deepspeed".
ShardingEngine sharding_engine(const TrainingSetup& s);

// Whether FSDP1 gives a whole wrapped layer a gradient when the layer holds any trainable
// parameter: FullyShardedDataParallel (use_orig_params=True) keeps one FlatParameter per wrapped
// unit, and its gradient covers the whole unit. That happens where the wrap policy puts adapters
// and frozen weights in one unit (transformer-block wrapping, framework "fsdp"). Not under the HF
// Trainer with PEFT adapters: transformers integrations/fsdp.py update_fsdp_plugin_peft (trainer.py
// _fsdp_qlora_plugin_updates before it) installs PEFT's fsdp_auto_wrap_policy (peft
// utils/other.py), which wraps every leaf module whose weight requires grad (LoRA's lora_A and
// lora_B) as a unit of its own, so a transformer block's flat parameter holds frozen weights only.
// Nor with use_orig_params=False (parallel.use_orig_params false): FSDP1 then flattens only tensors
// of one requires_grad into a FlatParameter (torch/distributed/fsdp/_flat_param.py,
// _validate_tensors_to_flatten: "Must flatten tensors with uniform requires_grad when
// use_orig_params=False"), so a run that works wraps its adapters apart (AnswerDotAI/fsdp_qlora
// train.py: a lambda policy for every leaf whose weight requires grad).
bool fsdp1_whole_unit_gradients(const TrainingSetup& s);

// Whether the sharding engine holds the frozen weights in its own flat or partitioned storage:
// ZeRO-3 (any engine) or FSDP from SHARD_GRAD_OP (zero_stage 2) up. An int8 base cannot join it
// (LLaMA-Factory src/llamafactory/model/model_utils/quantization.py: "Only 4-bit quantized model
// can use fsdp+qlora"), and TRL and axolotl skip prepare_model_for_kbit_training there.
bool shards_frozen_weights(const TrainingSetup& s);

// parallel.gradient_sync when not given. last_micro_batch where the trainer wraps the accumulation
// micro-batches in no_sync: HF Trainer through accelerate's Accelerator.accumulate (accelerate
// v1.x accelerator.py: no_sync for DDP, FSDP1 and FSDP2) and framework "fsdp" (accelerate,
// Lightning Fabric no_backward_sync); Megatron reduces its fp32 main-grad buffer once per step.
// every_micro_batch for torchtune (recipes reduce on every backward) and torchtitan. Wherever the
// DeepSpeed engine shards (sharding_engine "deepspeed", whichever trainer drives it): every
// micro-batch at ZeRO >= 2 (reduce hooks fire on every backward, stage_1_and_2.py, stage3.py),
// below that "only at gradient accumulation boundaries" (deepspeed/runtime/engine.py @v0.13.5,
// allreduce_gradients).
GradientSync gradient_sync(const TrainingSetup& s);

// The compile scope when compile is on and no scope is given: torchtitan compiles each
// TransformerBlock (apply_compile) and the loss: training.compile wrapped the loss in torch.compile
// from pytorch/torchtitan#1033 (2025-04-02, torchtitan/components/loss.py build_cross_entropy_loss)
// and compile.components defaults to ["model", "loss"] since #1608 (2025-08-20): blocks_and_loss
// (before 2025-04-02 the blocks alone, the band's framework_version_compile_scope).
// torchtune's recipes call training.compile_loss (torchtune/training/_compile.py, from
// pytorch/torchtune#1512, 2024-09-07, to at least 2026-04): its own losses (CEWithChunkedOutputLoss,
// and later the chunked LinearCrossEntropyLoss) get their per-chunk cross-entropy compiled in
// place; any other loss, such as the configs' torch.nn.CrossEntropyLoss (`loss.implementation:
// full`), is wrapped by torch.compile and returned, and only lora_finetune_single_device.py keeps
// the returned wrapper (`self._loss_fn = training.compile_loss(...)`): full_finetune_single_device,
// full_finetune_distributed and lora_finetune_distributed discard it and run the loss eagerly:
// blocks there. The HF Trainer's torch_compile wraps the whole model, whose forward computes the
// loss: blocks_and_loss.
CompileScope compile_scope(const TrainingSetup& s);

// precision.optimizer_implementation when not given: the HF Trainer's adamw_torch is torch's
// AdamW with its default foreach path (transformers v4.36-v4.55; adamw_torch_fused is the default
// with torch >= 2.8); torchtune's configs set fused: True; torchtitan's optimizer config defaults
// to "fused"; Megatron (Apex/TE FusedAdam) and DeepSpeed (FusedAdam) step with fused kernels.
OptimizerImplementation optimizer_implementation(const TrainingSetup& s);

// attention when not given: the HF Trainer runs what transformers' from_pretrained picks
// (Architecture::transformers_attention): sdpa where the model has an SDPA path, eager where it has
// none; every other case (another framework, a model that picks its own kernel) runs a fused
// kernel that keeps no s x s scores (flash, which the engine prices as sdpa).
AttentionImplementation default_attention(const TrainingSetup& s);

// make_vocab_size_divisible_by when not given: 128 under Megatron (megatron/training/arguments.py
// --make-vocab-size-divisible-by), 1 otherwise.
std::int64_t make_vocab_size_divisible_by(const TrainingSetup& s);

// The vocabulary the embedding, head and logits use: vocab_size rounded up to a multiple of
// make_vocab_size_divisible_by x TP (Megatron-LM megatron/training/tokenizer/tokenizer.py
// _vocab_size_with_padding). Elements.
std::int64_t padded_vocab_size(const TrainingSetup& s, std::int64_t vocab_size);

// parallel.expert_tensor_parallel_size when not given: tensor_parallel_size, as Megatron-Core
// defaults --expert-tensor-parallel-size (megatron/training/arguments.py).
std::int64_t expert_tensor_parallel_size(const TrainingSetup& s);

// parallel.zero_stage when not given: torchtune, torchtitan and FSDP shard fully on more than one
// GPU (FSDP FULL_SHARD is their default); the HF Trainer, DeepSpeed and Megatron replicate (DDP)
// unless told otherwise.
int default_zero_stage(Framework f, std::int64_t world_size);

// activation_checkpointing when not given: torchtune's recipes enable it
// (enable_activation_checkpointing: True), and PEFT's prepare_model_for_kbit_training turns on
// gradient checkpointing for QLoRA by default; otherwise none.
Checkpointing default_checkpointing(Framework f, Method m);

// selective_policy when not given: torchtitan's selective checkpointing is op-level SAC in the
// configs it ships (torchtitan/models/llama3/train_configs/*.toml: selective_ac_option = "op";
// torchtitan has no attention-core policy); elsewhere Megatron-LM's --recompute-granularity
// selective, the core attention (Korthikanti et al. 2022, section 4).
SelectivePolicy default_selective_policy(Framework f);

}  // namespace trainmem
