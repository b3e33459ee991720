// One training step on one GPU, point by point: the terms of the phase peaks (estimate.cpp) laid
// out in the order the step allocates them, what is alive at the peak, and each pipeline stage's
// budget. Bytes throughout. docs/api.md, "per_gpu.timeline", "per_gpu.peak_breakdown",
// "pipeline_stages".
//
// The phase peaks and the timeline are computed from the same StepTerms by the same functions
// (forward_point, backward_point), so the largest forward point is phases.forward exactly, the
// largest backward point phases.backward, and the largest point of all peak_allocated.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace trainmem {

// One pipeline stage's terms of the phase peaks, bytes on one GPU of that stage.
struct StepTerms {
  double load = 0;             // phases.load: the weights being loaded (a whole copy with full_copy_per_gpu)
  double training_states = 0;  // parameters, gradients, optimizer states on the device through forward and backward
                               // (less backward_gradients, which backward builds from none)
  double step_states = 0;      // the same in the optimizer step (plus DeepSpeed's fp32 gradient partition)
  double activations = 0;      // saved for backward, all in-flight micro-batches, resident on the device
  double always = 0;           // alive in every phase: DDP's bucket copy, logits the loop holds
  double forward_buffers = 0;  // always + parameters gathered for forward (ZeRO-3/FSDP)
  double layer_forward = 0;    // inside one layer's forward: eager attention scores before the softmax
  double loss_forward = 0;     // logits and the loss at the end of forward (last stage)
  double loss_backward = 0;    // the loss's backward working set (last stage)
  double layer_backward = 0;   // inside one layer's backward: gathers and buckets, recompute, score and layer gradients
  double step_buffers = 0;     // always + optimizer-step temporaries
  // Gradients a step's only micro-batch builds from none in backward (FrameworkBehaviour::
  // gradients_freed_between_steps, one micro-batch per step): absent in forward and at the loss's
  // backward, the head's (head_gradients) from the head's backward on, each layer's from its own
  // backward on (the layers' share spread evenly over them). 0 where gradients persist.
  double backward_gradients = 0;
  double head_gradients = 0;
  // The largest backward layer point's saved activations plus the gradients alive there
  // (backward_layers_held), and those gradients alone: t.activations and 0 when
  // backward_gradients is 0 (layer L, all activations alive, is then the largest).
  double backward_layers_held = 0;
  double backward_layers_gradients = 0;
};

// Gradients alive at the backward of layer k of `layers` (1-based): the head's and those of layers
// k..L, the layers' share spread evenly over them.
double gradients_at_layer(const StepTerms& t, std::size_t k, std::size_t layers);

// Sets t.backward_layers_held and t.backward_layers_gradients from the stage's layers, saved
// bytes at each layer point as step_timeline counts them (below).
void set_backward_layers_held(StepTerms& t, double saved_before_layers, const std::vector<double>& layer_saved);

// The phase peaks: the largest of each phase's points below.
double forward_transient(const StepTerms& t);   // forward_buffers + max(loss_forward, layer_forward)
// Whether backward peaks at the loss's point (all activations, the loss's working set) rather than
// at a layer point (backward_layers_held, the layer's working set).
bool backward_peaks_at_loss(const StepTerms& t);
double backward_transient(const StepTerms& t);  // always + the peaking point's loss_backward or layer_backward
double forward_peak(const StepTerms& t);        // training_states + activations + forward_transient
double backward_peak(const StepTerms& t);       // training_states + always + the larger of activations +
                                                // loss_backward and backward_layers_held + layer_backward
double step_peak(const StepTerms& t);           // step_states + step_buffers

enum class StepPoint { load, forward, loss_forward, loss_backward, backward, optimizer_step };

struct TimelinePoint {
  StepPoint phase = StepPoint::load;
  std::int64_t layer = 0;  // forward/backward: 1-based transformer layer on this GPU; 0 otherwise
  double allocated = 0;    // torch.cuda.memory_allocated at this point, bytes
  double reserved = 0;     // torch.cuda.memory_reserved at this point, bytes
};

// The points of one step, in order: load; forward of layers 1..L; on the last pipeline stage
// loss_forward and loss_backward; backward of layers L..1; optimizer_step (2L + 4 at most). A
// stage without transformer layers (an embedding-only pipeline stage) that is not the last has one
// forward and one backward point with layer 0.
//   saved_before_layers: activations alive before the first layer of the micro-batch being run:
//     the earlier in-flight micro-batches' (all of theirs) and this micro-batch's layer-free ones
//     (embedding-side inputs, the vision tower, the head's inputs on the last stage);
//   layer_saved: each layer's saved bytes for one micro-batch, in layer order.
// A forward point of layer k holds saved_before_layers + layers 1..k; a backward point of layer k
// the same (layers k+1..L were freed as backward walked back past them). The non-layer tensors are
// counted at every forward and backward point, as the phase peaks count them: an upper bound by the
// head's [T, h] inputs before the head runs. Never more than t.activations (activation offload keeps
// only that much on the device).
// reserved: the caching allocator keeps freed blocks cached, so memory_reserved does not drop when
// tensors are freed (PyTorch docs, "CUDA semantics", Memory management; allocator.hpp): at each
// point the running maximum of allocated times peak_reserved / peak_allocated (the allocator's
// reserve in proportion to what has been allocated), peak_reserved at the peak itself.
// The timeline is left out (empty) beyond this many layers on the GPU: hf_config allows 1e8 layers,
// and the points would grow with them; published models have a few hundred at most.
constexpr std::int64_t kMaxTimelineLayers = 1024;
std::vector<TimelinePoint> step_timeline(const StepTerms& t, double saved_before_layers, const std::vector<double>& layer_saved,
                                         bool last_stage, double peak_allocated, double peak_reserved);

enum class PeakComponentKind { parameters, gradients, optimizer_states, activations, temporary_buffers, allocator, cuda_context, userbuffers };

struct PeakComponent {
  PeakComponentKind component = PeakComponentKind::parameters;
  double bytes = 0;  // whole bytes
};

// What is alive at the peak, the eight components in the order of PeakComponentKind (zeros kept),
// rounded to whole bytes so that the first five sum to round(peak_allocated), the first six to
// round(peak_reserved), the first seven to round(peak - userbuffers) and all eight to round(peak).
// `parts` are the unrounded byte counts of the first five at the peak phase.
std::vector<PeakComponent> peak_breakdown(const std::array<double, 5>& parts, double peak_allocated, double peak_reserved,
                                          double userbuffers, double peak);

// One pipeline stage's budget (one GPU of the stage), bytes. peak_allocated, activations, peak and
// layers are empty without an architecture. The most loaded stage's peak includes the caching
// allocator's rules; the others' the allocator's uncertainty floor only (the rules are priced for
// the most loaded stage), which never makes another stage the most loaded one.
struct StageBudget {
  std::size_t stage = 0;
  std::optional<std::int64_t> layers;
  double parameters = 0, gradients = 0, optimizer_states = 0;
  std::optional<double> activations, peak_allocated, peak;
};

}  // namespace trainmem
