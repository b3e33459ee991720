#include "trainmem/multimodal_checks.hpp"

#include <algorithm>
#include <string>

#include "trainmem/message_codes.hpp"
#include "trainmem/vision_activations.hpp"

namespace trainmem {

void validate_images(const TrainingSetup& s, Errors& errors) {
  if (!s.model.architecture || !s.model.architecture->vision) return;
  const VisionTower& v = *s.model.architecture->vision;
  const auto [h, w] = priced_image_size(s, v);
  // Qwen2-VL's smart_resize refuses images more than 200 times longer than wide.
  if (v.rule == ImageTokenRule::qwen2_vl && std::max(h, w) > 200 * std::min(h, w)) {
    errors.push_back({error_code::out_of_range, "multimodal.image_size",
                      "multimodal.image_size " + std::to_string(h) + " x " + std::to_string(w) +
                          " has an aspect ratio above 200, which Qwen2-VL's image processor refuses"});
    return;
  }
  const std::int64_t per_image = image_tokens(v, h, w).lm_tokens;
  const std::int64_t tokens = per_image * s.multimodal.images_per_sample;
  const std::int64_t seq = s.batch.seq_length.value_or(4096);
  if (tokens > seq)
    errors.push_back({error_code::out_of_range, "batch.seq_length",
                      "batch.seq_length = " + std::to_string(seq) + " cannot hold the sample's image tokens: " +
                          std::to_string(s.multimodal.images_per_sample) + " image(s) x " + std::to_string(per_image) +
                          " tokens at " + std::to_string(h) + " x " + std::to_string(w) +
                          " pixels; seq_length counts image tokens (raise it, or lower multimodal.images_per_sample or image_size)"});
}

void multimodal_warnings(const TrainingSetup& s, const Estimate& e, std::vector<Warning>& out) {
  (void)e;
  if (!s.model.architecture) return;
  const Architecture& a = *s.model.architecture;
  for (const auto& p : a.unpriced_parts)
    out.push_back({warning_code::unpriced_part,
                   p.field + " (" + p.description + ") has no layout here and is left out of every figure" +
                       (p.parameters > 0 ? ": about " + std::to_string(p.parameters) +
                                               " parameters as a generic transformer encoder of its sizes"
                                         : ": its parameters cannot be counted from its keys"),
                   {{"field", p.field}, {"parameters", static_cast<double>(p.parameters)}}});
  if (a.vision) {
    bool assumed = false;
    const auto [h, w] = priced_image_size(s, *a.vision, &assumed);
    if (assumed)
      out.push_back({warning_code::image_size_assumed,
                     "vision_config gives no image_size (" + a.vision->model_type + " takes any resolution): images priced at " +
                         std::to_string(h) + " x " + std::to_string(w) + " pixels; set multimodal.image_size",
                     {{"model_type", a.vision->model_type}, {"height", static_cast<double>(h)}, {"width", static_cast<double>(w)}}});
  }
  for (const auto& g : a.layers) {
    if (g.mixer != Mixer::mamba && g.mixer != Mixer::mamba2) continue;
    out.push_back({warning_code::ssm_fused_kernels,
                   "Mamba layers are priced as the mamba-ssm and causal-conv1d kernels save them; without those "
                   "packages transformers takes a sequential path that keeps [batch, d_inner, seq, state] fp32 "
                   "tensors per layer and needs far more memory"});
    break;
  }
}

}  // namespace trainmem
