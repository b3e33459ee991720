#include "trainmem/run_cost.hpp"

namespace trainmem {

void add_run_cost(const TrainingSetup& s, double tokens_per_step, StepTime& t) {
  if (!s.training.total_tokens || tokens_per_step <= 0) return;
  const double steps = *s.training.total_tokens / tokens_per_step;
  t.time_to_train_seconds = steps * t.step_seconds;
  t.gpu_hours = static_cast<double>(s.parallel.world_size) * *t.time_to_train_seconds / 3600.0;
  RunCost cost;
  if (s.training.price_per_gpu_hour_usd) {
    cost.price_per_gpu_hour_usd = *s.training.price_per_gpu_hour_usd;
    cost.source = "training.price_per_gpu_hour_usd (input)";
  } else if (s.gpu && s.gpu->price_per_gpu_hour_usd) {
    cost.price_per_gpu_hour_usd = *s.gpu->price_per_gpu_hour_usd;
    cost.source = s.gpu->price_source;
  } else {
    return;
  }
  cost.usd = *t.gpu_hours * cost.price_per_gpu_hour_usd;
  t.cost = cost;
}

}  // namespace trainmem
