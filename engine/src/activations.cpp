#include "trainmem/activations.hpp"

#include <algorithm>
#include <cstring>

#include "trainmem/lora_targeting.hpp"
#include "trainmem/precision.hpp"
#include "trainmem/ssm_activations.hpp"
#include "trainmem/vision_activations.hpp"

namespace trainmem {

namespace {

constexpr double kMaskBytes = 1.0;  // dropout masks are bool tensors, one byte per element

// Collects one layer's saved tensors with their per-GPU sizes.
class LayerTensors {
 public:
  explicit LayerTensors(const ActivationContext& c) : c_(c), seq_split_(c.sequence_parallel ? c.tp : 1.0) { out_.reserve(40); }

  // A [rows, cols] tensor. Tensors in the tensor-parallel region (between the column- and
  // row-parallel linears) are split by TP; the others only by sequence parallelism.
  void add(const char* scope, const char* name, double rows, double cols, Dtype dtype, TensorRole role, bool tensor_region) {
    const double split = tensor_region ? c_.tp : seq_split_;
    out_.push_back({scope, name, rows, cols, dtype, rows * cols * dtype_bytes(dtype) / split, role, false});
  }
  double tp() const { return c_.tp; }
  void mask(const char* scope, double tokens) {
    out_.push_back({scope, "dropout_mask", tokens, c_.hidden, Dtype::int8, tokens * c_.hidden * kMaskBytes / seq_split_,
                    TensorRole::dropout_mask, false});
  }
  // [b x heads x q_len, k_len] attention scores or probabilities, split by TP (heads).
  void scores(const char* scope, const char* name, double heads, double q_len, double k_len, Dtype dtype) {
    const double rows = c_.micro_batch * heads * q_len;
    out_.push_back({scope, name, rows, k_len, dtype, rows * k_len * dtype_bytes(dtype) / c_.tp, TensorRole::attention_core, false});
  }

  // A normalization over `width` of an `input`-dtype tensor (per_row_stats statistics per token).
  void norm(const char* scope, double tokens, double width, bool tensor_region, Dtype input, double per_row_stats = 1) {
    if (c_.norm == NormKind::rms_norm && c_.framework.unfused_rms_norm) {
      // LlamaRMSNorm in Python: x.to(float32) is kept for pow/mul (the same tensor when x is
      // fp32), and the normalized tensor, cast back to x's dtype, for the weight's gradient in the
      // weight multiply (a frozen weight keeps none).
      add(scope, "input_fp32", tokens, width, Dtype::fp32, TensorRole::norm_internal, tensor_region);
      if (c_.weights_train) add(scope, "normalized", tokens, width, input, TensorRole::norm_internal, tensor_region);
    } else {
      add(scope, "input", tokens, width, input, TensorRole::norm_internal, tensor_region);
    }
    // rstd (RMSNorm) or mean and rstd (LayerNorm), fp32.
    const double stats = (c_.norm == NormKind::layer_norm ? 2.0 : 1.0) * per_row_stats;
    add(scope, "statistics", tokens, stats, Dtype::fp32, TensorRole::norm_internal, tensor_region);
  }

  // The output of a norm over the hidden states, as the linears that read it keep it (`readers`:
  // HiddenReaders::Side): the one tensor in the compute dtype, or under autocast (an fp32 output)
  // each training linear's own cast, since autocast caches casts of weights only (pytorch v2.4
  // aten/src/ATen/autocast_mode.cpp, cached_cast: leaf tensors that require grad); under adapters
  // the adapters that read it keep the shared tensor, or each its own cast
  // (ActivationContext::adapter_input_copies). Nothing when no reader keeps it.
  // `fp8_reader`: the norm is fused into the linear that reads it (Transformer Engine's
  // LayerNormLinear), which keeps its FP8 output (ActivationContext::fp8_linear_inputs).
  void norm_output(const char* scope, double tokens, double readers, double adapted, bool fp8_reader = true) {
    if (c_.weights_train) {
      if (readers <= 0) return;
      if (c_.residual == c_.dtype) add(scope, "output", tokens, c_.hidden, fp8_reader ? linear_input_dtype() : c_.dtype, TensorRole::norm_output, false);
      else add(scope, "linear_input_casts", tokens, c_.hidden * readers, c_.dtype, TensorRole::norm_output, false);
      return;
    }
    // Under adapters: the shared tensor where an adapter in the compute dtype or a 4-bit base
    // linear keeps it, and each adapter's own cast where adapters run in another dtype.
    if (c_.frozen_linears_keep_input || (adapted > 0 && !c_.adapter_input_copies))
      add(scope, "output", tokens, c_.hidden, c_.dtype, TensorRole::norm_output, false);
    if (adapted > 0 && c_.adapter_input_copies)
      add(scope, "linear_input_casts", tokens, c_.hidden * adapted, c_.dtype, TensorRole::norm_output, false);
  }

  // The dtype a training linear keeps its input in: FP8 under Transformer Engine's FP8 training.
  Dtype linear_input_dtype() const { return c_.fp8_linear_inputs && c_.weights_train ? Dtype::fp8 : c_.dtype; }

  std::vector<SavedTensor> take() { return std::move(out_); }
  std::vector<SavedTensor>& tensors() { return out_; }

 private:
  const ActivationContext& c_;
  double seq_split_;
  std::vector<SavedTensor> out_;
};

void attention_block(LayerTensors& t, const LayerGroup& g, const ActivationContext& c, double q_tokens, double kv_tokens,
                     const char* scope) {
  const AttentionShape& at = g.attention;
  const double heads = static_cast<double>(at.num_attention_heads);
  const double kv_heads = static_cast<double>(at.num_key_value_heads);
  const double d = static_cast<double>(at.head_dim), dv = static_cast<double>(at.v_head_dim);
  const bool eager = c.attention == AttentionImplementation::eager;
  // Eager attention repeats k/v to every head before its matmuls (HF repeat_kv makes a copy), so
  // the saved k/v are full width; flash/SDPA kernels take the GQA-sized k/v.
  const double kv_saved_heads = eager ? heads : kv_heads;
  t.add(scope, "q", q_tokens, heads * d, c.dtype, TensorRole::matmul_output, true);
  t.add(scope, "k", kv_tokens, kv_saved_heads * d, c.dtype, TensorRole::matmul_output, true);
  t.add(scope, "v", kv_tokens, kv_saved_heads * dv, c.dtype, TensorRole::matmul_output, true);
  // v saved as a view of the fused projection keeps its q and k parts alive too.
  if (at.value_view_keeps_fused_qkv)
    t.add(scope, "fused_qkv_query_key", kv_tokens, (heads + kv_heads) * d, c.dtype, TensorRole::matmul_output, true);
  // Ulysses runs attention on the whole sequence with heads / cp per rank (DeepSpeed-Ulysses):
  // the score matrices are cp times those of the local sequence.
  const double u = c.ulysses_degree;
  const double q_len = q_tokens / c.micro_batch * u, k_len = kv_tokens / c.micro_batch * u;
  const double score_heads = heads / u;
  if (eager) {
    // softmax(scores, dtype=float32).to(dtype), or any softmax under autocast (its fp32 list):
    // softmax keeps its fp32 output, and the 16-bit probabilities are kept by the matmul with v,
    // or, with attention dropout, the dropout keeps its 1-byte mask and the matmul its output.
    // With fp32 activations the cast returns the same tensor: one copy.
    const bool fp32_softmax = (c.softmax_fp32 || c.residual != c.dtype) && c.dtype != Dtype::fp32;
    t.scores(scope, fp32_softmax ? "softmax_output_fp32" : "softmax_output", score_heads, q_len, k_len,
             fp32_softmax ? Dtype::fp32 : c.dtype);
    if (c.attention_dropout > 0) {
      t.scores(scope, "attention_dropout_mask", score_heads, q_len, k_len, Dtype::int8);
      t.scores(scope, "attention_dropout_output", score_heads, q_len, k_len, c.dtype);
    } else if (fp32_softmax) {
      t.scores(scope, "probabilities", score_heads, q_len, k_len, c.dtype);
    }
  } else {
    // FlashAttention keeps the fp32 log-sum-exp per query and head (softmax_lse).
    t.add(scope, "log_sum_exp", q_tokens, heads, Dtype::fp32, TensorRole::attention_core, true);
  }
  t.add(scope, "output", q_tokens, heads * dv, c.dtype, TensorRole::attention_output, true);
  // The output projection's own FP8 copy of it (ActivationContext::fp8_linear_inputs).
  if (t.linear_input_dtype() == Dtype::fp8)
    t.add(scope, "output_fp8", q_tokens, heads * dv, Dtype::fp8, TensorRole::attention_output, true);
}

// What a plain MLP's activation keeps of its [tokens, width] input x (see activations.hpp): a
// fused op x itself; transformers' Python GELUs each operand their products and tanh or sigmoid
// need for the backward.
void python_activation(LayerTensors& t, MlpActivation activation, const ActivationContext& c, double tokens, double width,
                       const char* scope) {
  const auto keep = [&](const char* name, Dtype dtype) { t.add(scope, name, tokens, width, dtype, TensorRole::elementwise, true); };
  switch (activation) {
    case MlpActivation::fused: break;
    case MlpActivation::new_gelu:
      if (c.residual != c.dtype) {
        // Under autocast torch.pow runs in fp32 and keeps its fp32 input; what follows is fp32 but
        // 0.5 * x, which keeps the activation dtype.
        keep("pow_input_fp32", Dtype::fp32);
        keep("tanh_output", Dtype::fp32);
        keep("half_input", c.dtype);
        keep("one_plus_tanh", Dtype::fp32);
        return;
      }
      keep("tanh_output", c.dtype);
      keep("half_input", c.dtype);
      keep("one_plus_tanh", c.dtype);
      break;
    case MlpActivation::fast_gelu:
      for (const char* name : {"scaled_input", "cubic_coefficient_input", "inner_sum", "tanh_output", "half_input", "one_plus_tanh"})
        keep(name, c.dtype);
      break;
    case MlpActivation::quick_gelu: keep("sigmoid_output", c.dtype); break;
  }
  t.add(scope, "fc1_output", tokens, width, c.dtype, TensorRole::matmul_output, true);
}

// down_input_kept: the down projection (fc2) keeps its input: its weight trains, or an adapter
// reads it.
void dense_mlp(LayerTensors& t, const MlpShape& m, const ActivationContext& c, double tokens, double width, const char* scope,
               bool down_input_kept) {
  if (m.gated) {
    t.add(scope, "gate_proj_output", tokens, width, c.dtype, TensorRole::matmul_output, true);
    t.add(scope, "up_proj_output", tokens, width, c.dtype, TensorRole::matmul_output, true);
    // act(gate) is kept by the multiply unless a fused kernel recomputes it.
    if (c.framework.unfused_gated_activation)
      t.add(scope, "activation_output", tokens, width, c.dtype, TensorRole::elementwise, true);
    if (down_input_kept) t.add(scope, "down_proj_input", tokens, width, t.linear_input_dtype(), TensorRole::elementwise, true);
  } else {
    python_activation(t, plain_mlp_activation(m, c.framework), c, tokens, width, scope);
    if (down_input_kept) t.add(scope, "activation_output", tokens, width, t.linear_input_dtype(), TensorRole::elementwise, true);
  }
}

bool is_adapter_reader(const ActivationContext& c, const Linear& l) {
  return std::find(c.adapter_readers.begin(), c.adapter_readers.end(), &l) != c.adapter_readers.end();
}

// Whether a linear reading `width` (an MLP's inner width) keeps its input: weights that train, or
// an adapter reading it on such a linear (routed experts or the dense ones, as `experts` says).
bool inner_input_kept(const LayerGroup& g, const ActivationContext& c, std::int64_t width, bool experts) {
  if (c.weights_train || c.frozen_linears_keep_input) return true;
  for (const auto& l : g.linears)
    if (l.in_features == width && l.routed_expert == experts && is_adapter_reader(c, l)) return true;
  return false;
}

void mlp_block(LayerTensors& t, const LayerGroup& g, const ActivationContext& c, double tokens, double expert_readers,
               double experts_adapted) {
  const MlpShape& m = g.mlp;
  if (m.num_local_experts == 0) {
    dense_mlp(t, m, c, tokens, static_cast<double>(m.intermediate_size), "mlp", inner_input_kept(g, c, m.intermediate_size, false));
    return;
  }
  // MoE: router probabilities (fp32 softmax over experts), the dispatched tokens (each token
  // copied to num_experts_per_tok experts), and each expert's MLP on its tokens only
  // (NVIDIA/Megatron-LM PR #6782: routed activations scale with top-k, not as one dense MLP).
  const double experts = static_cast<double>(m.num_local_experts), k = static_cast<double>(m.num_experts_per_tok);
  t.add("mlp", "router_probabilities", tokens, experts, Dtype::fp32, TensorRole::matmul_output, false);
  // Under autocast each expert projection reading the dispatched (fp32) tokens keeps its own cast;
  // frozen experts keep them only for an adapter reading them.
  const double dispatched_readers =
      c.weights_train ? expert_readers : std::max(c.frozen_linears_keep_input ? 1.0 : 0.0, std::min(1.0, experts_adapted));
  if (dispatched_readers > 0)
    t.add("mlp", "dispatched_tokens", tokens * k, c.hidden * dispatched_readers, t.linear_input_dtype(), TensorRole::matmul_output, false);
  dense_mlp(t, m, c, tokens * k, static_cast<double>(m.moe_intermediate_size), "mlp.experts",
            inner_input_kept(g, c, m.moe_intermediate_size, true));
  if (m.shared_intermediate_size > 0)
    dense_mlp(t, m, c, tokens, static_cast<double>(m.shared_intermediate_size), "mlp.shared_experts",
              inner_input_kept(g, c, m.shared_intermediate_size, false));
}

// torchtitan's op-level selective activation checkpointing (pytorch/torchtitan
// torchtitan/models/llama3/infra/parallelize.py @e7c0cae, _apply_ac_to_transformer_block with
// selective_ac_option "op"): each block runs under torch.utils.checkpoint with a policy that
// saves the outputs of the ops in _save_list (aten.mm, the SDPA kernels, reduce_scatter_tensor)
// except every second mm in the block's execution order, and recomputes every other op; the
// checkpoint keeps the block's input. create_selective_checkpoint_contexts caches each saved op's
// output whether or not autograd needs it (torch/utils/checkpoint.py, _CachingTorchDispatchMode),
// and the region saves nothing else. Cached here: the layer input, the output of the 1st, 3rd,
// ... linear in layout order (Llama: q, v, gate and down projections; routed experts counted as
// flops.cpp counts them, on their top-k token copies), and under sequence parallelism the
// reduce-scattered outputs of the row-parallel linears (the last linear of each module), tokens
// / TP x hidden each. A column-parallel output is split by TP; a row-parallel one is whole.
// Whether the layout's i-th linear of a layer is row-parallel under tensor parallelism: the last
// linear of its module (o_proj, down_proj, fc2), whose output is whole on every rank.
bool row_parallel(const LayerGroup& g, std::size_t i) {
  return g.linears[i].tp_sharded && (i + 1 == g.linears.size() || g.linears[i + 1].parent != g.linears[i].parent);
}

// A [rows, out_features] output of the layer's i-th linear in the compute dtype: split by TP for a
// column-parallel linear, whole on every rank for a row-parallel one (partial sums before the
// reduction), split by nothing more for a replicated one.
void linear_output(LayerTensors& t, const LayerGroup& g, std::size_t i, const ActivationContext& c, double rows, const char* name,
                   TensorRole role) {
  const Linear& l = g.linears[i];
  const double out = static_cast<double>(l.out_features);
  if (row_parallel(g, i)) t.add(l.name.c_str(), name, rows * t.tp(), out, c.dtype, role, true);
  else t.add(l.name.c_str(), name, rows, out, c.dtype, role, l.tp_sharded);
}

void op_level_cache(LayerTensors& t, const LayerGroup& g, const ActivationContext& c, double tokens) {
  t.add("block", "input", tokens, c.hidden, c.residual, TensorRole::block_input, false);
  int index = 0;
  for (std::size_t i = 0; i < g.linears.size(); ++i) {
    const Linear& l = g.linears[i];
    const double rows = l.routed_expert ? tokens * c.experts_per_token : tokens;
    if (++index % 2 == 1) linear_output(t, g, i, c, rows, "cached_output", TensorRole::cached_output);
    if (row_parallel(g, i) && c.sequence_parallel)
      t.add(l.name.c_str(), "reduce_scattered_output", rows, c.hidden, c.dtype, TensorRole::cached_output, true);
  }
}

void apply_policy(std::vector<SavedTensor>& tensors, const ActivationContext& c) {
  for (auto& t : tensors) {
    switch (c.checkpointing) {
      case Checkpointing::none: break;
      case Checkpointing::selective:
        if (c.selective_policy == SelectivePolicy::attention_core) {
          // Megatron selective recompute: QK^T, softmax, dropout, attention over V.
          t.recomputed = t.role == TensorRole::attention_core;
        } else {
          // Op-level SAC (op_level_cache below): the layer input, the attention kernel's outputs
          // and the cached matmul outputs stay; autograd's own saved tensors are recomputed.
          t.recomputed = t.role != TensorRole::block_input && t.role != TensorRole::attention_output &&
                         t.role != TensorRole::attention_core && t.role != TensorRole::cached_output;
        }
        break;
      case Checkpointing::full: t.recomputed = t.role != TensorRole::block_input; break;
    }
  }
}

bool is_qk_norm(const Norm& n) { return n.name == "q_norm" || n.name == "k_norm"; }

}  // namespace

// The linears of a layer that read the hidden states (in_features == hidden), by the norm whose
// output they read. The MLP side's are those whose output is an MLP width (gate/up, fc1, their
// fused forms, the router and the shared-expert gate); the attention side's the rest, less the
// attention's output projection when its input (heads x v_head_dim) is as wide as the hidden
// states. Cross-attention reads the norm with its query only. Each count is at least 1.
// Of each side's readers, `adapted` counts those with an adapter reading the input itself
// (ActivationContext::adapter_readers); the attention's output projection, which reads the
// attention's result, is the side's last linear (the layouts list q, k, v before it).
struct HiddenReaders {
  double attention = 1, cross_attention = 1, mlp = 1, experts = 1;
  double attention_adapted = 0, mlp_adapted = 0, experts_adapted = 0;
};

HiddenReaders hidden_readers(const LayerGroup& g, const ActivationContext& c) {
  const double hidden = c.hidden;
  const MlpShape& m = g.mlp;
  const std::int64_t widths[] = {m.intermediate_size, 2 * m.intermediate_size, m.shared_intermediate_size,
                                 2 * m.shared_intermediate_size, m.num_local_experts, 1};
  double attention = 0, mlp = 0, experts = 0;
  double attention_adapted = 0, mlp_adapted = 0, experts_adapted = 0;
  const Linear* last_attention = nullptr;
  for (const auto& l : g.linears) {
    if (static_cast<double>(l.in_features) != hidden) continue;
    const double adapted = is_adapter_reader(c, l) ? 1.0 : 0.0;
    if (l.routed_expert) {
      experts += 1, experts_adapted += adapted;
    } else if (std::find(std::begin(widths), std::end(widths), l.out_features) != std::end(widths)) {
      mlp += 1, mlp_adapted += adapted;
    } else {
      attention += 1, attention_adapted += adapted;
      last_attention = &l;
    }
  }
  const double attention_blocks = g.attention.cross_attention ? 2.0 : 1.0;
  if (static_cast<double>(g.attention.num_attention_heads * g.attention.v_head_dim) == hidden) {
    attention -= attention_blocks;
    if (last_attention && is_adapter_reader(c, *last_attention)) attention_adapted -= 1;
  }
  if (g.attention.cross_attention) attention -= 3;  // the cross-attention's q, k and v
  HiddenReaders r;
  r.attention = g.mixer == Mixer::cross_attention ? 1.0 : std::max(1.0, attention);
  r.mlp = std::max(1.0, mlp);
  r.experts = std::max(1.0, experts);
  r.attention_adapted = std::max(0.0, attention_adapted);
  r.mlp_adapted = mlp_adapted;
  r.experts_adapted = experts_adapted;
  return r;
}

std::vector<SavedTensor> layer_activations(const LayerGroup& g, const ActivationContext& c) {
  LayerTensors t(c);
  const HiddenReaders readers = hidden_readers(g, c);
  const bool autocast = c.residual != c.dtype;
  const bool decoder_tokens = g.attention.cross_attention || g.stack == Stack::decoder;
  const double tokens = c.micro_batch * (decoder_tokens ? c.seq : c.encoder_seq);
  // The layer input: what full recompute keeps (Korthikanti §4.2: 2sbh per layer).
  if (c.checkpointing == Checkpointing::full) t.add("block", "input", tokens, c.hidden, c.residual, TensorRole::block_input, false);
  if (c.checkpointing == Checkpointing::selective && c.selective_policy == SelectivePolicy::op_level) op_level_cache(t, g, c, tokens);

  std::size_t hidden_norms = 0;
  for (const auto& n : g.norms)
    if (static_cast<double>(n.size) == c.hidden && !is_qk_norm(n)) ++hidden_norms;
  // Layers with four norms (Gemma 2/3) also normalize the attention and MLP outputs.
  const bool post_norms = hidden_norms >= 4;

  t.norm("attention_norm", tokens, c.hidden, false, c.residual);
  t.norm_output("attention_norm", tokens, readers.attention, readers.attention_adapted);
  for (const auto& n : g.norms) {
    if (!is_qk_norm(n)) continue;
    const bool q = n.name == "q_norm";
    const double heads = static_cast<double>(q ? g.attention.num_attention_heads : g.attention.num_key_value_heads);
    const double width = heads * static_cast<double>(g.attention.head_dim);
    // Per-head q/k norms (Qwen3, Gemma 3) keep one statistic per head and token.
    const double rows = static_cast<double>(n.size) == width ? 1.0 : heads;
    t.norm(q ? "self_attn.q_norm" : "self_attn.k_norm", tokens, width, true, c.dtype, rows);
  }
  switch (g.mixer) {
    case Mixer::attention: attention_block(t, g, c, tokens, tokens, "self_attn"); break;
    // Llama 3.2 Vision's cross-attention layers attend to the vision states only.
    case Mixer::cross_attention: attention_block(t, g, c, tokens, c.micro_batch * c.encoder_seq, "cross_attn"); break;
    case Mixer::mamba:
    case Mixer::mamba2: append_ssm_mixer(t.tensors(), g, c, tokens); break;
  }
  if (c.hidden_dropout > 0) t.mask("attention_residual", tokens);
  if (post_norms) t.norm("post_attention_norm", tokens, c.hidden, false, c.dtype);
  if (g.attention.cross_attention) {
    t.norm("cross_attention_norm", tokens, c.hidden, false, c.residual);
    // Read by the cross-attention's query alone: adapted where the attention's projections are.
    t.norm_output("cross_attention_norm", tokens, readers.cross_attention, std::min(1.0, readers.attention_adapted));
    attention_block(t, g, c, tokens, c.micro_batch * c.encoder_seq, "cross_attn");
    if (c.hidden_dropout > 0) t.mask("cross_attention_residual", tokens);
  }
  // Mamba blocks have no MLP (intermediate_size 0, no experts).
  if (g.mlp.intermediate_size > 0 || g.mlp.num_local_experts > 0) {
    t.norm("mlp_norm", tokens, c.hidden, false, c.residual);
    // An MoE layer's norm output is read by the router, a plain 16-bit linear, besides the experts.
    t.norm_output("mlp_norm", tokens, readers.mlp, readers.mlp_adapted, g.mlp.num_local_experts == 0);
    mlp_block(t, g, c, tokens, autocast ? readers.experts : 1.0, readers.experts_adapted);
    if (c.hidden_dropout > 0) t.mask("mlp_residual", tokens);
    if (post_norms) t.norm("post_mlp_norm", tokens, c.hidden, false, c.dtype);
  }
  if (!c.lora_dropout_linears.empty()) {
    for (const auto& l : g.linears) {
      if (std::find(c.lora_dropout_linears.begin(), c.lora_dropout_linears.end(), &l) == c.lora_dropout_linears.end()) continue;
      // A routed expert runs on its share of the tokens: tokens x top-k rows over all experts.
      // Inputs wider than the hidden size come from the tensor-parallel region (row-parallel
      // linears: o_proj over heads x head_dim, down_proj over the MLP width).
      const double rows = l.routed_expert ? tokens * c.experts_per_token : tokens;
      const double in = static_cast<double>(l.in_features);
      const bool tensor_region = l.tp_sharded && in != c.hidden;
      t.add(l.name.c_str(), "lora_dropout_output", rows, in, c.dtype, TensorRole::elementwise, tensor_region);
      t.add(l.name.c_str(), "lora_dropout_mask", rows, in, Dtype::int8, TensorRole::dropout_mask, tensor_region);
    }
  }
  if (c.dora) {
    for (std::size_t i = 0; i < g.linears.size(); ++i) {
      const Linear* l = &g.linears[i];
      const auto targeted = [l](const std::vector<const Linear*>& list) { return std::find(list.begin(), list.end(), l) != list.end(); };
      if (!targeted(c.adapter_readers) && !targeted(c.lora_dropout_linears)) continue;
      const double rows = l->routed_expert ? tokens * c.experts_per_token : tokens;
      linear_output(t, g, i, c, rows, "dora_base_result", TensorRole::elementwise);
      linear_output(t, g, i, c, rows, "dora_lora_result", TensorRole::elementwise);
    }
  }
  if (c.int8_input_copies) {
    // Every 8-bit linear of the layer (bitsandbytes replaces each nn.Linear but the output head),
    // on the rows it reads, as the dropout copies above.
    for (const auto& l : g.linears) {
      if (!l.nn_linear) continue;
      const double rows = l.routed_expert ? tokens * c.experts_per_token : tokens;
      const double in = static_cast<double>(l.in_features);
      t.add(l.name.c_str(), "int8_input_copy", rows, in, Dtype::int8, TensorRole::elementwise, l.tp_sharded && in != c.hidden);
    }
  }

  std::vector<SavedTensor> tensors = t.take();
  apply_policy(tensors, c);
  return tensors;
}

double saved_bytes(const std::vector<SavedTensor>& tensors) {
  double total = 0;
  for (const auto& t : tensors)
    if (!t.recomputed) total += t.bytes;
  return total;
}

double all_bytes(const std::vector<SavedTensor>& tensors) {
  double total = 0;
  for (const auto& t : tensors) total += t.bytes;
  return total;
}

ActivationContext activation_context(const TrainingSetup& s, const Architecture& a, Dtype compute) {
  ActivationContext c;
  c.micro_batch = static_cast<double>(s.batch.micro_batch_size);
  const double cp = static_cast<double>(s.parallel.context_parallel_size);
  const double seq = static_cast<double>(s.batch.seq_length.value_or(4096));
  if (a.encoder_decoder) {
    c.encoder_seq = seq / cp;
    c.seq = static_cast<double>(s.batch.decoder_seq_length.value_or(s.batch.seq_length.value_or(4096))) / cp;
  } else {
    c.seq = seq / cp;
    c.encoder_seq = c.seq;
  }
  c.tp = static_cast<double>(s.parallel.tensor_parallel_size);
  if (s.parallel.context_parallel_kind == ContextParallelKind::ulysses) c.ulysses_degree = cp;
  c.sequence_parallel = s.parallel.sequence_parallel && s.parallel.tensor_parallel_size > 1;
  c.dtype = compute;
  c.residual = resolve_precision(s).autocast_over_fp32_weights ? Dtype::fp32 : compute;
  c.attention = s.attention;
  c.framework = framework_behaviour(s);
  c.checkpointing = s.activation_checkpointing;
  c.selective_policy = s.selective_policy;
  c.attention_dropout = a.attention_dropout;
  c.hidden_dropout = a.hidden_dropout;
  c.norm = a.norm;
  c.softmax_fp32 = a.eager_softmax_fp32 && !c.framework.fused_softmax;
  c.hidden = static_cast<double>(a.hidden_size);
  const bool adapters = uses_adapters(s.method);
  c.weights_train = !adapters;
  if (adapters) {
    // Targeted as PEFT targets them (lora_targeting.hpp), judged on each group's first layer.
    const LoraTargeting targeting(a, s.lora);
    auto& readers = s.lora.lora_dropout > 0 ? c.lora_dropout_linears : c.adapter_readers;
    for (std::size_t g = 0; g < a.layers.size(); ++g)
      for (const auto& l : a.layers[g].linears)
        if (targeting.adapter_params(g, l, 0) > 0) readers.push_back(&l);
    const Dtype adapter = adapter_dtype(s);
    c.adapter_input_copies = adapter != compute;
    c.dora = s.lora.use_dora;
    const bool bitsandbytes = qlora_through_bitsandbytes(s), int8 = s.qlora.quant_type == Dtype::int8;
    const bool older_kernels = s.qlora.saves_base_inputs.value_or(false);
    // HQQ keeps the input of every linear it converts; GPT-2's Conv1D projections it leaves alone.
    const bool hqq_converts_blocks = qlora_through_hqq(s) && std::any_of(a.layers.begin(), a.layers.end(), [](const LayerGroup& g) {
      return std::any_of(g.linears.begin(), g.linears.end(), [](const Linear& l) { return quantizer_converts(l, true); });
    });
    c.frozen_linears_keep_input = (bitsandbytes && (int8 || older_kernels)) || hqq_converts_blocks;
    c.int8_input_copies = bitsandbytes && int8 && older_kernels;
  }
  for (const auto& g : a.layers)
    if (g.mlp.num_experts_per_tok > 0) c.experts_per_token = static_cast<double>(g.mlp.num_experts_per_tok);
  c.fp8_linear_inputs = s.precision.fp8_compute && s.framework == Framework::megatron && (!s.gpu || has_fp8_tensor_cores(*s.gpu));
  // Cross-attention to vision states (Llama 3.2 Vision): the states of every image of a sample.
  if (const double states = cross_attention_states(s, a); states > 0) c.encoder_seq = states;
  return c;
}

double checkpointed_share(const TrainingSetup& s, const Architecture& a) {
  const double total_layers = static_cast<double>(std::max<std::int64_t>(1, a.num_hidden_layers()));
  return s.activation_checkpointing == Checkpointing::none || !s.checkpointed_layers
             ? 1.0
             : std::min(1.0, static_cast<double>(*s.checkpointed_layers) / total_layers);
}

const char* role_name(TensorRole r) {
  switch (r) {
    case TensorRole::block_input: return "block_input";
    case TensorRole::norm_internal: return "norm_internal";
    case TensorRole::norm_output: return "norm_output";
    case TensorRole::matmul_output: return "matmul_output";
    case TensorRole::attention_core: return "attention_core";
    case TensorRole::attention_output: return "attention_output";
    case TensorRole::elementwise: return "elementwise";
    case TensorRole::dropout_mask: return "dropout_mask";
    case TensorRole::cached_output: return "cached_output";
  }
  return "?";
}

}  // namespace trainmem
