// The CLI's edge: configuration files read into ConfigValues by file type, with well-kept parsers
// (yaml-cpp, toml++ from Debian; nlohmann/json). YAML scalars follow PyYAML's YAML 1.1 rules, as the
// frameworks read them (yaml.safe_load): yes/no/on/off are booleans, 5e-5 is a string, 1_000 is
// 1000, 0o17 is not octal but 017 is. The page's parser (web/src) applies the same rules.
#pragma once

#include <optional>
#include <string>

#include "trainmem/config_import.hpp"

namespace trainmem::cli {

// A file by its name: .yaml/.yml -> YAML, .toml -> TOML, .json -> JSON, anything else -> a command
// line or shell script (text). Errors name the file, line and column.
std::optional<ConfigFile> load_config_file(const std::string& name, const std::string& text, Errors& errors);

std::optional<ConfigValue> parse_yaml(const std::string& text, const std::string& name, Errors& errors);
std::optional<ConfigValue> parse_toml(const std::string& text, const std::string& name, Errors& errors);

// A ConfigValue as block YAML; strings PyYAML would read as another type ("NO", "on") are quoted.
std::string emit_yaml(const ConfigValue& value);

// PyYAML's implicit resolver for a plain (unquoted) scalar: null, bool, int, float or string
// (yaml/resolver.py and yaml/constructor.py, PyYAML 6.0).
ConfigValue yaml11_plain_scalar(const std::string& text);

}  // namespace trainmem::cli
