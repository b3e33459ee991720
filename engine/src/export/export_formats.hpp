// One exporter per format (config_export.hpp).
#pragma once

#include "trainmem/config_export.hpp"

namespace trainmem::export_detail {

/** The offload device as both DeepSpeed's offload_*.device and accelerate's fsdp/deepspeed keys spell it. */
inline const char* offload_name(OffloadTarget t) {
  return t == OffloadTarget::cpu ? "cpu" : t == OffloadTarget::nvme ? "nvme" : "none";
}

/** A target that offloads parameters, gradients and the optimizer step together (FSDP's
 *  CPUOffload / CPUOffloadPolicy) or not at all: `written` is what the file says (both on the CPU,
 *  or both on the GPU); each offload field of the setup that differs from it is not exported, with
 *  `why`. */
inline void note_joint_offload(ExportResult& out, const ParallelSettings& par, bool written, const std::string& why) {
  const OffloadTarget target = written ? OffloadTarget::cpu : OffloadTarget::none;
  if (par.offload_param != target) out.not_expressible.emplace_back("parallel.offload_param", why);
  if (par.offload_optimizer != target) out.not_expressible.emplace_back("parallel.offload_optimizer", why);
}

ExportResult export_deepspeed(const TrainingSetup& s);
ExportResult export_accelerate(const TrainingSetup& s);
// `hf_model_id`: the model's Hugging Face id, written as base_model (empty: not written).
ExportResult export_axolotl(const TrainingSetup& s, const std::string& hf_model_id);
// The `tune run ... --config NAME key=value ...` line (a string).
ExportResult export_torchtune(const TrainingSetup& s);

}  // namespace trainmem::export_detail
