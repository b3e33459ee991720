// accelerate config YAML (`accelerate config`, `accelerate launch --config_file`) -> estimate
// document fields. Meanings and defaults: accelerate 1.15.0.dev0 (huggingface/accelerate 16cb6eb),
// src/accelerate/commands/config/config_args.py, src/accelerate/commands/launch.py and
// src/accelerate/utils/dataclasses.py (DeepSpeedPlugin, FullyShardedDataParallelPlugin).
// The same keys are accepted as `accelerate launch` flags (launch.py takes the file's values as
// the flags' defaults).
#include <cctype>
#include <set>

#include "reading.hpp"

namespace trainmem::import_detail {

namespace {

constexpr const char* kAcc = "accelerate 1.15";

void read_offload_device(Reading& r, const std::string& k, const ConfigValue& v, const std::string& field) {
  auto d = string_value(v);
  if (d && (*d == "none" || *d == "cpu" || *d == "nvme")) r.read(field, *d, k);
  else r.error(error_code::unknown_value, k, "expected none, cpu or nvme, got " + v.summary());
}

void read_deepspeed_plugin(Reading& r, const std::string& prefix, const ConfigValue& ds) {
  const ConfigValue* stage_value = ds.find("zero_stage");
  const std::optional<std::int64_t> stage = stage_value ? integer_value(*stage_value) : std::nullopt;
  for (const auto& [name, v] : ds.as_object()) {
    const std::string k = prefix + name;
    if (name == "zero_stage") {
      auto given = typed<std::int64_t>(r, k, v, integer_value, "0, 1, 2 or 3");
      if (given && (*given < 0 || *given > 3)) r.error(error_code::out_of_range, k, "ZeRO stage must be 0-3, got " + v.summary());
      else if (given) r.read("parallel.zero_stage", *given, k);
    } else if (name == "offload_optimizer_device") {
      read_offload_device(r, k, v, "parallel.offload_optimizer");
    } else if (name == "offload_param_device") {
      read_offload_device(r, k, v, "parallel.offload_param");
    } else if (name == "gradient_accumulation_steps") {
      if (auto n = positive_integer(r, k, v)) r.read("batch.gradient_accumulation_steps", *n, k);
    } else if (name == "zero3_init_flag") {
      // deepspeed.zero.Init partitions weights as they are created; without it DeepSpeed's engine
      // first moves the whole model to each GPU (deepspeed/runtime/engine.py _configure_distributed_model).
      // With the stage in the DeepSpeed file the plugin names (no zero_stage here), off still means
      // every rank loads the whole model: at stage 3 as above, and at stages 0-2 anyway.
      auto b = boolean(r, k, v);
      if (b && stage == 3) r.read("model_loading", *b ? "meta_init" : "full_copy_per_gpu", k);
      else if (b && !*b && !stage_value) r.read("model_loading", "full_copy_per_gpu", k);
      else if (b) r.ignore(k, v, "applies with ZeRO stage 3 only (accelerate DeepSpeedPlugin.zero3_init_flag)");
    } else if (name == "deepspeed_config_file") {
      if (auto f = string_value(v)) r.named_files.emplace_back(*f, r.key(k));
      else r.error(error_code::wrong_type, k, "expected a file path, got " + v.summary());
    } else if (name == "gradient_clipping" || name == "deepspeed_multinode_launcher" || name == "zero3_save_16bit_model" ||
               name == "deepspeed_hostfile" || name == "deepspeed_exclusion_filter" || name == "deepspeed_inclusion_filter" ||
               name == "offload_optimizer_nvme_path" || name == "offload_param_nvme_path") {
      r.ignore(k, v, "no memory effect during the training step");
    } else if (name == "seq_parallel_communication_data_type") {
      r.unmodelled_key(k, v, "dtype of the Ulysses all-to-all buffers");
    } else if (name == "deepspeed_moe_layer_cls_names") {
      r.ignore(k, v, "names MoE layers for ZeRO-3 leaf modules");
    } else {
      r.ignore(k, v, std::string("not a key this reader maps; assumed without memory effect (") + kAcc + " DeepSpeedPlugin)");
    }
  }
}

// FSDP sharding strategy names and their torch enum values (torch/distributed/fsdp/api.py).
std::optional<std::pair<int, bool>> sharding_strategy(const ConfigValue& v) {
  std::string s;
  if (auto i = integer_value(v)) {
    const char* names[] = {"", "FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD", "HYBRID_SHARD", "HYBRID_SHARD_ZERO2"};
    if (*i < 1 || *i > 5) return std::nullopt;
    s = names[*i];
  } else if (auto t = string_value(v)) {
    s = upper(*t);
  }
  // (ZeRO stage equivalent, hybrid: shard within a node and replicate across nodes)
  if (s == "FULL_SHARD") return std::make_pair(3, false);
  if (s == "SHARD_GRAD_OP") return std::make_pair(2, false);
  if (s == "NO_SHARD") return std::make_pair(0, false);
  if (s == "HYBRID_SHARD") return std::make_pair(3, true);
  if (s == "HYBRID_SHARD_ZERO2") return std::make_pair(2, true);
  return std::nullopt;
}

void read_fsdp_plugin(Reading& r, const std::string& prefix, const ConfigValue& fsdp) {
  bool strategy_given = false;
  for (const auto& [name, v] : fsdp.as_object()) {
    const std::string k = prefix + name;
    if (name == "fsdp_sharding_strategy" || (name == "fsdp_reshard_after_forward" && !bool_value(v))) {
      // accelerate >= 1.6 also takes a FSDP1 strategy name under fsdp_reshard_after_forward.
      auto s = sharding_strategy(v);
      if (!s) {
        r.error(error_code::unknown_value, k, "expected FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, HYBRID_SHARD or HYBRID_SHARD_ZERO2, got " + v.summary());
        continue;
      }
      strategy_given = true;
      r.read("parallel.zero_stage", s->first, k);
      if (s->second) r.hybrid_shard_key = k;
    } else if (name == "fsdp_reshard_after_forward") {
      // FSDP2 (fsdp_version 2): False keeps the gathered parameters from forward to backward.
      strategy_given = true;
      const bool reshard = *bool_value(v);
      r.read("parallel.zero_stage", 3, k);
      r.read("parallel.reshard_after_forward", reshard, k);
    } else if (name == "fsdp_offload_params") {
      // FSDP CPUOffload(offload_params=True): parameters and gradients live on the CPU and the
      // optimizer steps there (torch/distributed/fsdp/api.py CPUOffload).
      if (auto b = boolean(r, k, v)) {
        r.read("parallel.offload_param", *b ? "cpu" : "none", k);
        r.read("parallel.offload_optimizer", *b ? "cpu" : "none", k);
      }
    } else if (name == "fsdp_activation_checkpointing") {
      if (auto b = boolean(r, k, v); b && *b) r.read("activation_checkpointing", "full", k);
      else if (b) r.ignore(k, v, "FSDP does not wrap layers for checkpointing; the trainer's gradient_checkpointing decides");
    } else if (name == "fsdp_version") {
      auto n = typed<std::int64_t>(r, k, v, integer_value, "1 or 2");
      if (n && (*n == 1 || *n == 2)) r.read("parallel.sharding_engine", *n == 2 ? "fsdp2" : "fsdp", k);
      else if (n) r.error(error_code::unknown_value, k, "expected 1 or 2, got " + v.summary());
    } else if (name == "fsdp_cpu_ram_efficient_loading") {
      if (auto b = boolean(r, k, v); b && *b) r.ignore(k, v, "only rank 0 reads the checkpoint: no extra host copies");
      else if (b) r.unmodelled_key(k, v, "every rank reads the whole checkpoint into host RAM at load: not in cpu_bytes_per_node yet");
    } else if (name == "fsdp_backward_prefetch" || name == "fsdp_forward_prefetch") {
      // Off: fsdp_forward_prefetch false (the default), fsdp_backward_prefetch NO_PREFETCH.
      const auto text = string_value(v);
      const auto flag = bool_value(v);
      if ((flag && !*flag) || (text && (*text == "NO_PREFETCH" || *text == "no_prefetch")))
        r.ignore(k, v, "off: no FSDP unit is gathered ahead");
      else
        r.unmodelled_key(k, v, "prefetching keeps one more gathered FSDP unit alive; the estimate assumes one unit in flight");
    } else if (name == "fsdp_use_orig_params") {
      // FSDP1's use_orig_params (torch/distributed/fsdp/fully_sharded_data_parallel.py): true lets a
      // wrapped unit mix frozen and trainable tensors, so one trainable tensor gives the whole unit
      // gradients; false flattens only tensors of one requires_grad. FSDP2 has no such flag.
      if (auto b = boolean(r, k, v)) r.read("parallel.use_orig_params", *b, k);
    } else if (name == "fsdp_auto_wrap_policy" || name == "fsdp_transformer_layer_cls_to_wrap" || name == "fsdp_min_num_params") {
      r.ignore(k, v, "the estimate takes one transformer block as the FSDP unit");
    } else if (name == "fsdp_state_dict_type" || name == "fsdp_sync_module_states") {
      r.ignore(k, v, "checkpoint format / start-up broadcast: no effect on the training step");
    } else {
      r.ignore(k, v, std::string("not a key this reader maps; assumed without memory effect (") + kAcc + " FullyShardedDataParallelPlugin)");
    }
  }
  if (!strategy_given)
    r.launcher_default("parallel.zero_stage", 3, std::string(kAcc) + " utils/dataclasses.py FullyShardedDataParallelPlugin: FULL_SHARD");
}

void read_parallelism(Reading& r, const std::string& prefix, const ConfigValue& p) {
  std::optional<std::int64_t> replicate, shard;
  for (const auto& [name, v] : p.as_object()) {
    const std::string k = prefix + name;
    const std::string n = name.rfind("parallelism_config_", 0) == 0 ? name.substr(19) : name;
    if (n == "tp_size") {
      if (auto i = positive_integer(r, k, v)) r.read("parallel.tensor_parallel_size", *i, k);
    } else if (n == "cp_size") {
      if (auto i = positive_integer(r, k, v)) r.read("parallel.context_parallel_size", *i, k);
    } else if (n == "sp_size") {
      if (auto i = positive_integer(r, k, v)) r.read("parallel.context_parallel_size", *i, k);
      r.unmodelled_key(k, v, "Ulysses sequence parallelism: parallel.context_parallel_kind is not in the document yet");
    } else if (n == "dp_replicate_size") {
      replicate = positive_integer(r, k, v);
    } else if (n == "dp_shard_size") {
      shard = positive_integer(r, k, v);
    } else {
      r.ignore(k, v, "backend choice: no memory effect modelled");
    }
  }
  // HSDP: shard within dp_shard_size ranks, replicate across dp_replicate_size groups.
  if (replicate && shard && *replicate > 1 && *shard > 1)
    r.read("parallel.sharding_group_size", *shard, prefix + "parallelism_config_dp_shard_size");
}

}  // namespace

namespace {
// An unquoted `distributed_type: NO` is YAML 1.1's false to the yaml.safe_load that accelerate
// reads its config with (commands/config/config_args.py load_config_from_file, 16cb6eb): no
// distributed type matches it in launch.py _validate_launch_command, so it launches as NO does.
std::string distributed_name(const ConfigValue& v) {
  if (v.is_bool() && !v.as_bool()) return "NO";
  const auto t = string_value(v);
  return t ? upper(*t) : "";
}
}  // namespace

bool accelerate_config_single_process(const ConfigValue& content) {
  const ConfigValue* d = content.is_object() ? content.find("distributed_type") : nullptr;
  return !d || distributed_name(*d) == "NO";
}

Reading read_accelerate_config(const std::string& file, const ConfigValue& content, const ShownKeys& shown_keys) {
  Reading r(file, "accelerate");
  r.shown_keys = shown_keys;
  std::optional<std::int64_t> processes, machines;
  std::string distributed = "NO";
  if (const ConfigValue* d = content.find("distributed_type")) distributed = distributed_name(*d);
  for (const auto& [name, v] : content.as_object()) {
    const std::string& k = name;
    if (name == "distributed_type") {
      distributed = distributed_name(v);
      // Who shards (parallel.sharding_engine); the trainer's file names the loop (framework).
      if (distributed == "DEEPSPEED") {
        r.read("parallel.sharding_engine", "deepspeed", k);
        r.launcher_default("framework", "deepspeed", std::string(kAcc) + ": no trainer file given; DeepSpeed's defaults");
      } else if (distributed == "FSDP") {
        const ConfigValue* fsdp = content.find("fsdp_config");
        const ConfigValue* version = fsdp ? fsdp->find("fsdp_version") : nullptr;
        const bool v2 = version && integer_value(*version) == std::int64_t{2};
        r.read("parallel.sharding_engine", v2 ? "fsdp2" : "fsdp", k);
        r.launcher_default("framework", "fsdp", std::string(kAcc) + ": no trainer file given; FSDP's defaults");
      } else if (distributed == "MULTI_GPU" || distributed == "NO") {
        r.launcher_default("framework", "hf_trainer", std::string(kAcc) + ": torch DistributedDataParallel with its defaults");
        r.read("parallel.zero_stage", 0, k);
        // NO: one process, whatever num_processes says (launch.py launch_command runs
        // simple_launcher unless the file or a flag picks a distributed type).
        if (distributed == "NO") {
          r.read("parallel.world_size", 1, k);
          r.read("parallel.gpus_per_node", 1, k);
        }
      } else if (distributed == "MEGATRON_LM") r.read("parallel.sharding_engine", "megatron", k);
      else r.unmodelled_key(k, v, "distributed type " + v.summary() + " (TPU, XPU, NPU, CPU back ends) is not modelled");
    } else if (name == "num_processes" && distributed == "NO" && content.find("distributed_type")) {
      r.ignore(k, v, "distributed_type NO: accelerate launch starts one process (launch.py launch_command, simple_launcher)");
    } else if (name == "num_processes") {
      auto n = whole_number(r, k, v);
      if (n && *n >= 1) { processes = n; r.read("parallel.world_size", *n, k); }
      // -1: config_args.py's placeholder for a count given at launch (launch.py refuses a config
      // that keeps it: "You need to manually pass in `--num_processes`").
      else if (n && *n == -1) r.unresolved_field("parallel.world_size", k, v, "-1: the process count is given at launch (e.g. by SLURM), not in the file");
      else if (n) r.error(error_code::out_of_range, k, "num_processes = " + std::to_string(*n) + ": at least 1 process (or -1, given at launch)",
                          {{"value", std::to_string(*n)}, {"min", 1.0}});
    } else if (name == "num_machines") {
      machines = positive_integer(r, k, v);
    } else if (name == "mixed_precision") {
      auto m = string_value(v);
      const std::string mp = m ? *m : "";
      if (mp == "bf16" || mp == "fp16") r.read_overridable("precision.compute_dtype", mp, k, "the HF Trainer's bf16/fp16 arguments take precedence");
      else if (mp == "no") r.read_overridable("precision.compute_dtype", "fp32", k, "the HF Trainer's bf16/fp16 arguments take precedence");
      else if (mp == "fp8") {
        r.read("precision.fp8_compute", true, k);
        r.read_overridable("precision.compute_dtype", "bf16", k, "FP8 matmuls with bf16 elsewhere");
      } else r.error(error_code::unknown_value, k, "expected no, fp16, bf16 or fp8, got " + v.summary());
      // With DeepSpeed, accelerate turns the same precision on in DeepSpeed's config, which casts
      // the weights (accelerate utils/dataclasses.py DeepSpeedPlugin.set_mixed_precision).
      if (distributed == "DEEPSPEED" && (mp == "bf16" || mp == "fp16"))
        r.engine_cast("precision.param_dtype", mp, k, "accelerate enables DeepSpeed's " + mp + ", which casts the model");
    } else if (name == "deepspeed_config" && v.is_object()) {
      read_deepspeed_plugin(r, k + ".", v);
    } else if (name == "fsdp_config" && v.is_object()) {
      read_fsdp_plugin(r, k + ".", v);
    } else if (name == "parallelism_config" && v.is_object()) {
      read_parallelism(r, k + ".", v);
    } else if (name == "dynamo_config" && v.is_object()) {
      const ConfigValue* backend = v.find("dynamo_backend");
      auto b = backend ? string_value(*backend) : std::nullopt;
      if (b) r.read("compile", upper(*b) != "NO", k + ".dynamo_backend");
      else r.ignore(k, v, "no dynamo_backend");
    } else if (name == "fp8_config") {
      r.unmodelled_key(k, v, "FP8 recipe details (Transformer Engine / MS-AMP): the estimate models fp8_compute only");
    } else if (name == "megatron_lm_config") {
      r.unmodelled_key(k, v, "accelerate's Megatron-LM plugin settings are not read");
    } else if (name == "use_cpu") {
      if (auto b = boolean(r, k, v); b && *b) r.unmodelled_key(k, v, "training on the CPU");
      else r.ignore(k, v, "GPU training");
    } else if (name == "compute_environment" || name == "debug" || name == "machine_rank" || name == "main_process_ip" ||
               name == "main_process_port" || name == "rdzv_backend" || name == "same_network" ||
               name == "main_training_function" || name == "gpu_ids" || name == "enable_cpu_affinity" ||
               name == "downcast_bf16" || name.rfind("tpu_", 0) == 0 || name == "commands" || name == "command_file" ||
               name == "mpirun_config" || name == "deepspeed_config" || name == "fsdp_config" ||
               name == "parallelism_config" || name == "dynamo_config") {
      r.ignore(k, v, "launcher setting without memory effect");
    } else {
      r.ignore(k, v, std::string("not a key this reader maps; assumed without memory effect (") + kAcc + " config_args.py)");
    }
  }
  if (processes && machines && *machines > 1) {
    if (*processes % *machines == 0) {
      r.read("parallel.gpus_per_node", *processes / *machines, "num_machines");
      // HYBRID_SHARD shards within a node and replicates across nodes (torch FSDP ShardingStrategy).
      if (!r.hybrid_shard_key.empty()) r.read("parallel.sharding_group_size", *processes / *machines, r.hybrid_shard_key);
    }
    else r.error(error_code::not_divisible, "num_machines", "num_processes = " + std::to_string(*processes) + " is not a multiple of num_machines = " + std::to_string(*machines));
  } else if (processes && (!machines || *machines == 1)) {
    r.read("parallel.gpus_per_node", *processes, "num_processes");
    if (machines) r.ignore("num_machines", *content.find("num_machines"), "one machine: all GPUs on one node");
  } else if (machines) {
    r.ignore("num_machines", *content.find("num_machines"),
             distributed == "NO" ? "distributed_type NO: one process on this machine (launch.py, simple_launcher)"
                                 : "without num_processes the GPUs per node are unknown");
  }
  if (!r.hybrid_shard_key.empty() && !processes)
    r.unresolved_key(r.hybrid_shard_key, "HYBRID_SHARD", "hybrid sharding groups are one node's GPUs: give num_processes and num_machines");
  return r;
}

bool accelerate_launch_argument(const std::string& key) {
  // The options of `accelerate launch` (launch.py launch_command_parser at 16cb6eb), dashes as '_'.
  static const std::set<std::string> arguments = {
      "aws_access_key_id", "aws_secret_access_key", "config_file", "cpu", "debug", "deepspeed_config_file",
      "deepspeed_exclusion_filter", "deepspeed_hostfile", "deepspeed_inclusion_filter",
      "deepspeed_moe_layer_cls_names", "deepspeed_multinode_launcher", "downcast_bf16", "dynamo_backend",
      "dynamo_mode", "dynamo_use_dynamic", "dynamo_use_fullgraph", "dynamo_use_regional_compilation",
      "enable_cpu_affinity", "env", "fp8_amax_compute_algo", "fp8_amax_history_len", "fp8_backend",
      "fp8_enable_fsdp_float8_all_gather", "fp8_format", "fp8_interval", "fp8_margin", "fp8_opt_level",
      "fp8_override_linear_precision", "fp8_pad_inner_dim", "fp8_use_autocast_during_eval",
      "fsdp_activation_checkpointing", "fsdp_auto_wrap_policy", "fsdp_backward_prefetch",
      "fsdp_cpu_ram_efficient_loading", "fsdp_forward_prefetch", "fsdp_min_num_params", "fsdp_offload_params",
      "fsdp_reshard_after_forward", "fsdp_sharding_strategy", "fsdp_state_dict_type", "fsdp_sync_module_states",
      "fsdp_transformer_layer_cls_to_wrap", "fsdp_use_orig_params", "fsdp_version", "gpu_ids",
      "gradient_accumulation_steps", "gradient_clipping", "log_dir", "machine_rank", "main_process_ip",
      "main_process_port", "main_training_function", "max_restarts", "megatron_lm_attention_backend",
      "megatron_lm_attention_dropout", "megatron_lm_attention_softmax_in_fp32",
      "megatron_lm_calculate_per_token_loss", "megatron_lm_context_parallel_size",
      "megatron_lm_decoder_last_pipeline_num_layers", "megatron_lm_eod_mask_loss",
      "megatron_lm_expert_model_parallel_size", "megatron_lm_expert_tensor_parallel_size",
      "megatron_lm_gradient_clipping", "megatron_lm_hidden_dropout", "megatron_lm_no_load_optim",
      "megatron_lm_no_save_optim", "megatron_lm_num_micro_batches", "megatron_lm_optimizer_cpu_offload",
      "megatron_lm_overlap_cpu_optimizer_d2h_h2d", "megatron_lm_pp_degree", "megatron_lm_recompute_activations",
      "megatron_lm_recompute_granularity", "megatron_lm_recompute_method", "megatron_lm_recompute_num_layers",
      "megatron_lm_sequence_parallelism", "megatron_lm_tp_degree", "megatron_lm_use_custom_fsdp",
      "megatron_lm_use_distributed_optimizer", "megatron_lm_use_precision_aware_optimizer",
      "megatron_lm_use_rotary_position_embeddings", "mixed_precision", "module", "monitor_interval",
      "mpirun_hostfile", "multi_gpu", "no_python", "no_tpu_cluster", "num_cpu_threads_per_process", "num_machines",
      "num_processes", "offload_optimizer_device", "offload_optimizer_nvme_path", "offload_param_device",
      "offload_param_nvme_path", "parallelism_config_cp_backend", "parallelism_config_cp_comm_strategy",
      "parallelism_config_cp_size", "parallelism_config_dp_replicate_size", "parallelism_config_dp_shard_size",
      "parallelism_config_sp_attn_implementation", "parallelism_config_sp_backend",
      "parallelism_config_sp_seq_length", "parallelism_config_sp_seq_length_is_variable",
      "parallelism_config_sp_size", "parallelism_config_tp_size", "quiet", "rdzv_backend", "rdzv_conf", "role",
      "same_network", "tee", "tpu", "tpu_cluster", "tpu_use_sudo", "use_deepspeed", "use_fsdp", "use_megatron_lm",
      "use_parallelism_config", "vm", "zero3_init_flag", "zero3_save_16bit_model", "zero_stage"};
  return arguments.count(key) > 0;
}

}  // namespace trainmem::import_detail
