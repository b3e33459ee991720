// The accelerate configs TRL ships for its CLI (`trl sft --accelerate_config zero3`): the files
// trl/accelerate_configs/{fsdp1,fsdp2,multi_gpu,single_gpu,zero1,zero2,zero3}.yaml at
// huggingface/trl f2cd577, each key and value as written there. trl/cli/accelerate_config.py
// (resolve_accelerate_config_argument) passes the file to `accelerate launch --config_file`, unless
// the name is a path to a file of the user's own.
#include "reading.hpp"

namespace trainmem::import_detail {

namespace {

// The keys every one of the seven files states alike.
ConfigValue::Object common_keys() {
  return {{"compute_environment", "LOCAL_MACHINE"},
          {"debug", false},
          {"downcast_bf16", "no"},
          {"machine_rank", 0},
          {"main_training_function", "main"},
          {"mixed_precision", "bf16"},
          {"num_machines", 1},
          {"num_processes", 8},
          {"rdzv_backend", "static"},
          {"same_network", true},
          {"tpu_env", ConfigValue::array()},
          {"tpu_use_cluster", false},
          {"tpu_use_sudo", false},
          {"use_cpu", false}};
}

ConfigValue::Object zero_plugin(int stage) {
  ConfigValue::Object ds{{"deepspeed_multinode_launcher", "standard"}};
  if (stage == 1) ds.emplace_back("gradient_accumulation_steps", 1);
  if (stage >= 2) {
    ds.emplace_back("offload_optimizer_device", "none");
    ds.emplace_back("offload_param_device", "none");
  }
  ds.emplace_back("zero3_init_flag", stage == 3);
  if (stage == 3) ds.emplace_back("zero3_save_16bit_model", true);
  ds.emplace_back("zero_stage", stage);
  return ds;
}

ConfigValue::Object fsdp_plugin(int version) {
  ConfigValue::Object f{{"fsdp_activation_checkpointing", false}, {"fsdp_auto_wrap_policy", "TRANSFORMER_BASED_WRAP"}};
  if (version == 1) f.emplace_back("fsdp_backward_prefetch", "BACKWARD_PRE");
  f.emplace_back("fsdp_cpu_ram_efficient_loading", true);
  if (version == 1) f.emplace_back("fsdp_forward_prefetch", true);
  f.emplace_back("fsdp_offload_params", false);
  f.emplace_back("fsdp_reshard_after_forward", version == 1 ? ConfigValue("FULL_SHARD") : ConfigValue(true));
  f.emplace_back("fsdp_state_dict_type", "FULL_STATE_DICT");
  if (version == 1) {
    f.emplace_back("fsdp_sync_module_states", true);
    f.emplace_back("fsdp_use_orig_params", true);
  }
  f.emplace_back("fsdp_version", version);
  return f;
}

}  // namespace

std::optional<ConfigValue> trl_accelerate_config(const std::string& name) {
  ConfigValue::Object keys = common_keys();
  if (name == "zero1" || name == "zero2" || name == "zero3") {
    keys.emplace_back("distributed_type", "DEEPSPEED");
    keys.emplace_back("deepspeed_config", zero_plugin(name.back() - '0'));
  } else if (name == "fsdp1" || name == "fsdp2") {
    keys.emplace_back("distributed_type", "FSDP");
    keys.emplace_back("enable_cpu_affinity", false);
    keys.emplace_back("fsdp_config", fsdp_plugin(name.back() - '0'));
  } else if (name == "multi_gpu" || name == "single_gpu") {
    keys.emplace_back("distributed_type", name == "multi_gpu" ? "MULTI_GPU" : "NO");
    keys.emplace_back("gpu_ids", "all");
  } else {
    return std::nullopt;
  }
  return ConfigValue(std::move(keys));
}

}  // namespace trainmem::import_detail
