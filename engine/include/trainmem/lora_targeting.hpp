// Which modules PEFT wraps with LoRA, and at which rank, on an Architecture's full module names
// (LayerGroup::module_name). Follows PEFT v0.17.0: src/peft/tuners/tuners_utils.py
// check_target_module_exists (exclude_modules first; modules_to_save never get adapters; a string
// target_modules is re.fullmatch'ed, a list matches a name exactly or as a ".name" suffix;
// layers_to_transform filters list matches by layer index) and src/peft/utils/other.py
// get_pattern_key (rank_pattern key k matches a name when "(.*\.)?(k)" matches it whole, the first
// key that matches wins). "all-linear" wraps every nn.Linear but the output head.
//
// Adapter parameters per wrapped module: r (d_in + d_out) (Hu et al. 2021, §4.1; for an embedding
// r (num_embeddings + embedding_dim), PEFT lora.Embedding), plus DoRA's magnitude vector of d_out
// (Liu et al. 2024, §4.1). Counts are elements.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trainmem/errors.hpp"
#include "trainmem/module_pattern.hpp"
#include "trainmem/training_setup.hpp"

namespace trainmem {

class LoraTargeting {
 public:
  // Most module names the matching may visit (layers x expert copies x linears); more is an error.
  static constexpr double kMaxNamesVisited = 2e6;

  LoraTargeting(const Architecture& a, const LoraSettings& settings);

  // Pattern errors, each with the document field (lora.target_modules, lora.rank_pattern.<key>...).
  const Errors& errors() const { return errors_; }
  // True when the result can differ between layers or experts (patterns, layers_to_transform).
  bool per_layer() const { return per_layer_; }
  // Adapter parameters of linear `l` of group `group` in that group's layer `index` (0-based within
  // the group), all its targeted copies together.
  double adapter_params(std::size_t group, const Linear& l, std::int64_t index) const;
  double embedding_adapter() const;
  double lm_head_adapter() const;
  // Whether a name of target_modules (a list entry) names any module of the model.
  bool names_a_module(const std::string& target) const;
  // Whether any module is targeted at all.
  bool targets_anything() const;

 private:
  bool targeted(const std::string& name, std::int64_t layer, bool in_layer, bool nn_linear, bool output_head) const;
  std::int64_t rank(const std::string& name) const;
  double params_for(const std::string& name, std::int64_t layer, bool in_layer, bool nn_linear, bool head,
                    std::int64_t in, std::int64_t out) const;

  const Architecture& a_;
  const LoraSettings& s_;
  std::vector<std::string> targets_;  // target_modules or the family default
  std::optional<ModulePattern> target_pattern_, exclude_pattern_;
  std::vector<std::pair<ModulePattern, std::int64_t>> rank_patterns_;
  std::vector<std::int64_t> first_index_;  // per group: index of its first layer within its prefix
  bool per_layer_ = false;
  Errors errors_;
};

}  // namespace trainmem
