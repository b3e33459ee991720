#include "trainmem/architecture.hpp"

#include <algorithm>
#include <map>

namespace trainmem {

std::int64_t LayerGroup::params_per_layer() const {
  std::int64_t total = other_params;
  for (const auto& l : linears) total += l.params();
  for (const auto& n : norms) total += n.params();
  return total;
}

std::string LayerGroup::module_name(const Linear& linear, std::int64_t layer, std::int64_t expert) const {
  std::string n = prefix + "." + std::to_string(layer) + ".";
  if (!linear.parent.empty()) n += linear.parent + ".";
  if (linear.routed_expert) n += std::to_string(expert) + ".";
  return n + linear.name;
}

std::int64_t LayerGroup::active_params_per_layer() const {
  std::int64_t total = other_params;
  for (const auto& l : linears)
    total += l.routed_expert ? l.params_per_copy() * mlp.num_experts_per_tok : l.params();
  for (const auto& n : norms) total += n.params();
  return total;
}

std::int64_t Architecture::num_hidden_layers() const {
  std::int64_t n = 0;
  for (const auto& g : layers) n += g.count;
  return n;
}

std::int64_t Architecture::non_layer_params() const {
  return embedding_params + position_embedding_params + embedding_norm_params + final_norm_params +
         lm_head_params + head_other_params;
}

std::int64_t Architecture::text_params() const {
  std::int64_t total = non_layer_params();
  for (const auto& g : layers) total += g.count * g.params_per_layer();
  return total;
}

double Architecture::largest_layer_module(double tp, const std::function<double(const Linear&)>& per_element) const {
  double largest = 0;
  for (const auto& g : layers) {
    // Raw expert weights belong to the module named by their parent, all copies together.
    std::map<std::string, double> raw_modules;
    for (const auto& l : g.linears) {
      const double weight = per_element(l) / (l.tp_sharded ? tp : 1.0);
      if (l.nn_linear)
        largest = std::max(largest, static_cast<double>(l.params_per_copy()) * weight);
      else
        raw_modules[l.parent] += static_cast<double>(l.params()) * weight;
    }
    for (const auto& [name, params] : raw_modules) largest = std::max(largest, params);
  }
  return largest;
}

std::int64_t Architecture::total_params() const { return text_params() + (vision ? vision->total_params() : 0); }

std::int64_t VisionTower::encoder_params() const {
  std::int64_t total = embedding_params + other_params;
  for (const auto& g : layers) total += g.count * g.params_per_layer();
  return total;
}

std::int64_t VisionTower::projector_params() const {
  std::int64_t total = projector_other_params;
  for (const auto& l : projector) total += l.params();
  return total;
}

std::int64_t Architecture::active_params() const {
  std::int64_t total = non_layer_params() + (vision ? vision->total_params() : 0);
  for (const auto& g : layers) total += g.count * g.active_params_per_layer();
  return total;
}

}  // namespace trainmem
