// A message's params (trainmem/params.hpp) as the JSON object the documents carry.
#pragma once

#include <nlohmann/json.hpp>

#include "trainmem/params.hpp"

namespace trainmem::json_io {

inline nlohmann::json params_json(const Params& params) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, value] : params.values) {
    if (const double* d = std::get_if<double>(&value)) out[name] = *d;
    else out[name] = std::get<std::string>(value);
  }
  return out;
}

}  // namespace trainmem::json_io
