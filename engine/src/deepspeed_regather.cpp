#include "trainmem/deepspeed_regather.hpp"

#include <vector>

namespace trainmem {

namespace {

// DeepSpeed's default stage3_max_reuse_distance, elements (runtime/zero/config.py @v0.13.5).
constexpr double kMaxReuseDistance = 1e9;

}  // namespace

RegatheredParameters deepspeed_backward_regather(const LayerGroup& group, double tp, double ep, double etp) {
  std::vector<double> elements;
  elements.reserve(group.linears.size());
  for (const auto& l : group.linears) {
    const double split = l.routed_expert ? ep * etp : (l.tp_sharded ? tp : 1.0);
    elements.push_back(static_cast<double>(l.params()) / split);
  }
  RegatheredParameters out;
  double after = 0;  // S_after: the submodules after this one in forward order
  for (std::size_t i = elements.size(); i-- > 0;) {
    if (2 * after >= kMaxReuseDistance) (group.linears[i].routed_expert ? out.expert : out.dense) += elements[i];
    after += elements[i];
  }
  return out;
}

}  // namespace trainmem
