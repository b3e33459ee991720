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
      b.fused_softmax = true;
      b.unfused_gated_activation = false;
      b.in_place_loss = true;
      b.ddp_bucket_copy = false;  // gradients live in the contiguous main_grad buffer
      break;
  }
  if (compile) {
    b.compiled_loss = true;
    b.unfused_rms_norm = false;
    b.unfused_gated_activation = false;
  }
  return b;
}

int default_zero_stage(Framework f, std::int64_t world_size) {
  const bool fsdp_native = f == Framework::torchtune || f == Framework::torchtitan || f == Framework::fsdp;
  return fsdp_native && world_size > 1 ? 3 : 0;
}

Checkpointing default_checkpointing(Framework f, Method m) {
  if (f == Framework::torchtune) return Checkpointing::full;
  if (m == Method::qlora && f == Framework::hf_trainer) return Checkpointing::full;
  return Checkpointing::none;
}

}  // namespace trainmem
