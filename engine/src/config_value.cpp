#include "trainmem/config_value.hpp"

#include "trainmem/errors.hpp"
#include "trainmem/number_text.hpp"
#include "trainmem/work_meter.hpp"

namespace trainmem {

double ConfigValue::as_double() const {
  if (kind() == Kind::integer) return static_cast<double>(std::get<std::int64_t>(v_));
  return std::get<double>(v_);
}

const ConfigValue* ConfigValue::find(std::string_view key) const {
  if (!is_object()) return nullptr;
  std::uint64_t scanned = 0;
  for (const auto& [k, v] : as_object()) {
    ++scanned;
    if (k == key) {
      work_meter::add(scanned);
      return &v;
    }
  }
  work_meter::add(scanned);
  return nullptr;
}

ConfigValue& ConfigValue::set(const std::string& key, ConfigValue value) {
  auto& members = as_object();
  std::uint64_t scanned = 0;
  for (auto& [k, v] : members) {
    ++scanned;
    if (k == key) {
      work_meter::add(scanned);
      v = std::move(value);
      return v;
    }
  }
  work_meter::add(scanned + 1);
  members.emplace_back(key, std::move(value));
  return members.back().second;
}

void ObjectBuilder::set(const std::string& key, ConfigValue value) {
  work_meter::add(1);
  if (const auto [at, added] = index_.emplace(key, members_.size()); !added) members_[at->second].second = std::move(value);
  else members_.emplace_back(key, std::move(value));
}

const ConfigValue* ConfigValue::at_path(std::string_view dotted) const {
  const ConfigValue* at = this;
  while (at) {
    const auto dot = dotted.find('.');
    at = at->find(dotted.substr(0, dot));
    if (dot == std::string_view::npos) return at;
    dotted.remove_prefix(dot + 1);
  }
  return nullptr;
}

void ConfigValue::set_path(std::string_view dotted, ConfigValue value) {
  ConfigValue* at = this;
  for (auto dot = dotted.find('.'); dot != std::string_view::npos; dot = dotted.find('.')) {
    const std::string key(dotted.substr(0, dot));
    const ConfigValue* existing = at->find(key);
    at = existing && existing->is_object() ? const_cast<ConfigValue*>(existing) : &at->set(key, object());
    dotted.remove_prefix(dot + 1);
  }
  at->set(std::string(dotted), std::move(value));
}

bool ConfigValue::operator==(const ConfigValue& other) const {
  // 2 and 2.0 are the same number (JSON and YAML writers differ on trailing zeros).
  if (is_number() && other.is_number()) return as_double() == other.as_double();
  return v_ == other.v_;
}

std::string ConfigValue::summary() const {
  switch (kind()) {
    case Kind::null: return "null";
    case Kind::boolean: return as_bool() ? "true" : "false";
    case Kind::integer: return std::to_string(as_integer());
    case Kind::number: return number_text(as_double());  // the messages' one number format
    case Kind::string: {
      // Cut on a character boundary: a cut inside one would make the message invalid UTF-8.
      return "\"" + excerpt(as_string(), 60) + "\"";
    }
    case Kind::array: return "[...]";
    case Kind::object: return "{...}";
  }
  return "";
}

}  // namespace trainmem
