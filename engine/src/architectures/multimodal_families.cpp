// model_type -> multimodal family builder.
#include "multimodal_families.hpp"

#include <map>

namespace trainmem::architectures {

namespace {

const std::map<std::string, MultimodalBuilder>& table() {
  static const std::map<std::string, MultimodalBuilder> t{
      {"gemma3", gemma3},       {"llava", llava},       {"llava_next", llava}, {"paligemma", paligemma},
      {"qwen2_vl", qwen2_vl},   {"qwen2_5_vl", qwen2_vl}, {"mllama", mllama},  {"idefics3", idefics3},
      {"internvl", internvl},
  };
  return t;
}

}  // namespace

MultimodalBuilder multimodal_builder(const std::string& model_type) {
  auto it = table().find(model_type);
  return it == table().end() ? nullptr : it->second;
}

const std::vector<std::string>& multimodal_model_types() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& [k, v] : table()) n.push_back(k);
    return n;
  }();
  return names;
}

}  // namespace trainmem::architectures
