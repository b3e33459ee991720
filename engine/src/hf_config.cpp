#include "trainmem/hf_config.hpp"

namespace trainmem {

const char* HfValue::type_name() const {
  switch (kind) {
    case Kind::null: return "null";
    case Kind::boolean: return "boolean";
    case Kind::number: return "number";
    case Kind::string: return "string";
    case Kind::list: return "array";
    case Kind::object: return "object";
  }
  return "null";
}

const HfValue* HfConfig::find(const std::string& key) const {
  auto it = values.find(key);
  return it == values.end() || it->second.kind == HfValue::Kind::null ? nullptr : &it->second;
}

std::string HfConfig::field(const std::string& key) const { return path.empty() ? key : path + "." + key; }

}  // namespace trainmem
