// The dataclasses whose fields HfArgumentParser (transformers) and TrlParser (TRL) accept as keys
// of a config file or as command-line flags: their names and field names, as data
// (hf_argument_fields.cpp names the source commits).
#pragma once

#include <string>
#include <vector>

namespace trainmem::import_detail {

struct ArgumentClass {
  std::string name;                 // "TrainingArguments", "SFTConfig", ...
  std::string source;               // the framework file and commit the fields come from
  std::vector<std::string> fields;  // the dataclass's field names
};

// TrainingArguments, then TRL's ScriptArguments, DatasetMixtureConfig, ModelConfig, SFTConfig,
// DPOConfig and GRPOConfig.
const std::vector<ArgumentClass>& hf_argument_classes();

}  // namespace trainmem::import_detail
