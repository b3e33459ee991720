#include "trainmem/vision_parameters.hpp"

#include <optional>

#include "trainmem/lora_targeting.hpp"

namespace trainmem {

namespace {

void add_params(RankParameters& r, double params, bool trainable, bool linear_weight) {
  if (trainable) {
    r.dense_trainable += params;
  } else {
    r.dense_frozen += params;
    if (linear_weight) r.frozen_linear_weights += params;
  }
}

// A module's linears (weights, biases) and its other parameters, trainable or frozen; LoRA
// adapters where `lora` targets them (group index `group` of the vision view). Returns nothing;
// the parameters go to `r`.
void add_module(RankParameters& r, const std::vector<Linear>& linears, double other, double times, bool trainable,
                const LoraTargeting* lora, std::size_t group, double tp) {
  double added = 0, trained = 0, frozen_linear = 0;
  for (const auto& l : linears) {
    const double split = l.tp_sharded ? tp : 1.0;
    const double weights = static_cast<double>(l.weight_params() * l.copies) / split * times;
    const double bias = static_cast<double>((l.bias ? l.out_features : 0) * l.copies) / split * times;
    add_params(r, weights, trainable, true);
    add_params(r, bias, trainable, false);
    added += weights + bias;
    r.linear_params += weights + bias;
    if (trainable) trained += weights + bias;
    else frozen_linear += weights;
    if (!lora) continue;
    // Per layer when the matching can differ between layers (patterns, layers_to_transform).
    double adapter = 0;
    if (lora->per_layer() && lora->errors().empty()) {
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(times); ++i) adapter += lora->adapter_params(group, l, i);
    } else {
      adapter = lora->adapter_params(group, l, 0) * times;
    }
    adapter /= split;
    add_params(r, adapter, true, false);
    r.adapter += adapter;
    r.linear_params += adapter;
    trained += adapter;
    added += adapter;
  }
  add_params(r, other * times, trainable, false);
  added += other * times;
  if (trainable) trained += other * times;
  // One FSDP unit per module: with anything trainable, the whole unit carries gradients.
  r.trainable_units += trained > 0 ? added : 0.0;
  r.unit_frozen_linear_weights += trained > 0 ? frozen_linear : 0.0;
}

}  // namespace

Architecture vision_view(const Architecture& a) {
  Architecture v;
  v.model_type = a.model_type;
  v.default_lora_targets = a.default_lora_targets;
  v.embedding_module.clear();
  v.lm_head_module.clear();
  v.vocab_logits = false;
  v.hidden_size = a.vision->hidden_size;
  v.norm = a.vision->norm;
  v.learned_positions = true;
  v.layers = a.vision->layers;
  return v;
}

bool vision_encoder_trained_in_full(const TrainingSetup& s) {
  return !s.multimodal.freeze_vision_tower && (s.method == Method::full || s.method == Method::freeze);
}

bool vision_encoder_has_adapters(const TrainingSetup& s) { return !s.multimodal.freeze_vision_tower && uses_adapters(s.method); }

bool projector_trained(const TrainingSetup& s) { return !s.multimodal.freeze_projector; }

bool vision_tower_names_module(const TrainingSetup& s, const std::string& target) {
  if (!s.model.architecture || !s.model.architecture->vision || !vision_encoder_has_adapters(s)) return false;
  const Architecture view = vision_view(*s.model.architecture);
  return LoraTargeting(view, s.lora).names_a_module(target);
}

bool vision_tower_targeted(const TrainingSetup& s) {
  if (!s.model.architecture || !s.model.architecture->vision || !vision_encoder_has_adapters(s)) return false;
  const Architecture view = vision_view(*s.model.architecture);
  return LoraTargeting(view, s.lora).targets_anything();
}

void add_vision_parameters(RankParameters& r, const Architecture& a, const TrainingSetup& s, double tp) {
  if (!a.vision) return;
  const VisionTower& v = *a.vision;
  const bool full = vision_encoder_trained_in_full(s);
  std::optional<Architecture> view;
  std::optional<LoraTargeting> lora;
  if (vision_encoder_has_adapters(s)) {
    view = vision_view(a);
    lora.emplace(*view, s.lora);
  }
  add_module(r, {}, static_cast<double>(v.embedding_params + v.other_params), 1.0, full, nullptr, 0, tp);
  for (std::size_t gi = 0; gi < v.layers.size(); ++gi) {
    const LayerGroup& g = v.layers[gi];
    double norms = static_cast<double>(g.other_params);
    for (const auto& n : g.norms) norms += static_cast<double>(n.params());
    add_module(r, g.linears, norms, static_cast<double>(g.count), full, lora ? &*lora : nullptr, gi, tp);
  }
  add_module(r, v.projector, static_cast<double>(v.projector_other_params), 1.0, projector_trained(s), nullptr, 0, tp);
}

}  // namespace trainmem
