// Bytes per parameter for weights, gradients and optimizer states (b_p, b_g, b_o),
// resolved from the precision settings, the optimizer and the framework's defaults.
//
// Sources: ZeRO paper (Rajbhandari et al. 2020, §3.1, "16Ψ": 16 bytes/param for fp16 weights and
// gradients + Adam with an fp32 master copy); Megatron-LM docs/user-guide/features/dist_optimizer.md
// (fp32 main gradients: 18 bytes/param, 6 + 12/d sharded); DeepSpeed v0.19
// deepspeed/runtime/zero/stage_1_and_2.py (a 16-bit gradient plus an fp32 gradient for the rank's
// partition: 2P + 18P/N at ZeRO-2, as estimate_zero2_model_states_mem_needs has computed since
// deepspeedai/DeepSpeed#5099). docs/memory-model.md, "Model states".
#pragma once

#include "trainmem/architecture.hpp"
#include "trainmem/training_setup.hpp"

namespace trainmem {

// The precision settings with every framework default filled in.
struct ResolvedPrecision {
  Dtype param_dtype = Dtype::bf16;
  Dtype grad_dtype = Dtype::bf16;
  Dtype compute_dtype = Dtype::bf16;  // activations and matmuls
  bool master_weights = true;  // an fp32 master copy exists (only when param_dtype is not fp32)
  Dtype optimizer_state_dtype = Dtype::fp32;
  Optimizer optimizer = Optimizer::adamw;
  // DeepSpeed steps its fp32 master (partition) with an fp32 copy of the 16-bit gradients
  // (stage_1_and_2.py step(): single_grad_partition = flat 16-bit partition .to(fp32); stage3.py
  // _prepare_fp32_grad_for_sub_group; fp16/fused_optimizer.py without ZeRO): 4 bytes per
  // trainable parameter of the rank's optimizer partition, alive in the optimizer step.
  bool fp32_gradient_partition = false;
  // torch.autocast over fp32 weights: 16-bit compute with fp32 parameters that no sharding engine
  // casts first (the HF Trainer's --bf16/--fp16 on an fp32 model without FSDP or ZeRO-3, Lightning's
  // "16-mixed"). Each op casts its own inputs (pytorch v2.4 docs/source/amp.rst, "Autocast Op
  // Reference"): linears and matmuls run in the compute dtype, layer_norm and softmax in fp32, and
  // the residual stream between them stays fp32. FSDP's MixedPrecision (FSDP1 at any sharding
  // stage, FSDP2) and ZeRO-3's gathers hand the forward 16-bit weights instead.
  bool autocast_over_fp32_weights = false;
  // accelerate's FSDP path (the HF Trainer's, and framework "fsdp") upcasts every trainable
  // parameter that is not fp32 to fp32 when mixed precision is on (accelerate v0.30.0+,
  // huggingface/accelerate#2674: accelerator.py prepare_model for FSDP1, utils/fsdp_utils.py
  // fsdp2_prepare_model for FSDP2): the trainable weights are held in fp32, which are the master
  // copy, and their gradients are fp32; FSDP's MixedPrecision still hands the forward 16-bit
  // copies. master_weights stays true (the fp32 weights are the master), with no separate copy.
  // Priced for full fine-tuning at full sharding (zero_stage 3), precision.cpp.
  bool trainable_upcast_to_fp32 = false;
};

// What decides accelerate's FSDP upcast (huggingface/accelerate#2674, v0.30.0+: accelerator.py
// prepare_model for FSDP1, utils/fsdp_utils.py fsdp2_prepare_model for FSDP2): under mixed
// precision, every trainable parameter that is not fp32 becomes fp32. The estimate (precision.cpp),
// the import of a trainer's files and the axolotl export ask the same question with these facts.
struct FsdpUpcastFacts {
  bool accelerate_loop = false;       // accelerate drives the loop: the HF Trainer's (axolotl's,
                                      // LLaMA-Factory's, TRL's) or framework "fsdp"
  bool fsdp_sharded = false;          // FSDP or FSDP2 wraps the model (parallel.sharding_engine)
  bool full_fine_tune = false;        // method "full": the weights themselves train
  bool sixteen_bit_weights = false;   // the weights are loaded in bf16 or fp16
  bool mixed_precision = false;       // 16-bit compute over an fp32 master (accelerate's mixed_precision
                                      // "bf16"/"fp16"); pure 16-bit training (master_weights false,
                                      // axolotl's bf16 "full") keeps the loaded dtype
};
constexpr bool accelerate_fsdp_upcasts(const FsdpUpcastFacts& f) {
  return f.accelerate_loop && f.fsdp_sharded && f.full_fine_tune && f.sixteen_bit_weights && f.mixed_precision;
}

// The setup's precision with every framework default filled in: gradients accumulate in the
// parameter dtype (DeepSpeed's gradient_accumulation_dtype defaults to the model dtype,
// engine.py get_data_types) except under Megatron, whose main-grad buffer is fp32 with 16-bit
// training (megatron/training/arguments.py: accumulate_allreduce_grads_in_fp32 under bf16).
ResolvedPrecision resolve_precision(const TrainingSetup& s);

// Whether PEFT upcasts adapters the document leaves without a dtype: under the frameworks that
// train transformers models through PEFT (hf_trainer, fsdp, deepspeed) over 16-bit weights,
// get_peft_model(autocast_adapter_dtype=True), PEFT's default since v0.12.0 (2024-07), casts the
// bf16/fp16 adapters to fp32 (huggingface/peft src/peft/mapping_func.py, tuners_utils.py
// _cast_adapter_dtype; over a quantized base they are fp32 too: _move_adapter_to_device_of_base_layer
// moves them to a 4-bit layer's compute dtype (peft#2893, v0.19.0) before the upcast, and leaves them
// in fp32 over 8-bit weights, which carry no compute dtype).
bool peft_upcasts_adapters(const TrainingSetup& s);

// The dtype LoRA/QLoRA adapters are held (and saved) in: lora.adapter_dtype when the document gives
// it; else fp32 where PEFT upcasts them (above); else the trainable weights' param_dtype, as
// model_states.cpp prices unstated adapters.
Dtype adapter_dtype(const TrainingSetup& s);

// Per trainable parameter, in bytes.
struct BytesPerParam {
  double param = 0;      // b_p: the training copy of the weights
  double grad = 0;       // b_g
  double optimizer = 0;  // b_o: optimizer moments plus the fp32 master copy
  // The fp32 gradient copy DeepSpeed's ZeRO optimizer keeps for its partition (sharded like the
  // optimizer states; 0 elsewhere).
  double optimizer_gradient = 0;
  double total() const { return param + grad + optimizer + optimizer_gradient; }
};

// Optimizer moments only (no master copy), bytes per trainable parameter.
// `arch` refines the factored (Adafactor) and 8-bit (bitsandbytes min_8bit_size) cases; without it
// every tensor is taken as a large matrix.
double optimizer_moment_bytes_per_param(const ResolvedPrecision& p, const Architecture* arch);

// b_p, b_g, b_o for a trainable parameter.
BytesPerParam trainable_bytes_per_param(const ResolvedPrecision& p, const Architecture* arch);

// Number of optimizer moments the optimizer keeps per parameter (AdamW 2, Lion/momentum 1, SGD 0).
int optimizer_moment_count(Optimizer o);

// Whether `o`, where a trainer keeps states in the parameters' dtype (torchtune), is a bitsandbytes
// optimizer run with optim_bits=32, whose states are fp32 whatever the parameters' dtype:
// PagedAdamW (bitsandbytes/optim/adamw.py) and Lion (optim/lion.py), the one torchtune runs and the
// torchtune exporter writes (bitsandbytes 0.43.1 bitsandbytes/optim/optimizer.py
// Optimizer1State/Optimizer2State.init_state: optim_bits 32 -> torch.float32). The importer reads
// lion_pytorch's Lion, which keeps states in the parameters' dtype, with its state dtype stated.
bool bitsandbytes_32bit_states(Optimizer o);

}  // namespace trainmem
