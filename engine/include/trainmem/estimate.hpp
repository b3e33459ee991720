// The estimate: a TrainingSetup in, the output document (docs/api.md, "Output") out.
// Every byte count is in bytes, for the most loaded GPU unless a name says otherwise. A value that
// cannot be known from the input (activations without an architecture) is empty, never 0.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trainmem/checkpoint.hpp"
#include "trainmem/errors.hpp"
#include "trainmem/model_states.hpp"
#include "trainmem/step_timeline.hpp"
#include "trainmem/training_setup.hpp"

namespace trainmem {

// A coded message: a warning of an estimate, or a reason of a solve (message_codes.hpp lists the
// codes and their params).
struct Warning {
  std::string code;
  std::string message;
  Params params{};  // the values the message names (params.hpp); empty where a message names none
};

struct PhasePeaks {  // peak allocated bytes within each phase of a step
  double load = 0, forward = 0, backward = 0, optimizer_step = 0;
};

struct PerGpu {
  double parameters = 0, gradients = 0, optimizer_states = 0, model_states = 0;
  std::optional<double> activations;
  std::optional<double> temporary_buffers;
  std::optional<double> peak_allocated;  // tensors only: torch.cuda.max_memory_allocated
  std::optional<double> peak_reserved;   // + caching-allocator fragmentation
  std::optional<double> peak;            // + CUDA context: what must fit in the device
  std::optional<PhasePeaks> phases;
  // Parts of the above that the explanations show.
  std::optional<double> fragmentation;  // peak_reserved - peak_allocated: the allocator terms below
  // The caching allocator's reserve (allocator.hpp): rounding of live tensors, and cached blocks
  // that later requests could not reuse (the reserve grew while freed blocks sat cached).
  std::optional<double> allocator_rounding;
  std::optional<double> allocator_cache;
  // Of allocator_cache, an earlier and shorter batch's blocks still whole at the peak (batches of
  // varying length: allocator.hpp, LongerBatch::releasable): reserved while memory is ample, freed
  // when a cudaMalloc fails, so the band's low end leaves them out. Not in the output document.
  std::optional<double> allocator_releasable;
  // An uncertainty term for the band, not part of peak_reserved: overhead.fragmentation_fraction x
  // peak_allocated (what the rules above do not model: interleaved frees, lazily created state).
  std::optional<double> allocator_uncertainty;
  std::optional<double> cuda_context;
  // Transformer Engine's userbuffers under parallel.tp_comm_overlap (userbuffers.hpp): registered
  // outside the caching allocator, so part of peak only. Empty when there are none.
  std::optional<double> userbuffers;
  std::string peak_phase;           // the phase whose peak is peak_allocated
  std::size_t pipeline_stage = 0;   // the stage of the most loaded GPU
  std::optional<double> paged_optimizer_states;  // in CUDA unified memory, outside the allocator
  std::optional<double> paged_device_resident;   // the part that stays on the GPU (room left after the peak)
  std::optional<double> paged_host_resident;     // the part paged out to host RAM
  std::optional<double> activations_per_layer;    // saved bytes of one layer (first layer group)
  // The temporary buffers alive in every phase from setup on (DDP's bucket copy of the gradients,
  // DeepSpeed ZeRO-3's reduce bucket: transient_buffers.hpp), bytes; part of temporary_buffers.
  double persistent_buffers = 0;
};

// One model of a multi-model (RLHF) job, per GPU, bytes.
struct ModelBudget {
  std::string role;  // policy, reference, reward, critic
  double parameters = 0, gradients = 0, optimizer_states = 0, model_states = 0;
  double activations = 0;  // saved for backward (trainable models)
  double transient = 0;    // its own peak working set above its model states and activations
  double persistent = 0;   // the part of `transient` alive in every phase (PerGpu::persistent_buffers)
  // The part of model_states alive only while this model computes (DeepSpeed ZeRO-3's gathered
  // module and its gradient, Estimate::gathered_module_bytes).
  double computing_only = 0;
};

// How one component was computed, with the setup's own numbers (shown beside each result).
struct Explanation {
  std::string component;  // parameters, gradients, optimizer_states, activations, temporary_buffers, ...
  std::string formula;    // e.g. "8,030,261,248 params x 2 B / 8 GPUs = 2,007,565,312 B"
  std::string source;     // where the formula comes from
};

struct Estimate {
  ParameterCounts parameters;
  std::int64_t active_parameters = 0;
  std::int64_t global_batch_size = 0;  // micro_batch_size x D x gradient_accumulation_steps
  std::int64_t data_parallel_size = 1;
  ResolvedPrecision precision;
  BytesPerParam bytes_per_param;
  PerGpu per_gpu;
  double cpu_bytes_per_node = 0;
  double nvme_bytes = 0;
  CheckpointBudget checkpoint;
  std::optional<bool> cpu_ram_fits;  // cpu_bytes_per_node <= checkpoint.node_ram_bytes
  std::optional<bool> fits;
  std::optional<double> gpu_capacity_bytes;  // what the peak is compared with
  std::vector<ModelBudget> per_gpu_models;    // RLHF only
  std::optional<double> rollout_kv_cache_bytes;  // RLHF generation on the training GPUs
  std::optional<double> rollout_vllm_bytes;      // colocated vLLM's share of the device (weights + KV cache pool)
  // Of rollout_vllm_bytes, what peak_allocated holds (0 where vLLM sleeps through the peak): one
  // block of a size the document states, so no relative error or allocator share applies to it.
  double rollout_vllm_in_peak_bytes = 0;
  // The most loaded GPU's parameters before ZeRO sharding, and the sharding degree D.
  double gpu_parameters = 0, gpu_trainable_parameters = 0, sharding_degree = 1;
  // Of those, the routed-expert parameters (sharded over D / EP).
  double gpu_expert_parameters = 0, gpu_expert_trainable_parameters = 0;
  // Of those, the frozen linear weights QLoRA stores quantized (0 for other methods).
  double gpu_quantized_weights = 0;
  // Of per_gpu.parameters and gradients, DeepSpeed ZeRO-3's gathered largest module and its
  // gradient, bytes (ModelStateBytes::gathered_module_parameters).
  double gathered_module_bytes = 0, gathered_module_gradient_bytes = 0;
  // The most loaded GPU's parameter shard offloaded to the host (ZeRO-3 offload_param), bytes.
  double offloaded_parameter_bytes = 0;
  double layers_on_gpu = 0, micro_batches_in_flight = 1;
  // Filled only for EstimateDetail::step (the output document); empty otherwise, for RLHF, and
  // (timeline, peak_breakdown) without an architecture. step_timeline.hpp.
  std::vector<StageBudget> pipeline_stages;   // one per pipeline stage, in stage order
  std::vector<TimelinePoint> timeline;        // one step on the most loaded GPU
  std::vector<PeakComponent> peak_breakdown;  // what is alive at its peak
};

// What estimate() computes: the peaks (what the searches need), or also the step in detail
// (pipeline_stages, timeline, peak_breakdown) for the output document.
enum class EstimateDetail { peaks, step };

// Checks the setup for contradictions the document parser cannot see on its own (divisibility,
// world size vs parallel sizes, ranges). Empty when valid.
Errors validate(const TrainingSetup& setup);

// Computes the estimate of a validated setup. Pure; never throws for a validated setup.
Estimate estimate(const TrainingSetup& setup, EstimateDetail detail = EstimateDetail::peaks);

// The memory a GPU offers the run: a framework's usable figure (context excluded) where the
// catalog has one, else what the driver reports, else the vendor's figure. Bytes.
double gpu_capacity(const GpuSpec& gpu);

// The CUDA context of one process on the setup's GPU, bytes: the GPU's figure, else 512 MiB
// (300-600 MiB with lazy module loading, pytorch/pytorch#107667); 0 on a device without CUDA
// (TPU, Gaudi); 512 MiB without a GPU.
double cuda_context_bytes(const TrainingSetup& s);

// Whether the GPU's capacity is compared with peak_reserved (a usable figure: the context is already
// outside it) rather than the whole peak.
bool compares_reserved(const GpuSpec& gpu);

// The peak compared with gpu_capacity: peak_reserved against a usable figure, else the whole peak.
// nullopt without a GPU or a peak.
std::optional<double> compared_peak(const TrainingSetup& s, const Estimate& e);

// Sets fits and gpu_capacity_bytes from the setup's GPU: peak <= the device's memory (or
// peak_reserved <= its usable memory when the catalog gives one); without a peak, false only when
// the model states alone exceed it.
void judge_fit(const TrainingSetup& setup, Estimate& e);

// The activation (compute) dtype.
Dtype compute_dtype(const ResolvedPrecision& p);

}  // namespace trainmem
