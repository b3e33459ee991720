// Multi-model RLHF jobs: DPO (trainable policy + frozen reference), PPO (trainable actor and
// critic, frozen reference and reward model, rollouts), GRPO (policy + reference, several
// completions per prompt). All models share the GPUs (colocated, as TRL and OpenRLHF's
// colocated mode run them); each is priced with its own method, and the job's peak is the
// largest phase: policy training, critic training, rollout generation or scoring.
//
//  - DPO trains on chosen and rejected sequences together: 2 x micro_batch_size sequences
//    (TRL DPOTrainer concatenated_forward).
//  - PPO/GRPO train on prompt + completion: batch.seq_length (the prompt) + max_new_tokens
//    tokens. GRPO's micro_batch_size counts completions, as TRL's per_device_train_batch_size
//    does (trl/trainer/grpo_config.py); num_generations groups them by prompt.
//  - The log-probs come from selective_log_softmax on logits in the model's dtype, no fp32 upcast
//    (trl/trainer/utils.py); GRPO's model computes logits for the completion only
//    (trl/trainer/grpo_trainer.py logits_to_keep).
//  - Rollout KV cache: 2 (k and v) x kv_heads x head_dim per layer and token (the compressed
//    latent under MLA), in the compute dtype, split by tensor parallelism, for the sequences a
//    GPU generates at once: PPO one per prompt of the micro-batch; GRPO micro_batch_size x
//    gradient_accumulation_steps (TRL's generation batch per device: per_device_train_batch_size
//    x steps_per_generation, which defaults to gradient_accumulation_steps); seq_length +
//    max_new_tokens tokens each. Under DeepSpeed ZeRO-3, TRL gathers the whole policy for
//    generation (trl/models/utils.py, ds3_gather_for_generation).
//  - A frozen model (reference, reward) holds its weights (sharded under ZeRO-3) and, while
//    scoring, one layer's activations and its logits; a LoRA policy's reference can be its own
//    base with the adapters disabled (no second copy).
#pragma once

#include "trainmem/estimate.hpp"

namespace trainmem {

// The estimate of a setup with an rlhf block.
Estimate estimate_rlhf(const TrainingSetup& setup);

// The policy's own training setup inside an RLHF job (what estimate_rlhf prices as the policy):
// DPO's chosen and rejected sequences (2 x micro_batch_size), PPO's and GRPO's prompt + completion
// (seq_length + max_new_tokens), log-probs on logits in the model's dtype, GRPO's logits for the
// completion only. No rlhf block.
TrainingSetup rlhf_policy_setup(const TrainingSetup& setup);

// Completions one GPU generates at once: GRPO's per_device_train_batch_size x steps_per_generation
// (taken as gradient_accumulation_steps, TRL's default; trl/trainer/grpo_config.py __post_init__),
// PPO's micro-batch (one completion per prompt). Times the world size, GRPO's generation batch.
std::int64_t generated_sequences(const TrainingSetup& setup);

// The setup of the reference model's forward pass each step, on the policy's sequences: a frozen
// copy of the architecture with nothing trained, or for a LoRA/QLoRA policy's shared base its own
// setup (the base with the adapters disabled: the same frozen, possibly 4-bit, weights). Only for a
// job that loads a reference (rlhf.reference not none).
TrainingSetup rlhf_reference_setup(const TrainingSetup& setup);

// GRPO generating with vLLM in the training processes (rlhf.rollout.use_vllm, colocated): TRL's
// GRPOTrainer runs vLLM (PPOTrainer has no vLLM path: trl/trainer/grpo_config.py @f2cd577).
bool uses_colocated_vllm(const TrainingSetup& setup);

// Colocated vLLM's copy of the whole policy in the compute dtype, bytes (TRL's colocate mode loads
// the model in each process: vllm_tensor_parallel_size defaults to 1). nullopt without colocated
// vLLM or an architecture.
std::optional<double> vllm_weight_bytes(const TrainingSetup& setup);

// The smallest vllm_gpu_memory_utilization (a fraction of the device's total memory, rounded up to
// a hundredth) whose pool holds colocated vLLM's copy of the whole policy in the compute dtype and
// the KV cache of the whole generation batch at once: the sequences one process generates (see
// estimate_rlhf), each prompt + max_new_tokens long. A smaller pool still runs while it holds the
// weights and one sequence's KV cache (vLLM then schedules fewer sequences at a time and generates
// more slowly). vLLM's own working memory beside its pool (its profiling run's activations, CUDA
// graphs) is not in it. nullopt without colocated vLLM, a GPU or an architecture, or above 1.
std::optional<double> vllm_share_for_generation_batch(const TrainingSetup& setup);

// KV-cache bytes per GPU for `sequences` sequences of `tokens` tokens (rollout generation).
double kv_cache_bytes(const Architecture& a, double sequences, double tokens, Dtype dtype, double tensor_parallel);

}  // namespace trainmem
