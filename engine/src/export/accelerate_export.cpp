// TrainingSetup -> accelerate config YAML (accelerate 1.15 key names: commands/config/config_args.py,
// utils/dataclasses.py). The inverse of engine/src/import/accelerate_reader.cpp.
#include "export_formats.hpp"
#include "trainmem/framework_defaults.hpp"
#include "trainmem/precision.hpp"

namespace trainmem::export_detail {

ExportResult export_accelerate(const TrainingSetup& s) {
  ExportResult out;
  ConfigValue& c = out.config;
  const ResolvedPrecision p = resolve_precision(s);
  const auto& par = s.parallel;
  out.carried = {"parallel.sharding_engine", "parallel.world_size", "parallel.gpus_per_node", "parallel.zero_stage",
                 "precision.compute_dtype", "precision.fp8_compute", "parallel.tensor_parallel_size",
                 "parallel.context_parallel_size", "compile"};
  const ShardingEngine engine = sharding_engine(s);
  const bool deepspeed = engine == ShardingEngine::deepspeed;
  const bool fsdp = (engine == ShardingEngine::fsdp || engine == ShardingEngine::fsdp2) && par.world_size > 1 && par.zero_stage > 0;
  // Without a trainer's file the launcher's framework reads back as DeepSpeed's, FSDP's or DDP's.
  if (s.framework == (deepspeed ? Framework::deepspeed : fsdp ? Framework::fsdp : Framework::hf_trainer)) out.carried.push_back("framework");
  if (engine == ShardingEngine::megatron)
    out.not_expressible.emplace_back("parallel.sharding_engine", "accelerate's Megatron-LM plugin is not exported");
  c.set("distributed_type", deepspeed ? "DEEPSPEED" : fsdp ? "FSDP" : par.world_size > 1 ? "MULTI_GPU" : "NO");
  c.set("num_processes", par.world_size);
  const std::int64_t per_node = std::min(par.gpus_per_node, par.world_size);
  if (par.world_size % per_node == 0) {
    c.set("num_machines", par.world_size / per_node);
  } else {
    c.set("num_machines", 1);
    out.not_expressible.emplace_back("parallel.gpus_per_node", "num_processes must be a multiple of the GPUs per node");
  }
  c.set("mixed_precision", s.precision.fp8_compute ? "fp8" : p.compute_dtype == Dtype::bf16 ? "bf16" : p.compute_dtype == Dtype::fp16 ? "fp16" : "no");

  if (deepspeed) {
    out.carried.insert(out.carried.end(), {"precision.param_dtype", "parallel.offload_optimizer", "parallel.offload_param",
                                           "batch.gradient_accumulation_steps", "model_loading"});
    // accelerate turns DeepSpeed's fp16/bf16 on, which casts the weights to that dtype.
    if (p.param_dtype != (p.compute_dtype == Dtype::fp32 ? Dtype::fp32 : p.compute_dtype))
      out.not_expressible.emplace_back("precision.param_dtype", "DeepSpeed casts the weights to the mixed-precision dtype");
    ConfigValue ds = ConfigValue::object();
    ds.set("zero_stage", par.zero_stage);
    ds.set("offload_optimizer_device", offload_name(par.offload_optimizer));
    ds.set("offload_param_device", offload_name(par.offload_param));
    ds.set("gradient_accumulation_steps", s.batch.gradient_accumulation_steps);
    if (par.zero_stage == 3) ds.set("zero3_init_flag", s.model_loading == ModelLoading::meta_init);
    c.set("deepspeed_config", ds);
  } else if (fsdp) {
    out.carried.insert(out.carried.end(), {"parallel.offload_optimizer", "parallel.offload_param", "activation_checkpointing",
                                           "parallel.reshard_after_forward", "parallel.sharding_group_size",
                                           "parallel.use_orig_params"});
    ConfigValue f = ConfigValue::object();
    const bool hybrid = par.sharding_group_size && *par.sharding_group_size == per_node && par.world_size > per_node;
    if (par.sharding_group_size && !hybrid)
      out.not_expressible.emplace_back("parallel.sharding_group_size", "FSDP's hybrid sharding groups are one node's GPUs");
    if (engine == ShardingEngine::fsdp2) {
      // FSDP2: reshard_after_forward false keeps the gathered parameters from forward to backward.
      f.set("fsdp_version", 2);
      f.set("fsdp_reshard_after_forward", par.reshard_after_forward);
      if (par.zero_stage != 3) out.not_expressible.emplace_back("parallel.zero_stage", "FSDP2 shards parameters, gradients and optimizer states (stage 3)");
    } else {
      f.set("fsdp_version", 1);
      if (!par.reshard_after_forward) out.not_expressible.emplace_back("parallel.reshard_after_forward", "FSDP1 names this SHARD_GRAD_OP (zero_stage 2)");
      const char* names[] = {"NO_SHARD", "NO_SHARD", "SHARD_GRAD_OP", "FULL_SHARD"};
      std::string strategy = names[par.zero_stage];
      if (par.zero_stage == 1) out.not_expressible.emplace_back("parallel.zero_stage", "FSDP has no optimizer-only sharding (ZeRO-1)");
      if (hybrid && par.zero_stage >= 2) strategy = par.zero_stage == 3 ? "HYBRID_SHARD" : "HYBRID_SHARD_ZERO2";
      f.set("fsdp_sharding_strategy", strategy);
      // Written as the estimate takes it (default true): accelerate's plugin reads an unset flag
      // from FSDP_USE_ORIG_PARAMS, whose default has changed between versions.
      f.set("fsdp_use_orig_params", par.use_orig_params.value_or(true));
    }
    const bool offload = par.offload_param != OffloadTarget::none;
    note_joint_offload(out, par, offload, "FSDP offloads parameters, gradients and the optimizer step to the CPU together");
    f.set("fsdp_offload_params", offload);
    f.set("fsdp_activation_checkpointing", s.activation_checkpointing == Checkpointing::full);
    if (s.activation_checkpointing == Checkpointing::selective)
      out.not_expressible.emplace_back("activation_checkpointing", "FSDP checkpoints whole layers only");
    c.set("fsdp_config", f);
  } else {
    if (par.zero_stage != 0) out.not_expressible.emplace_back("parallel.zero_stage", "DDP does not shard");
  }
  if (par.tensor_parallel_size > 1 || par.context_parallel_size > 1) {
    ConfigValue pc = ConfigValue::object();
    if (par.tensor_parallel_size > 1) pc.set("parallelism_config_tp_size", par.tensor_parallel_size);
    if (par.context_parallel_size > 1) pc.set("parallelism_config_cp_size", par.context_parallel_size);
    c.set("parallelism_config", pc);
  }
  if (s.compile) c.set_path("dynamo_config.dynamo_backend", "INDUCTOR");
  return out;
}

ExportResult dispatch(const TrainingSetup& s, ExportFormat f, const std::string& hf_model_id) {
  switch (f) {
    case ExportFormat::deepspeed: return export_deepspeed(s);
    case ExportFormat::accelerate: return export_accelerate(s);
    case ExportFormat::axolotl: return export_axolotl(s, hf_model_id);
    case ExportFormat::torchtune: return export_torchtune(s);
  }
  return {};
}

}  // namespace trainmem::export_detail

namespace trainmem {
ExportResult export_config(const TrainingSetup& setup, ExportFormat format, const std::string& hf_model_id) {
  return export_detail::dispatch(setup, format, hf_model_id);
}
}  // namespace trainmem
