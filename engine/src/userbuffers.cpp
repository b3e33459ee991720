#include "trainmem/userbuffers.hpp"

namespace trainmem {

namespace {

constexpr double kAllGatherBuffers = 8;      // qkv_fprop, qkv_dgrad, proj_dgrad, proj_wgrad, fc1_fprop, fc1_dgrad, fc2_dgrad, fc2_wgrad
constexpr double kAllGatherBuffersSinceTe27 = 2;  // proj_wgrad, fc2_wgrad
constexpr double kReduceScatterBuffers = 4;  // proj_fprop, fc2_fprop, qkv_wgrad, fc1_wgrad
// userbuffers.h (TE v2.9): NVTE_REG0_OFFSET = 2 x 32 regions x 32 NVLink peers + 2 x (2 x 32 x 32
// SMs + 32 ops) + 8192 peers = 14,400; NVTE_REG0_FLAGS = 1024 x 5 op types + 8192 x 32 x 3 =
// 791,552; LOCALSIZE = 4 bytes x (14,400 + 791,552).
constexpr double kCommunicatorFlagBytes = 4.0 * (14400 + 791552);

bool has_userbuffers(const TrainingSetup& s) {
  const ParallelSettings& p = s.parallel;
  return s.framework == Framework::megatron && p.tp_comm_overlap && p.tensor_parallel_size >= 2;
}

// Elements of one buffer: [seq_length x micro_batch_size / context_parallel_size, hidden_size],
// the first dimension by integer division, as initialize.py computes it.
double buffer_elements(const TrainingSetup& s, const Architecture& a) {
  const std::int64_t rows = s.batch.seq_length.value_or(4096) * s.batch.micro_batch_size / s.parallel.context_parallel_size;
  return static_cast<double>(rows) * static_cast<double>(a.hidden_size);
}

double all_gather_element_bytes(const TrainingSetup& s) { return s.precision.fp8_compute ? 1.0 : 2.0; }

}  // namespace

double userbuffer_bytes(const TrainingSetup& s, const Architecture& a) {
  if (!has_userbuffers(s)) return 0;
  return buffer_elements(s, a) * (kAllGatherBuffers * all_gather_element_bytes(s) + kReduceScatterBuffers * 2.0) + kCommunicatorFlagBytes;
}

double userbuffer_bytes_since_te_2_7(const TrainingSetup& s, const Architecture& a) {
  if (!has_userbuffers(s)) return 0;
  return buffer_elements(s, a) * kAllGatherBuffersSinceTe27 * all_gather_element_bytes(s);
}

}  // namespace trainmem
