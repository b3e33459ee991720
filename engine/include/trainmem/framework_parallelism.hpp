// The parallelism each training framework's own code offers: the dimensions and sharding stages
// the strategy search (strategy_search.hpp) may propose for a setup, so that a ranked strategy is
// one the user's framework can run. A document may still state any layout: it is priced as
// stated, with a layout_beyond_framework warning per field the framework cannot run at all
// (fields_beyond_framework, a wider rule than this table).
//
//   megatron    tensor, pipeline and context parallel (ring: --cp-comm-type p2p), ZeRO 0 or 1
//               (--use-distributed-optimizer shards the optimizer states over data parallel):
//               NVIDIA/Megatron-LM megatron/training/arguments.py (--tensor-model-parallel-size,
//               --pipeline-model-parallel-size, --context-parallel-size).
//   torchtitan  tensor, pipeline and context parallel (ring), DDP or FSDP2 with or without
//               resharding after forward (ZeRO 0, 2, 3): pytorch/torchtitan
//               torchtitan/config/job_config.py, class Parallelism (data_parallel_replicate_degree,
//               data_parallel_shard_degree, fsdp_reshard_after_forward, tensor_parallel_degree,
//               pipeline_parallel_degree, context_parallel_degree).
//   torchtune   full fine-tuning: tensor and context parallel (tensor_parallel_dim,
//               pytorch/torchtune#2330, 2025-02; context_parallel_dim, #2668, 2025-05); LoRA and
//               QLoRA: context parallel only (lora_finetune_distributed.py asserts
//               tensor_parallel_dim 1); no pipeline parallel; FSDP2 with or without
//               fsdp_reshard_after_forward, or replication (ZeRO 3, 2, 0): recipes/
//               full_finetune_distributed.py and lora_finetune_distributed.py @bd2a0fc.
//   deepspeed   DeepSpeed's engine around a Hugging Face model: ZeRO 0-3 and DeepSpeed-Ulysses
//               sequence parallelism (deepspeedai/DeepSpeed deepspeed/sequence/layer.py,
//               DistributedAttention: context parallel of kind ulysses); no tensor parallel, and no
//               pipeline parallel (deepspeed/runtime/pipe/engine.py runs a PipelineModule, not a
//               transformers model, and refuses ZeRO 2 and 3).
//   hf_trainer  data parallel only (TrainingArguments: DDP, FSDP through `fsdp`, DeepSpeed through
//               `deepspeed`): ZeRO 0-3 with DeepSpeed as the sharding engine, else 0, 2, 3 (FSDP's
//               NO_SHARD, SHARD_GRAD_OP, FULL_SHARD: torch/distributed/fsdp/api.py ShardingStrategy).
//               accelerate's ParallelismConfig (v1.10, 2025-08) adds tensor and context parallel
//               over FSDP2; not proposed.
//   fsdp        data parallel only: ZeRO 0, 2, 3 (ShardingStrategy, as above).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trainmem/training_setup.hpp"

namespace trainmem {

struct FrameworkParallelism {
  bool tensor = false, pipeline = false;
  std::optional<ContextParallelKind> context;  // the kind its context parallelism runs; empty: none offered
  std::vector<int> zero_stages;                // ascending
};

FrameworkParallelism framework_parallelism(const TrainingSetup& s);

// The sharding stages of framework_parallelism(s).zero_stages at which the document's rules
// (validate, estimate.hpp) accept the setup and the framework's own code runs it beside the rest
// of the layout (fields_beyond_framework names nothing new), ascending: an int8 or HQQ base
// refuses ZeRO-3, and so does DeepSpeed's AutoTP; advice to shard (the strategy search, the
// what-fits reasons, the suggestions) names only these. Validates the setup once per stage the
// framework offers (at most four).
std::vector<int> accepted_zero_stages(const TrainingSetup& s);

// Whether the framework trains LoRA/QLoRA adapters: torchtitan and Megatron-LM have none (PEFT
// adapters are Hugging Face's; torchtune has its own).
bool adapters_available(Framework f);

// Whether training adapters instead is advice for this setup: it trains every weight (full or
// freeze) and its framework has adapters.
bool adapters_would_help(const TrainingSetup& s);

// Whether the framework's own configuration turns on selective recompute: Megatron-LM
// (--recompute-granularity selective, megatron/training/arguments.py), torchtitan
// (activation_checkpoint.mode "selective", torchtitan/config/job_config.py) and torchtune
// (ac_mode "selective", torchtune/training/activations.py apply_selective_activation_checkpointing).
// The HF Trainer, DeepSpeed around a transformers model and accelerate's FSDP recompute whole
// decoder layers (transformers modeling_utils.py gradient_checkpointing_enable; accelerate
// fsdp_activation_checkpointing): the strategy search and the suggestions propose no selective
// recompute there.
bool selective_checkpointing_available(Framework f);

// The fields of the setup that state what its framework cannot run at all in a current release
// (wider than the search's table above, which proposes only the common layouts), in document order
// (paths: "method", "parallel.tensor_parallel_size", "parallel.pipeline_parallel_size",
// "parallel.context_parallel_kind", "parallel.zero_stage"). Megatron's ZeRO stage is not judged:
// Megatron-FSDP (--use-megatron-fsdp) shards beyond stage 1. Sources in framework_parallelism.cpp.
std::vector<std::string> fields_beyond_framework(const TrainingSetup& s);

// Whether `after` names a field beyond its framework (fields_beyond_framework) that `before` does
// not: a change of the setup that its framework's own code does not run beside the rest.
bool adds_fields_beyond_framework(const TrainingSetup& before, const TrainingSetup& after);

}  // namespace trainmem
