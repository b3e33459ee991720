#include "trainmem/flops.hpp"

#include <algorithm>
#include <optional>

#include "trainmem/lora_targeting.hpp"
#include "trainmem/parameter_layout.hpp"
#include "trainmem/vision_flops.hpp"

namespace trainmem {

namespace {

// FlashAttention's backward runs 2.5x its forward FLOPs (benchmark_flash_attention.py, flops():
// "2.5 * f" for bwd); eager attention's backward is two matmuls per forward matmul.
constexpr double kFlashBackwardRatio = 2.5;
constexpr double kEagerBackwardRatio = 2.0;

}  // namespace

LayerForwardFlops layer_forward_flops(const LayerGroup& g, const FlopsContext& c) {
  LayerForwardFlops f;
  // LoRA adapters as PEFT places them (lora_targeting.hpp), taken from the group's first layer.
  std::optional<LoraTargeting> lora;
  std::size_t group = 0;
  if (c.setup && uses_adapters(c.setup->method) && c.setup->model.architecture) {
    const auto& groups = c.setup->model.architecture->layers;
    while (group < groups.size() && &groups[group] != &g) ++group;
    if (group < groups.size()) lora.emplace(*c.setup->model.architecture, c.setup->lora);
  }
  int matmul_index = 0;  // execution order within the layer, for op-level SAC
  for (const auto& l : g.linears) {
    const double uses = l.routed_expert ? static_cast<double>(g.mlp.num_experts_per_tok) : 1.0;
    const double base = 2.0 * static_cast<double>(l.weight_params()) * uses;
    f.matmul += base;
    if (c.base_trained) f.trained_matmul += base;
    if (++matmul_index % 2 == 0) f.op_level_recompute += base;
    if (lora) f.adapter_matmul += 2.0 * lora->adapter_params(group, l, 0) / static_cast<double>(l.copies) * uses;
  }
  const AttentionFlops at = attention_forward_flops(g.attention, c);
  f.attention = at.counted;
  f.attention_executed = at.executed;
  return f;
}

AttentionFlops attention_forward_flops(const AttentionShape& at, const FlopsContext& c) {
  AttentionFlops f;
  const double window = at.sliding_window > 0 ? std::min(c.seq, static_cast<double>(at.sliding_window)) : c.seq;
  const double per_key = 2.0 * static_cast<double>(at.num_attention_heads * (at.head_dim + at.v_head_dim));
  const double self = per_key * window;
  f.counted = self;
  // A causal kernel computes only the blocks on or below the diagonal: half of the full square (a
  // window much shorter than the sequence is mostly below the diagonal already; one as long as the
  // sequence or longer masks nothing more than causality does).
  const bool window_binds = at.sliding_window > 0 && static_cast<double>(at.sliding_window) < c.seq;
  const bool halves = c.causal && c.kernel_skips_masked && !window_binds;
  f.executed = halves ? self / 2 : self;
  if (at.cross_attention) {
    f.counted += per_key * c.encoder_seq;
    f.executed += per_key * c.encoder_seq;
  }
  return f;
}

TrainingFlops training_flops(const TrainingSetup& s) {
  TrainingFlops t;
  const double micro_batch = static_cast<double>(s.batch.micro_batch_size);
  const double sequences = micro_batch * static_cast<double>(s.parallel.data_parallel_size) *
                           static_cast<double>(s.batch.gradient_accumulation_steps);
  const double seq = static_cast<double>(s.batch.seq_length.value_or(4096));
  t.tokens_per_step = sequences * seq;
  if (!s.model.architecture) {
    // 6 N per token (Kaplan et al. 2020, Table 1), all of it model FLOPs.
    const double n = static_cast<double>(s.model.num_parameters);
    t.forward = 2 * n * t.tokens_per_step;
    t.backward = 4 * n * t.tokens_per_step;
    t.model_per_step = t.forward + t.backward;
    t.model_forward = t.forward;
    return t;
  }
  const Architecture& a = *s.model.architecture;
  const double decoder_seq = a.encoder_decoder ? static_cast<double>(s.batch.decoder_seq_length.value_or(
                                                     s.batch.seq_length.value_or(4096)))
                                               : seq;
  const double attention_backward =
      s.attention == AttentionImplementation::eager ? kEagerBackwardRatio : kFlashBackwardRatio;
  const std::int64_t layers = a.num_hidden_layers();
  const std::int64_t first_trained = s.method == Method::freeze ? std::max<std::int64_t>(0, layers - s.freeze_trainable_layers) : 0;
  const std::int64_t checkpointed = s.checkpointed_layers.value_or(layers);

  std::int64_t index = 0;  // first layer of the current group
  for (const auto& g : a.layers) {
    const bool encoder = g.stack == Stack::encoder;
    FlopsContext c;
    c.seq = encoder ? seq : decoder_seq;
    c.encoder_seq = seq;
    c.causal = !encoder;
    c.kernel_skips_masked = s.attention != AttentionImplementation::eager;
    c.setup = &s;
    const double tokens = sequences * c.seq;
    for (int trained = 0; trained < 2; ++trained) {
      // Layers of this group below first_trained are frozen (freeze method) and see no backward.
      const std::int64_t frozen_here = std::clamp<std::int64_t>(first_trained - index, 0, g.count);
      const double n = static_cast<double>(trained ? g.count - frozen_here : frozen_here);
      if (n == 0) continue;
      c.base_trained = s.method == Method::full || (s.method == Method::freeze && trained);
      const LayerForwardFlops f = layer_forward_flops(g, c);
      const bool backward = trained || s.method != Method::freeze;
      t.forward += n * tokens * (f.matmul + f.adapter_matmul + f.attention_executed);
      t.model_per_step += n * tokens * (f.matmul + f.adapter_matmul + f.attention);
      t.model_forward += n * tokens * (f.matmul + f.adapter_matmul + f.attention);
      if (!backward) continue;
      // Input gradients of every linear, weight gradients of the trained ones and the adapters.
      const double matmul_backward = f.matmul + f.trained_matmul + 2 * f.adapter_matmul;
      t.backward += n * tokens * (matmul_backward + attention_backward * f.attention_executed);
      t.model_per_step += n * tokens * (matmul_backward + 2 * f.attention);
      // Checkpointed layers (the first checkpointed_layers of the trained run).
      const double recomputed = std::min(n, static_cast<double>(std::max<std::int64_t>(0, checkpointed - (index + frozen_here))));
      switch (s.activation_checkpointing) {
        case Checkpointing::none: break;
        case Checkpointing::full:
          t.recompute += recomputed * tokens * (f.matmul + f.adapter_matmul + f.attention_executed);
          break;
        case Checkpointing::selective:
          t.recompute += recomputed * tokens *
                         (s.selective_policy == SelectivePolicy::op_level ? f.op_level_recompute : f.attention_executed);
          break;
      }
    }
    index += g.count;
  }
  add_vision_flops(s, t);
  if (a.vocab_logits) {
    // The head: forward, input gradient, and its weight gradient when it trains.
    const double head = 2.0 * static_cast<double>(a.hidden_size * a.vocab_size) * sequences * decoder_seq;
    const bool head_trained = s.method == Method::full ||
                              std::find(s.lora.modules_to_save.begin(), s.lora.modules_to_save.end(), "lm_head") !=
                                  s.lora.modules_to_save.end();
    t.forward += head;
    t.model_forward += head;
    t.backward += head * (head_trained ? 2 : 1);
    t.model_per_step += head * (head_trained ? 3 : 2);
  }
  return t;
}

}  // namespace trainmem
