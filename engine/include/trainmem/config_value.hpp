// A parsed configuration file as a JSON-like value: what the edge parsers (JSON, YAML with PyYAML's
// YAML 1.1 scalar rules, TOML, command-line flags) hand to the engine's trainer-config import.
//
// Objects keep their keys in file order (the import reports keys in the order the user wrote
// them). A key repeated in a file is an error (docs/api.md "Limits"); a flag repeated on a command
// line keeps its last value, as argparse does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace trainmem {

class ConfigValue {
 public:
  using Array = std::vector<ConfigValue>;
  using Object = std::vector<std::pair<std::string, ConfigValue>>;
  enum class Kind { null, boolean, integer, number, string, array, object };

  ConfigValue() = default;
  ConfigValue(std::nullptr_t) {}
  ConfigValue(bool b) : v_(b) {}
  ConfigValue(int i) : v_(static_cast<std::int64_t>(i)) {}
  ConfigValue(std::int64_t i) : v_(i) {}
  ConfigValue(double d) : v_(d) {}
  ConfigValue(const char* s) : v_(std::string(s)) {}
  ConfigValue(std::string s) : v_(std::move(s)) {}
  ConfigValue(Array a) : v_(std::move(a)) {}
  ConfigValue(Object o) : v_(std::move(o)) {}
  static ConfigValue object() { return ConfigValue(Object{}); }
  static ConfigValue array() { return ConfigValue(Array{}); }

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is_null() const { return kind() == Kind::null; }
  bool is_bool() const { return kind() == Kind::boolean; }
  bool is_number() const { return kind() == Kind::integer || kind() == Kind::number; }
  bool is_string() const { return kind() == Kind::string; }
  bool is_array() const { return kind() == Kind::array; }
  bool is_object() const { return kind() == Kind::object; }

  bool as_bool() const { return std::get<bool>(v_); }
  double as_double() const;  // integer or number
  std::int64_t as_integer() const { return std::get<std::int64_t>(v_); }
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const Array& as_array() const { return std::get<Array>(v_); }
  Array& as_array() { return std::get<Array>(v_); }
  const Object& as_object() const { return std::get<Object>(v_); }
  Object& as_object() { return std::get<Object>(v_); }

  // The value of `key` in an object (nullptr when absent or not an object). Scans the keys: for a
  // few known keys; the steps scanned are counted (trainmem/work_meter.hpp).
  const ConfigValue* find(std::string_view key) const;
  // Sets `key` in an object, replacing an earlier value in place. Scans the keys (counted): an
  // object built from an input's keys is built with ObjectBuilder.
  ConfigValue& set(const std::string& key, ConfigValue value);
  // The value at a dotted path of nested objects ("zero_optimization.stage").
  const ConfigValue* at_path(std::string_view dotted) const;
  // Sets a dotted path, creating the objects on the way.
  void set_path(std::string_view dotted, ConfigValue value);

  bool operator==(const ConfigValue& other) const;
  bool operator!=(const ConfigValue& other) const { return !(*this == other); }

  // Short text for messages: scalars as JSON would print them, containers as [...] / {...}.
  std::string summary() const;

 private:
  std::variant<std::monostate, bool, std::int64_t, double, std::string, Array, Object> v_;
};

// Builds an object from an input's keys in steps linear in their number (ConfigValue::set scans the
// object, so a loop of sets over n keys would take n^2 / 2 steps): a repeated key replaces the
// earlier value in place, as set does.
class ObjectBuilder {
 public:
  void set(const std::string& key, ConfigValue value);
  bool contains(const std::string& key) const { return index_.count(key) > 0; }
  bool empty() const { return members_.empty(); }
  ConfigValue take() { return ConfigValue(std::move(members_)); }

 private:
  ConfigValue::Object members_;
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace trainmem
