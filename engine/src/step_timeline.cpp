#include "trainmem/step_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace trainmem {

namespace {

// Allocated bytes at a point of forward or backward: the states, the activations saved so far and
// the point's transients. The phase peaks call these too; floating-point addition is monotonic, so
// the largest point of a phase equals its peak bit for bit.
double forward_point(const StepTerms& t, double saved, double transient) {
  return t.training_states + saved + (t.forward_buffers + transient);
}
double backward_point(const StepTerms& t, double saved, double transient) {
  return t.training_states + saved + (t.always + transient);
}

// Saved bytes while layer k (1-based, index k) runs, forward or backward; all of them at the last
// layer.
std::vector<double> saved_at_layers(const StepTerms& t, double saved_before_layers, const std::vector<double>& layer_saved) {
  const std::size_t layers = layer_saved.size();
  std::vector<double> saved(layers + 1, t.activations);
  double running = saved_before_layers;
  for (std::size_t k = 1; k < layers; ++k) {
    running += layer_saved[k - 1];
    saved[k] = std::min(running, t.activations);
  }
  return saved;
}

}  // namespace

double forward_transient(const StepTerms& t) { return t.forward_buffers + std::max(t.loss_forward, t.layer_forward); }
bool backward_peaks_at_loss(const StepTerms& t) {
  return backward_point(t, t.activations, t.loss_backward) >= backward_point(t, t.backward_layers_held, t.layer_backward);
}
double backward_transient(const StepTerms& t) { return t.always + (backward_peaks_at_loss(t) ? t.loss_backward : t.layer_backward); }
double forward_peak(const StepTerms& t) { return forward_point(t, t.activations, std::max(t.loss_forward, t.layer_forward)); }
double backward_peak(const StepTerms& t) {
  return std::max(backward_point(t, t.activations, t.loss_backward), backward_point(t, t.backward_layers_held, t.layer_backward));
}
double step_peak(const StepTerms& t) { return t.step_states + t.step_buffers; }

double gradients_at_layer(const StepTerms& t, std::size_t k, std::size_t layers) {
  if (t.backward_gradients <= 0 || layers == 0) return 0;
  const double later_layers = static_cast<double>(layers - k + 1) / static_cast<double>(layers);
  return t.head_gradients + (t.backward_gradients - t.head_gradients) * later_layers;
}

void set_backward_layers_held(StepTerms& t, double saved_before_layers, const std::vector<double>& layer_saved) {
  t.backward_layers_held = t.activations;
  t.backward_layers_gradients = 0;
  if (t.backward_gradients <= 0 || layer_saved.empty()) return;
  const std::vector<double> saved = saved_at_layers(t, saved_before_layers, layer_saved);
  const std::size_t layers = layer_saved.size();
  t.backward_layers_held = -1;
  for (std::size_t k = layers; k >= 1; --k) {
    const double gradients = gradients_at_layer(t, k, layers);
    if (saved[k] + gradients > t.backward_layers_held) {
      t.backward_layers_held = saved[k] + gradients;
      t.backward_layers_gradients = gradients;
    }
  }
}

std::vector<TimelinePoint> step_timeline(const StepTerms& t, double saved_before_layers, const std::vector<double>& layer_saved,
                                         bool last_stage, double peak_allocated, double peak_reserved) {
  const std::size_t layers = layer_saved.size();
  const std::vector<double> saved = saved_at_layers(t, saved_before_layers, layer_saved);

  std::vector<TimelinePoint> points;
  points.reserve(2 * layers + 4);
  points.push_back({StepPoint::load, 0, t.load, 0});
  // A stage with no layer still runs its part of forward and backward (the embedding).
  const bool layerless = layers == 0 && !last_stage;
  if (layerless) points.push_back({StepPoint::forward, 0, forward_point(t, t.activations, t.layer_forward), 0});
  for (std::size_t k = 1; k <= layers; ++k)
    points.push_back({StepPoint::forward, static_cast<std::int64_t>(k), forward_point(t, saved[k], t.layer_forward), 0});
  if (last_stage) {
    points.push_back({StepPoint::loss_forward, 0, forward_point(t, t.activations, t.loss_forward), 0});
    points.push_back({StepPoint::loss_backward, 0, backward_point(t, t.activations, t.loss_backward), 0});
  }
  for (std::size_t k = layers; k >= 1; --k)
    points.push_back({StepPoint::backward, static_cast<std::int64_t>(k),
                      backward_point(t, saved[k] + gradients_at_layer(t, k, layers), t.layer_backward), 0});
  if (layerless) points.push_back({StepPoint::backward, 0, backward_point(t, t.activations, t.layer_backward), 0});
  points.push_back({StepPoint::optimizer_step, 0, step_peak(t), 0});

  // Cached blocks stay reserved: reserved follows the highest allocation so far, in the proportion
  // the allocator holds at the peak (peak_reserved / peak_allocated): its rounding and cached blocks
  // grow with what has been allocated, so a point before the activations exist does not carry the
  // reserve they cause. The point at the allocated peak shows peak_reserved exactly.
  const double ratio = peak_allocated > 0 ? peak_reserved / peak_allocated : 1.0;
  double highest = 0;
  for (auto& p : points) {
    highest = std::max(highest, p.allocated);
    p.reserved = highest >= peak_allocated ? peak_reserved : highest * ratio;
  }
  return points;
}

std::vector<PeakComponent> peak_breakdown(const std::array<double, 5>& parts, double peak_allocated, double peak_reserved,
                                          double userbuffers, double peak) {
  static constexpr PeakComponentKind kinds[] = {PeakComponentKind::parameters,       PeakComponentKind::gradients,
                                                PeakComponentKind::optimizer_states, PeakComponentKind::activations,
                                                PeakComponentKind::temporary_buffers, PeakComponentKind::allocator,
                                                PeakComponentKind::cuda_context,      PeakComponentKind::userbuffers};
  constexpr std::size_t n = std::size(kinds);
  std::vector<PeakComponent> out;
  out.reserve(n);
  // Each component is the difference of rounded running sums; the fifth to eighth sums are the
  // peaks themselves, so the rounded parts add up to them exactly.
  const double targets[] = {peak_allocated, peak_reserved, peak - userbuffers, peak};
  double sum = 0, previous = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sum += i < 5 ? parts[i] : 0.0;
    const double rounded = std::round(i < 4 ? sum : targets[i - 4]);
    out.push_back({kinds[i], std::max(0.0, rounded - previous)});
    previous = std::max(previous, rounded);
  }
  return out;
}

}  // namespace trainmem
