// Configs and launch lines of training frameworks this import does not read (NeMo, PyTorch
// Lightning, MaxText, ms-swift, LitGPT, OpenRLHF, Nanotron, Colossal-AI), named by the keys or
// commands that only they use (other_frameworks.cpp holds the one table). Such a file stops the
// import with unknown_config_format naming the framework: its settings are never read as another
// trainer's, and never silently replaced by defaults.
#pragma once

#include <optional>
#include <string>

#include "trainmem/config_value.hpp"

namespace trainmem::import_detail {

struct ShellCommand;

struct OtherFramework {
  std::string name;      // "NeMo", "MaxText", ...
  std::string evidence;  // what named it: "top-level trainer:, model: and exp_manager:", "the swift sft command"
};

// A parsed YAML/JSON/TOML mapping of another framework's config, by its keys.
std::optional<OtherFramework> other_framework_config(const ConfigValue& content);
// A command of a launch script that runs another framework's trainer.
std::optional<OtherFramework> other_framework_command(const ShellCommand& command);

// The error message: "FILE: this is a NeMo config (...); trainmem reads ...: enter the setup in the form".
std::string other_framework_message(const std::string& where, const OtherFramework& f, bool command);

}  // namespace trainmem::import_detail
