#include "trainmem/rlhf.hpp"

#include <algorithm>
#include <cmath>

#include "trainmem/activations.hpp"
#include "trainmem/cublas_workspaces.hpp"
#include "trainmem/framework_defaults.hpp"
#include "trainmem/loss_memory.hpp"
#include "trainmem/model_states.hpp"
#include "trainmem/parameter_layout.hpp"

namespace trainmem {

namespace {

// The process's cuBLAS workspaces (cublas_workspaces.hpp) are in every phase of the job once; a
// trained model's own estimate holds them too, so its working set leaves them out.
ModelBudget budget_of(const std::string& role, const Estimate& e, double workspaces) {
  ModelBudget b;
  b.role = role;
  b.parameters = e.per_gpu.parameters;
  b.gradients = e.per_gpu.gradients;
  b.optimizer_states = e.per_gpu.optimizer_states;
  b.model_states = e.per_gpu.model_states;
  b.activations = e.per_gpu.activations.value_or(0.0);
  // Its peak above its states and activations: a trained model's peak leaves out what its states
  // hold only in the optimizer step (DeepSpeed's fp32 gradient partition), so the buffers alone
  // would count those bytes twice.
  b.transient = std::max(0.0, (e.per_gpu.peak_allocated ? *e.per_gpu.peak_allocated - b.model_states - b.activations
                                                        : e.per_gpu.temporary_buffers.value_or(0.0)) -
                                   workspaces);
  b.persistent = std::min(b.transient, e.per_gpu.persistent_buffers);
  b.computing_only = e.gathered_module_bytes + e.gathered_module_gradient_bytes;
  return b;
}

// A copy of the job's setup for one of its models.
TrainingSetup sub_setup(const TrainingSetup& s, const std::optional<ModelSpec>& model) {
  TrainingSetup sub = s;
  sub.rlhf.reset();
  if (model) sub.model = *model;
  return sub;
}

// A frozen model that only runs forward (reference or reward): weights, plus while scoring one
// layer's activations (nothing is saved without grad) and the logits with their log-softmax.
ModelBudget frozen_model(const std::string& role, TrainingSetup sub, bool value_head) {
  sub.method = Method::freeze;
  sub.freeze_trainable_layers = 0;
  if (sub.model.architecture && value_head) sub.model.architecture->vocab_logits = false;
  const Estimate e = estimate(sub);
  ModelBudget b = budget_of(role, e, 0.0);
  b.activations = 0;
  b.transient = 0;
  // Wrapped without an optimizer (TRL trl/models/utils.py prepare_deepspeed: deepspeed.initialize
  // with no optimizer; accelerate's prepare_model for DDP with nothing to reduce): no gradient
  // buckets.
  b.persistent = 0;
  if (sub.model.architecture) {
    const Architecture& a = *sub.model.architecture;
    const ResolvedPrecision p = resolve_precision(sub);
    ActivationContext c = activation_context(sub, a, p.compute_dtype);
    c.checkpointing = Checkpointing::none;
    double layer = 0;
    for (const auto& g : a.layers) layer = std::max(layer, all_bytes(layer_activations(g, c)));
    const LossMemory loss = loss_memory(sub, a, p.compute_dtype, framework_behaviour(sub));
    b.transient = layer + loss.forward_transient;
  }
  return b;
}

// Prompt tokens of a generated sequence: the setup's sequence length.
std::int64_t prompt_tokens(const TrainingSetup& s) {
  return s.batch.seq_length.value_or(s.model.seq_length_default.value_or(4096));
}

// The device memory colocated vLLM's share is a fraction of: the driver's total (bytes).
double vllm_device_bytes(const GpuSpec& gpu) { return static_cast<double>(gpu.device_total_bytes.value_or(gpu.memory_bytes)); }

}  // namespace

// Sequences generated at once on one GPU. GRPO as TRL runs it (trl/trainer/grpo_config.py
// __post_init__): the micro-batch (per_device_train_batch_size) counts completions, and each
// device generates per_device_train_batch_size x steps_per_generation of them in one batch,
// steps_per_generation defaulting to gradient_accumulation_steps; num_generations only groups
// them by prompt. PPO generates one completion per prompt of the micro-batch.
std::int64_t generated_sequences(const TrainingSetup& s) {
  return s.rlhf->algorithm == RlhfAlgorithm::grpo ? s.batch.micro_batch_size * s.batch.gradient_accumulation_steps
                                                  : s.batch.micro_batch_size;
}

double kv_cache_bytes(const Architecture& a, double sequences, double tokens, Dtype dtype, double tensor_parallel) {
  double per_token = 0;
  for (const auto& g : a.layers) per_token += static_cast<double>(g.count * g.attention.kv_cache_elements_per_token);
  return per_token * dtype_bytes(dtype) * sequences * tokens / tensor_parallel;
}

bool uses_colocated_vllm(const TrainingSetup& s) {
  return s.rlhf && s.rlhf->algorithm == RlhfAlgorithm::grpo && s.rlhf->colocated && s.rlhf->use_vllm;
}

std::optional<double> vllm_weight_bytes(const TrainingSetup& s) {
  if (!uses_colocated_vllm(s) || !s.model.architecture) return std::nullopt;
  return static_cast<double>(count_parameters(s).total) * dtype_bytes(resolve_precision(s).compute_dtype);
}

std::optional<double> vllm_share_for_generation_batch(const TrainingSetup& s) {
  const std::optional<double> weights = vllm_weight_bytes(s);
  if (!weights || !s.gpu) return std::nullopt;
  const Architecture& a = *s.model.architecture;
  const Dtype dtype = resolve_precision(s).compute_dtype;
  const double tokens = static_cast<double>(prompt_tokens(s) + s.rlhf->max_new_tokens);
  const double kv = kv_cache_bytes(a, static_cast<double>(generated_sequences(s)), tokens, dtype, 1.0);
  const double share = std::ceil((*weights + kv) / vllm_device_bytes(*s.gpu) * 100.0) / 100.0;
  if (!std::isfinite(share) || share > 1.0) return std::nullopt;
  return std::max(share, 0.01);
}

TrainingSetup rlhf_policy_setup(const TrainingSetup& s) {
  const RlhfSettings& rl = *s.rlhf;
  // The policy, trained on what the algorithm feeds it: prompt + completion sequences.
  TrainingSetup policy_setup = sub_setup(s, std::nullopt);
  // Liger's fused loss never runs under TRL (default_loss); its RMSNorm and SwiGLU still apply.
  if (policy_setup.use_liger_kernel && !policy_setup.loss.implementation) policy_setup.loss.implementation = default_loss(s);
  if (rl.algorithm == RlhfAlgorithm::dpo) {
    policy_setup.batch.micro_batch_size *= 2;  // chosen + rejected
  } else {
    policy_setup.batch.seq_length = prompt_tokens(s) + rl.max_new_tokens;
  }
  // TRL computes every algorithm's log-probs with selective_log_softmax (trl/trainer/utils.py
  // @f2cd5771; dpo_trainer.py _compute_loss, grpo_trainer.py, experimental/ppo/ppo_trainer.py) on the
  // model's logits in the model's dtype: no labels reach the model, so no ForCausalLMLoss upcast.
  if (!policy_setup.loss.logits_fp32) policy_setup.loss.logits_fp32 = false;
  // GRPO asks the model for the completion's logits only (grpo_trainer.py
  // _get_per_token_logps_and_entropies: logits_to_keep = completion + 1).
  if (rl.algorithm == RlhfAlgorithm::grpo) policy_setup.loss.logits_positions = rl.max_new_tokens + 1;
  return policy_setup;
}

TrainingSetup rlhf_reference_setup(const TrainingSetup& s) {
  TrainingSetup reference = rlhf_policy_setup(s);
  // A LoRA or QLoRA policy's shared base (reference shared_base) is its own model under a frozen
  // "ref" adapter or with the adapters disabled (TRL trl/trainer/dpo_trainer.py @f2cd577,
  // use_adapter(model, adapter_name="ref" ...)): the same frozen 16-bit or 4-bit linears, their
  // dequantization and their ZeRO-3 gathers, so the method stays. A frozen reference is a 16-bit
  // copy of the model, as estimate_rlhf prices its memory.
  if (!uses_adapters(s.method) || s.rlhf->reference != ReferenceModel::shared_base) {
    reference.method = Method::freeze;
    reference.freeze_trainable_layers = 0;
  }
  return reference;
}

Estimate estimate_rlhf(const TrainingSetup& s) {
  const RlhfSettings& rl = *s.rlhf;
  const bool generates = rl.algorithm != RlhfAlgorithm::dpo;
  const std::int64_t prompt = prompt_tokens(s);
  const std::int64_t generated = generated_sequences(s);

  const TrainingSetup policy_setup = rlhf_policy_setup(s);
  const Estimate policy = estimate(policy_setup);

  const double workspaces = cublas_workspace_bytes(s);
  std::vector<ModelBudget> models{budget_of("policy", policy, workspaces)};
  const bool lora_policy = uses_adapters(s.method);
  if (rl.reference == ReferenceModel::frozen || (rl.reference == ReferenceModel::shared_base && !lora_policy)) {
    models.push_back(frozen_model("reference", policy_setup, false));
  } else if (rl.reference == ReferenceModel::shared_base) {
    ModelBudget shared;
    shared.role = "reference";  // the policy's frozen base with adapters disabled: no second copy
    models.push_back(shared);
  }  // none: GRPO with beta 0.0 loads no reference (trl/trainer/grpo_trainer.py @f2cd577)
  std::optional<Estimate> critic;
  if (rl.algorithm == RlhfAlgorithm::ppo) {
    models.push_back(frozen_model("reward", sub_setup(policy_setup, rl.reward_model), true));
    TrainingSetup critic_setup = sub_setup(policy_setup, rl.critic_model);
    critic_setup.method = rl.critic_method;
    if (critic_setup.model.architecture) critic_setup.model.architecture->vocab_logits = false;  // value head
    critic = estimate(critic_setup);
    models.push_back(budget_of("critic", *critic, workspaces));
  }

  double resident = 0, computing_only = 0, setup_buffers = 0;
  for (const auto& m : models) resident += m.model_states, computing_only += m.computing_only, setup_buffers += m.persistent;
  // Every phase after load: the states of every model (but what a model holds only while it
  // computes), the buffers their wrappers allocate at setup (a DeepSpeed ZeRO-3 reduce bucket
  // exists from deepspeed.initialize on, through the rollout too) and the process's cuBLAS
  // workspaces.
  const double held = resident - computing_only + setup_buffers + workspaces;

  Estimate e = policy;
  e.per_gpu_models = models;
  e.global_batch_size = s.batch.micro_batch_size * s.parallel.data_parallel_size * s.batch.gradient_accumulation_steps;

  // Phase peaks (allocated bytes): each model's working set on top of every model's states.
  const ModelBudget& pol = models.front();
  double peak = held + pol.computing_only + pol.activations + pol.transient - pol.persistent;  // policy training
  std::string phase = "policy_training";
  for (const auto& m : models) {
    const double working = m.computing_only + m.activations + m.transient - m.persistent;
    if (held + working > peak) peak = held + working, phase = m.role + (m.role == "critic" ? "_training" : "_scoring");
  }
  // Under DeepSpeed ZeRO-3 TRL gathers every policy weight for generate (trl/models/utils.py
  // @f2cd577 _unwrap_model_for_generation: deepspeed.zero.GatheredParameters(model.parameters());
  // GRPOConfig ds3_gather_for_generation defaults to True): the whole model beside its shard.
  const bool gathers = s.parallel.zero_stage == 3 && sharding_engine(s) == ShardingEngine::deepspeed;
  // Its shard: what the GPU holds but the gathered module, or what was offloaded to the host.
  const double whole_policy =
      (pol.parameters - policy.gathered_module_bytes + policy.offloaded_parameter_bytes) * sharding_degree(s.parallel);
  double vllm_in_peak = 0;  // colocated vLLM's pool where it is part of the peak
  if (generates && uses_colocated_vllm(s) && s.gpu) {
    // Colocated vLLM (TRL @f2cd577 trl/generation/vllm_generation.py: LLM(gpu_memory_utilization=
    // vllm_gpu_memory_utilization, ...) in every training process): vLLM sizes its weights and KV
    // cache pool to that fraction of the device's total memory (vLLM docs, "gpu_memory_utilization":
    // the fraction of GPU memory for the model executor). It holds it through training unless
    // sleep mode releases it after each generation (llm.sleep(level=2): weights and KV cache).
    const double vllm = rl.vllm_gpu_memory_utilization * vllm_device_bytes(*s.gpu);
    e.rollout_vllm_bytes = vllm;
    if (!rl.vllm_enable_sleep_mode) peak += vllm, vllm_in_peak = vllm;
    // Its weight sync (sync_weights) gathers the whole ZeRO-3 policy at once for a PEFT model, to
    // merge the adapters, and one parameter at a time otherwise (the largest: an embedding or head).
    double gathered = 0;
    if (gathers && lora_policy) {
      gathered = whole_policy;
    } else if (gathers && s.model.architecture) {
      const Architecture& a = *s.model.architecture;
      gathered = static_cast<double>(a.largest_embedding_or_head_params()) * dtype_bytes(resolve_precision(s).param_dtype);
    }
    const double rollout = held + vllm + gathered;
    if (rollout > peak) peak = rollout, phase = "rollout", vllm_in_peak = vllm;
  } else if (generates && rl.colocated && s.model.architecture) {
    const ResolvedPrecision p = resolve_precision(s);
    const double sequences = static_cast<double>(generated);
    e.rollout_kv_cache_bytes = kv_cache_bytes(*s.model.architecture, sequences, static_cast<double>(prompt + rl.max_new_tokens),
                                              p.compute_dtype, static_cast<double>(s.parallel.tensor_parallel_size));
    const double rollout = held + *e.rollout_kv_cache_bytes + (gathers ? whole_policy : 0.0);
    if (rollout > peak) peak = rollout, phase = "rollout";
  }

  PerGpu& g = e.per_gpu;
  g.parameters = g.gradients = g.optimizer_states = 0;
  for (const auto& m : models) {
    g.parameters += m.parameters;
    g.gradients += m.gradients;
    g.optimizer_states += m.optimizer_states;
  }
  g.model_states = resident;
  if (g.peak_allocated) {
    g.activations = pol.activations;
    g.peak_allocated = peak;
    g.temporary_buffers = std::max(0.0, peak - resident - pol.activations);
    g.peak_phase = phase;
    g.phases.reset();
    // vLLM's pool is one block it sizes itself: the allocator's overhead is on the rest, a flat
    // share of it (the policy's own allocator terms are of its step alone).
    e.rollout_vllm_in_peak_bytes = vllm_in_peak;
    g.fragmentation = (peak - vllm_in_peak) * s.fragmentation_fraction;
    g.allocator_rounding = 0.0;
    g.allocator_cache = 0.0;
    g.allocator_uncertainty = g.fragmentation;
    g.peak_reserved = peak + *g.fragmentation;
    g.peak = *g.peak_reserved + g.cuda_context.value_or(0.0);
  }
  judge_fit(s, e);
  return e;
}

}  // namespace trainmem
