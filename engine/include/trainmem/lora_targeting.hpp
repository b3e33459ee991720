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
//
// Work: the module names are matched once per architecture and settings (a list entry is one hash
// lookup per "."-suffix of a name, whatever the list's length; a regex costs name length x its
// states) and the per-layer counts kept as prefix sums, so a solve's thousands of estimates reuse
// them and sum any range of layers in one step. Matching more than kMaxNamesVisited names or
// kMaxMatchingWork steps is an error.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trainmem/errors.hpp"
#include "trainmem/training_setup.hpp"

namespace trainmem {

// The target_modules list PEFT uses: the settings' list, or, with neither a list nor a pattern,
// the family's default targets (PEFT's TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING).
const std::vector<std::string>& effective_target_modules(const Architecture& a, const LoraSettings& settings);

class LoraTargeting {
 public:
  // Most module names the matching may visit (layers x expert copies x linears); more is an error.
  static constexpr double kMaxNamesVisited = 2e6;
  // Most matching steps: names visited x (1 + name length x the regex states tried on each); more
  // is an error. About a second of WebAssembly; DeepSeek-V3 (47,000 names of up to 45 characters)
  // with a 40-state target regex needs 8.5e7.
  static constexpr double kMaxMatchingWork = 2e8;

  LoraTargeting(const Architecture& a, const LoraSettings& settings);

  // Pattern and limit errors, each with the document field (lora.target_modules, lora.rank_pattern.<key>...).
  const Errors& errors() const;
  // True when the result can differ between layers or experts (patterns, layers_to_transform).
  bool per_layer() const;
  // Adapter parameters of linear `l` (one of group `group`'s linears) in that group's layer `index`
  // (0-based within the group), all its targeted copies together.
  double adapter_params(std::size_t group, const Linear& l, std::int64_t index) const;
  // The same summed over the group's layers [begin, end), in one step.
  double adapter_params(std::size_t group, std::size_t linear, std::int64_t begin, std::int64_t end) const;
  // How many of the group's layers [begin, end) hold any adapter.
  std::int64_t adapted_layers(std::size_t group, std::int64_t begin, std::int64_t end) const;
  double embedding_adapter() const;
  double lm_head_adapter() const;
  // Whether a name of target_modules (a list entry) names any module of the model.
  bool names_a_module(const std::string& target) const;
  // Whether any module is targeted at all.
  bool targets_anything() const;

  struct Resolved;  // the matching's outcome for one architecture and settings (lora_targeting.cpp)

 private:
  const Architecture& a_;
  std::shared_ptr<const Resolved> r_;
};

}  // namespace trainmem
