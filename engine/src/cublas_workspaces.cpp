#include "trainmem/cublas_workspaces.hpp"

namespace trainmem {

namespace {

// aten/src/ATen/cuda/CublasHandlePool.cpp, parseChosenWorkspaceSize: "32MiB for Hopper" (and
// Blackwell), else the ":4096:2:16:8" default.
constexpr double kLargeWorkspaceBytes = 32.0 * 1024 * 1024;
constexpr double kDefaultWorkspaceBytes = 4096.0 * 1024 * 2 + 16.0 * 1024 * 8;
// The Python thread (forward, optimizer step) and the autograd engine's device thread (backward).
constexpr double kHandles = 2;
// Transformer Engine's get_cublas_workspace_size_bytes (module/base.py @fecb10b): "32 MiB if using
// hopper, 4 MiB for all other architectures"; initialize_ub repeats it _NUM_MAX_UB_STREAMS (3) times.
constexpr double kTeHopperWorkspaceBytes = 33554432, kTeWorkspaceBytes = 4194304;
constexpr double kUserbufferStreams = 3;

}  // namespace

double cublas_workspace_bytes(const TrainingSetup& s) {
  if (s.gpu && !s.gpu->has_cuda_context) return 0;
  const GpuGeneration g = s.gpu ? s.gpu->performance.generation : GpuGeneration::other;
  const bool large = g == GpuGeneration::hopper || g == GpuGeneration::blackwell;
  const double pytorch = kHandles * (large ? kLargeWorkspaceBytes : kDefaultWorkspaceBytes);
  if (s.framework != Framework::megatron) return pytorch;
  const double te = (large ? kTeHopperWorkspaceBytes : kTeWorkspaceBytes) * (s.parallel.tp_comm_overlap ? kUserbufferStreams : 1);
  return pytorch + te;
}

}  // namespace trainmem
