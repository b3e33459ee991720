#include "trainmem/parameter_layout.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "trainmem/framework_defaults.hpp"
#include "trainmem/lora_targeting.hpp"
#include "trainmem/pipeline_split.hpp"
#include "trainmem/vision_parameters.hpp"

namespace trainmem {

namespace {

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

// Ranks that split one linear: routed experts over the expert tensor-parallel group (Megatron
// ETP) and expert parallelism, the rest over TP; and whether the QLoRA quantizer is HQQ
// (quantizer_converts, framework_defaults.hpp).
struct Splits {
  double tp = 1, ep = 1, etp = 1;
  bool hqq = false;
};
double split_of(const Linear& l, const Splits& s) {
  return l.routed_expert ? (l.tp_sharded ? s.etp : 1.0) * s.ep : (l.tp_sharded ? s.tp : 1.0);
}

// One layer's parameters on this rank with its LoRA adapters (`index`: the layer within its group).
RankParameters one_layer(const LayerGroup& g, std::size_t group, bool layer_trainable, const Splits& splits,
                         const LoraTargeting* lora, std::int64_t index) {
  RankParameters r;
  for (const auto& l : g.linears) {
    const double split = split_of(l, splits);
    const double weights = static_cast<double>(l.weight_params() * l.copies) / split;
    const double bias = static_cast<double>((l.bias ? l.out_features : 0) * l.copies) / split;
    add(r, weights, layer_trainable, l.routed_expert, quantizer_converts(l, splits.hqq));
    add(r, bias, layer_trainable, l.routed_expert, false);
    r.linear_params += weights + bias;
    if (lora) {
      const double adapter = lora->adapter_params(group, l, index) / split;
      add(r, adapter, true, l.routed_expert, false);
      r.adapter += adapter;
      r.linear_params += adapter;
    }
  }
  double replicated = static_cast<double>(g.other_params);
  for (const auto& n : g.norms) replicated += static_cast<double>(n.params());
  add(r, replicated, layer_trainable, false, false);
  // A layer is one FSDP unit: with any trainable parameter, the whole unit has gradients.
  r.trainable_units = r.trainable() > 0 ? r.total() : 0.0;
  r.unit_frozen_linear_weights = r.trainable() > 0 ? r.frozen_linear_weights : 0.0;
  r.largest_layer_trainable = r.trainable();
  r.largest_unit_with_gradients = r.trainable_units;
  r.largest_unit_frozen_linear_weights = r.unit_frozen_linear_weights;
  r.largest_layer = r.total();
  r.largest_layer_frozen_linear_weights = r.frozen_linear_weights;
  return r;
}

// Keeps the larger of two layers (RankParameters::largest_layer and its siblings); `layer` holds
// one layer's counts in those fields.
void keep_largest_layer(RankParameters& into, const RankParameters& layer) {
  into.largest_layer_trainable = std::max(into.largest_layer_trainable, layer.largest_layer_trainable);
  if (layer.largest_unit_with_gradients > into.largest_unit_with_gradients) {
    into.largest_unit_with_gradients = layer.largest_unit_with_gradients;
    into.largest_unit_frozen_linear_weights = layer.largest_unit_frozen_linear_weights;
  }
  if (layer.largest_layer > into.largest_layer) {
    into.largest_layer = layer.largest_layer;
    into.largest_layer_frozen_linear_weights = layer.largest_layer_frozen_linear_weights;
  }
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
  into.linear_params += layer.linear_params * times;
  into.trainable_units += layer.trainable_units * times;
  into.unit_frozen_linear_weights += layer.unit_frozen_linear_weights * times;
  keep_largest_layer(into, layer);
}

std::vector<RankParameters> walk(const TrainingSetup& s, const Splits& splits, std::int64_t pp_i) {
  const double tp = splits.tp;
  std::vector<RankParameters> stages(static_cast<std::size_t>(std::max<std::int64_t>(1, pp_i)));
  const bool full = s.method == Method::full;

  if (!s.model.architecture) {
    // Parameter count only: spread evenly over tensor and pipeline ranks.
    const double per_rank = static_cast<double>(s.model.num_parameters) / (tp * static_cast<double>(stages.size()));
    for (auto& r : stages) {
      add(r, per_rank, full, false, true);
      r.linear_params = per_rank;
      r.trainable_units = r.trainable();
    }
    return stages;
  }

  const Architecture& a = *s.model.architecture;
  const std::int64_t layers = a.num_hidden_layers();
  const std::int64_t pp = static_cast<std::int64_t>(stages.size());
  const std::int64_t first_trainable =
      s.method == Method::freeze ? std::max<std::int64_t>(0, layers - s.freeze_trainable_layers) : layers;
  std::optional<LoraTargeting> lora;
  if (uses_adapters(s.method)) lora.emplace(a, s.lora);
  const LoraTargeting* adapters = lora ? &*lora : nullptr;
  // Model chunks in layer order, chunk k on stage k mod pp (pipeline_split.hpp).
  const std::vector<std::int64_t> chunks = pp == 1 ? std::vector<std::int64_t>{layers} : pipeline_split(s, layers).chunk_layers;
  std::int64_t lo = 0;
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    const std::int64_t hi = lo + chunks[k];
    RankParameters& stage = stages[k % stages.size()];
    std::int64_t group_start = 0;
    for (std::size_t g = 0; g < a.layers.size(); ++g) {
      const std::int64_t group_end = group_start + a.layers[g].count;
      const std::int64_t index = std::max(lo, group_start);  // layers [index, index + n) of the whole stack
      const std::int64_t n = std::max<std::int64_t>(0, std::min(hi, group_end) - index);
      if (n <= 0) {  // this chunk holds no layer of the group
        group_start = group_end;
        continue;
      }
      if (!lora || !lora->per_layer()) {
        // Frozen below first_trainable (freeze), all trainable for full; every layer alike.
        const std::int64_t trainable = full ? n : std::clamp<std::int64_t>(index + n - first_trainable, 0, n);
        const std::int64_t in_group = index - group_start;
        accumulate(stage, one_layer(a.layers[g], g, true, splits, adapters, in_group), static_cast<double>(trainable));
        accumulate(stage, one_layer(a.layers[g], g, false, splits, adapters, in_group), static_cast<double>(n - trainable));
      } else {
        // LoRA patterns or layers_to_transform: the base weights are frozen in every layer; the
        // adapters of layers [index, index + n) are summed in one step (LoraTargeting's prefix sums).
        const LayerGroup& group = a.layers[g];
        const RankParameters base = one_layer(group, g, false, splits, nullptr, 0);
        accumulate(stage, base, static_cast<double>(n));
        const std::int64_t begin = index - group_start;
        double adapter = 0;
        for (std::size_t li = 0; li < group.linears.size(); ++li) {
          const Linear& l = group.linears[li];
          const double p = lora->adapter_params(g, li, begin, begin + n) / split_of(l, splits);
          add(stage, p, true, l.routed_expert, false);
          adapter += p;
        }
        stage.adapter += adapter;
        stage.linear_params += adapter;
        // A layer with any adapter is an FSDP unit with gradients: its whole weight plus its adapters.
        const double adapted = static_cast<double>(lora->adapted_layers(g, begin, begin + n));
        stage.trainable_units += base.total() * adapted + adapter;
        stage.unit_frozen_linear_weights += base.frozen_linear_weights * adapted;
        // The layer of the range with the most adapter parameters, one layer at a time.
        for (std::int64_t i = begin; i < begin + n; ++i) {
          double own = 0;
          for (std::size_t li = 0; li < group.linears.size(); ++li)
            own += lora->adapter_params(g, li, i, i + 1) / split_of(group.linears[li], splits);
          RankParameters adapted = base;
          adapted.largest_layer_trainable = own;
          adapted.largest_unit_with_gradients = own > 0 ? base.total() + own : 0.0;
          adapted.largest_unit_frozen_linear_weights = own > 0 ? base.frozen_linear_weights : 0.0;
          adapted.largest_layer = base.total() + own;
          keep_largest_layer(stage, adapted);
        }
      }
      group_start = group_end;
    }
    lo = hi;
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
  if (lora) {
    const double embed_adapter = lora->embedding_adapter() / tp, head_adapter = lora->lm_head_adapter() / tp;
    add(first, embed_adapter, true, false, false);
    first.adapter += embed_adapter;
    add(last, head_adapter, true, false, false);
    last.adapter += head_adapter;
    // The embedding's and the head's adapters live in units outside the layers.
    first.largest_layer_trainable = std::max(first.largest_layer_trainable, embed_adapter);
    last.largest_layer_trainable = std::max(last.largest_layer_trainable, head_adapter);
    last.linear_params += head_adapter;
    last.head_linear_params += head_adapter;
  }
  add_vision_parameters(first, a, s, tp);
  const double head = static_cast<double>(a.lm_head_params) * vocab_padding / tp;
  add(last, head, full, false, false);  // bitsandbytes keeps lm_head in 16 bits (llm_int8_skip_modules)
  if (head_saved) add(last, a.lm_head_params > 0 ? head : embedding, true, false, false);
  // A tied head on a later stage needs its own copy of the embedding (Megatron shared embedding).
  if (a.lm_head_params == 0 && pp > 1) add(last, embedding, full, false, false);
  if (a.vocab_logits) {
    const double head_weight = a.lm_head_params > 0 ? head : embedding;
    last.linear_params += head_weight;
    last.head_linear_params += head_weight;
  }
  add(last, static_cast<double>(a.final_norm_params + a.head_other_params), full, false, false);
  return stages;
}

}  // namespace

std::vector<std::vector<std::int64_t>> stage_layer_counts(const Architecture& a, const TrainingSetup& s) {
  const std::int64_t pp = std::max<std::int64_t>(1, s.parallel.pipeline_parallel_size);
  const std::vector<std::int64_t> chunks = pipeline_split(s, a.num_hidden_layers()).chunk_layers;
  std::vector<std::vector<std::int64_t>> counts(static_cast<std::size_t>(pp), std::vector<std::int64_t>(a.layers.size(), 0));
  std::int64_t lo = 0;
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    const std::int64_t hi = lo + chunks[k];
    auto& stage = counts[k % static_cast<std::size_t>(pp)];
    std::int64_t group_start = 0;
    for (std::size_t g = 0; g < a.layers.size(); ++g) {
      const std::int64_t group_end = group_start + a.layers[g].count;
      stage[g] += std::max<std::int64_t>(0, std::min(hi, group_end) - std::max(lo, group_start));
      group_start = group_end;
    }
    lo = hi;
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
  const RankParameters whole = walk(setup, Splits{}, 1).front();
  c.trainable = std::llround(whole.trainable());
  c.adapter = std::llround(whole.adapter);
  return c;
}

std::vector<RankParameters> stage_parameters(const TrainingSetup& setup) {
  Splits splits;
  splits.tp = static_cast<double>(setup.parallel.tensor_parallel_size);
  splits.ep = static_cast<double>(setup.parallel.expert_parallel_size);
  splits.etp = static_cast<double>(expert_tensor_parallel_size(setup));
  splits.hqq = qlora_through_hqq(setup);
  return walk(setup, splits, setup.parallel.pipeline_parallel_size);
}

double expert_sharding_degree(const ParallelSettings& p, double dense_degree) {
  const double tp = static_cast<double>(p.tensor_parallel_size);
  const double etp = static_cast<double>(p.expert_tensor_parallel_size.value_or(p.tensor_parallel_size));
  return std::max(1.0, dense_degree * tp / (static_cast<double>(p.expert_parallel_size) * etp));
}

}  // namespace trainmem
