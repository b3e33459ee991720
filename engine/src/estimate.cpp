#include "trainmem/estimate.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "trainmem/activations.hpp"
#include "trainmem/allocator.hpp"
#include "trainmem/cublas_workspaces.hpp"
#include "trainmem/lora_targeting.hpp"
#include "trainmem/loss_memory.hpp"
#include "trainmem/rlhf.hpp"
#include "trainmem/transient_buffers.hpp"
#include "trainmem/userbuffers.hpp"
#include "trainmem/vision_activations.hpp"
#include "trainmem/work_meter.hpp"

namespace trainmem {

namespace {
// DeepSpeed's additional_buffer_factor for host memory of offloaded states (stage3.py estimators).
constexpr double kHostBufferFactor = 1.5;
// Per-process CUDA context when the catalog has no figure for the GPU: 300-600 MiB with lazy
// module loading (pytorch/pytorch#107667); we take 512 MiB.
constexpr double kDefaultCudaContextBytes = 512.0 * 1024 * 1024;
// Activation offload keeps the layer being computed and one prefetched layer on the GPU.
constexpr double kOffloadResidentLayers = 2.0;

// Micro-batches whose activations a stage holds at once (Narayanan et al. 2021, §2.2;
// Megatron-LM theoretical_memory_usage.py): 1F1B keeps min(p - stage, m) in flight, GPipe all m;
// interleaving multiplies by 1 + (p - 1) / (p v).
double in_flight(const ParallelSettings& p, std::size_t stage, std::int64_t microbatches) {
  if (p.pipeline_parallel_size == 1) return 1.0;
  const double pp = static_cast<double>(p.pipeline_parallel_size), m = static_cast<double>(microbatches);
  switch (p.pipeline_schedule) {
    case PipelineSchedule::gpipe: return m;
    case PipelineSchedule::one_f_one_b: return std::min(pp - static_cast<double>(stage), m);
    case PipelineSchedule::interleaved_1f1b: {
      const double v = static_cast<double>(p.virtual_pipeline_stages);
      return std::min(pp - static_cast<double>(stage), m) * (1.0 + (pp - 1.0) / (pp * v));
    }
  }
  return 1.0;
}

struct StageRuntime {
  double activations = 0;         // saved, all in-flight micro-batches
  double one_micro_batch = 0;     // saved by one micro-batch, before activation offload
  double layer_free = 0;          // of which outside the transformer layers (vision tower, head inputs)
  double flights = 1;             // micro-batches in flight
  double offloaded_activations = 0;
  double recompute = 0;           // one layer rebuilt during backward (full recompute)
  double attention_backward = 0;  // eager attention: one layer's score gradients
  double attention_forward = 0;   // eager attention: one layer's scores before the softmax
  double layer_backward = 0;      // one layer's gradients in flight
  double per_layer = 0;           // saved bytes of one layer of the first group on this stage
};

// One layer of each group: bytes saved under the policy, without recompute, the largest
// attention-score tensor (eager), and the gradients its backward holds at once. Independent of
// the pipeline stage, so computed once.
struct GroupActivations {
  double saved = 0, everything = 0, largest_scores = 0, backward_working = 0;
  double forward_scores = 0;  // eager: one layer's scores before the softmax, bytes
  // Selective checkpointing: what one layer's recompute rematerializes in its backward (the
  // tensors the policy drops), bytes.
  double rematerialized = 0;
  std::vector<double> saved_tensors;  // bytes of each tensor one layer keeps for backward
};

// Gradients alive inside one layer's backward (autograd frees each once consumed): the
// gradient flowing through the residual stream and the one entering the current op, [T, h]
// each, plus the MLP's intermediate gradients, three [T, I] for a gated MLP (down_proj input,
// then act(gate) and up; one where Liger's SwiGLU writes the other two in place) or two for a
// plain one, in the activation dtype (the residual stream's in its own, fp32 under autocast over
// fp32 weights), split by TP.
double layer_backward_working(const LayerGroup& g, const ActivationContext& c) {
  const double tokens = c.micro_batch * (g.stack == Stack::encoder && !g.attention.cross_attention ? c.encoder_seq : c.seq);
  const double a = dtype_bytes(c.dtype), r = dtype_bytes(c.residual);
  const MlpShape& m = g.mlp;
  const double width = m.num_local_experts > 0 ? static_cast<double>(m.moe_intermediate_size) : static_cast<double>(m.intermediate_size);
  const double rows = m.num_local_experts > 0 ? tokens * static_cast<double>(m.num_experts_per_tok) : tokens;
  const double seq_split = c.sequence_parallel ? c.tp : 1.0;
  const double mlp_gradients = !m.gated ? 2.0 : c.framework.in_place_gated_backward ? 1.0 : 3.0;
  return 2 * tokens * c.hidden * r / seq_split + mlp_gradients * rows * width * a / c.tp;
}

std::vector<GroupActivations> group_activations(const TrainingSetup& s, const Architecture& a, Dtype compute) {
  const ActivationContext c = activation_context(s, a, compute);
  ActivationContext plain = c;
  plain.checkpointing = Checkpointing::none;
  std::vector<GroupActivations> out;
  out.reserve(a.layers.size());
  for (const auto& layer : a.layers) {
    GroupActivations g;
    const auto kept = layer_activations(layer, c);
    g.saved = saved_bytes(kept);
    for (const auto& t : kept) {
      if (!t.recomputed) g.saved_tensors.push_back(t.bytes);
      else g.rematerialized += t.bytes;
    }
    const auto everything = layer_activations(layer, plain);
    g.everything = saved_bytes(everything);
    for (const auto& t : everything) {
      if (t.role != TensorRole::attention_core || t.dtype == Dtype::int8) continue;
      g.largest_scores = std::max(g.largest_scores, t.bytes);
      // Forward: the scores q k^T (plus the mask) in the activation dtype and, with an fp32
      // softmax (HF eager_attention_forward: softmax(..., dtype=torch.float32)), the input's
      // fp32 copy, beside the saved output; one layer at a time.
      const double a_bytes = dtype_bytes(c.dtype);
      const double fp32_input = c.softmax_fp32 && a_bytes < kFp32Bytes ? kFp32Bytes : 0.0;
      g.forward_scores = std::max(g.forward_scores, t.bytes / dtype_bytes(t.dtype) * (a_bytes + fp32_input));
    }
    g.backward_working = layer_backward_working(layer, c);
    out.push_back(g);
  }
  return out;
}

// first_stage_saved: bytes the first stage keeps besides its layers (a vision encoder and projector).
StageRuntime stage_runtime(const TrainingSetup& s, const Architecture& a, const std::vector<GroupActivations>& groups,
                           const std::vector<std::int64_t>& counts, std::size_t stage, bool last, const LossMemory& loss,
                           double first_stage_saved) {
  StageRuntime r;
  const double share = checkpointed_share(s, a);
  double one_micro_batch = 0;
  for (std::size_t g = 0; g < counts.size(); ++g) {
    if (counts[g] == 0) continue;
    const GroupActivations& ga = groups[g];
    const double n = static_cast<double>(counts[g]);
    const double checkpointed = std::round(n * share);
    one_micro_batch += checkpointed * ga.saved + (n - checkpointed) * ga.everything;
    if (r.per_layer == 0) r.per_layer = ga.saved;
    if (s.activation_checkpointing == Checkpointing::full) r.recompute = std::max(r.recompute, ga.everything);
    // Op-level SAC recomputes a layer's dropped ops in its backward, beside what it cached (as
    // full checkpointing re-runs the whole layer); Megatron's attention-core recompute is priced
    // by the attention terms below.
    if (s.activation_checkpointing == Checkpointing::selective && s.selective_policy == SelectivePolicy::op_level)
      r.recompute = std::max(r.recompute, ga.rematerialized);
    // Eager softmax backward reads the gradient of the probabilities and writes the gradient of
    // the scores, both scores-sized in the softmax's dtype (torch _softmax_backward_data; with
    // softmax(..., dtype=torch.float32) both fp32), beside the saved probabilities, one layer at a
    // time.
    if (s.attention == AttentionImplementation::eager) {
      r.attention_backward = std::max(r.attention_backward, 2 * ga.largest_scores);
      r.attention_forward = std::max(r.attention_forward, ga.forward_scores);
    }
    r.layer_backward = std::max(r.layer_backward, ga.backward_working);
  }
  if (last) one_micro_batch += loss.head_saved, r.layer_free += loss.head_saved;
  if (stage == 0) one_micro_batch += first_stage_saved, r.layer_free += first_stage_saved;
  const double flights = in_flight(s.parallel, stage, s.batch.gradient_accumulation_steps);
  r.one_micro_batch = one_micro_batch;
  r.flights = flights;
  r.activations = one_micro_batch * flights;
  if (s.activation_offload) {
    const double resident = std::min(r.activations, kOffloadResidentLayers * r.per_layer);
    r.offloaded_activations = r.activations - resident;
    r.activations = resident;
  }
  return r;
}

// Saved bytes of each transformer layer of one micro-batch on a stage, in layer order (the groups
// are contiguous in the model). Of each group's layers the first ones are the checkpointed ones, as
// Megatron's block recompute method checkpoints the first recompute_num_layers of a stage
// (megatron/core/transformer/transformer_block.py, _checkpointed_forward).
std::vector<double> layer_saved_in_order(const TrainingSetup& s, const Architecture& a, const std::vector<GroupActivations>& groups,
                                         const std::vector<std::int64_t>& counts) {
  const double share = checkpointed_share(s, a);
  std::vector<double> out;
  for (std::size_t g = 0; g < counts.size(); ++g) {
    const auto checkpointed = static_cast<std::int64_t>(std::round(static_cast<double>(counts[g]) * share));
    for (std::int64_t k = 0; k < counts[g]; ++k) out.push_back(k < checkpointed ? groups[g].saved : groups[g].everything);
  }
  return out;
}

// What the caching allocator reserves beyond the allocated peak (allocator.hpp): rounding of the
// saved activations, and optimizer-step temporaries that the blocks freed by backward (the loss's
// and the activations') do not fit.
struct AllocatorTerms {
  double rounding = 0, step_growth = 0;
  LongerBatch longer_batch;  // batches of varying length only
};

// Appends a request per trainable weight tensor of `layers` layers of group `group` on this GPU
// (split as tensor/expert parallelism and the optimizer's shard split it), at `bytes_per_element`:
// the layer's weights or, given `lora`, the LoRA A (r x d_in) and B (d_out x r) matrices of each
// module PEFT targets (lora_targeting.hpp), judged on the group's first layer. An adapter's
// r (d_in + d_out) parameters split between A and B as d_in : d_out.
void add_trainable_weights(std::vector<BlockRun>& out, const TrainingSetup& s, const Architecture& a, std::size_t group,
                           const LoraTargeting* lora, double shard, double bytes_per_element, double layers) {
  if (layers <= 0) return;
  const double tp = static_cast<double>(s.parallel.tensor_parallel_size);
  const double etp = static_cast<double>(expert_tensor_parallel_size(s));
  const double ep = static_cast<double>(s.parallel.expert_parallel_size);
  const double per = bytes_per_element / shard;
  for (const auto& l : a.layers[group].linears) {
    const double split = l.routed_expert ? (l.tp_sharded ? etp : 1.0) : (l.tp_sharded ? tp : 1.0);
    const double copies = layers * (l.routed_expert ? std::max(1.0, static_cast<double>(l.copies) / ep) : static_cast<double>(l.copies));
    if (!lora) {
      out.push_back({static_cast<double>(l.weight_params()) / split * per, copies});
      continue;
    }
    const double adapter = lora->adapter_params(group, l, 0) / (l.routed_expert ? static_cast<double>(l.copies) : 1.0);
    if (adapter <= 0) continue;
    const double in = static_cast<double>(l.in_features), outf = static_cast<double>(l.out_features);
    out.push_back({adapter * in / (in + outf) / split * per, copies});
    out.push_back({adapter * outf / (in + outf) / split * per, copies});
  }
}

AllocatorTerms allocator_terms(const TrainingSetup& s, const Architecture& a, const std::vector<GroupActivations>& groups, const std::vector<std::int64_t>& counts,
                               bool first, bool last, const LossMemory& loss, double in_flight_batches, const ModelStates& ms,
                               const TransientBuffers& tb, double step_only) {
  AllocatorTerms t;
  // Scratch space reused across estimates (the strategy search runs thousands): no allocation per call.
  thread_local std::vector<BlockRun> live, step, lengthwise;
  thread_local BlockPool pool;
  live.clear();
  for (std::size_t g = 0; g < counts.size(); ++g)
    for (double bytes : groups[g].saved_tensors) live.push_back({bytes, static_cast<double>(counts[g]) * in_flight_batches});
  t.rounding = rounding_overhead(live);
  // The loss's working set: fp32 blocks of T x V / TP, and what is left of it in one block.
  const double fp32_blocks = last && loss.logits_elements > 0 ? std::floor(loss.bytes_per_logit_backward / kFp32Bytes) : 0.0;
  const double loss_rest = last ? loss.logits_elements * (loss.bytes_per_logit_backward - kFp32Bytes * fp32_blocks) : 0.0;
  // The step's length-proportional blocks in forward order: the saved activations, then the loss's.
  lengthwise.assign(live.begin(), live.end());
  if (fp32_blocks > 0) lengthwise.push_back({loss.logits_elements * kFp32Bytes, fp32_blocks});
  if (loss_rest > 0) lengthwise.push_back({loss_rest, 1});
  // Batches of varying length (batch.padding longest): they come after a shorter batch's, whose
  // blocks are cached.
  const bool varying = s.batch.padding == Padding::longest;
  pool.clear();
  if (varying) t.longer_batch = longer_batch_growth(lengthwise, pool);

  // Nothing is requested after backward: no cached block can fall short.
  if (tb.optimizer_step <= 0 && step_only <= 0) return t;
  // Blocks free after backward: the step's length-proportional blocks (backward frees every
  // layer's activations and the other in-flight micro-batches'); with batches of varying length,
  // everything cached once the longest batch's tensors are freed (longer_batch_growth). Gradients
  // are priced as alive from the start of the step (model states), so their allocation in backward
  // does not grow the reserve beyond the allocated peak.
  if (!varying)
    for (const auto& r : lengthwise) add_blocks(pool, r.bytes, r.count);
  const ShardingEngine engine = sharding_engine(s);
  const std::int64_t layers_total = a.num_hidden_layers();
  const std::int64_t first_trainable =
      s.method == Method::freeze ? std::max<std::int64_t>(0, layers_total - s.freeze_trainable_layers) : 0;

  // The optimizer step: DeepSpeed's fp32 gradient partition and its temporaries are flat; torch
  // optimizers make one temporary per parameter tensor (of the optimizer's shard).
  const double step_bytes = tb.optimizer_step;
  step.clear();
  if (step_only > 0) step.push_back({step_only, 1});
  const double trainable = ms.params.trainable();
  if (step_bytes > 0 && trainable > 0) {
    if (engine == ShardingEngine::deepspeed) {
      step.push_back({step_bytes, 1});
    } else {
      const double shard = s.parallel.zero_stage >= 1 ? sharding_degree(s.parallel) : 1.0;
      const double per_element = step_bytes / (trainable / shard);
      // Layers whose weights train: all of them, the last freeze.trainable_layers, or every layer's adapters.
      std::optional<LoraTargeting> lora;
      if (uses_adapters(s.method)) lora.emplace(a, s.lora);
      std::int64_t index = 0;
      for (std::size_t g = 0; g < counts.size(); ++g) {
        const std::int64_t trainable_layers =
            std::clamp<std::int64_t>(index + counts[g] - first_trainable, 0, counts[g]);
        index += counts[g];
        add_trainable_weights(step, s, a, g, lora ? &*lora : nullptr, shard, per_element, static_cast<double>(trainable_layers));
      }
      // Full fine-tuning also steps the embedding (first stage) and the head (last stage).
      const double tp = static_cast<double>(s.parallel.tensor_parallel_size);
      const double vocab_rows = static_cast<double>(padded_vocab_size(s, a.vocab_size));
      if (s.method == Method::full && first && a.embedding_params > 0)
        step.push_back({vocab_rows * static_cast<double>(a.hidden_size) / tp / shard * per_element, 1});
      if (s.method == Method::full && last && a.lm_head_params > 0)
        step.push_back({vocab_rows * static_cast<double>(a.hidden_size) / tp / shard * per_element, 1});
    }
    std::sort(step.begin(), step.end(), [](const BlockRun& x, const BlockRun& y) { return x.bytes > y.bytes; });
  }
  t.step_growth = unserved_bytes(pool, step);
  return t;
}

// Parts of the model states that one phase or another does not hold (model_states.hpp), bytes.
struct PhaseOnlyStates {
  double step_only = 0;          // DeepSpeed's fp32 gradient partition: the optimizer step only
  double accumulation_only = 0;  // FSDP's unsharded no_sync gradients: gone by the optimizer step
  // DeepSpeed ZeRO-3's gathered largest module, forward and backward; its gradient, backward only,
  // priced inside the loss's and a layer's backward working set.
  double gathered_parameters = 0, gathered_gradient = 0;
};

// The first five peak_breakdown components in the peak phase: the states on the device then
// (paged optimizer states live outside the allocator), the saved activations in forward and
// backward, the phase's transients.
std::array<double, 5> peak_parts(const PerGpu& g, const StepTerms& t, const PhaseOnlyStates& only, bool paged) {
  const double optimizer = paged ? 0.0 : g.optimizer_states;
  const double transient = g.temporary_buffers.value_or(0.0);
  if (g.peak_phase == "load") return {t.load, 0.0, 0.0, 0.0, 0.0};
  if (g.peak_phase == "optimizer_step")
    return {g.parameters - only.gathered_parameters, g.gradients - only.accumulation_only - only.gathered_gradient, optimizer, 0.0, transient};
  const double persisting = g.gradients - only.step_only - only.gathered_gradient - t.backward_gradients;
  if (g.peak_phase == "backward" && !backward_peaks_at_loss(t))
    return {g.parameters, persisting + t.backward_layers_gradients, optimizer, t.backward_layers_held - t.backward_layers_gradients, transient};
  return {g.parameters, persisting, optimizer, t.activations, transient};
}

}  // namespace

double cuda_context_bytes(const TrainingSetup& s) {
  if (!s.gpu) return kDefaultCudaContextBytes;
  if (!s.gpu->has_cuda_context) return 0;
  if (s.gpu->cuda_context_bytes) return static_cast<double>(*s.gpu->cuda_context_bytes);
  return kDefaultCudaContextBytes;
}

Dtype compute_dtype(const ResolvedPrecision& p) { return p.compute_dtype; }

double gpu_capacity(const GpuSpec& gpu) {
  return static_cast<double>(gpu.usable_bytes.value_or(gpu.device_total_bytes.value_or(gpu.memory_bytes)));
}

bool compares_reserved(const GpuSpec& gpu) { return gpu.usable_bytes.has_value(); }

std::optional<double> compared_peak(const TrainingSetup& s, const Estimate& e) {
  if (!s.gpu) return std::nullopt;
  return compares_reserved(*s.gpu) ? e.per_gpu.peak_reserved : e.per_gpu.peak;
}

void judge_fit(const TrainingSetup& s, Estimate& e) {
  e.fits.reset();
  if (!s.gpu) return;
  e.gpu_capacity_bytes = gpu_capacity(*s.gpu);
  if (const auto compared = compared_peak(s, e)) {
    e.fits = *compared <= *e.gpu_capacity_bytes;
  } else if (e.per_gpu.model_states - e.per_gpu.paged_optimizer_states.value_or(0.0) > *e.gpu_capacity_bytes) {
    e.fits = false;  // the lower bound alone does not fit
  }
}

Estimate estimate(const TrainingSetup& s, EstimateDetail detail) {
  if (s.rlhf) return estimate_rlhf(s);
  Estimate e;
  e.parameters = count_parameters(s);
  e.active_parameters = s.model.architecture ? s.model.architecture->active_params() : e.parameters.total;
  e.data_parallel_size = s.parallel.data_parallel_size;
  // Global batch (docs/memory-model.md, "Batch"): B_global = B_micro x D x G.
  e.global_batch_size = s.batch.micro_batch_size * s.parallel.data_parallel_size * s.batch.gradient_accumulation_steps;
  e.precision = resolve_precision(s);
  const Architecture* arch = s.model.architecture ? &*s.model.architecture : nullptr;
  // What the optimizer trains: under LoRA/QLoRA the adapters, in their own dtype where they have one.
  e.bytes_per_param = adapter_bytes_per_param(s, e.precision).value_or(trainable_bytes_per_param(e.precision, arch));
  const Dtype compute = compute_dtype(e.precision);
  const FrameworkBehaviour behaviour = framework_behaviour(s);
  const bool paged = is_paged(e.precision.optimizer);
  // Transformer Engine's userbuffers: the same on every stage, outside the allocator (userbuffers.hpp).
  const double userbuffers = arch ? userbuffer_bytes(s, *arch) : 0.0;
  // The cuBLAS workspaces (PyTorch's; Transformer Engine's under Megatron), held from the first
  // forward on (cublas_workspaces.hpp).
  const double workspaces = cublas_workspace_bytes(s);

  const std::vector<ModelStates> stages = model_states(s, e.precision);
  std::optional<LossMemory> loss;
  std::vector<std::vector<std::int64_t>> layer_counts;
  std::vector<GroupActivations> groups;
  double vision_saved = 0;
  if (arch) {
    loss = loss_memory(s, *arch, compute, behaviour);
    layer_counts = stage_layer_counts(*arch, s);
    groups = group_activations(s, *arch, compute);
    vision_saved = vision_activations(s, *arch, compute).saved();
  }

  // Evaluate each pipeline stage; the most loaded GPU is the one with the highest peak (its
  // allocated peak with the allocator's uncertainty floor and the context).
  double best_peak = -1;
  double offloaded_states = 0, offloaded_activations = 0;
  TransientBuffers best_buffers;
  PhaseOnlyStates best_only;
  // The most loaded stage's terms, for the step in detail.
  StepTerms best_terms;
  StageRuntime best_runtime;
  const bool detailed = detail == EstimateDetail::step;
  if (detailed) e.pipeline_stages.reserve(stages.size());
  work_meter::add(stages.size());
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const ModelStates& ms = stages[i];
    const bool last = i + 1 == stages.size();
    PerGpu g;
    g.parameters = ms.gpu.parameters;
    g.gradients = s.precision.optimizer_in_backward ? 0.0 : ms.gpu.gradients;  // stepped per parameter in backward
    g.optimizer_states = ms.gpu.optimizer_states;
    g.model_states = g.parameters + g.gradients + g.optimizer_states;
    g.pipeline_stage = i;
    const double allocator_states = g.model_states - (paged ? g.optimizer_states : 0.0);
    PhaseOnlyStates only;
    if (!s.precision.optimizer_in_backward) {
      only.step_only = ms.gpu.step_only_gradients;
      only.accumulation_only = ms.gpu.accumulation_only_gradients;
      only.gathered_gradient = ms.gpu.gathered_module_gradient;
    }
    only.gathered_parameters = ms.gpu.gathered_module_parameters;
    const double step_only = only.step_only, accumulation_only = only.accumulation_only;
    const double training_states = allocator_states - step_only - only.gathered_gradient;
    if (paged) g.paged_optimizer_states = g.optimizer_states;
    double stage_peak_key = g.model_states;
    if (arch) {
      const StageRuntime rt = stage_runtime(s, *arch, groups, layer_counts[i], i, last, *loss, vision_saved);
      const TransientBuffers tb = transient_buffers(s, e.precision, ms, behaviour, compute);
      g.persistent_buffers = tb.persistent;
      const double loss_fwd = last ? loss->forward_transient : 0.0;
      const double loss_bwd = last ? loss->backward_transient : 0.0;
      // Logits the loop keeps referenced are alive in every phase (loss_memory.hpp).
      const double held = last ? loss->held : 0.0;
      g.activations = rt.activations;
      g.activations_per_layer = rt.per_layer;
      StepTerms t;
      const double whole_model = static_cast<double>(e.parameters.total) * dtype_bytes(e.precision.param_dtype);
      t.load = s.model_loading == ModelLoading::full_copy_per_gpu ? std::max(whole_model, g.parameters) : g.parameters;
      // One micro-batch per step after a loop that freed the gradients: backward builds them.
      const bool one_micro_batch = s.batch.gradient_accumulation_steps == 1 && s.parallel.pipeline_parallel_size == 1;
      if (behaviour.gradients_freed_between_steps && one_micro_batch) {
        t.backward_gradients = std::max(0.0, g.gradients - step_only - accumulation_only - only.gathered_gradient);
        const double trainable = ms.params.trainable();
        if (last && trainable > 0 && head_trains(s, *arch))
          t.head_gradients = t.backward_gradients * std::min(1.0, ms.params.head_linear_params / trainable);
      }
      t.training_states = training_states - t.backward_gradients;
      t.step_states = allocator_states - accumulation_only - only.gathered_parameters - only.gathered_gradient;
      t.activations = rt.activations;
      t.always = tb.persistent + held + workspaces;
      t.forward_buffers = t.always + tb.forward;
      // The loss's working set at the end of forward, or one eager layer's scores inside it.
      t.layer_forward = rt.attention_forward;
      t.loss_forward = loss_fwd;
      // Backward starts with the loss (all activations alive, the logits' working set), then walks
      // the layers back (recompute, score gradients, gathers); the two do not overlap.
      // The head's backward follows the loss's: the logits' gradient in the compute dtype beside the
      // head's new weight gradient (a fused loss computes both inside its own working set).
      const bool logits_loss = s.loss.implementation.value_or(behaviour.loss) != LossImplementation::fused;
      const double head_backward = last && logits_loss && t.head_gradients > 0
                                       ? t.head_gradients + loss->logits_elements * dtype_bytes(compute)
                                       : 0.0;
      // DeepSpeed ZeRO-3's largest module's gradient, before its copy into the reduce bucket, at the
      // head's backward and at a layer's.
      t.loss_backward = std::max(loss_bwd, head_backward) + tb.tied_head_gradient + tb.saved_weight_copies + only.gathered_gradient;
      t.layer_backward = tb.backward + tb.tied_head_gradient + rt.recompute + std::max(rt.attention_backward, rt.layer_backward) +
                         only.gathered_gradient;
      t.step_buffers = t.always + tb.optimizer_step;
      // Layer by layer as the timeline counts them, up to the timeline's bound; beyond it (hf_config
      // allows 1e8 layers) the bound of all activations beside all gradients.
      std::int64_t stage_layers = 0;
      for (auto n : layer_counts[i]) stage_layers += n;
      if (stage_layers <= kMaxTimelineLayers) {
        set_backward_layers_held(t, (rt.flights - 1.0) * rt.one_micro_batch + rt.layer_free,
                                 t.backward_gradients > 0 ? layer_saved_in_order(s, *arch, groups, layer_counts[i]) : std::vector<double>{});
      } else {
        t.backward_layers_held = t.activations + t.backward_gradients;
        t.backward_layers_gradients = t.backward_gradients;
      }
      const double fwd_transient = forward_transient(t), bwd_transient = backward_transient(t), step_transient = t.step_buffers;
      PhasePeaks ph;
      ph.load = t.load;
      ph.forward = forward_peak(t);
      ph.backward = backward_peak(t);
      ph.optimizer_step = step_peak(t);
      g.phases = ph;
      double peak = ph.load, transient = 0;
      g.peak_phase = "load";
      if (ph.forward > peak) peak = ph.forward, transient = fwd_transient, g.peak_phase = "forward";
      if (ph.backward > peak) peak = ph.backward, transient = bwd_transient, g.peak_phase = "backward";
      if (ph.optimizer_step > peak) peak = ph.optimizer_step, transient = step_transient, g.peak_phase = "optimizer_step";
      g.temporary_buffers = transient;
      g.peak_allocated = peak;
      // What the allocator rules do not see (shape changes between steps, lazily created optimizer
      // state, the workspaces of libraries other than cuBLAS) is overhead.fragmentation_fraction x
      // peak_allocated: the reserve is at least that, and the band takes it as its uncertainty
      // term. The rules' own terms are priced below for the most loaded stage.
      g.allocator_uncertainty = peak * s.fragmentation_fraction;
      g.peak_reserved = peak + *g.allocator_uncertainty;
      g.cuda_context = cuda_context_bytes(s);
      if (userbuffers > 0) g.userbuffers = userbuffers;
      g.peak = *g.peak_reserved + *g.cuda_context + g.userbuffers.value_or(0.0);
      stage_peak_key = *g.peak;
      if (i == 0 || stage_peak_key > best_peak) {
        offloaded_activations = rt.offloaded_activations;
        best_buffers = tb;
        best_only = only;
        best_terms = t;
        best_runtime = rt;
      }
    }
    if (detailed) {
      StageBudget b;
      b.stage = i;
      b.parameters = g.parameters;
      b.gradients = g.gradients;
      b.optimizer_states = g.optimizer_states;
      b.activations = g.activations;
      b.peak_allocated = g.peak_allocated;
      b.peak = g.peak;
      if (arch) {
        b.layers = 0;
        for (auto n : layer_counts[i]) *b.layers += n;
      }
      e.pipeline_stages.push_back(b);
    }
    if (i == 0 || stage_peak_key > best_peak) {
      best_peak = stage_peak_key;
      e.per_gpu = g;
      e.gpu_parameters = ms.params.total();
      e.gpu_trainable_parameters = ms.params.trainable();
      e.gpu_expert_parameters = ms.params.expert_trainable + ms.params.expert_frozen;
      e.gpu_expert_trainable_parameters = ms.params.expert_trainable;
      e.gpu_quantized_weights = s.method == Method::qlora ? ms.params.frozen_linear_weights : 0.0;
      e.gathered_module_bytes = ms.gpu.gathered_module_parameters;
      e.gathered_module_gradient_bytes = ms.gpu.gathered_module_gradient;
      if (arch) {
        e.layers_on_gpu = 0;
        for (auto n : layer_counts[i]) e.layers_on_gpu += static_cast<double>(n);
        e.micro_batches_in_flight = in_flight(s.parallel, i, s.batch.gradient_accumulation_steps);
      }
      offloaded_states = ms.offloaded.total();
      e.offloaded_parameter_bytes = ms.offloaded.parameters;
    }
  }

  // Reserved on the most loaded GPU: the allocated peaks plus what the caching allocator's rules
  // add (allocator.hpp), at least the uncertainty floor above.
  if (arch && e.per_gpu.phases) {
    PerGpu& g = e.per_gpu;
    const std::size_t i = g.pipeline_stage;
    const PhasePeaks& ph = *g.phases;
    const double peak = *g.peak_allocated;
    const AllocatorTerms at = allocator_terms(s, *arch, groups, layer_counts[i], i == 0, i + 1 == stages.size(), *loss,
                                              e.micro_batches_in_flight, stages[i], best_buffers, best_only.step_only);
    const double training_reserved = std::max(ph.forward, ph.backward) + at.rounding + at.longer_batch.growth;
    const double by_rules = std::max({training_reserved + at.step_growth, ph.optimizer_step, ph.load, peak});
    g.allocator_rounding = at.rounding;
    g.allocator_cache = std::max(0.0, by_rules - peak - at.rounding);
    g.allocator_releasable = std::min(at.longer_batch.releasable, *g.allocator_cache);
    g.peak_reserved = std::max(by_rules, *g.peak_reserved);
    g.fragmentation = *g.peak_reserved - peak;
    g.peak = *g.peak_reserved + *g.cuda_context + g.userbuffers.value_or(0.0);
    if (detailed) {
      e.pipeline_stages[i].peak = g.peak;
      // Earlier in-flight micro-batches (pipeline warm-up) keep all their activations through this
      // micro-batch's forward and backward.
      const StageRuntime& rt = best_runtime;
      const double before_layers = (rt.flights - 1.0) * rt.one_micro_batch + rt.layer_free;
      if (e.layers_on_gpu <= static_cast<double>(kMaxTimelineLayers))
        e.timeline = step_timeline(best_terms, before_layers, layer_saved_in_order(s, *arch, groups, layer_counts[i]),
                                   i + 1 == stages.size(), peak, *g.peak_reserved);
      e.peak_breakdown = peak_breakdown(peak_parts(g, best_terms, best_only, paged), peak, *g.peak_reserved,
                                        g.userbuffers.value_or(0.0), *g.peak);
    }
  }

  // Offloaded states and activations: host RAM per node (all of the node's ranks), or NVMe.
  const double ranks_per_node = static_cast<double>(std::min(s.parallel.world_size, s.parallel.gpus_per_node));
  const bool to_nvme = s.parallel.offload_optimizer == OffloadTarget::nvme || s.parallel.offload_param == OffloadTarget::nvme;
  if (to_nvme) {
    e.nvme_bytes = offloaded_states * static_cast<double>(s.parallel.world_size);
  } else {
    e.cpu_bytes_per_node = offloaded_states * ranks_per_node * kHostBufferFactor;
  }
  e.cpu_bytes_per_node += offloaded_activations * ranks_per_node;
  if (s.model_loading == ModelLoading::full_copy_per_gpu) {
    // Every rank loads the whole checkpoint into host RAM before sharding or moving it (HF
    // from_pretrained without low_cpu_mem_usage on each rank): ranks per node x the model in its
    // load dtype. Loading precedes the optimizer, so the node's peak is the larger of the two.
    const double load_copies = ranks_per_node * static_cast<double>(e.parameters.total) * dtype_bytes(e.precision.param_dtype);
    e.cpu_bytes_per_node = std::max(e.cpu_bytes_per_node, load_copies);
  }

  e.checkpoint = checkpoint_budget(s, e.precision, e.parameters, e.bytes_per_param);
  if (s.checkpoint.node_ram_bytes) e.cpu_ram_fits = e.cpu_bytes_per_node <= static_cast<double>(*s.checkpoint.node_ram_bytes);

  e.sharding_degree = sharding_degree(s.parallel);
  judge_fit(s, e);
  if (e.per_gpu.paged_optimizer_states && e.gpu_capacity_bytes && e.per_gpu.peak) {
    // Unified memory stays on the device while there is room and pages out to the host beyond it.
    const double room = std::max(0.0, *e.gpu_capacity_bytes - *e.per_gpu.peak);
    e.per_gpu.paged_device_resident = std::min(room, *e.per_gpu.paged_optimizer_states);
    e.per_gpu.paged_host_resident = *e.per_gpu.paged_optimizer_states - *e.per_gpu.paged_device_resident;
  }

  return e;
}

}  // namespace trainmem
