// PyTorch's cuBLAS workspaces: the scratch memory every cuBLAS matmul of a training step is given.
// Bytes per GPU. docs/memory-model.md, "Buffers".
//
// PyTorch (aten/src/ATen/cuda/CublasHandlePool.cpp, since pytorch/pytorch#86167 and #91564, in
// PyTorch 2.0) allocates one workspace per (cuBLAS handle, stream) from the caching allocator
// (getNewWorkspace) and keeps it for the life of the process (cublas_handle_stream_to_workspace),
// so it counts in torch.cuda.max_memory_allocated. Handles are per thread (a thread-local
// PoolWindow): the forward and the optimizer step run on the Python thread, the backward on the
// autograd engine's thread for the device (torch/csrc/autograd/engine.cpp, one worker thread per
// CUDA device), so a training step holds two. Their size (parseChosenWorkspaceSize, without
// CUBLAS_WORKSPACE_CONFIG): 32 MiB on compute capability 9.x (Hopper), and on 10.x and 12.x
// (Blackwell) since pytorch/pytorch#175344 (2026-02); ":4096:2:16:8" elsewhere, 2 x 4096 KiB +
// 8 x 16 KiB = 8,519,680 B. This project's 32 H200 runs (tests/fixtures/measured_h200_hf_trainer.json,
// torch 2.11) allocated 64-69 MiB above the engine's peak before this term.
//
// Megatron runs its layers' GEMMs through Transformer Engine (--transformer-impl transformer_engine,
// its default), which keeps one more workspace as a torch tensor (NVIDIA/TransformerEngine
// transformer_engine/pytorch/module/base.py @fecb10b, get_workspace: 33,554,432 B at compute
// capability 9 and above, 4,194,304 B below), repeated once per userbuffers stream (3) when
// --tp-comm-overlap initializes the userbuffers (initialize_ub).
//
// Left out: cuBLASLt's own workspace (1 MiB per handle by default), Transformer Engine's extra
// workspaces for grouped GEMMs on several streams, and PyTorch before 2.0, where cuBLAS allocated
// its workspace itself, outside the caching allocator.
#pragma once

#include "trainmem/training_setup.hpp"

namespace trainmem {

// The cuBLAS workspaces alive from the first forward on: 2 x the per-handle size for the setup's
// GPU, the smaller CUDA default (8,519,680 B each) where no GPU or no generation is named, plus
// Transformer Engine's under Megatron; none on a device without CUDA (gpu.has_cuda_context false:
// TPU, Gaudi).
double cublas_workspace_bytes(const TrainingSetup& s);

}  // namespace trainmem
