#include "trainmem/vision_activations.hpp"

#include "trainmem/vision_parameters.hpp"

namespace trainmem {

std::pair<std::int64_t, std::int64_t> priced_image_size(const TrainingSetup& s, const VisionTower& v, bool* assumed) {
  if (assumed) *assumed = false;
  if (s.multimodal.image_size) return *s.multimodal.image_size;
  if (v.image_height > 0 && v.image_width > 0) return {v.image_height, v.image_width};
  if (assumed) *assumed = true;
  return {kDefaultImageSide, kDefaultImageSide};
}

double cross_attention_states(const TrainingSetup& s, const Architecture& a) {
  if (!a.vision) return 0;
  const auto [h, w] = priced_image_size(s, *a.vision);
  return static_cast<double>(image_tokens(*a.vision, h, w).cross_attention_states) *
         static_cast<double>(s.multimodal.images_per_sample);
}

VisionActivations vision_activations(const TrainingSetup& s, const Architecture& a, Dtype compute) {
  VisionActivations out;
  if (!a.vision) return out;
  const VisionTower& v = *a.vision;
  const auto [h, w] = priced_image_size(s, v);
  out.per_image = image_tokens(v, h, w);
  const double images = static_cast<double>(s.batch.micro_batch_size) * static_cast<double>(s.multimodal.images_per_sample);
  out.lm_image_tokens = out.per_image.lm_tokens * s.multimodal.images_per_sample;

  // The encoder: every sequence of every image is one attention sequence of encoder_positions.
  ActivationContext c = activation_context(s, a, compute);
  c.micro_batch = images * static_cast<double>(out.per_image.encoder_sequences);
  c.seq = c.encoder_seq = static_cast<double>(out.per_image.encoder_positions);
  c.hidden = static_cast<double>(v.hidden_size);
  c.norm = v.norm;
  c.attention_dropout = 0;
  c.hidden_dropout = 0;
  const bool encoder_trains = vision_encoder_trained_in_full(s) || vision_encoder_has_adapters(s);
  if (encoder_trains) {
    for (const auto& g : v.layers) {
      const double layer = saved_bytes(layer_activations(g, c));
      if (out.encoder_layer_saved == 0) out.encoder_layer_saved = layer;
      out.encoder_saved += layer * static_cast<double>(g.count);
    }
  }

  // The projector: each linear keeps its input; between two linears the activation function keeps
  // its input and the second linear the activation's output; a norm keeps its input and fp32
  // statistics. Split by TP like the layers' tensor-parallel region.
  if (encoder_trains || projector_trained(s)) {
    const double rows = images * static_cast<double>(out.per_image.projector_rows);
    const double bytes = dtype_bytes(compute);
    double elements = 0;
    for (std::size_t i = 0; i < v.projector.size(); ++i) {
      const Linear& l = v.projector[i];
      // Rows entering a linear: the first takes projector_rows x in (a merger's reshape keeps the
      // elements); later ones the previous output.
      elements += rows * static_cast<double>(l.in_features);
      if (i + 1 < v.projector.size()) elements += rows * static_cast<double>(l.out_features);  // activation input
    }
    double stats = 0;
    if (v.projector_norm && !v.projector.empty()) {
      elements += rows * static_cast<double>(v.projector.front().in_features);
      stats = rows * (v.norm == NormKind::layer_norm ? 2.0 : 1.0) * dtype_bytes(Dtype::fp32);
    }
    out.projector_saved = (elements * bytes + stats) / c.tp;
  }
  return out;
}

}  // namespace trainmem
