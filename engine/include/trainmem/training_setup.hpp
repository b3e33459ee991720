// The estimate input document (docs/api.md, "Input") as C++ values.
//
// Member names follow the document: Hugging Face names for the architecture, Megatron/DeepSpeed
// names for training. Optional members are "not given": the framework's documented default applies
// (see framework_defaults.hpp). All sizes are counts (elements, tokens, GPUs), never bytes, except
// where a name ends in _bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trainmem/architecture.hpp"
#include "trainmem/dtype.hpp"

namespace trainmem {

enum class Framework { hf_trainer, torchtune, torchtitan, deepspeed, fsdp, megatron };
enum class Method { full, lora, qlora, freeze };
// LoRA and QLoRA train adapters beside frozen base weights (PEFT's LoraConfig).
constexpr bool uses_adapters(Method m) { return m == Method::lora || m == Method::qlora; }
enum class Optimizer {
  adamw, adam, adamw_8bit, paged_adamw, paged_adamw_8bit, adafactor, sgd, sgd_momentum, lion
};
// bitsandbytes' paged optimizers keep their states in CUDA unified memory (paged to the host).
constexpr bool is_paged(Optimizer o) { return o == Optimizer::paged_adamw || o == Optimizer::paged_adamw_8bit; }
// torch.optim's Adam and AdamW: the optimizers precision.optimizer_implementation applies to.
constexpr bool adam_family(Optimizer o) { return o == Optimizer::adamw || o == Optimizer::adam; }
enum class Checkpointing { none, selective, full };
enum class SelectivePolicy { attention_core, op_level };
enum class LossImplementation { full, chunked, fused };
// What the training loop keeps referenced from the model's output while backward runs: nothing
// (the loop drops it before backward), its logits in the compute dtype, or fp32 logits (a model
// whose forward upcasts them, transformers up to v4.45). framework_defaults.hpp.
enum class HeldLogits { none, compute_dtype, fp32 };
enum class ModelLoading { meta_init, full_copy_per_gpu };
// flash: FlashAttention-2 (flash-attn, or SDPA's flash backend); flash3: FlashAttention-3 (Hopper
// only; transformers attn_implementation "flash_attention_3"). Both save the same tensors.
enum class AttentionImplementation { flash, flash3, sdpa, eager };
enum class OffloadTarget { none, cpu, nvme };
enum class PipelineSchedule { one_f_one_b, interleaved_1f1b, gpipe };
// Context parallelism: ring attention passes key/value blocks around the ranks (Megatron-LM/
// Transformer Engine, torchtitan); Ulysses swaps the sequence split for a head split with
// all-to-alls around attention (DeepSpeed-Ulysses, Jacobs et al. 2023; XTuner sequence parallel).
enum class ContextParallelKind { ring, ulysses };
enum class RlhfAlgorithm { dpo, ppo, grpo };
// The reference model of an RLHF job: a frozen copy of the policy, the policy's own base with its
// adapters disabled (LoRA/QLoRA), or none (GRPO with a zero KL coefficient).
enum class ReferenceModel { frozen, shared_base, none };
// Which engine shards parameters, gradients and optimizer states, apart from the trainer that
// drives the loop (HF Trainer, accelerate, LLaMA-Factory and TRL front DeepSpeed or FSDP).
enum class ShardingEngine { deepspeed, fsdp, fsdp2, megatron };
// When data-parallel gradients are reduced during gradient accumulation: after every micro-batch,
// or only after the last one (no_sync: full unsharded gradients until the sync step).
enum class GradientSync { every_micro_batch, last_micro_batch };
// What torch.compile covers: the transformer blocks only, or the loss as well.
enum class CompileScope { blocks, blocks_and_loss };
// How the optimizer steps a parameter group (torch.optim's foreach / fused / single-tensor paths).
enum class OptimizerImplementation { foreach, fused, for_loop };
// What quantizes a QLoRA base inside transformers' from_pretrained: bitsandbytes
// (BitsAndBytesConfig) or HQQ, half-quadratic quantization (HqqConfig; mobiusml/hqq). torchtune
// quantizes with torchao's NF4 whatever this says.
enum class QuantMethod { bitsandbytes, hqq };

// The model: an architecture (from a preset or a config.json), or only a parameter count.
struct ModelSpec {
  std::string preset;                       // catalog id when given as a preset
  std::optional<Architecture> architecture;  // absent for {"num_parameters": N}
  std::int64_t num_parameters = 0;          // total parameters (from the architecture when known)
  std::optional<std::int64_t> seq_length_default;  // a preset's usual training length
};

// PEFT's LoraConfig fields that decide which modules get adapters and their ranks (matching:
// lora_targeting.hpp).
struct LoraSettings {
  std::int64_t r = 16;
  std::vector<std::string> target_modules;  // module names or {"all-linear"}; empty: the family's PEFT default
  std::optional<std::string> target_pattern;   // target_modules given as one regex string (re.fullmatch)
  std::vector<std::string> exclude_modules;    // names (exact or ".name" suffix)
  std::optional<std::string> exclude_pattern;  // exclude_modules given as one regex string
  std::vector<std::int64_t> layers_to_transform;  // layer indices (with a list of target_modules)
  std::vector<std::pair<std::string, std::int64_t>> rank_pattern;  // regex key -> rank, tried in order
  std::vector<std::string> modules_to_save;  // trained in full (e.g. "lm_head", "embed_tokens")
  bool use_dora = false;
  double lora_dropout = 0.0;
  Dtype adapter_dtype = Dtype::bf16;
};

struct QloraSettings {
  // nf4 or int4 (fp4): a 4-bit base (QLoRA, Dettmers et al. 2023, arXiv 2305.14314); int8:
  // bitsandbytes' LLM.int8() base (Dettmers et al. 2022, arXiv 2208.07339), transformers'
  // load_in_8bit under a LoRA adapter.
  Dtype quant_type = Dtype::nf4;
  bool double_quant = true;  // 4-bit only
  // What bitsandbytes' older kernels kept beyond the current ones. 4-bit: each linear keeps its
  // input for the backward, as MatMul4Bit did up to v0.43.1 (ctx.tensors = (A, B); (None, B)
  // since bitsandbytes-foundation/bitsandbytes#1270, v0.43.2). int8: MatMul8bitLt keeps its input
  // in every version (ctx.tensors = (CAt, subA, A)), and up to v0.44.1 also each linear's own int8
  // copy of it, CAt (F.double_quant; none for a frozen weight since #1401, v0.45.0). Not given: the
  // current behaviour; the band re-estimates the older one.
  std::optional<bool> saves_base_inputs;
  QuantMethod quant_method = QuantMethod::bitsandbytes;
  // HQQ only (transformers' HqqConfig names): bits per stored weight (1 to 6, or 8), weights per
  // scale-and-zero pair (a multiple of 8) and the axis the groups run along (HqqConfig defaults 4,
  // 64 and 1; LLaMA-Factory passes axis 0). quant_type, double_quant and saves_base_inputs are
  // bitsandbytes' and do not apply.
  int nbits = 4;
  std::int64_t group_size = 64;
  int axis = 1;
};

struct Precision {
  std::optional<Dtype> param_dtype;
  std::optional<Dtype> grad_dtype;
  // Dtype of activations and matmuls; default: param_dtype when it is 16-bit, else fp32. bf16 with
  // fp32 parameters is autocast mixed precision (HF Trainer --bf16 on an fp32 model, FSDP
  // MixedPrecision).
  std::optional<Dtype> compute_dtype;
  std::optional<bool> master_weights;
  Optimizer optimizer = Optimizer::adamw;
  std::optional<Dtype> optimizer_state_dtype;
  bool optimizer_in_backward = false;
  bool fp8_compute = false;
  std::optional<OptimizerImplementation> optimizer_implementation;  // default: framework_defaults.hpp
};

// How the data loader fills a batch: every sequence seq_length tokens long (packed samples, or
// padding to the maximum), or each batch padded to its longest sample, truncated at seq_length
// (torchtune's padded_collate_sft, TRL's DataCollatorForLanguageModeling, transformers'
// DataCollatorWithPadding with padding=True). The estimate is the batch at seq_length either way;
// with `longest` its reserve also holds a shorter batch's cached blocks (allocator.hpp,
// longer_batch_growth) and the uncertainty band reaches down to a batch of short samples.
enum class Padding { max_length, longest };

struct BatchSettings {
  std::int64_t micro_batch_size = 1;
  std::optional<std::int64_t> seq_length;
  std::int64_t gradient_accumulation_steps = 1;
  std::optional<std::int64_t> decoder_seq_length;
  std::optional<Padding> padding;  // max_length when not given
};

struct LossSettings {
  std::optional<LossImplementation> implementation;
  std::optional<bool> logits_fp32;
  // Chunks of the chunked loss (8 when not given) or of a fused loss that chunks by a given count;
  // a fused loss without it chunks as Liger's does (loss_memory.hpp).
  std::optional<std::int64_t> num_chunks;
  std::optional<HeldLogits> held_logits;
  // Positions per sequence the LM head computes logits for (transformers' `logits_to_keep`); every
  // position when empty. Not a document field: the RLHF path sets it for GRPO (rlhf.hpp).
  std::optional<std::int64_t> logits_positions;
};

// Limits on the job's shape (docs/api.md, "Limits"). The estimate evaluates each pipeline stage, so
// its work grows with the pipeline size: 1,024 stages is 16 x the deepest pipelines in published
// runs (64 in Narayanan et al. 2021, Table 1).
inline constexpr std::int64_t kMaxWorldSize = 10'000'000;
inline constexpr std::int64_t kMaxPipelineStages = 1024;

struct ParallelSettings {
  std::int64_t world_size = 1;
  std::int64_t gpus_per_node = 8;
  std::int64_t data_parallel_size = 1;  // derived: world_size / (tp * pp * cp)
  int zero_stage = 0;                   // 0 = DDP, 1, 2 (FSDP SHARD_GRAD_OP), 3 (FSDP FULL_SHARD)
  std::optional<std::int64_t> sharding_group_size;  // HYBRID_SHARD group size
  std::int64_t tensor_parallel_size = 1;
  std::int64_t pipeline_parallel_size = 1;
  bool sequence_parallel = false;
  std::int64_t context_parallel_size = 1;
  std::int64_t expert_parallel_size = 1;
  ContextParallelKind context_parallel_kind = ContextParallelKind::ring;
  // Transformer layers of each pipeline model chunk, in layer order (pipeline_parallel_size x
  // virtual_pipeline_stages entries; chunk k runs on stage k mod pipeline_parallel_size); empty:
  // the framework's split rule (pipeline_split.hpp).
  std::vector<std::int64_t> pipeline_layers;
  OffloadTarget offload_optimizer = OffloadTarget::none;
  OffloadTarget offload_param = OffloadTarget::none;
  PipelineSchedule pipeline_schedule = PipelineSchedule::one_f_one_b;
  std::int64_t virtual_pipeline_stages = 1;
  bool reshard_after_forward = true;
  // FSDP1's FullyShardedDataParallel(use_orig_params=...): not given, True (accelerate's
  // fsdp_use_orig_params and Lightning's FSDPStrategy default). framework_defaults.hpp
  // fsdp1_whole_unit_gradients says what it changes.
  std::optional<bool> use_orig_params;
  double zero3_max_live_parameters = 1e9;  // DeepSpeed stage3_max_live_parameters (elements)
  // Not given: the framework's default (framework_defaults.hpp resolves each).
  std::optional<ShardingEngine> sharding_engine;
  std::optional<GradientSync> gradient_sync;
  std::optional<std::int64_t> expert_tensor_parallel_size;  // Megatron ETP; default: tensor_parallel_size
  // Data-parallel communication runs under the backward pass (and parameter gathers under the
  // forward): Megatron --overlap-grad-reduce/--overlap-param-gather, DeepSpeed overlap_comm.
  // Default by framework (step_time.hpp).
  std::optional<bool> overlap_grad_reduce;
  // Tensor-parallel communication overlapped with the GEMMs around it (Megatron --tp-comm-overlap,
  // Transformer Engine's userbuffers; torchtitan's async tensor parallel): needs sequence
  // parallelism (megatron/training/arguments.py). Off by default, as in both.
  bool tp_comm_overlap = false;
};

// GPU families whose attention kernels differ (FlashAttention-2 vs cuDNN/FlashAttention-3 class).
enum class GpuGeneration { other, volta, turing, ampere, ada, hopper, blackwell };

// A device's speeds for the time model (catalog or custom document); 0 means "not known" and the
// engine's documented default applies (see step_time.hpp). Rates per GPU, per second.
struct GpuPerformance {
  double bf16_dense_flops_per_s = 0;        // vendor dense (no sparsity) bf16/fp16 tensor peak
  double fp8_dense_flops_per_s = 0;         // 0: no fp8 tensor cores
  double memory_bandwidth_bytes_per_s = 0;  // HBM/GDDR, vendor figure
  // Measured largest matmul throughput / the peak (Maximum Achievable Matmul FLOPS, MAMF).
  double matmul_efficiency_bf16 = 0, matmul_efficiency_fp8 = 0;
  std::int64_t streaming_multiprocessors = 0;  // SMs (CUs on AMD); 0: not a CUDA-like device
  GpuGeneration generation = GpuGeneration::other;
  // NCCL bus bandwidth (nccl-tests busbw convention) inside a node, and per GPU across nodes.
  double intra_node_bytes_per_s = 0, inter_node_bytes_per_s = 0;
  std::int64_t intra_node_gpus = 0;  // GPUs joined at the intra-node rate (an NVLink domain); 0: gpus_per_node
  double host_link_bytes_per_s = 0;  // GPU <-> host (PCIe), one direction
  double interconnect_bytes_per_s = 0;  // GPU-to-GPU line rate as the vendor states it (bidirectional)
};

// A device from the catalog or given by the user; bytes.
struct GpuSpec {
  std::string id;  // catalog id, empty for a custom device
  std::string display_name;
  std::int64_t memory_bytes = 0;                   // the vendor's figure, in bytes
  std::optional<std::int64_t> device_total_bytes;  // what the driver reports (nvidia-smi total)
  std::optional<std::int64_t> usable_bytes;        // what a framework can allocate (context excluded)
  std::optional<std::int64_t> cuda_context_bytes;
  bool has_cuda_context = true;  // false for TPU and Gaudi
  std::string kind = "gpu";      // the catalog's kind: gpu, hpu (Gaudi) or tpu; a custom device is a gpu
  // What the hardware can run (the catalog's "bf16" and "flash_attention_2"; a custom device is
  // assumed capable): bf16 arithmetic, and FlashAttention-2's kernels.
  bool bf16 = true;
  bool flash_attention_2 = true;
  std::int64_t gpus_per_node = 8;
  GpuPerformance performance;
  std::optional<double> price_per_gpu_hour_usd;  // the catalog's default offer (USD per GPU-hour)
  std::string price_source;                      // where, when and what kind of offer
};

// FP8 tensor cores: Ada, Hopper and Blackwell (compute capability 8.9 and above; Transformer Engine
// refuses FP8 below it, transformer_engine/pytorch/fp8.py @v2.5 check_fp8_support: "Device compute
// capability 8.9 or higher required for FP8 execution."). Volta, Turing and Ampere have none; a
// device of another or no named generation is taken as capable.
inline bool has_fp8_tensor_cores(const GpuSpec& g) {
  const GpuGeneration gen = g.performance.generation;
  return gen != GpuGeneration::volta && gen != GpuGeneration::turing && gen != GpuGeneration::ampere;
}

// Link speeds that override the GPU catalog's (document "network"); bytes per second per GPU,
// nccl-tests bus bandwidth.
struct NetworkSettings {
  std::optional<double> intra_node_bytes_per_s, inter_node_bytes_per_s;
};

// A whole training run (document "training"): time to train, GPU-hours and cost.
struct TrainingGoal {
  std::optional<double> total_tokens;
  std::optional<double> price_per_gpu_hour_usd;  // overrides the catalog price
};

// A multi-model RLHF job; the setup's model is the policy (docs/api.md, `rlhf`).
struct RlhfSettings {
  RlhfAlgorithm algorithm = RlhfAlgorithm::dpo;
  ReferenceModel reference = ReferenceModel::frozen;
  std::optional<ModelSpec> reward_model;   // PPO; default: the policy's architecture
  std::optional<ModelSpec> critic_model;   // PPO; default: the policy's architecture
  Method critic_method = Method::full;
  std::int64_t max_new_tokens = 512;       // generated tokens per completion
  std::int64_t num_generations = 8;        // completions per prompt (GRPO; PPO uses 1)
  bool colocated = true;                   // generation runs on the training GPUs (KV cache there)
  // TRL's use_vllm: generation by vLLM instead of transformers' generate. Colocated (TRL vllm_mode
  // "colocate"), vLLM runs in each training process and takes vllm_gpu_memory_utilization of the
  // device's memory (weights and KV cache pool; TRL GRPOConfig default 0.3); with
  // vllm_enable_sleep_mode it releases both while the policy trains (trl/generation/
  // vllm_generation.py: llm.sleep(level=2) after each generation).
  bool use_vllm = false;
  double vllm_gpu_memory_utilization = 0.3;
  bool vllm_enable_sleep_mode = false;
};

// The multimodal input object (docs/api.md, input field "multimodal"): which parts of a
// vision-language checkpoint train, and the images each sample carries.
struct MultimodalSettings {
  bool freeze_vision_tower = true;  // the vision encoder keeps its weights (no gradients, no states)
  bool freeze_projector = false;    // the projector trains in full unless frozen
  std::int64_t images_per_sample = 1;
  // [h, w] pixels of each image before the processor; default: vision_config.image_size.
  std::optional<std::pair<std::int64_t, std::int64_t>> image_size;
};

// What a checkpoint save writes and the disk and host RAM it has (docs/memory-model.md, "Checkpoints").
enum class CheckpointSave { full_state, weights, adapter };
struct CheckpointSettings {
  CheckpointSave save = CheckpointSave::full_state;  // resumable state, inference weights, or LoRA adapter
  // PEFT adapters: leave the frozen base out of the resume state (DeepSpeed
  // save_checkpoint(exclude_frozen_parameters=True), PEFT save_pretrained); false keeps it (dreamzero0/dreamzero#90).
  bool exclude_frozen_parameters = true;
  std::optional<Dtype> weights_dtype;  // dtype of saved inference weights (default: param_dtype)
  std::int64_t keep_last = 1;          // checkpoints kept on disk (save_total_limit)
  std::optional<std::int64_t> free_disk_bytes;
  std::optional<std::int64_t> node_ram_bytes;
};

// Settings the document gave that change nothing for this setup: their full paths from the
// document's root ("rlhf.rollout.use_vllm"), and why, in English (the warning's message).
struct IgnoredField {
  std::vector<std::string> paths;
  std::string reason;
};

struct TrainingSetup {
  ModelSpec model;
  Framework framework = Framework::hf_trainer;
  Method method = Method::full;
  LoraSettings lora;
  QloraSettings qlora;
  std::int64_t freeze_trainable_layers = 1;
  Precision precision;
  BatchSettings batch;
  Checkpointing activation_checkpointing = Checkpointing::none;
  SelectivePolicy selective_policy = SelectivePolicy::attention_core;
  std::optional<std::int64_t> checkpointed_layers;
  bool activation_offload = false;
  LossSettings loss;
  bool compile = false;
  // Liger-Kernel's Triton kernels patched into a Hugging Face model (transformers TrainingArguments
  // use_liger_kernel -> liger_kernel.transformers apply_liger_kernel_to_<model_type> with its
  // defaults: rms_norm, swiglu, rope and fused_linear_cross_entropy on; framework_defaults.hpp).
  bool use_liger_kernel = false;
  // Whether the loop frees the gradients after each optimizer step (PyTorch's
  // zero_grad(set_to_none=True), the default since v2.0: pytorch/pytorch#92731) or zeroes them in
  // place and keeps them (set_to_none=False, PyTorch 1.x's default). Empty: the framework's
  // (framework_defaults.hpp, FrameworkBehaviour::gradients_freed_between_steps).
  std::optional<bool> zero_grad_set_to_none;
  std::optional<CompileScope> compile_scope;  // what compile covers; default: the framework's
  // Megatron pads the vocabulary to a multiple of this x TP (default 128 under Megatron, else 1).
  std::optional<std::int64_t> make_vocab_size_divisible_by;
  ModelLoading model_loading = ModelLoading::meta_init;
  AttentionImplementation attention = AttentionImplementation::flash;
  ParallelSettings parallel;
  std::optional<GpuSpec> gpu;
  NetworkSettings network;
  TrainingGoal training;
  CheckpointSettings checkpoint;
  std::optional<RlhfSettings> rlhf;
  MultimodalSettings multimodal;
  // Fields the document gave that have no effect on this setup (the ignored_fields warning).
  std::vector<IgnoredField> ignored_fields;
  // Caching-allocator fragmentation as a fraction of allocated bytes (reserved = allocated x (1 + f)).
  double fragmentation_fraction = 0.10;
  // Settings the document left out although their default is uncertain: the estimate uses the
  // default, and the uncertainty band (uncertainty.hpp) re-estimates the alternatives. A setup built
  // in code states everything unless it says otherwise. (Optional members above are unstated when
  // empty.)
  struct Unstated {
    bool activation_checkpointing = false;
    bool seq_length = false;      // the preset's usual training length (or 4096) was used
    bool fragmentation = false;   // overhead.fragmentation_fraction
    bool optimizer = false;              // precision.optimizer (AdamW was used)
    bool optimizer_in_backward = false;  // precision.optimizer_in_backward (false was used)
    bool attention = false;              // attention (the engine's flash was used)
    bool lora = false;                   // the lora block (r 16 on the family's PEFT targets was used)
    bool adapter_dtype = true;           // lora.adapter_dtype (the adapters' memory follows precision)
    bool double_quant = true;            // qlora.double_quant (true was used; an int8 base has none)
  } unstated;
};

}  // namespace trainmem
