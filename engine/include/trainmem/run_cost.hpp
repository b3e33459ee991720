// A whole run from its step time: time to train, GPU-hours and cost.
//
//   steps          = training.total_tokens / tokens per step (global batch x sequence length)
//   time to train  = steps x step seconds
//   GPU-hours      = world size x time to train / 3600
//   cost (USD)     = GPU-hours x price per GPU-hour (training.price_per_gpu_hour_usd, else the
//                    catalog GPU's default offer; none without either)
#pragma once

#include "trainmem/step_time.hpp"

namespace trainmem {

// Fills time_to_train_seconds, gpu_hours and cost of `time` when the setup gives total_tokens.
void add_run_cost(const TrainingSetup& setup, double tokens_per_step, StepTime& time);

}  // namespace trainmem
