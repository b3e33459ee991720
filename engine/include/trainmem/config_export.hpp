// An estimate setup -> a trainer configuration file with the settings that matter for memory
// (docs/import.md "Export"). Importing the file back gives the same setup for every field
// the format carries (tests/config_export_test.cpp checks the round trip and that each written
// key is one the framework defines); the rest is reported as not exported.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "trainmem/config_value.hpp"
#include "trainmem/training_setup.hpp"

namespace trainmem {

enum class ExportFormat { deepspeed, accelerate, axolotl, torchtune };

struct ExportResult {
  ConfigValue config = ConfigValue::object();  // the file's content (JSON or YAML); torchtune: the launch line (a string)
  // Document field paths the file carries (a document field given under one of these is exported).
  std::vector<std::string> carried;
  // Fields the file cannot carry for this setup even though its format has the key: (path, why).
  std::vector<std::pair<std::string, std::string>> not_expressible;
};

// `hf_model_id`: the model's Hugging Face id for formats that name it (axolotl's base_model);
// empty when the model has none (a custom config): the model is then not exported.
ExportResult export_config(const TrainingSetup& setup, ExportFormat format, const std::string& hf_model_id = "");

}  // namespace trainmem
