// Buffers that are not model states or saved activations: ZeRO-3/FSDP all-gathered layers,
// gradient reduce buckets, DDP's bucket copy of the gradients, and optimizer-step temporaries.
// Bytes per GPU, by the phase in which they are alive.
//
// Sources:
//  - FSDP: one all-gather buffer per unit plus one prefetched (torch docs/source/notes/fsdp.rst;
//    FSDP2 allows two all-gather outputs in forward, PR #128884); backward holds the current and
//    prefetched parameters plus the unsharded gradient and the reduce-scatter input
//    (Megatron-LM PR #6551's bound of FSDP buffers; fault B10). reshard_after_forward=false keeps
//    every gathered layer until backward.
//  - DeepSpeed ZeRO-3: up to stage3_max_live_parameters gathered (default 1e9 elements) plus the
//    reduce bucket (reduce_bucket_size 5e8); ZeRO-1/2: reduce and all-gather buckets of 5e8
//    elements each (deepspeed/runtime/zero/config.py; fault B09).
//  - DDP: the reducer's buckets are a second copy of every gradient unless
//    gradient_as_bucket_view=True (torch/nn/parallel/distributed.py), allocated at wrap time.
//  - QLoRA: one dequantized weight (the largest linear layer) at a time, in the compute dtype.
//  - Optimizer step: AdamW over fp32 master weights with 16-bit gradients upcasts every gradient;
//    the foreach implementation holds all the copies at once (4 bytes per trainable parameter;
//    fault B37, NVIDIA/Model-Optimizer PR #2483).
#pragma once

#include "trainmem/framework_defaults.hpp"
#include "trainmem/model_states.hpp"

namespace trainmem {

struct TransientBuffers {
  double persistent = 0;      // alive in every phase (DDP bucket copy)
  double forward = 0;         // gathered parameters in forward
  double backward = 0;        // gathered parameters, gradient buckets in backward
  double optimizer_step = 0;  // step temporaries
};

TransientBuffers transient_buffers(const TrainingSetup& s, const ResolvedPrecision& p, const ModelStates& states,
                                   const FrameworkBehaviour& f, Dtype compute);

}  // namespace trainmem
