#include "trainmem/transient_buffers.hpp"

#include <algorithm>

namespace trainmem {

namespace {
constexpr double kDeepSpeedReduceBucket = 5e8;        // elements, reduce_bucket_size
constexpr double kDeepSpeedAllgatherBucket = 5e8;     // elements, allgather_bucket_size (stage 1/2)
constexpr double kFp32Bytes = 4.0;
}  // namespace

TransientBuffers transient_buffers(const TrainingSetup& s, const ResolvedPrecision& p, const ModelStates& states,
                                   const FrameworkBehaviour& f, Dtype compute) {
  TransientBuffers b;
  const double A = dtype_bytes(compute);
  const double grad_bytes = dtype_bytes(p.grad_dtype);
  const int zero = s.parallel.zero_stage;
  const double dp = sharding_degree(s.parallel);
  const double rank_params = states.params.total();  // this GPU's parameters before ZeRO sharding
  const double rank_trainable = states.params.trainable();
  const double tp = static_cast<double>(s.parallel.tensor_parallel_size);

  // The unit gathered at a time: the largest layer (or embedding/head) on this GPU's TP shard.
  double unit = 0;
  if (s.model.architecture) {
    unit = static_cast<double>(s.model.architecture->largest_layer_params()) / tp;
  } else {
    unit = rank_params / 32.0;  // parameter count only: assume ~32 equal layers
  }
  unit = std::min(unit, rank_params);

  if (zero == 3 && dp > 1) {
    if (s.framework == Framework::deepspeed) {
      const double live = std::min(s.parallel.zero3_max_live_parameters, rank_params);
      b.forward = std::max(live, unit) * A;
      b.backward = std::max(live, unit) * A + std::min(kDeepSpeedReduceBucket, rank_trainable) * grad_bytes;
    } else {
      b.forward = s.parallel.reshard_after_forward ? 2 * unit * A : rank_params * A;
      b.backward = 2 * unit * A + 2 * std::min(unit, rank_trainable) * grad_bytes;
    }
  } else if (zero >= 1 && dp > 1) {
    if (f.deepspeed_buckets) {
      b.backward = std::min(kDeepSpeedReduceBucket, rank_trainable) * grad_bytes;
      b.optimizer_step = std::min(kDeepSpeedAllgatherBucket, rank_params) * A;
    } else if (zero == 2) {
      b.backward = std::min(unit, rank_trainable) * grad_bytes;  // one unit's reduce-scatter input
    }
  } else if (zero == 0 && s.parallel.world_size > 1 && f.ddp_bucket_copy) {
    b.persistent = rank_trainable * grad_bytes;
  }

  // Autocast (16-bit compute over fp32 weights) caches a 16-bit copy of every weight it casts, kept
  // by autograd through backward (torch.autocast weight cache); a ZeRO-3/FSDP gather is already
  // in the compute dtype.
  if (A < dtype_bytes(p.param_dtype) && zero < 3) {
    b.forward += rank_params * A;
    b.backward += rank_params * A;
  }

  // QLoRA dequantizes one 4-bit weight at a time to the compute dtype for its matmul (bitsandbytes
  // dequantize_4bit; the QLoRA paper §3): a workspace of the largest linear layer, in forward and
  // again in backward.
  if (s.method == Method::qlora && s.model.architecture) {
    double largest = 0;
    for (const auto& g : s.model.architecture->layers)
      for (const auto& l : g.linears) largest = std::max(largest, static_cast<double>(l.weight_params()) / (l.tp_sharded ? tp : 1.0));
    b.forward += largest * A;
    b.backward += largest * A;
  }

  // FP8 training (Transformer Engine) keeps FP8 copies of the weights next to the higher-precision
  // ones, one byte per element, across micro-batches (TransformerEngine#1429; fault B38).
  if (s.precision.fp8_compute) b.persistent += rank_params / (zero == 3 ? dp : 1.0);

  const bool offloaded = s.parallel.offload_optimizer != OffloadTarget::none;
  if (!offloaded && p.master_weights && grad_bytes < kFp32Bytes && optimizer_moment_count(p.optimizer) > 0 &&
      !s.precision.optimizer_in_backward) {
    const double opt_shard = zero >= 1 ? dp : 1.0;
    b.optimizer_step += rank_trainable * kFp32Bytes / opt_shard;
  }
  return b;
}

}  // namespace trainmem
