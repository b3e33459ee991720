// TrainingSetup -> DeepSpeed config JSON (DeepSpeed v0.19.6 key names: runtime/constants.py,
// runtime/zero/config.py, runtime/zero/offload_config.py). The inverse of
// engine/src/import/deepspeed_reader.cpp.
#include <cmath>
#include <cstdint>

#include "export_formats.hpp"
#include "trainmem/framework_defaults.hpp"
#include "trainmem/precision.hpp"

namespace trainmem::export_detail {

ExportResult export_deepspeed(const TrainingSetup& s) {
  ExportResult out;
  ConfigValue& c = out.config;
  const ResolvedPrecision p = resolve_precision(s);
  c.set("train_micro_batch_size_per_gpu", s.batch.micro_batch_size);
  c.set("gradient_accumulation_steps", s.batch.gradient_accumulation_steps);
  out.carried = {"parallel.sharding_engine", "batch.micro_batch_size", "batch.gradient_accumulation_steps", "parallel.zero_stage",
                 "parallel.offload_optimizer", "parallel.offload_param", "parallel.zero3_max_live_parameters",
                 "parallel.sharding_group_size", "parallel.tensor_parallel_size", "parallel.context_parallel_size",
                 "precision.param_dtype", "precision.optimizer", "precision.grad_dtype", "parallel.overlap_grad_reduce"};
  // Alone, a DeepSpeed config reads back as DeepSpeed's own loop.
  if (s.framework == Framework::deepspeed) out.carried.push_back("framework");
  if (sharding_engine(s) != ShardingEngine::deepspeed)
    out.not_expressible.emplace_back("parallel.sharding_engine", "a DeepSpeed config means DeepSpeed's engine shards and reduces");

  // Weights: DeepSpeed casts the model to the enabled 16-bit dtype and computes in it.
  if (p.param_dtype == Dtype::bf16 || p.param_dtype == Dtype::fp16) {
    ConfigValue section = ConfigValue::object();
    section.set("enabled", true);
    c.set(p.param_dtype == Dtype::bf16 ? "bf16" : "fp16", section);
    out.carried.push_back("precision.compute_dtype");
    if (p.compute_dtype != p.param_dtype)
      out.not_expressible.emplace_back("precision.compute_dtype", "DeepSpeed computes in the dtype it casts the weights to");
  } else if (p.param_dtype == Dtype::fp32) {
    out.carried.push_back("precision.compute_dtype");
    if (p.compute_dtype != Dtype::fp32)
      out.not_expressible.emplace_back("precision.compute_dtype", "DeepSpeed has no autocast over fp32 weights (its fp16 auto_cast aside)");
  } else {
    out.not_expressible.emplace_back("precision.param_dtype", "DeepSpeed trains in fp32, fp16 or bf16");
  }
  if (s.precision.master_weights && !*s.precision.master_weights && p.param_dtype != Dtype::fp32)
    out.not_expressible.emplace_back("precision.master_weights", "DeepSpeed's optimizers keep fp32 master weights");
  if (s.precision.optimizer_state_dtype)
    out.not_expressible.emplace_back("precision.optimizer_state_dtype", "DeepSpeed keeps fp32 optimizer states");

  ConfigValue zero = ConfigValue::object();
  zero.set("stage", s.parallel.zero_stage);
  if (s.parallel.offload_optimizer != OffloadTarget::none) {
    ConfigValue o = ConfigValue::object();
    o.set("device", offload_name(s.parallel.offload_optimizer));
    zero.set("offload_optimizer", o);
  }
  if (s.parallel.offload_param != OffloadTarget::none) {
    ConfigValue o = ConfigValue::object();
    o.set("device", offload_name(s.parallel.offload_param));
    zero.set("offload_param", o);
  }
  // runtime/zero/config.py declares stage3_max_live_parameters an int (DeepSpeedZeroConfig
  // max_live_parameters: int = Field(pp_int(1e9))): written as one, never 1000000000.0.
  if (s.parallel.zero_stage == 3) zero.set("stage3_max_live_parameters", static_cast<std::int64_t>(std::llround(s.parallel.zero3_max_live_parameters)));
  if (s.parallel.sharding_group_size) zero.set("mics_shard_size", *s.parallel.sharding_group_size);
  // overlap_comm: written when the document says; DeepSpeed's default (on at ZeRO-3 only) otherwise.
  if (s.parallel.overlap_grad_reduce) zero.set("overlap_comm", *s.parallel.overlap_grad_reduce);
  c.set("zero_optimization", zero);

  // DeepSpeed builds Adam and AdamW as its fused kernel (runtime/engine.py _configure_basic_optimizer:
  // FusedAdam, or DeepSpeedCPUAdam under optimizer offload).
  if (adam_family(s.precision.optimizer)) {
    if (optimizer_implementation(s) == OptimizerImplementation::fused) out.carried.push_back("precision.optimizer_implementation");
    else out.not_expressible.emplace_back("precision.optimizer_implementation", "DeepSpeed's Adam and AdamW are its fused kernels");
  }
  switch (s.precision.optimizer) {
    case Optimizer::adamw: c.set_path("optimizer.type", "AdamW"); break;
    case Optimizer::adam:
      c.set_path("optimizer.type", "Adam");
      c.set_path("optimizer.params.adam_w_mode", false);
      break;
    case Optimizer::lion: c.set_path("optimizer.type", "Lion"); break;
    case Optimizer::sgd: c.set_path("optimizer.type", "SGD"); break;
    default:
      out.not_expressible.emplace_back("precision.optimizer", "DeepSpeed's config names no such optimizer: the training script creates it");
  }
  if (s.precision.grad_dtype) c.set_path("data_types.grad_accum_dtype", std::string(dtype_name(*s.precision.grad_dtype)));
  if (s.parallel.tensor_parallel_size > 1) c.set_path("tensor_parallel.autotp_size", s.parallel.tensor_parallel_size);
  if (s.parallel.context_parallel_size > 1) c.set("sequence_parallel_size", s.parallel.context_parallel_size);
  return out;
}

}  // namespace trainmem::export_detail
