// The document's names of the engine's enumerations, one table per field kind: the parser reads
// them, the resolved block and the suggestions write them back (docs/api.md, "Input").
#pragma once

#include <utility>
#include <vector>

#include "trainmem/dtype.hpp"
#include "trainmem/training_setup.hpp"

namespace trainmem::json_io {

template <typename E>
using Table = std::vector<std::pair<const char*, E>>;


inline const Table<Framework> kFrameworks{{"hf_trainer", Framework::hf_trainer}, {"torchtune", Framework::torchtune},
                                   {"torchtitan", Framework::torchtitan}, {"deepspeed", Framework::deepspeed},
                                   {"fsdp", Framework::fsdp},             {"megatron", Framework::megatron}};
inline const Table<Method> kMethods{{"full", Method::full}, {"lora", Method::lora}, {"qlora", Method::qlora}, {"freeze", Method::freeze}};
inline const Table<Optimizer> kOptimizers{{"adamw", Optimizer::adamw},
                                   {"adam", Optimizer::adam},
                                   {"adamw_8bit", Optimizer::adamw_8bit},
                                   {"paged_adamw", Optimizer::paged_adamw},
                                   {"paged_adamw_8bit", Optimizer::paged_adamw_8bit},
                                   {"adafactor", Optimizer::adafactor},
                                   {"sgd", Optimizer::sgd},
                                   {"sgd_momentum", Optimizer::sgd_momentum},
                                   {"lion", Optimizer::lion}};
inline const Table<Dtype> kTrainingDtypes{{"fp32", Dtype::fp32}, {"bf16", Dtype::bf16}, {"fp16", Dtype::fp16}, {"fp8", Dtype::fp8}};
inline const Table<Dtype> kStateDtypes{{"fp32", Dtype::fp32}, {"bf16", Dtype::bf16}, {"fp16", Dtype::fp16}, {"int8", Dtype::int8}};
inline const Table<QuantMethod> kQuantMethods{{"bitsandbytes", QuantMethod::bitsandbytes}, {"hqq", QuantMethod::hqq}};
inline const Table<Dtype> kQuantTypes{{"nf4", Dtype::nf4}, {"fp4", Dtype::int4}, {"int4", Dtype::int4}, {"int8", Dtype::int8}};
inline const Table<Checkpointing> kCheckpointing{{"none", Checkpointing::none}, {"selective", Checkpointing::selective}, {"full", Checkpointing::full}};
inline const Table<SelectivePolicy> kSelective{{"attention_core", SelectivePolicy::attention_core}, {"op_level", SelectivePolicy::op_level}};
inline const Table<LossImplementation> kLoss{{"full", LossImplementation::full}, {"chunked", LossImplementation::chunked}, {"fused", LossImplementation::fused}};
inline const Table<HeldLogits> kHeldLogits{{"none", HeldLogits::none}, {"compute_dtype", HeldLogits::compute_dtype}, {"fp32", HeldLogits::fp32}};
inline const Table<ModelLoading> kLoading{{"meta_init", ModelLoading::meta_init}, {"full_copy_per_gpu", ModelLoading::full_copy_per_gpu}};
inline const Table<Padding> kPadding{{"max_length", Padding::max_length}, {"longest", Padding::longest}};
inline const Table<AttentionImplementation> kAttention{{"flash", AttentionImplementation::flash}, {"flash3", AttentionImplementation::flash3}, {"sdpa", AttentionImplementation::sdpa}, {"eager", AttentionImplementation::eager}};
inline const Table<OffloadTarget> kOffload{{"none", OffloadTarget::none}, {"cpu", OffloadTarget::cpu}, {"nvme", OffloadTarget::nvme}};
inline const Table<ShardingEngine> kShardingEngines{{"deepspeed", ShardingEngine::deepspeed}, {"fsdp", ShardingEngine::fsdp},
                                             {"fsdp2", ShardingEngine::fsdp2}, {"megatron", ShardingEngine::megatron}};
inline const Table<GradientSync> kGradientSync{{"every_micro_batch", GradientSync::every_micro_batch},
                                        {"last_micro_batch", GradientSync::last_micro_batch}};
inline const Table<OptimizerImplementation> kOptimizerImplementations{{"foreach", OptimizerImplementation::foreach},
                                                               {"fused", OptimizerImplementation::fused},
                                                               {"for_loop", OptimizerImplementation::for_loop}};
inline const Table<PipelineSchedule> kSchedules{{"1f1b", PipelineSchedule::one_f_one_b}, {"interleaved_1f1b", PipelineSchedule::interleaved_1f1b}, {"gpipe", PipelineSchedule::gpipe}};

// The document's name of a value (the first name the table gives it); "" when it has none.
template <typename E>
const char* name_of(const Table<E>& table, E value) {
  for (const auto& [name, v] : table)
    if (v == value) return name;
  return "";
}

}  // namespace trainmem::json_io
