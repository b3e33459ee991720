// What every fuzz target demands of the engine's answer to any input: a document, and never the
// "internal" error (an exception escaped the input checks: a bug, not a bad input).
#pragma once

#include <string>

#include "trainmem/json_api.hpp"

inline void require_answer(const trainmem::JsonResult& r) {
  if (r.json.empty()) __builtin_trap();
  if (!r.ok && r.json.find("\"code\": \"internal\"") != std::string::npos) __builtin_trap();
}
