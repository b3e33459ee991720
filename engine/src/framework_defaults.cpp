#include "trainmem/framework_defaults.hpp"

namespace trainmem {

FrameworkBehaviour framework_behaviour(Framework f, bool compile) {
  FrameworkBehaviour b;
  switch (f) {
    case Framework::hf_trainer:
      break;
    case Framework::torchtune:
      b.loss = LossImplementation::chunked;
      break;
    case Framework::torchtitan:
    case Framework::fsdp:
      break;
    case Framework::deepspeed:
      b.deepspeed_buckets = true;
      b.ddp_bucket_copy = false;  // DeepSpeed reduces through its own buckets
      break;
    case Framework::megatron:
      b.unfused_rms_norm = false;
      b.softmax_fp32 = false;
      b.unfused_gated_activation = false;
      b.in_place_loss = true;
      b.ddp_bucket_copy = false;  // gradients live in the contiguous main_grad buffer
      break;
  }
  if (compile) {
    b.unfused_rms_norm = false;
    b.unfused_gated_activation = false;
  }
  return b;
}

}  // namespace trainmem
