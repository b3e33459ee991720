// One exporter per format (config_export.hpp).
#pragma once

#include "trainmem/config_export.hpp"

namespace trainmem::export_detail {

/** The offload device as both DeepSpeed's offload_*.device and accelerate's fsdp/deepspeed keys spell it. */
inline const char* offload_name(OffloadTarget t) {
  return t == OffloadTarget::cpu ? "cpu" : t == OffloadTarget::nvme ? "nvme" : "none";
}

ExportResult export_deepspeed(const TrainingSetup& s);
ExportResult export_accelerate(const TrainingSetup& s);
// `hf_model_id`: the model's Hugging Face id, written as base_model (empty: not written).
ExportResult export_axolotl(const TrainingSetup& s, const std::string& hf_model_id);
// The `tune run ... --config NAME key=value ...` line (a string).
ExportResult export_torchtune(const TrainingSetup& s);

}  // namespace trainmem::export_detail
