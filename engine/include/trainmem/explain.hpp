// Each component of an estimate as a formula with the setup's numbers and its source, for the
// page's explanations and the CLI's output. Text only; every number comes from the Estimate.
#pragma once

#include <vector>

#include "trainmem/estimate.hpp"

namespace trainmem {

std::vector<Explanation> explain(const TrainingSetup& setup, const Estimate& e);

// Common estimation mistakes (docs/memory-model.md) and other caveats that apply to this setup (stable codes).
std::vector<Warning> estimate_warnings(const TrainingSetup& setup, const Estimate& e);

// Appends what the setup asks of its GPU that the GPU cannot do (bf16, FlashAttention-2).
void hardware_warnings(const TrainingSetup& setup, const Estimate& e, std::vector<Warning>& warnings);

// Why the setup cannot start on its GPU as written, as warning codes: the hardware warnings', and
// vllm_share_below_weights where colocated vLLM's share of this device cannot hold the policy's
// weights. Empty when it can start (the memory verdict aside).
std::vector<std::string> cannot_run_codes(const TrainingSetup& setup, const Estimate& e);

// Whether colocated vLLM's share (rlhf.rollout.vllm_gpu_memory_utilization of the device) is below
// its copy of the policy's weights, so that vLLM cannot load the model.
bool vllm_share_below_weights(const TrainingSetup& setup, const Estimate& e);

}  // namespace trainmem
