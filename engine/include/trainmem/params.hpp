// The values a message names, apart from its English text, so that a page can word the same
// problem in another language: {"world_size": 12, "model_parallel": 8}. Numbers stay numbers.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace trainmem {

using ParamValue = std::variant<std::string, double>;

struct Params {
  std::vector<std::pair<std::string, ParamValue>> values;

  Params() = default;
  Params(std::initializer_list<std::pair<std::string, ParamValue>> list) : values(list) {}
  bool empty() const { return values.empty(); }
};

}  // namespace trainmem
