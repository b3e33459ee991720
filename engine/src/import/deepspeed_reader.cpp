// DeepSpeed config JSON -> estimate document fields.
// Meanings and defaults: DeepSpeed v0.19.6 (deepspeedai/DeepSpeed edaa722),
// deepspeed/runtime/constants.py, deepspeed/runtime/config.py, deepspeed/runtime/zero/config.py,
// deepspeed/runtime/zero/offload_config.py; "auto" values are filled by the Hugging Face
// integration (transformers src/transformers/integrations/deepspeed.py, trainer_config_process).
#include <algorithm>
#include <cctype>
#include <iterator>

#include "reading.hpp"

namespace trainmem::import_detail {

namespace {

constexpr const char* kDs = "DeepSpeed v0.19.6";

// "auto" where the HF Trainer fills nothing: it fills the batch sizes, gradient clipping, the
// optimizer's and scheduler's parameters, fp16/bf16 and, for ZeRO, reduce_bucket_size,
// stage3_prefetch_bucket_size and stage3_param_persistence_threshold (transformers
// integrations/deepspeed.py HfTrainerDeepSpeedConfig.trainer_config_process and
// trainer_config_finalize), and DeepSpeed's own config refuses the word.
constexpr const char* kAutoNotFilled =
    "\"auto\" is not filled here: the HF Trainer fills batch sizes, gradient clipping, optimizer and scheduler parameters, "
    "fp16/bf16 and the ZeRO buckets (transformers integrations/deepspeed.py), and DeepSpeed refuses the word";
const Params kAutoParams{{"expected", "integer"}, {"got", "string"}, {"value", "\"auto\""}};

// "auto": the HF Trainer / accelerate fills the value from its own arguments.
bool note_auto(Reading& r, const std::string& key, const ConfigValue& v, const std::string& field) {
  if (!is_auto(v)) return false;
  r.autos.push_back({field, ImportNote{r.key(key), "\"auto\": the HF Trainer fills it from its own arguments (transformers integrations/deepspeed.py); no file given says " + field, v}});
  return true;
}

// Every key DeepSpeedZeroConfig accepts, by field name or alias (populate_by_name=True):
// deepspeed/runtime/zero/config.py at v0.19.6. Its base class forbids any other key
// (deepspeed/runtime/config_utils.py, DeepSpeedConfigModel: extra="forbid"), so DeepSpeed refuses
// a misspelt one; the import does too rather than read the section without it.
constexpr const char* kZeroKeys[] = {
    "stage", "contiguous_gradients", "reduce_scatter", "reduce_bucket_size", "use_multi_rank_bucket_allreduce",
    "allgather_partitions", "allgather_bucket_size", "overlap_comm", "load_from_fp32_weights", "elastic_checkpoint",
    "offload_param", "offload_optimizer", "zenflow", "sub_group_size", "cpu_offload_param", "cpu_offload_use_pin_memory",
    "cpu_offload", "prefetch_bucket_size", "stage3_prefetch_bucket_size", "param_persistence_threshold",
    "stage3_param_persistence_threshold", "model_persistence_threshold", "stage3_model_persistence_threshold",
    "max_live_parameters", "stage3_max_live_parameters", "max_reuse_distance", "stage3_max_reuse_distance",
    "gather_16bit_weights_on_model_save", "stage3_gather_16bit_weights_on_model_save", "module_granularity_threshold",
    "stage3_module_granularity_threshold", "use_all_reduce_for_fetch_params", "stage3_use_all_reduce_for_fetch_params",
    "allgather_sequential", "stage3_allgather_sequential", "stage3_gather_fp16_weights_on_model_save",
    "ignore_unused_parameters", "legacy_stage1", "round_robin_gradients", "zero_hpz_partition_size",
    "zero_quantized_weights", "zero_quantized_nontrainable_weights", "zero_quantized_gradients", "zeropp_loco_param",
    "mics_shard_size", "mics_hierarchical_params_gather", "memory_efficient_linear", "pipeline_loading_checkpoint",
    "override_module_apply", "log_trace_cache_warnings", "enable_sanity_checks", "save_muon_momentum_buffer_in_memory",
    "leaf_module"};

bool is_zero_key(const std::string& k) {
  return std::find(std::begin(kZeroKeys), std::end(kZeroKeys), k) != std::end(kZeroKeys);
}

void read_offload(Reading& r, const std::string& key, const ConfigValue& v, const std::string& field) {
  if (!v.is_object()) {
    r.error(error_code::wrong_type, key, "expected an object {\"device\": \"cpu\" | \"nvme\" | \"none\"}, got " + v.summary());
    return;
  }
  for (const auto& [k, sub] : v.as_object()) {
    const std::string sub_key = key + "." + k;
    if (k == "device") {
      auto device = string_value(sub);
      const std::string d = device ? lower(*device) : "";
      if (d == "cpu" || d == "nvme" || d == "none") r.read(field, d, sub_key);
      else r.error(error_code::unknown_value, sub_key, "expected \"cpu\", \"nvme\" or \"none\", got " + sub.summary());
    } else if (k == "pin_memory") {
      r.unmodelled_key(sub_key, sub, "pinned host buffers: host RAM, not GPU memory; not in cpu_bytes_per_node yet");
    } else if (k == "nvme_path") {
      r.ignore(sub_key, sub, "where NVMe offload writes");
    } else {
      r.unmodelled_key(sub_key, sub, "offload buffer tuning (" + std::string(kDs) + " zero/offload_config.py)");
    }
  }
}

void read_zero(Reading& r, const std::string& key, const ConfigValue& zero) {
  // The deprecated boolean form (deepspeed/runtime/zero/config.py read_zero_config_deprecated at
  // edaa722): true is stage 1, false stage 0.
  if (const auto on = bool_value(zero)) {
    r.read("parallel.zero_stage", static_cast<std::int64_t>(*on ? 1 : 0), key);
    return;
  }
  if (!zero.is_object()) {
    r.error(error_code::wrong_type, key, "expected an object or true/false, got " + zero.summary());
    return;
  }
  bool stage_given = false;
  // offload_param is "valid only with stage 3" (deepspeed/runtime/zero/config.py at edaa722): only
  // the stage-3 paths of runtime/engine.py _configure_zero_optimizer pass it on, so a file that
  // states a lower stage runs without it.
  const ConfigValue* stated = zero.find("stage");
  const std::optional<std::int64_t> stage_stated = stated ? integer_value(*stated) : std::nullopt;
  const bool below_3 = stage_stated && *stage_stated >= 0 && *stage_stated < 3;
  for (const auto& [k, v] : zero.as_object()) {
    const std::string sub = key + "." + k;
    if (below_3 && (k == "offload_param" || k == "cpu_offload_param")) {
      r.ignore(sub, v, "valid only with ZeRO stage 3 (zero/config.py); stage " + std::to_string(*stage_stated) + " runs without it");
      continue;
    }
    if (k == "stage") {
      stage_given = true;
      if (is_auto(v)) {
        r.error(error_code::wrong_type, sub, std::string(kAutoNotFilled) + ": give 0, 1, 2 or 3", kAutoParams);
        continue;
      }
      auto stage = typed<std::int64_t>(r, sub, v, integer_value, "0, 1, 2 or 3");
      if (stage && (*stage < 0 || *stage > 3)) r.error(error_code::out_of_range, sub, "ZeRO stage must be 0-3, got " + v.summary());
      else if (stage) r.read("parallel.zero_stage", *stage, sub);
    } else if (k == "offload_optimizer") {
      read_offload(r, sub, v, "parallel.offload_optimizer");
    } else if (k == "offload_param") {
      read_offload(r, sub, v, "parallel.offload_param");
    } else if (k == "cpu_offload") {  // deprecated alias of offload_optimizer.device = cpu
      if (auto b = boolean(r, sub, v)) r.read("parallel.offload_optimizer", *b ? "cpu" : "none", sub);
    } else if (k == "cpu_offload_param") {
      if (auto b = boolean(r, sub, v)) r.read("parallel.offload_param", *b ? "cpu" : "none", sub);
    } else if (k == "stage3_max_live_parameters" || k == "max_live_parameters") {
      if (is_auto(v)) {
        r.error(error_code::wrong_type, sub, std::string(kAutoNotFilled) + ": give a number of parameters", kAutoParams);
        continue;
      }
      if (auto n = whole_number(r, sub, v); n && *n < 0) r.error(error_code::out_of_range, sub, "must be at least 0, got " + v.summary());
      else if (n) r.read("parallel.zero3_max_live_parameters", *n, sub);
    } else if (k == "overlap_comm") {
      // Reduces (and, at ZeRO-3, gathers) under the backward and forward passes, with a second
      // reduce bucket at ZeRO-1/2 (stage_1_and_2.py); default True at ZeRO-3 only (zero/config.py).
      if (auto b = boolean(r, sub, v)) r.read("parallel.overlap_grad_reduce", *b, sub);
    } else if (k == "mics_shard_size") {
      // MiCS shards every state within groups of this many ranks and replicates across them.
      auto n = whole_number(r, sub, v);
      if (n && *n > 0) r.read("parallel.sharding_group_size", *n, sub);
      else if (n) r.ignore(sub, v, "MiCS off (-1, the default)");
    } else if (!is_zero_key(k)) {
      const std::string near = closest_match(k, std::vector<std::string>(std::begin(kZeroKeys), std::end(kZeroKeys)));
      r.error(error_code::unknown_field, sub,
              "not a ZeRO setting; DeepSpeed refuses unknown keys here (" + std::string(kDs) + " zero/config.py)" +
                  (near.empty() ? "" : "; did you mean \"" + near + "\"?"));
    } else if (k == "reduce_bucket_size" || k == "allgather_bucket_size" || k == "stage3_prefetch_bucket_size" ||
               k == "stage3_param_persistence_threshold" || k == "contiguous_gradients" ||
               k == "sub_group_size" || k == "stage3_max_reuse_distance" || k == "zero_hpz_partition_size" ||
               k == "zero_quantized_weights" || k == "zero_quantized_gradients" || k == "round_robin_gradients" ||
               k == "stage3_model_persistence_threshold" || k == "reduce_scatter" || k == "allgather_partitions" ||
               k == "use_multi_rank_bucket_allreduce" || k == "zero_quantized_nontrainable_weights" ||
               k == "stage3_module_granularity_threshold" || k == "memory_efficient_linear") {
      r.unmodelled_key(sub, v, std::string("communication buckets / partitioning detail: the estimate assumes ") + kDs +
                                   " zero/config.py defaults (reduce and all-gather buckets 5e8 elements, prefetch 5e7), or under the"
                                   " HF Trainer its \"auto\" fill (reduce hidden_size^2, ZeRO-3 prefetch 0.9 hidden_size^2)");
    } else if (k == "stage3_gather_16bit_weights_on_model_save" || k == "stage3_gather_fp16_weights_on_model_save") {
      r.ignore(sub, v, "gathers 16-bit weights when saving a model, outside the training step");
    } else {
      r.ignore(sub, v, std::string("no memory effect known (") + kDs + " zero/config.py)");
    }
  }
  if (!stage_given) r.launcher_default("parallel.zero_stage", 0, std::string(kDs) + " zero/config.py stage = 0");
}

// Whether the section turns its dtype on (or leaves it to the HF Trainer, "auto"): DeepSpeed's
// "enabled" defaults to false (runtime/precision_config.py), so a section without it, or with it
// false, leaves the model in fp32 unless the other dtype's section is on.
bool read_precision_section(Reading& r, const std::string& k, const ConfigValue& v, const char* dtype) {
  if (!v.is_object()) {
    r.error(error_code::wrong_type, k, "expected an object {\"enabled\": ...}, got " + v.summary());
    return true;
  }
  bool stated = false;
  for (const auto& [name, sub] : v.as_object()) {
    const std::string key = k + "." + name;
    if (name == "enabled") {
      if (is_auto(sub)) {
        stated = true;
        r.auto_casts.push_back({dtype, ImportNote{r.key(key), std::string("\"auto\": the HF Trainer sets it from its ") + dtype +
                                                                   " argument (transformers integrations/deepspeed.py); no file given says whether " + dtype + " is on", sub}});
        continue;
      }
      auto on = boolean(r, key, sub);
      if (on) r.deepspeed_precision.push_back({dtype, *on, r.key(key)});
      if (!on || *on) stated = true;
      if (on && *on) {
        r.engine_cast("precision.param_dtype", dtype, key, "DeepSpeed casts the model to this dtype");
        r.read("precision.compute_dtype", dtype, key);
      } else if (on) {
        r.ignore(key, sub, "off");
      }
    } else if (name == "bf16_master_weights_and_grads") {
      if (auto on = boolean(r, key, sub); on && *on) {
        r.read("precision.master_weights", false, key);
        r.read("precision.grad_dtype", "bf16", key);
      }
    } else if (name == "bf16_optimizer_states") {
      if (auto on = boolean(r, key, sub); on && *on) r.read("precision.optimizer_state_dtype", "bf16", key);
    } else if (name == "auto_cast") {
      // runtime/engine.py (v0.19.5): with fp16 on, _configure_distributed_model casts the
      // parameters to fp16 either way; auto_cast only casts the forward's inputs (_cast_inputs_half).
      r.ignore(key, sub, "casts the forward's floating-point inputs to fp16; the weights are cast either way");
    } else {
      r.ignore(key, sub, "loss scaling settings: no memory effect");
    }
  }
  return stated;
}

void read_optimizer(Reading& r, const std::string& k, const ConfigValue& v) {
  const ConfigValue* type = v.find("type");
  if (!type) {
    r.ignore(k, v, "no optimizer type: the training script's optimizer is used");
    return;
  }
  auto name = string_value(*type);
  const std::string t = name ? lower(*name) : "";
  bool adam_w_mode = true;  // deepspeed/ops/adam/fused_adam.py adam_w_mode=True
  if (const ConfigValue* params = v.find("params")) {
    if (const ConfigValue* w = params->find("adam_w_mode"); w && !is_auto(*w)) adam_w_mode = bool_value(*w).value_or(true);
    r.ignore(k + ".params", *params, "learning rate, betas and weight decay: no memory effect");
  }
  if (t == "adam" || t == "adamw") {
    r.read("precision.optimizer", t == "adam" && !adam_w_mode ? "adam" : "adamw", k + ".type");
  } else if (t == "lion") {
    r.read("precision.optimizer", "lion", k + ".type");
  } else if (t == "sgd") {
    r.read("precision.optimizer", "sgd", k + ".type");
  } else if (!t.empty()) {
    r.unmodelled_key(k + ".type", *type, "optimizer \"" + *name + "\" has no estimate value (adamw, adam, lion, sgd, adafactor, 8-bit AdamW are modelled)");
  } else {
    r.error(error_code::wrong_type, k + ".type", "expected an optimizer name, got " + type->summary());
  }
}

}  // namespace

Reading read_deepspeed_config(const std::string& file, const ConfigValue& content, const std::string& prefix) {
  Reading r(file, "deepspeed");
  // DeepSpeed's engine shards and reduces, also when the HF Trainer drives the loop; alone, the
  // file means DeepSpeed's own training loop.
  r.read_from_kind("parallel.sharding_engine", "deepspeed", "a DeepSpeed config: DeepSpeed's engine shards and reduces");
  r.launcher_default("framework", "deepspeed", "a DeepSpeed config without a trainer's file: DeepSpeed's own loop");
  bool precision_given = false;
  std::optional<std::int64_t> micro;
  for (const auto& [name, v] : content.as_object()) {
    const std::string k = prefix + name;
    if (name == "train_micro_batch_size_per_gpu") {
      if (note_auto(r, k, v, "batch.micro_batch_size")) continue;
      if ((micro = positive_integer(r, k, v))) r.read("batch.micro_batch_size", *micro, k);
    } else if (name == "gradient_accumulation_steps") {
      if (note_auto(r, k, v, "batch.gradient_accumulation_steps")) continue;
      if (auto n = positive_integer(r, k, v)) r.read("batch.gradient_accumulation_steps", *n, k);
    } else if (name == "train_batch_size") {
      if (is_auto(v)) { r.ignore(k, v, "\"auto\": the HF integration sets micro-batch x accumulation x GPUs"); continue; }
      if (auto tb = positive_integer(r, k, v)) r.train_batch = Reading::TrainBatch{*tb, k};
    } else if (name == "fp16") {
      precision_given |= read_precision_section(r, k, v, "fp16");
    } else if (name == "bf16" || name == "bfloat16") {
      precision_given |= read_precision_section(r, k, v, "bf16");
    } else if (name == "zero_optimization") {
      read_zero(r, k, v);
    } else if (name == "optimizer") {
      read_optimizer(r, k, v);
    } else if (name == "data_types") {
      const ConfigValue* grad = v.find("grad_accum_dtype");
      auto d = grad ? string_value(*grad) : std::nullopt;
      if (d && (*d == "fp32" || *d == "fp16" || *d == "bf16")) r.read("precision.grad_dtype", *d, k + ".grad_accum_dtype");
      else r.ignore(k, v, "no grad_accum_dtype given");
    } else if (name == "tensor_parallel") {
      const ConfigValue* tp = v.find("autotp_size");
      if (tp && !is_auto(*tp)) {
        if (auto n = positive_integer(r, k + ".autotp_size", *tp)) r.read("parallel.tensor_parallel_size", *n, k + ".autotp_size");
      } else {
        r.ignore(k, v, "no autotp_size given");
      }
    } else if (name == "sequence_parallel_size") {
      // Ulysses sequence parallelism (DeepSpeed's all-to-all over heads): split sequences across ranks.
      if (auto n = positive_integer(r, k, v)) r.read("parallel.context_parallel_size", *n, k);
      r.unmodelled_key(k, v, "Ulysses (all-to-all) context parallelism: parallel.context_parallel_kind is not in the document yet");
    } else if (name == "activation_checkpointing") {
      r.unmodelled_key(k, v, "DeepSpeed activation checkpointing (partition_activations, cpu_checkpointing) applies to models that call deepspeed.checkpointing; the document's activation_checkpointing comes from the trainer");
    } else if (name == "communication_data_type" || name == "amp" || name == "compile" || name == "aio" ||
               name == "pipeline" || name == "sparse_gradients" || name == "prescale_gradients" ||
               name == "gradient_predivide_factor") {
      r.unmodelled_key(k, v, std::string("affects memory, not modelled yet (") + kDs + " runtime/config.py)");
    } else if (name == "scheduler" || name == "gradient_clipping" || name == "steps_per_print" ||
               name == "wall_clock_breakdown" || name == "zero_allow_untested_optimizer" ||
               name == "zero_force_ds_cpu_optimizer" || name == "tensorboard" || name == "wandb" ||
               name == "csv_monitor" || name == "comet" || name == "flops_profiler" || name == "comms_logger" ||
               name == "dump_state" || name == "checkpoint" || name == "memory_breakdown" || name == "logging" ||
               name == "seed" || name == "dataloader_drop_last") {
      r.ignore(k, v, "no memory effect");
    } else {
      r.ignore(k, v, std::string("not a key this reader maps; assumed without memory effect (") + kDs + ")");
    }
  }
  if (!precision_given)
    r.launcher_default("precision.param_dtype", "fp32", std::string(kDs) + " runtime/precision_config.py: fp16 and bf16 enabled default to false -> fp32 training");
  for (const char* dtype : {"bf16", "fp16"})
    if (!content.find(dtype) && !(std::string(dtype) == "bf16" && content.find("bfloat16"))) r.deepspeed_precision.push_back({dtype, std::nullopt, file});
  if (!micro && !r.train_batch && !content.find("train_micro_batch_size_per_gpu"))
    r.unresolved_key("train_micro_batch_size_per_gpu", nullptr, "neither train_batch_size nor train_micro_batch_size_per_gpu is given; DeepSpeed needs one of them");
  return r;
}

}  // namespace trainmem::import_detail
