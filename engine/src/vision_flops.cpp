#include "trainmem/vision_flops.hpp"

#include "trainmem/vision_activations.hpp"
#include "trainmem/vision_parameters.hpp"

namespace trainmem {

namespace {

// FlashAttention's backward is 2.5x its forward, eager attention's 2x (flops.cpp).
constexpr double kFlashBackwardRatio = 2.5;
constexpr double kEagerBackwardRatio = 2.0;

}  // namespace

void add_vision_flops(const TrainingSetup& s, TrainingFlops& t) {
  if (!s.model.architecture || !s.model.architecture->vision) return;
  const VisionTower& v = *s.model.architecture->vision;
  const auto [h, w] = priced_image_size(s, v);
  const ImageTokens per_image = image_tokens(v, h, w);
  const double images = static_cast<double>(s.batch.micro_batch_size) * static_cast<double>(s.parallel.data_parallel_size) *
                        static_cast<double>(s.batch.gradient_accumulation_steps) *
                        static_cast<double>(s.multimodal.images_per_sample);
  const bool encoder_trains = vision_encoder_trained_in_full(s) || vision_encoder_has_adapters(s);
  const bool projector_trains = projector_trained(s);
  const double attention_backward =
      s.attention == AttentionImplementation::eager ? kEagerBackwardRatio : kFlashBackwardRatio;

  FlopsContext c;
  c.seq = static_cast<double>(per_image.encoder_positions);
  c.causal = false;
  c.kernel_skips_masked = s.attention != AttentionImplementation::eager;
  c.base_trained = vision_encoder_trained_in_full(s);
  c.setup = vision_encoder_has_adapters(s) ? &s : nullptr;
  const double tokens = images * static_cast<double>(per_image.encoder_sequences) * c.seq;
  for (const auto& g : v.layers) {
    const LayerForwardFlops f = layer_forward_flops(g, c);
    const double n = static_cast<double>(g.count) * tokens;
    t.forward += n * (f.matmul + f.adapter_matmul + f.attention_executed);
    t.model_per_step += n * (f.matmul + f.adapter_matmul + f.attention);
    t.model_forward += n * (f.matmul + f.adapter_matmul + f.attention);
    if (!encoder_trains) continue;
    const double matmul_backward = f.matmul + f.trained_matmul + 2 * f.adapter_matmul;
    t.backward += n * (matmul_backward + attention_backward * f.attention_executed);
    t.model_per_step += n * (matmul_backward + 2 * f.attention);
  }
  // The projector: its weight gradients when it trains; each linear's input gradient where a
  // gradient flows below it (the encoder trains, or a trained projector linear lies below).
  const double rows = images * static_cast<double>(per_image.projector_rows);
  for (std::size_t i = 0; i < v.projector.size(); ++i) {
    const double linear = rows * 2.0 * static_cast<double>(v.projector[i].weight_params());
    const double backward = (encoder_trains || (projector_trains && i > 0) ? 1.0 : 0.0) + (projector_trains ? 1.0 : 0.0);
    t.forward += linear;
    t.model_forward += linear;
    t.backward += linear * backward;
    t.model_per_step += linear * (1.0 + backward);
  }
}

}  // namespace trainmem
