// A message's params (trainmem/params.hpp) as the JSON object the documents carry.
#pragma once

#include <nlohmann/json.hpp>

#include "trainmem/number_text.hpp"
#include "trainmem/params.hpp"

namespace trainmem::json_io {

inline nlohmann::json params_json(const Params& params) {
  using nlohmann::json;
  json out = json::object();
  for (const auto& [name, value] : params.values) {
    // A whole number as a JSON integer (number_text's format: "line": 1, not 1.0).
    if (const double* d = std::get_if<double>(&value)) out[name] = whole_number(*d) ? json(static_cast<std::int64_t>(*d)) : json(*d);
    else out[name] = std::get<std::string>(value);
  }
  return out;
}

}  // namespace trainmem::json_io
