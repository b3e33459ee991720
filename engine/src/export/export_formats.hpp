// One exporter per format (config_export.hpp).
#pragma once

#include "trainmem/config_export.hpp"

namespace trainmem::export_detail {

ExportResult export_deepspeed(const TrainingSetup& s);
ExportResult export_accelerate(const TrainingSetup& s);

}  // namespace trainmem::export_detail
