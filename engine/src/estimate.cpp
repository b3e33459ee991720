#include "trainmem/estimate.hpp"

#include <algorithm>
#include <cmath>

namespace trainmem {

namespace {
// JavaScript numbers are exact integers only up to 2^53.
constexpr double kMaxExactJsInteger = 9007199254740992.0;
// DeepSpeed's additional_buffer_factor for host memory of offloaded states (stage3.py estimators).
constexpr double kHostBufferFactor = 1.5;
// Per-rank trainer metadata in a checkpoint: scheduler, RNG and dataloader state
// (HF Trainer rng_state_<rank>.pth ~ 15 KB, scheduler.pt and trainer_state.json a few KB).
constexpr double kCheckpointMetadataBytesPerRank = 16.0 * 1024;

void warn_if_inexact(std::vector<Warning>& w, const char* field, double bytes) {
  if (bytes > kMaxExactJsInteger)
    w.push_back({"above_2_53", std::string(field) + " exceeds 2^53 bytes: JavaScript shows it rounded"});
}
}  // namespace

Estimate estimate(const TrainingSetup& s) {
  Estimate e;
  e.parameters = count_parameters(s);
  e.active_parameters = s.model.architecture ? s.model.architecture->active_params() : e.parameters.total;
  e.data_parallel_size = s.parallel.data_parallel_size;
  // Global batch (the seed, "Gradient Accumulation 与 Micro-batch"): B_global = B_micro x D x G.
  e.global_batch_size = s.batch.micro_batch_size * s.parallel.data_parallel_size * s.batch.gradient_accumulation_steps;
  e.precision = resolve_precision(s.precision, s.framework);
  const Architecture* arch = s.model.architecture ? &*s.model.architecture : nullptr;
  e.bytes_per_param = trainable_bytes_per_param(e.precision, arch);

  const ModelStates states = model_states(s, e.precision);
  e.per_gpu.parameters = states.gpu.parameters;
  e.per_gpu.gradients = states.gpu.gradients;
  e.per_gpu.optimizer_states = states.gpu.optimizer_states;
  e.per_gpu.model_states = states.gpu.total();

  // Offloaded states: host RAM per node (all of the node's ranks), or NVMe for the whole job.
  const double ranks_per_node = static_cast<double>(std::min(s.parallel.world_size, s.parallel.gpus_per_node));
  const double offloaded = states.offloaded.total();
  const bool to_nvme = s.parallel.offload_optimizer == OffloadTarget::nvme || s.parallel.offload_param == OffloadTarget::nvme;
  if (to_nvme) {
    e.nvme_bytes = offloaded * static_cast<double>(s.parallel.world_size);
  } else {
    e.cpu_bytes_per_node = offloaded * ranks_per_node * kHostBufferFactor;
  }

  // Checkpoint (the seed, "Checkpoint 与磁盘存储"): M = N (b_p + b_o) + metadata.
  const double total_params = static_cast<double>(e.parameters.total);
  const double trainable = static_cast<double>(e.parameters.trainable);
  const double frozen = std::max(0.0, total_params - trainable + static_cast<double>(e.parameters.adapter));
  e.checkpoint.inference_weights_bytes = total_params * dtype_bytes(e.precision.param_dtype);
  e.checkpoint.training_state_bytes = (frozen - static_cast<double>(e.parameters.adapter)) * dtype_bytes(e.precision.param_dtype) +
                                      trainable * (e.bytes_per_param.param + e.bytes_per_param.optimizer) +
                                      kCheckpointMetadataBytesPerRank * static_cast<double>(s.parallel.world_size);
  if (s.method == Method::lora || s.method == Method::qlora)
    e.checkpoint.adapter_bytes = static_cast<double>(e.parameters.adapter) * dtype_bytes(s.lora.adapter_dtype);

  if (s.gpu) {
    e.gpu_capacity_bytes = static_cast<double>(s.gpu->usable_bytes.value_or(s.gpu->memory_bytes));
    if (e.per_gpu.peak) {
      e.fits = *e.per_gpu.peak <= *e.gpu_capacity_bytes;
    } else if (e.per_gpu.model_states > *e.gpu_capacity_bytes) {
      e.fits = false;  // the lower bound alone does not fit
    }
  }

  warn_if_inexact(e.warnings, "per_gpu.model_states", e.per_gpu.model_states);
  warn_if_inexact(e.warnings, "checkpoint.training_state_bytes", e.checkpoint.training_state_bytes);
  if (!arch)
    e.warnings.push_back({"model_states_only",
                          "only a parameter count was given: activations, buffers and the peak need an architecture "
                          "(model.preset or model.hf_config); the figures are the model-state lower bound"});
  return e;
}

}  // namespace trainmem
