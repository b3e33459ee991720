#include "trainmem/lora_targeting.hpp"

#include <algorithm>

namespace trainmem {

namespace {

bool ends_with_module(const std::string& name, const std::string& target) {
  return name == target ||
         (name.size() > target.size() && name.compare(name.size() - target.size(), target.size(), target) == 0 &&
          name[name.size() - target.size() - 1] == '.');
}

// PEFT: modules_to_save never get adapters. This document names them "lm_head" and
// "embed_tokens", whatever the family calls its head and embedding.
bool saved_module(const std::string& name, const Architecture& a, const std::vector<std::string>& modules_to_save) {
  for (const auto& m : modules_to_save)
    if ((m == "lm_head" && name == a.lm_head_module) || (m == "embed_tokens" && name == a.embedding_module)) return true;
  return false;
}

}  // namespace

LoraTargeting::LoraTargeting(const Architecture& a, const LoraSettings& s) : a_(a), s_(s) {
  targets_ = s.target_modules.empty() && !s.target_pattern ? a.default_lora_targets : s.target_modules;
  std::string error;
  if (s.target_pattern) {
    target_pattern_ = ModulePattern::compile(*s.target_pattern, error);
    if (!target_pattern_)
      errors_.push_back({error_code::unknown_value, "lora.target_modules", "lora.target_modules (a regex): " + error});
  }
  if (s.exclude_pattern) {
    exclude_pattern_ = ModulePattern::compile(*s.exclude_pattern, error);
    if (!exclude_pattern_)
      errors_.push_back({error_code::unknown_value, "lora.exclude_modules", "lora.exclude_modules (a regex): " + error});
  }
  for (const auto& [key, r] : s.rank_pattern) {
    // get_pattern_key: re.match(rf"(.*\.)?({key})$", name) is a whole match of (.*\.)?(key).
    const std::string field = "lora.rank_pattern." + key;
    if (key.size() > ModulePattern::kMaxPatternLength) {
      errors_.push_back({error_code::out_of_range, field,
                         field + ": the key has " + std::to_string(key.size()) + " characters; the limit is " +
                             std::to_string(ModulePattern::kMaxPatternLength)});
      continue;
    }
    auto p = ModulePattern::compile("(.*\\.)?(" + key + ")", error);
    if (p) rank_patterns_.emplace_back(std::move(*p), r);
    else errors_.push_back({error_code::unknown_value, field, field + ": " + error});
  }
  per_layer_ = target_pattern_ || exclude_pattern_ || !rank_patterns_.empty() || !s.layers_to_transform.empty();
  std::vector<std::pair<std::string, std::int64_t>> next_index;
  for (const auto& g : a.layers) {
    auto it = std::find_if(next_index.begin(), next_index.end(), [&](const auto& p) { return p.first == g.prefix; });
    if (it == next_index.end()) it = next_index.insert(next_index.end(), {g.prefix, 0});
    first_index_.push_back(it->second);
    it->second += g.count;
  }
  if (per_layer_) {
    double names = 2;
    for (const auto& g : a.layers) {
      double per_layer = 0;
      for (const auto& l : g.linears) per_layer += l.routed_expert ? static_cast<double>(l.copies) : 1.0;
      names += per_layer * static_cast<double>(g.count);
    }
    if (names > kMaxNamesVisited)
      errors_.push_back({error_code::out_of_range, "lora",
                         "lora: matching patterns or layers_to_transform visits each module name, " +
                             std::to_string(static_cast<long long>(names)) + " here; the limit is " +
                             std::to_string(static_cast<long long>(kMaxNamesVisited))});
  }
}

bool LoraTargeting::targeted(const std::string& name, std::int64_t layer, bool in_layer, bool nn_linear,
                             bool output_head) const {
  if (exclude_pattern_ && exclude_pattern_->full_match(name)) return false;
  for (const auto& e : s_.exclude_modules)
    if (ends_with_module(name, e)) return false;
  if (saved_module(name, a_, s_.modules_to_save)) return false;
  if (s_.target_pattern) return target_pattern_ && target_pattern_->full_match(name);
  bool found = false;
  for (const auto& t : targets_) {
    if (t == "all-linear" ? nn_linear && !output_head : ends_with_module(name, t)) {
      found = true;
      break;
    }
  }
  if (!found || s_.layers_to_transform.empty()) return found;
  // layers_to_transform reads the layer index from the name; modules outside layers have none.
  return in_layer && std::find(s_.layers_to_transform.begin(), s_.layers_to_transform.end(), layer) !=
                         s_.layers_to_transform.end();
}

std::int64_t LoraTargeting::rank(const std::string& name) const {
  for (const auto& [pattern, r] : rank_patterns_)
    if (pattern.full_match(name)) return r;
  return s_.r;
}

double LoraTargeting::params_for(const std::string& name, std::int64_t layer, bool in_layer, bool nn_linear, bool head,
                                 std::int64_t in, std::int64_t out) const {
  if (!targeted(name, layer, in_layer, nn_linear, head)) return 0;
  double p = static_cast<double>(rank(name)) * static_cast<double>(in + out);
  if (s_.use_dora) p += static_cast<double>(out);
  return p;
}

double LoraTargeting::adapter_params(std::size_t group, const Linear& l, std::int64_t index) const {
  const LayerGroup& g = a_.layers[group];
  const std::int64_t layer = first_index_[group] + index;
  if (!l.routed_expert) return params_for(g.module_name(l, layer), layer, true, l.nn_linear, false, l.in_features, l.out_features);
  if (!per_layer_)
    return params_for(g.module_name(l, layer, 0), layer, true, l.nn_linear, false, l.in_features, l.out_features) *
           static_cast<double>(l.copies);
  double total = 0;
  for (std::int64_t e = 0; e < l.copies; ++e)
    total += params_for(g.module_name(l, layer, e), layer, true, l.nn_linear, false, l.in_features, l.out_features);
  return total;
}

double LoraTargeting::embedding_adapter() const {
  if (a_.embedding_module.empty()) return 0;
  // lora.Embedding: A is r x num_embeddings, B is embedding_dim x r.
  return params_for(a_.embedding_module, 0, false, false, false, a_.vocab_size, a_.hidden_size);
}

double LoraTargeting::lm_head_adapter() const {
  if (a_.lm_head_module.empty() || !a_.vocab_logits) return 0;
  return params_for(a_.lm_head_module, 0, false, true, true, a_.hidden_size, a_.vocab_size);
}

bool LoraTargeting::names_a_module(const std::string& target) const {
  if (target == "all-linear") return true;
  if (ends_with_module(a_.embedding_module, target) || (!a_.lm_head_module.empty() && ends_with_module(a_.lm_head_module, target)))
    return true;
  for (std::size_t gi = 0; gi < a_.layers.size(); ++gi)
    for (const auto& l : a_.layers[gi].linears)
      if (ends_with_module(a_.layers[gi].module_name(l, first_index_[gi]), target)) return true;
  return false;
}

bool LoraTargeting::targets_anything() const {
  if (embedding_adapter() > 0 || lm_head_adapter() > 0) return true;
  for (std::size_t gi = 0; gi < a_.layers.size(); ++gi) {
    const std::int64_t layers = per_layer_ ? a_.layers[gi].count : std::min<std::int64_t>(1, a_.layers[gi].count);
    for (std::int64_t i = 0; i < layers; ++i)
      for (const auto& l : a_.layers[gi].linears)
        if (adapter_params(gi, l, i) > 0) return true;
  }
  return false;
}

}  // namespace trainmem
