// The message code registry (message_codes.hpp) as JSON, for `trainmem codes` and the page's test
// that words every code.
#include <sstream>

#include <nlohmann/json.hpp>

#include "trainmem/json_api.hpp"
#include "trainmem/message_codes.hpp"

namespace trainmem {

std::string message_codes_json() {
  nlohmann::json codes = nlohmann::json::array();
  for (const MessageCode& c : kMessageCodes) {
    nlohmann::json params = nlohmann::json::array();
    std::istringstream keys(c.params);
    for (std::string key; keys >> key;) params.push_back(key);
    nlohmann::json reasons = nlohmann::json::array();
    std::istringstream names(c.reasons);
    for (std::string name; names >> name;) reasons.push_back(name);
    const char* kind = c.kind == MessageKind::error ? "error" : c.kind == MessageKind::warning ? "warning" : "reason";
    codes.push_back({{"code", c.code}, {"kind", kind}, {"params", params}, {"reasons", reasons}});
  }
  return nlohmann::json{{"codes", codes}}.dump(2);
}

}  // namespace trainmem
