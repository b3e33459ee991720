#include "trainmem/loss_memory.hpp"

#include <algorithm>
#include <cmath>

#include "trainmem/precision.hpp"

namespace trainmem {

namespace {
constexpr double kFusedBytesPerLogit = 16.0;  // unsloth#7203

// The smallest power of two at least x (Liger's triton.next_power_of_2), for x >= 1.
double next_power_of_two(double x) {
  double p = 1;
  while (p < x) p *= 2;
  return p;
}

struct LigerLoss {
  double forward = 0, backward = 0;  // bytes
};

// Liger's fused linear cross-entropy over `tokens` rows of width h into `vocab` logits (see the
// header): the working set at the end of forward, and what it keeps into backward.
LigerLoss liger_fused_loss(const TrainingSetup& s, const Architecture& a, double tokens, double vocab, double h, double A) {
  const double chunk = std::min(tokens, next_power_of_two(std::ceil(tokens / std::ceil(vocab / h))));
  const double input_gradient = tokens * h * A;
  const double loss_per_token = tokens * kFp32Bytes;  // loss_1d, fp32
  double weight_gradient = 0, weight_update = 0;
  if (head_trains(s, a)) {
    const double weight_bytes = dtype_bytes(resolve_precision(s).param_dtype);
    weight_gradient = vocab * h * weight_bytes;
    // grad_weight += torch.mm(grad_logits.t(), input).float(): the [V, h] product and its fp32
    // copy, unless the gradient is fp32 (addmm into it with out_dtype).
    if (weight_bytes < kFp32Bytes) weight_update = vocab * h * (A + kFp32Bytes);
  }
  return {chunk * vocab * A + input_gradient + loss_per_token + weight_gradient + weight_update, input_gradient + weight_gradient};
}
}  // namespace

bool head_trains(const TrainingSetup& s, const Architecture& a) {
  if (s.method == Method::full) return true;
  if (!uses_adapters(s.method)) return false;
  const std::string& head = a.lm_head_params == 0 ? std::string("embed_tokens") : a.lm_head_module;
  const auto& saved = s.lora.modules_to_save;
  return std::find(saved.begin(), saved.end(), head) != saved.end();
}

HeldLogits held_logits(const TrainingSetup& s, const FrameworkBehaviour& f, LossImplementation loss) {
  if (loss == LossImplementation::fused) return HeldLogits::none;
  return s.loss.held_logits.value_or(f.held_logits);
}

LossMemory loss_memory(const TrainingSetup& s, const Architecture& a, Dtype compute, const FrameworkBehaviour& f) {
  LossMemory m;
  const double A = dtype_bytes(compute);
  const double tp = static_cast<double>(s.parallel.tensor_parallel_size);
  const double cp = static_cast<double>(s.parallel.context_parallel_size);
  const double seq = static_cast<double>(a.encoder_decoder ? s.batch.decoder_seq_length.value_or(s.batch.seq_length.value_or(4096))
                                                           : s.batch.seq_length.value_or(4096));
  const double tokens = static_cast<double>(s.batch.micro_batch_size) * seq / cp;
  const double h = static_cast<double>(a.hidden_size);
  const double seq_split = s.parallel.sequence_parallel && tp > 1 ? tp : 1.0;
  // Final norm input (+ statistics; a Python RMSNorm's fp32 input, and its normalized tensor when
  // the norm's weight trains) and the lm_head input (the norm output) when the head trains: frozen
  // weights keep no input (activations.hpp, ActivationContext::weights_train).
  const bool python_norm = a.norm == NormKind::rms_norm && f.unfused_rms_norm;
  const bool weights_train = !uses_adapters(s.method);
  const double norm_bytes = python_norm ? kFp32Bytes + (weights_train ? A : 0.0) : A;
  m.head_saved = tokens * h * (norm_bytes + (head_trains(s, a) ? A : 0.0)) / seq_split + tokens * kFp32Bytes;
  if (!a.vocab_logits) return m;

  // Logits over the padded vocabulary (Megatron make_vocab_size_divisible_by), split by TP, for the
  // positions the head computes (all, or the last logits_positions of each sequence).
  const double logit_tokens =
      s.loss.logits_positions ? tokens * std::min(1.0, static_cast<double>(*s.loss.logits_positions) / seq) : tokens;
  const double vocab = static_cast<double>(padded_vocab_size(s, a.vocab_size)) / tp;
  m.logits_elements = logit_tokens * vocab;
  const LossImplementation impl = s.loss.implementation.value_or(f.loss);
  const bool fp32 = s.loss.logits_fp32.value_or(f.logits_fp32);
  // A chunk holds at least one token's row: more chunks than tokens are that many.
  const double n = std::min(static_cast<double>(s.loss.num_chunks.value_or(kDefaultLossChunks)), std::max(1.0, logit_tokens));
  double fwd = 0, bwd = 0;
  switch (impl) {
    case LossImplementation::full:
      if (f.in_place_loss) {
        fwd = A + kFp32Bytes;
        bwd = kFp32Bytes + A;
      } else if (f.compiled_loss) {
        fwd = A;
        bwd = 2 * A;
      } else if (fp32) {
        fwd = A + kFp32Bytes + kFp32Bytes;
        bwd = 3 * kFp32Bytes;
      } else {
        fwd = 2 * A;
        bwd = 3 * A;
      }
      break;
    case LossImplementation::chunked:
      if (f.compiled_loss) {
        fwd = A;
        bwd = A + A / n;
      } else {
        fwd = A + kFp32Bytes + kFp32Bytes / n;
        bwd = kFp32Bytes + (2 * kFp32Bytes + A) / n;
      }
      break;
    case LossImplementation::fused:
      if (s.loss.num_chunks) {
        fwd = bwd = kFusedBytesPerLogit / n;
      } else {
        const LigerLoss liger = liger_fused_loss(s, a, logit_tokens, vocab, h, A);
        fwd = liger.forward / m.logits_elements;
        bwd = liger.backward / m.logits_elements;
      }
      break;
  }
  // Final-logit soft-capping in the model's forward keeps tanh's output (loss_memory.hpp).
  if (a.final_logit_softcapping && impl != LossImplementation::fused && !f.compiled_loss) {
    fwd += A;
    bwd += A;
  }
  m.bytes_per_logit_forward = fwd;
  m.bytes_per_logit_backward = bwd;
  m.forward_transient = fwd * m.logits_elements;
  m.backward_transient = bwd * m.logits_elements;
  switch (held_logits(s, f, impl)) {
    case HeldLogits::none: break;
    case HeldLogits::compute_dtype: m.held = A * m.logits_elements; break;
    case HeldLogits::fp32: m.held = kFp32Bytes * m.logits_elements; break;
  }
  return m;
}

}  // namespace trainmem
