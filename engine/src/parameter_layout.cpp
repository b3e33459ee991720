#include "trainmem/parameter_layout.hpp"

#include <algorithm>
#include <cmath>

#include "trainmem/framework_defaults.hpp"

namespace trainmem {

std::int64_t lora_params_for(const Linear& linear, const LoraSettings& lora) {
  std::int64_t per_copy = lora.r * (linear.in_features + linear.out_features);
  if (lora.use_dora) per_copy += linear.out_features;
  return per_copy * linear.copies;
}

bool lora_targets(const Linear& linear, const std::vector<std::string>& target_modules) {
  for (const auto& t : target_modules) {
    if (t == "all-linear" || t == linear.name) return true;
  }
  return false;
}

namespace {

bool uses_adapters(Method m) { return m == Method::lora || m == Method::qlora; }

bool module_saved(const LoraSettings& lora, const char* name) {
  return std::find(lora.modules_to_save.begin(), lora.modules_to_save.end(), name) !=
         lora.modules_to_save.end();
}

// Adds `params` to a rank, as trainable or frozen, dense or expert.
void add(RankParameters& r, double params, bool trainable, bool expert, bool linear_weight) {
  if (trainable) {
    (expert ? r.expert_trainable : r.dense_trainable) += params;
    r.trainable_units += params;
  } else {
    (expert ? r.expert_frozen : r.dense_frozen) += params;
    if (linear_weight) r.frozen_linear_weights += params;
  }
}

void add_layer(RankParameters& r, const LayerGroup& g, bool layer_trainable, const TrainingSetup& s,
               double tp, double ep, double etp) {
  const bool adapters = uses_adapters(s.method);
  for (const auto& l : g.linears) {
    // Routed experts split over the expert tensor-parallel group (Megatron ETP), the rest over TP.
    const double split = l.routed_expert ? (l.tp_sharded ? etp : 1.0) * ep : (l.tp_sharded ? tp : 1.0);
    const double weights = static_cast<double>(l.weight_params() * l.copies) / split;
    const double bias = static_cast<double>((l.bias ? l.out_features : 0) * l.copies) / split;
    add(r, weights, layer_trainable, l.routed_expert, true);
    add(r, bias, layer_trainable, l.routed_expert, false);
    if (adapters && lora_targets(l, s.lora.target_modules)) {
      const double adapter = static_cast<double>(lora_params_for(l, s.lora)) / split;
      add(r, adapter, true, l.routed_expert, false);
      r.adapter += adapter;
    }
  }
  double replicated = static_cast<double>(g.other_params);
  for (const auto& n : g.norms) replicated += static_cast<double>(n.params());
  add(r, replicated, layer_trainable, false, false);
}

// Adds `times` copies of one layer's parameters.
void accumulate(RankParameters& into, const RankParameters& layer, double times) {
  if (times == 0) return;
  into.dense_trainable += layer.dense_trainable * times;
  into.dense_frozen += layer.dense_frozen * times;
  into.expert_trainable += layer.expert_trainable * times;
  into.expert_frozen += layer.expert_frozen * times;
  into.frozen_linear_weights += layer.frozen_linear_weights * times;
  into.adapter += layer.adapter * times;
  into.trainable_units += layer.trainable_units * times;
}

std::vector<RankParameters> walk(const TrainingSetup& s, std::int64_t tp_i, std::int64_t pp_i,
                                 std::int64_t ep_i, std::int64_t etp_i) {
  const double tp = static_cast<double>(tp_i), ep = static_cast<double>(ep_i), etp = static_cast<double>(etp_i);
  std::vector<RankParameters> stages(static_cast<std::size_t>(std::max<std::int64_t>(1, pp_i)));
  const bool full = s.method == Method::full;

  if (!s.model.architecture) {
    // Parameter count only: spread evenly over tensor and pipeline ranks.
    const double per_rank = static_cast<double>(s.model.num_parameters) / (tp * static_cast<double>(stages.size()));
    for (auto& r : stages) {
      add(r, per_rank, full, false, true);
      r.trainable_units = r.trainable();
    }
    return stages;
  }

  const Architecture& a = *s.model.architecture;
  const std::int64_t layers = a.num_hidden_layers();
  const std::int64_t pp = static_cast<std::int64_t>(stages.size());
  const std::int64_t first_trainable =
      s.method == Method::freeze ? std::max<std::int64_t>(0, layers - s.freeze_trainable_layers) : layers;
  const auto counts = stage_layer_counts(a, pp);
  std::int64_t index = 0;  // index of the first layer of the current (stage, group) run
  for (std::size_t stage = 0; stage < counts.size(); ++stage) {
    for (std::size_t g = 0; g < a.layers.size(); ++g) {
      const std::int64_t n = counts[stage][g];
      if (n == 0) continue;
      // Layers [index, index + n): frozen below first_trainable (freeze), all trainable for full.
      const std::int64_t trainable = full ? n : std::clamp<std::int64_t>(index + n - first_trainable, 0, n);
      RankParameters one_trainable, one_frozen;
      add_layer(one_trainable, a.layers[g], true, s, tp, ep, etp);
      add_layer(one_frozen, a.layers[g], false, s, tp, ep, etp);
      // A layer is one FSDP unit: with any trainable parameter, the whole unit has gradients.
      one_trainable.trainable_units = one_trainable.total();
      one_frozen.trainable_units = one_frozen.trainable() > 0 ? one_frozen.total() : 0.0;
      accumulate(stages[stage], one_trainable, static_cast<double>(trainable));
      accumulate(stages[stage], one_frozen, static_cast<double>(n - trainable));
      index += n;
    }
  }

  RankParameters& first = stages.front();
  RankParameters& last = stages.back();
  const bool embed_saved = uses_adapters(s.method) && module_saved(s.lora, "embed_tokens");
  const bool head_saved = uses_adapters(s.method) && module_saved(s.lora, "lm_head");
  // Megatron pads the vocabulary (embedding, head) to a multiple of make_vocab_size_divisible_by x TP.
  const double vocab_padding = a.vocab_size > 0 ? static_cast<double>(padded_vocab_size(s, a.vocab_size)) / static_cast<double>(a.vocab_size) : 1.0;
  const double embedding = static_cast<double>(a.embedding_params) * vocab_padding / tp;
  add(first, embedding, full, false, false);
  add(first, static_cast<double>(a.position_embedding_params + a.embedding_norm_params), full, false, false);
  if (embed_saved) add(first, embedding, true, false, false);  // PEFT ModulesToSaveWrapper: trainable copy
  const double head = static_cast<double>(a.lm_head_params) * vocab_padding / tp;
  add(last, head, full, false, false);  // bitsandbytes keeps lm_head in 16 bits (llm_int8_skip_modules)
  if (head_saved) add(last, a.lm_head_params > 0 ? head : embedding, true, false, false);
  // A tied head on a later stage needs its own copy of the embedding (Megatron shared embedding).
  if (a.lm_head_params == 0 && pp > 1) add(last, embedding, full, false, false);
  add(last, static_cast<double>(a.final_norm_params + a.head_other_params), full, false, false);
  return stages;
}

}  // namespace

std::vector<std::vector<std::int64_t>> stage_layer_counts(const Architecture& a, std::int64_t pp) {
  const std::int64_t total = a.num_hidden_layers();
  std::vector<std::vector<std::int64_t>> counts(static_cast<std::size_t>(pp), std::vector<std::int64_t>(a.layers.size(), 0));
  auto stage_start = [&](std::int64_t i) { return (i * total + pp - 1) / pp; };  // ceil(i L / p)
  for (std::int64_t i = 0; i < pp; ++i) {
    const std::int64_t lo = stage_start(i), hi = stage_start(i + 1);
    std::int64_t group_start = 0;
    for (std::size_t g = 0; g < a.layers.size(); ++g) {
      const std::int64_t group_end = group_start + a.layers[g].count;
      counts[static_cast<std::size_t>(i)][g] = std::max<std::int64_t>(0, std::min(hi, group_end) - std::max(lo, group_start));
      group_start = group_end;
    }
  }
  return counts;
}

ParameterCounts count_parameters(const TrainingSetup& setup) {
  ParameterCounts c;
  c.total = setup.model.num_parameters;
  if (const auto& a = setup.model.architecture) {
    // The architecture's count with the vocabulary padded as the framework pads it.
    const std::int64_t padding_rows = padded_vocab_size(setup, a->vocab_size) - a->vocab_size;
    const std::int64_t vocab_matrices = (a->embedding_params > 0 ? 1 : 0) + (a->lm_head_params > 0 ? 1 : 0);
    c.total = a->total_params() + padding_rows * a->hidden_size * vocab_matrices;
  }
  const RankParameters whole = walk(setup, 1, 1, 1, 1).front();
  c.trainable = std::llround(whole.trainable());
  c.adapter = std::llround(whole.adapter);
  return c;
}

std::vector<RankParameters> stage_parameters(const TrainingSetup& setup) {
  return walk(setup, setup.parallel.tensor_parallel_size, setup.parallel.pipeline_parallel_size,
              setup.parallel.expert_parallel_size, expert_tensor_parallel_size(setup));
}

}  // namespace trainmem
