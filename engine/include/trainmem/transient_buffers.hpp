// Buffers that are not model states or saved activations: ZeRO-3/FSDP all-gathered layers,
// gradient reduce buckets, DDP's bucket copy of the gradients, and optimizer-step temporaries.
// Bytes per GPU, by the phase in which they are alive. docs/memory-model.md, "Buffers".
//
// Sources:
//  - FSDP: one all-gather buffer per unit plus one prefetched (torch docs/source/notes/fsdp.rst;
//    FSDP2 allows two all-gather outputs in forward, pytorch/pytorch#128884); backward holds the
//    current and prefetched parameters plus the unsharded gradient and the reduce-scatter input
//    (the FSDP buffer bound of NVIDIA/Megatron-LM#6551). reshard_after_forward=false keeps every
//    gathered layer until backward.
//  - DeepSpeed ZeRO-3 (deepspeed/runtime/zero/config.py defaults, stage3.py): up to
//    stage3_max_live_parameters gathered (1e9 elements) but at least the largest module, plus the
//    prefetch bucket (stage3_prefetch_bucket_size, 5e7 elements), and the reduce bucket
//    (reduce_bucket_size, 5e8), which ZeRO-3 allocates with the optimizer and keeps in every phase. With parameter offload the gathered working set is on
//    the GPU at any data-parallel size, one GPU included. ZeRO-1/2: reduce and all-gather buckets
//    of 5e8 elements each, the reduce bucket twice under overlap_comm. Reduce buckets are their
//    full size however few parameters train (stage3.py, stage_1_and_2.py: torch.empty(
//    reduce_bucket_size)). Under the HF Trainer, whose DeepSpeed configs leave them "auto", the
//    reduce bucket is hidden_size^2 and the ZeRO-3 prefetch bucket 0.9 hidden_size^2 (transformers
//    integrations/deepspeed.py, HfTrainerDeepSpeedConfig.trainer_config_finalize).
//  - DDP: the reducer's buckets are a second copy of every gradient unless
//    gradient_as_bucket_view=True (torch/nn/parallel/distributed.py), allocated at wrap time.
//  - QLoRA: one dequantized weight (the largest linear layer) at a time, in the compute dtype.
//    FSDP gathers its frozen linear weights as their 4-bit storage (torchao NF4Tensor's
//    fsdp_pre_all_gather; bitsandbytes' quant_storage), not in the compute dtype.
//  - Context parallelism: ring attention's key/value send and receive blocks (and their gradient
//    blocks in backward), or Ulysses' all-to-all outputs of q, k and v (transient_buffers.cpp).
//  - Optimizer step: torch.optim's foreach AdamW (torch/optim/adamw.py, _multi_tensor_adamw)
//    takes the square root of every second moment of the group at once (_foreach_sqrt): one
//    state-sized temporary per trainable element of the optimizer's partition; the for-loop path
//    holds one tensor's, the fused kernel none. An fp32 master stepped with 16-bit gradients
//    also upcasts every gradient (4 bytes per trainable parameter of the partition), except under
//    DeepSpeed, whose fp32 gradient partition is a model state (model_states.hpp).
//  - Optimizer stepped in backward with the head tied to the embedding: the head's gradient waits
//    through backward for the embedding's (transient_buffers.cpp).
#pragma once

#include "trainmem/framework_defaults.hpp"
#include "trainmem/model_states.hpp"

namespace trainmem {

struct TransientBuffers {
  double persistent = 0;      // alive in every phase (DDP bucket copy, DeepSpeed ZeRO-3's reduce bucket)
  double forward = 0;         // gathered parameters in forward
  double backward = 0;        // gathered parameters, gradient buckets in backward
  double optimizer_step = 0;  // step temporaries
  // Alive through all of backward, the loss's included: a tied head's gradient stepped in backward.
  double tied_head_gradient = 0;
  // Alive through all of backward too (part of `backward` as well): autocast's 16-bit weight copies
  // that the linears saved for their backward.
  double saved_weight_copies = 0;
};

// DeepSpeed's bucket sizes in elements: deepspeed/runtime/zero/config.py's defaults (reduce_bucket_size
// and allgather_bucket_size 5e8, stage3_prefetch_bucket_size 5e7), or, under the HF Trainer, what it
// writes for "auto" (as its DeepSpeed configs set them): reduce_bucket_size = hidden_size^2 and, at
// ZeRO-3, stage3_prefetch_bucket_size = 0.9 hidden_size^2 (transformers
// src/transformers/integrations/deepspeed.py @02348331baea70aaedce3b76c18481b2b441fe2d,
// HfTrainerDeepSpeedConfig.trainer_config_finalize).
struct DeepSpeedBuckets {
  double reduce = 5e8, allgather = 5e8, prefetch = 5e7;
};
DeepSpeedBuckets deepspeed_buckets(const TrainingSetup& s);

TransientBuffers transient_buffers(const TrainingSetup& s, const ResolvedPrecision& p, const ModelStates& states,
                                   const FrameworkBehaviour& f, Dtype compute);

}  // namespace trainmem
