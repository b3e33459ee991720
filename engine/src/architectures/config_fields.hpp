// Typed reading of one config's keys with a family's defaults; every missing or invalid field is
// recorded as an error with its document path, and ok() turns false.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "trainmem/errors.hpp"
#include "trainmem/hf_config.hpp"

namespace trainmem::architectures {

// Largest accepted size of any one dimension (hidden size, vocabulary, layers, experts...).
inline constexpr double kMaxDimension = 1e8;

class ConfigFields {
 public:
  ConfigFields(const HfConfig& config, Errors& errors) : config_(config), errors_(errors) {}

  bool has(const char* key) const { return config_.find(key) != nullptr; }
  // A required positive size; any of `keys` (aliases such as n_embd / hidden_size) may hold it.
  std::int64_t size(std::initializer_list<const char*> keys, std::optional<std::int64_t> fallback = std::nullopt);
  // An optional size (absent or null -> fallback, which may be 0 for "none").
  std::int64_t optional_size(const char* key, std::int64_t fallback, double min = 0, double max = kMaxDimension);
  bool flag(const char* key, bool fallback);
  double probability(const char* key, double fallback);
  // A number in [min, max] (absent -> fallback).
  double number(const char* key, double fallback, double min, double max);
  std::string text(const char* key, const std::string& fallback);
  // A list of layer indices (absent -> empty).
  std::vector<std::int64_t> integer_list(const char* key);
  // The nested object at `key`, or nullptr when absent; a non-object is an error.
  const HfConfig* object(const char* key);

  void fail(const std::string& key, const char* code, const std::string& message, Params params = {});
  // Fails at `key` when `parameters` (a count worked out in doubles before any integer product)
  // exceeds the engine's limit of 1e15; false then.
  bool within_parameter_limit(const std::string& key, double parameters);
  std::string field(const std::string& key) const { return config_.field(key); }
  bool ok() const { return ok_; }
  const HfConfig& config() const { return config_; }

 private:
  std::optional<std::int64_t> integer(const char* key, double min, double max);
  // expected: as a message says it ("an integer"); type: the JSON type of params.expected ("integer").
  void type_error(const char* key, const char* expected, const char* type, const HfValue& got);

  const HfConfig& config_;
  Errors& errors_;
  bool ok_ = true;
};

}  // namespace trainmem::architectures
