// A Hugging Face config.json as plain values: what the JSON boundary hands to the engine.
//
// Nothing here interprets a key: the model families (model_families.hpp) read the keys they need,
// with their configuration_<family>.py defaults. JSON null is the same as an absent key.
#pragma once

#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

namespace trainmem {

struct HfConfig;

// One JSON value of a config.
struct HfValue {
  enum class Kind { null, boolean, number, string, list, object };
  Kind kind = Kind::null;
  bool boolean = false;
  double number = 0;                       // exact for integers up to 2^53
  std::string text;                        // strings
  std::vector<HfValue> items;              // lists (a null item is kept as Kind::null)
  std::shared_ptr<const HfConfig> object;  // nested objects (text_config, rope_scaling, ...)
  std::string shown;                       // a scalar as written (strings shortened), for messages

  // JSON's name of the kind ("number", "string", "array", ...), for messages.
  const char* type_name() const;
};

struct HfConfig {
  std::string path;                      // the document path of this object, e.g. "model.hf_config"
  std::map<std::string, HfValue> values;  // every non-null key
  std::set<std::string> null_keys;        // keys given as null: most read as absent (the class default),
                                          // a few mean "none" where the default is a value

  // The value of a key, or nullptr when it is absent (or null).
  const HfValue* find(const std::string& key) const;
  // The document path of a key ("model.hf_config.hidden_size").
  std::string field(const std::string& key) const;
};

}  // namespace trainmem
