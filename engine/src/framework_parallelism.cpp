#include "trainmem/framework_parallelism.hpp"

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

}  // namespace trainmem
