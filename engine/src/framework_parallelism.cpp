#include "trainmem/framework_parallelism.hpp"

#include <algorithm>

#include "trainmem/framework_defaults.hpp"

namespace trainmem {

FrameworkParallelism framework_parallelism(const TrainingSetup& s) {
  const std::vector<int> fsdp_stages = {0, 2, 3};
  switch (s.framework) {
    case Framework::megatron: return {true, true, ContextParallelKind::ring, {0, 1}};
    case Framework::torchtitan: return {true, true, ContextParallelKind::ring, fsdp_stages};
    case Framework::torchtune: return {s.method == Method::full, false, ContextParallelKind::ring, fsdp_stages};
    case Framework::deepspeed: return {false, false, ContextParallelKind::ulysses, {0, 1, 2, 3}};
    case Framework::hf_trainer:
      return {false, false, std::nullopt,
              sharding_engine(s) == ShardingEngine::deepspeed ? std::vector<int>{0, 1, 2, 3} : fsdp_stages};
    case Framework::fsdp: return {false, false, std::nullopt, fsdp_stages};
  }
  return {};
}

bool adapters_available(Framework f) { return f != Framework::torchtitan && f != Framework::megatron; }

std::vector<std::string> fields_beyond_framework(const TrainingSetup& s) {
  const FrameworkParallelism offered = framework_parallelism(s);
  const ParallelSettings& p = s.parallel;
  std::vector<std::string> fields;
  if (uses_adapters(s.method) && !adapters_available(s.framework)) fields.push_back("method");
  if (p.tensor_parallel_size > 1 && !offered.tensor) fields.push_back("parallel.tensor_parallel_size");
  if (p.pipeline_parallel_size > 1 && !offered.pipeline) fields.push_back("parallel.pipeline_parallel_size");
  if (p.context_parallel_size > 1) {
    if (!offered.context) fields.push_back("parallel.context_parallel_size");
    else if (*offered.context != p.context_parallel_kind) fields.push_back("parallel.context_parallel_kind");
  }
  if (s.framework != Framework::megatron && p.world_size > 1 &&
      std::find(offered.zero_stages.begin(), offered.zero_stages.end(), p.zero_stage) == offered.zero_stages.end())
    fields.push_back("parallel.zero_stage");
  return fields;
}

}  // namespace trainmem
