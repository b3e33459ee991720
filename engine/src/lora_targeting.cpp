#include "trainmem/lora_targeting.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <unordered_set>

#include "trainmem/module_pattern.hpp"
#include "trainmem/work_meter.hpp"

namespace trainmem {

namespace {

bool ends_with_module(const std::string& name, const std::string& target) {
  return name == target ||
         (name.size() > target.size() && name.compare(name.size() - target.size(), target.size(), target) == 0 &&
          name[name.size() - target.size() - 1] == '.');
}

// ends_with_module against every entry of `set` at once: the name itself and each suffix after a
// ".", one lookup each, however many entries the set holds.
bool suffix_in(const std::string& name, const std::unordered_set<std::string>& set) {
  if (set.empty()) return false;
  work_meter::add(name.size() + 1);
  if (set.count(name)) return true;
  for (std::size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1))
    if (set.count(name.substr(dot + 1))) return true;
  return false;
}

// PEFT: modules_to_save never get adapters. This document names them "lm_head" and
// "embed_tokens", whatever the family calls its head and embedding.
bool saved_module(const std::string& name, const Architecture& a, const std::vector<std::string>& modules_to_save) {
  for (const auto& m : modules_to_save)
    if ((m == "lm_head" && name == a.lm_head_module) || (m == "embed_tokens" && name == a.embedding_module)) return true;
  return false;
}

}  // namespace

const std::vector<std::string>& effective_target_modules(const Architecture& a, const LoraSettings& s) {
  return s.target_modules.empty() && !s.target_pattern ? a.default_lora_targets : s.target_modules;
}

namespace {

// The settings compiled for matching: name sets, sorted layer indices, regex automata.
class Matcher {
 public:
  Matcher(const Architecture& a, const LoraSettings& s, Errors& errors) : a_(a), s_(s) {
    const std::vector<std::string>& targets = effective_target_modules(a, s);
    for (const auto& t : targets) {
      if (t == "all-linear") all_linear_ = true;
      else target_names_.insert(t);
    }
    exclude_names_.insert(s.exclude_modules.begin(), s.exclude_modules.end());
    layers_ = s.layers_to_transform;
    std::sort(layers_.begin(), layers_.end());
    std::string error;
    if (s.target_pattern) {
      target_pattern_ = ModulePattern::compile(*s.target_pattern, error);
      if (!target_pattern_)
        errors.push_back({error_code::unknown_value, "lora.target_modules", "lora.target_modules (a regex): " + error});
      else states_ += static_cast<double>(target_pattern_->size());
    }
    if (s.exclude_pattern) {
      exclude_pattern_ = ModulePattern::compile(*s.exclude_pattern, error);
      if (!exclude_pattern_)
        errors.push_back({error_code::unknown_value, "lora.exclude_modules", "lora.exclude_modules (a regex): " + error});
      else states_ += static_cast<double>(exclude_pattern_->size());
    }
    for (const auto& [key, r] : s.rank_pattern) {
      // get_pattern_key: re.match(rf"(.*\.)?({key})$", name) is a whole match of (.*\.)?(key).
      const std::string field = "lora.rank_pattern." + excerpt(key);
      if (key.size() > ModulePattern::kMaxPatternLength) {
        errors.push_back({error_code::out_of_range, field,
                          field + ": the key has " + std::to_string(key.size()) + " characters; the limit is " +
                              std::to_string(ModulePattern::kMaxPatternLength)});
        continue;
      }
      // The key compiled alone first, so that an error's position counts in the key as written.
      auto p = ModulePattern::compile(key, error) ? ModulePattern::compile("(.*\\.)?(" + key + ")", error) : std::nullopt;
      if (!p) {
        errors.push_back({error_code::unknown_value, field, field + ": " + error, {{"value", key}}});
        continue;
      }
      states_ += static_cast<double>(p->size());
      rank_patterns_.emplace_back(std::move(*p), r);
    }
  }

  bool per_layer() const { return target_pattern_ || exclude_pattern_ || !rank_patterns_.empty() || !layers_.empty(); }
  // Regex states tried on each name, all patterns together.
  double states() const { return states_; }

  double params_for(const std::string& name, std::int64_t layer, bool in_layer, bool nn_linear, bool head,
                    std::int64_t in, std::int64_t out) const {
    if (!targeted(name, layer, in_layer, nn_linear, head)) return 0;
    double p = static_cast<double>(rank(name)) * static_cast<double>(in + out);
    if (s_.use_dora) p += static_cast<double>(out);
    return p;
  }

 private:
  bool full_match(const ModulePattern& p, const std::string& name) const {
    work_meter::add(name.size() * p.size());
    return p.full_match(name);
  }

  bool targeted(const std::string& name, std::int64_t layer, bool in_layer, bool nn_linear, bool output_head) const {
    if (exclude_pattern_ && full_match(*exclude_pattern_, name)) return false;
    if (suffix_in(name, exclude_names_)) return false;
    if (saved_module(name, a_, s_.modules_to_save)) return false;
    if (s_.target_pattern) return target_pattern_ && full_match(*target_pattern_, name);
    const bool found = (all_linear_ && nn_linear && !output_head) || suffix_in(name, target_names_);
    if (!found || layers_.empty()) return found;
    // layers_to_transform reads the layer index from the name; modules outside layers have none.
    return in_layer && std::binary_search(layers_.begin(), layers_.end(), layer);
  }

  std::int64_t rank(const std::string& name) const {
    for (const auto& [pattern, r] : rank_patterns_)
      if (full_match(pattern, name)) return r;
    return s_.r;
  }

  const Architecture& a_;
  const LoraSettings& s_;
  bool all_linear_ = false;
  std::unordered_set<std::string> target_names_, exclude_names_;
  std::vector<std::int64_t> layers_;  // layers_to_transform, sorted
  std::optional<ModulePattern> target_pattern_, exclude_pattern_;
  std::vector<std::pair<ModulePattern, std::int64_t>> rank_patterns_;
  double states_ = 0;
};

// Everything matching reads, written out: equal keys give equal matching. Numbers go in as their
// 8 bytes and texts behind their length, unformatted: the key is built on every estimate of a LoRA
// setup (the strategy search and the suggestions run thousands), where printf-style formatting
// cost more than the estimate itself.
std::string key_of(const Architecture& a, const LoraSettings& s) {
  std::string k;
  auto number = [&](double x) {
    char bytes[sizeof x];
    std::memcpy(bytes, &x, sizeof x);
    k.append(bytes, sizeof x);
  };
  auto text = [&](const std::string& x) {
    number(static_cast<double>(x.size()));
    k += x;
  };
  number(static_cast<double>(a.layers.size()));
  for (const auto& g : a.layers) {
    text(g.prefix);
    number(static_cast<double>(g.count));
    number(static_cast<double>(g.linears.size()));
    for (const auto& l : g.linears) {
      text(l.name);
      text(l.parent);
      for (const double x : {static_cast<double>(l.in_features), static_cast<double>(l.out_features),
                             static_cast<double>(l.copies), l.routed_expert ? 1.0 : 0.0, l.nn_linear ? 1.0 : 0.0})
        number(x);
    }
  }
  text(a.embedding_module);
  text(a.lm_head_module);
  for (const double x : {static_cast<double>(a.vocab_size), static_cast<double>(a.hidden_size), a.vocab_logits ? 1.0 : 0.0})
    number(x);
  number(static_cast<double>(a.default_lora_targets.size()));
  for (const auto& t : a.default_lora_targets) text(t);
  number(static_cast<double>(s.r));
  number(static_cast<double>(s.target_modules.size()));
  for (const auto& t : s.target_modules) text(t);
  text(s.target_pattern ? "1" + *s.target_pattern : "0");
  number(static_cast<double>(s.exclude_modules.size()));
  for (const auto& t : s.exclude_modules) text(t);
  text(s.exclude_pattern ? "1" + *s.exclude_pattern : "0");
  number(static_cast<double>(s.layers_to_transform.size()));
  for (const auto l : s.layers_to_transform) number(static_cast<double>(l));
  number(static_cast<double>(s.rank_pattern.size()));
  for (const auto& [key, r] : s.rank_pattern) {
    text(key);
    number(static_cast<double>(r));
  }
  number(static_cast<double>(s.modules_to_save.size()));
  for (const auto& m : s.modules_to_save) text(m);
  number(s.use_dora ? 1.0 : 0.0);
  return k;
}

}  // namespace

struct LoraTargeting::Resolved {
  Errors errors;
  bool per_layer = false;
  // Per group, per linear: adapter parameters per layer as prefix sums over the group's layers
  // (per_layer), or the one value every layer shares.
  std::vector<std::vector<std::vector<double>>> sums;
  // Per group: layers holding any adapter, as prefix counts (per_layer) or 0/1 for every layer.
  std::vector<std::vector<std::int64_t>> adapted;
  double embedding = 0, lm_head = 0;
  bool anything = false;
};

namespace {

std::shared_ptr<const LoraTargeting::Resolved> resolve(const Architecture& a, const LoraSettings& s) {
  auto r = std::make_shared<LoraTargeting::Resolved>();
  const Matcher m(a, s, r->errors);
  r->per_layer = m.per_layer();
  // Layer numbering: a group's layers follow the earlier groups of the same prefix.
  std::vector<std::int64_t> first_index;
  std::vector<std::pair<std::string, std::int64_t>> next_index;
  for (const auto& g : a.layers) {
    auto it = std::find_if(next_index.begin(), next_index.end(), [&](const auto& p) { return p.first == g.prefix; });
    if (it == next_index.end()) it = next_index.insert(next_index.end(), {g.prefix, 0});
    first_index.push_back(it->second);
    it->second += g.count;
  }
  // The names matched and the longest of them bound the work before any is matched.
  double names = 2;
  std::size_t longest = std::max(a.embedding_module.size(), a.lm_head_module.size());
  for (std::size_t gi = 0; gi < a.layers.size(); ++gi) {
    const LayerGroup& g = a.layers[gi];
    double per_layer = 0;
    for (const auto& l : g.linears) {
      per_layer += l.routed_expert && r->per_layer ? static_cast<double>(l.copies) : 1.0;
      if (g.count > 0)
        longest = std::max(longest, g.module_name(l, first_index[gi] + g.count - 1, std::max<std::int64_t>(0, l.copies - 1)).size());
    }
    names += per_layer * (r->per_layer ? static_cast<double>(g.count) : 1.0);
  }
  const double work = names * static_cast<double>(longest + 1) * (1.0 + m.states());
  if (names > LoraTargeting::kMaxNamesVisited) {
    r->errors.push_back({error_code::out_of_range, "lora",
                         "lora: matching patterns or layers_to_transform visits each module name, " +
                             std::to_string(static_cast<long long>(names)) + " here; the limit is " +
                             std::to_string(static_cast<long long>(LoraTargeting::kMaxNamesVisited))});
  } else if (work > LoraTargeting::kMaxMatchingWork) {
    r->errors.push_back({error_code::out_of_range, "lora",
                         "lora: matching " + std::to_string(static_cast<long long>(names)) + " module names of up to " +
                             std::to_string(longest) + " characters against regex patterns of " +
                             std::to_string(static_cast<long long>(m.states())) + " states takes about " +
                             std::to_string(static_cast<long long>(work)) + " steps; the limit is " +
                             std::to_string(static_cast<long long>(LoraTargeting::kMaxMatchingWork)) +
                             " (shorter patterns or fewer rank_pattern keys)"});
  }
  if (!r->errors.empty()) return r;

  for (std::size_t gi = 0; gi < a.layers.size(); ++gi) {
    const LayerGroup& g = a.layers[gi];
    // Adapter parameters of linear l in the group's layer i, all its copies.
    auto layer_adapter = [&](const Linear& l, std::int64_t i) {
      const std::int64_t layer = first_index[gi] + i;
      auto of = [&](std::int64_t expert) {
        return m.params_for(g.module_name(l, layer, expert), layer, true, l.nn_linear, false, l.in_features, l.out_features);
      };
      if (!l.routed_expert) return of(0);
      if (!r->per_layer) return of(0) * static_cast<double>(l.copies);
      double total = 0;
      for (std::int64_t e = 0; e < l.copies; ++e) total += of(e);
      return total;
    };
    const std::int64_t rows = r->per_layer ? g.count : std::min<std::int64_t>(1, g.count);
    std::vector<std::vector<double>> sums(g.linears.size(), std::vector<double>(r->per_layer ? rows + 1 : 1, 0.0));
    std::vector<std::int64_t> adapted(r->per_layer ? rows + 1 : 1, 0);
    for (std::int64_t i = 0; i < rows; ++i) {
      bool any = false;
      for (std::size_t li = 0; li < g.linears.size(); ++li) {
        const double v = layer_adapter(g.linears[li], i);
        any = any || v > 0;
        if (r->per_layer) sums[li][i + 1] = sums[li][i] + v;
        else sums[li][0] = v;
      }
      if (r->per_layer) adapted[i + 1] = adapted[i] + (any ? 1 : 0);
      else adapted[0] = any ? 1 : 0;
      r->anything = r->anything || any;
    }
    r->sums.push_back(std::move(sums));
    r->adapted.push_back(std::move(adapted));
  }
  if (!a.embedding_module.empty())  // lora.Embedding: A is r x num_embeddings, B is embedding_dim x r.
    r->embedding = m.params_for(a.embedding_module, 0, false, false, false, a.vocab_size, a.hidden_size);
  if (!a.lm_head_module.empty() && a.vocab_logits)
    r->lm_head = m.params_for(a.lm_head_module, 0, false, true, true, a.hidden_size, a.vocab_size);
  r->anything = r->anything || r->embedding > 0 || r->lm_head > 0;
  return r;
}

}  // namespace

LoraTargeting::LoraTargeting(const Architecture& a, const LoraSettings& s) : a_(a) {
  // One architecture and settings at a time are kept: a solve's estimates share one matching.
  thread_local std::string last_key;
  thread_local std::shared_ptr<const Resolved> last;
  std::string key = key_of(a, s);
  if (!last || key != last_key) {
    last = resolve(a, s);
    last_key = std::move(key);
  }
  r_ = last;
}

const Errors& LoraTargeting::errors() const { return r_->errors; }

bool LoraTargeting::per_layer() const { return r_->per_layer; }

double LoraTargeting::adapter_params(std::size_t group, const Linear& l, std::int64_t index) const {
  if (group >= a_.layers.size()) return 0;
  // `l` is one of the group's linears (or a copy of one: then found by its name).
  const std::vector<Linear>& linears = a_.layers[group].linears;
  auto it = std::find_if(linears.begin(), linears.end(), [&](const Linear& x) { return &x == &l; });
  if (it == linears.end())
    it = std::find_if(linears.begin(), linears.end(), [&](const Linear& x) { return x.name == l.name && x.parent == l.parent; });
  if (it == linears.end()) return 0;
  return adapter_params(group, static_cast<std::size_t>(it - linears.begin()), index, index + 1);
}

double LoraTargeting::adapter_params(std::size_t group, std::size_t linear, std::int64_t begin, std::int64_t end) const {
  if (group >= r_->sums.size() || linear >= r_->sums[group].size() || end <= begin) return 0;
  const std::vector<double>& v = r_->sums[group][linear];
  if (!r_->per_layer) return v[0] * static_cast<double>(end - begin);
  const auto last = static_cast<std::int64_t>(v.size()) - 1;  // the group's layer count
  return v[static_cast<std::size_t>(std::clamp<std::int64_t>(end, 0, last))] -
         v[static_cast<std::size_t>(std::clamp<std::int64_t>(begin, 0, last))];
}

std::int64_t LoraTargeting::adapted_layers(std::size_t group, std::int64_t begin, std::int64_t end) const {
  if (group >= r_->adapted.size() || end <= begin) return 0;
  const std::vector<std::int64_t>& v = r_->adapted[group];
  if (!r_->per_layer) return v[0] * (end - begin);
  const auto last = static_cast<std::int64_t>(v.size()) - 1;
  return v[static_cast<std::size_t>(std::clamp<std::int64_t>(end, 0, last))] -
         v[static_cast<std::size_t>(std::clamp<std::int64_t>(begin, 0, last))];
}

double LoraTargeting::embedding_adapter() const { return r_->embedding; }

double LoraTargeting::lm_head_adapter() const { return r_->lm_head; }

bool LoraTargeting::names_a_module(const std::string& target) const {
  if (target == "all-linear") return true;
  if (ends_with_module(a_.embedding_module, target) || (!a_.lm_head_module.empty() && ends_with_module(a_.lm_head_module, target)))
    return true;
  std::int64_t first = 0;
  std::vector<std::pair<std::string, std::int64_t>> next_index;
  for (const auto& g : a_.layers) {
    auto it = std::find_if(next_index.begin(), next_index.end(), [&](const auto& p) { return p.first == g.prefix; });
    if (it == next_index.end()) it = next_index.insert(next_index.end(), {g.prefix, 0});
    first = it->second;
    it->second += g.count;
    for (const auto& l : g.linears) {
      work_meter::add(1);
      if (ends_with_module(g.module_name(l, first), target)) return true;
    }
  }
  return false;
}

bool LoraTargeting::targets_anything() const { return r_->anything; }

}  // namespace trainmem
