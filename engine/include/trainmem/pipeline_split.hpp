// Transformer layers per pipeline model chunk: as given (parallel.pipeline_layers) or by the
// framework's own rule. There are pipeline_parallel_size x virtual_pipeline_stages chunks in layer
// order; chunk k runs on stage k mod pipeline_parallel_size.
//
//  - torchtitan (pytorch/torchtitan@b5bcd76c, torchtitan/distributed/pipeline_parallel.py,
//    _generate_llm_fqn_per_model_part with pipeline_parallel_first/last_stage_less_layers = 1): the
//    embedding and the output count as one layer each; the L + 2 "effective layers" are split evenly
//    over the chunks, the first (L + 2) mod chunks taking one more; the first and last chunks then
//    give one layer back. 126 layers on 8 stages: 15, 16 x 6, 15.
//  - Megatron (NVIDIA/Megatron-LM, megatron/training/arguments.py validate_args): the layers must
//    divide evenly over the pipeline (and virtual) stages unless --decoder-first-pipeline-num-layers /
//    --decoder-last-pipeline-num-layers, --account-for-embedding-in-pipeline-split /
//    --account-for-loss-in-pipeline-split (the embedding and the loss counted as one layer each) or
//    --pipeline-model-parallel-layout set an uneven split; the estimate refuses as Megatron does and
//    asks for parallel.pipeline_layers, which stands for them (the trainer-config import turns each
//    into it; the strategy search offers the embedding-and-loss split where L + 2 divides).
//  - DeepSpeed and the others (deepspeed/runtime/utils.py partition_uniform, used by PipelineModule
//    with partition_method="uniform"): floor(L / chunks) each, the first L mod chunks one more.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trainmem/params.hpp"
#include "trainmem/training_setup.hpp"

namespace trainmem {

struct PipelineSplit {
  std::vector<std::int64_t> chunk_layers;  // layers of each chunk, in layer order
  // Set when the framework would refuse this split, or the given one is inconsistent.
  std::string error_code, error_field, error_message;
  Params error_params;  // the values the message names (params.hpp)
};

PipelineSplit pipeline_split(const TrainingSetup& s, std::int64_t num_layers);

// Megatron-Core's split with the embedding and/or the loss counted as one layer each
// (--account-for-embedding-in-pipeline-split, --account-for-loss-in-pipeline-split;
// megatron/core/transformer/transformer_block.py get_num_layers_to_build @d98e8a6): (layers + e + l)
// / chunks per chunk in layer order, one fewer in the first chunk (embedding) and in the last (loss).
// Empty where Megatron asserts: the count does not divide, or a first or last chunk would hold
// fewer than 0 layers.
std::vector<std::int64_t> megatron_counted_split(std::int64_t layers, std::int64_t chunks, bool embedding, bool loss);

}  // namespace trainmem
