// Transformer Engine's userbuffers: the communication buffers Megatron's --tp-comm-overlap
// (parallel.tp_comm_overlap) registers once at start-up for the tensor-parallel GEMMs it overlaps
// with their all-gathers and reduce-scatters. They are allocated through the CUDA driver
// (cuMemCreate, or cudaMalloc without multicast), outside PyTorch's caching allocator: part of the
// device's peak, not of peak_allocated or peak_reserved. Bytes. docs/memory-model.md, "Userbuffers".
#pragma once

#include "trainmem/architecture.hpp"
#include "trainmem/training_setup.hpp"

namespace trainmem {

// The userbuffers of one GPU: zero unless parallel.tp_comm_overlap is on under Megatron.
//
// Megatron-LM megatron/training/initialize.py (_initialize_tp_communicators, @d98e8a6) passes
// TransformerEngine's initialize_ub the shape [seq_length x micro_batch_size / context_parallel_size,
// hidden_size]; transformer_engine/pytorch/module/base.py (initialize_ub, v2.7-v2.9) registers one
// buffer of that shape for each of 12 overlapped GEMMs: 8 on the all-gather side (qkv_fprop,
// qkv_dgrad, proj_dgrad, proj_wgrad, fc1_fprop, fc1_dgrad, fc2_dgrad, fc2_wgrad), in uint8 (1 byte)
// under FP8 and in bf16 (2 bytes, initialize_ub's default dtype) otherwise, and 4 on the
// reduce-scatter side (proj_fprop, fc2_fprop, qkv_wgrad, fc1_wgrad), in bf16. The default methods
// give each buffer exactly that shape's bytes (common/comm_gemm_overlap/comm_gemm_overlap.cpp:
// CommOverlapBase, and CommOverlapP2PBase for the all-gather ring exchanges; only a reduce-scatter
// ring exchange, which no default uses, would hold 2 x tp - 1 chunks). TE v1.9-v2.6 registered 10
// (without proj_wgrad and fc2_wgrad). Add the flag region of the one shared communicator
// (userbuffers-host.cpp LOCALSIZE = 4 x (NVTE_REG0_OFFSET + NVTE_REG0_FLAGS) bytes, userbuffers.h:
// 3,223,808). The driver's rounding of each allocation to its granularity is left out.
double userbuffer_bytes(const TrainingSetup& s, const Architecture& a);

// The part of userbuffer_bytes that Transformer Engine before v2.7 did not register: the
// proj_wgrad and fc2_wgrad all-gather buffers (TransformerEngine#1982, in v2.7). The band's
// framework_version_userbuffers term.
double userbuffer_bytes_since_te_2_7(const TrainingSetup& s, const Architecture& a);

}  // namespace trainmem
