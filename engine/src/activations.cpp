#include "trainmem/activations.hpp"

#include <algorithm>

namespace trainmem {

namespace {

constexpr double kFp32Bytes = 4.0;
constexpr double kMaskBytes = 1.0;  // dropout masks are bool tensors, one byte per element

std::string dim(double v) { return std::to_string(static_cast<long long>(v)); }

// Collects one layer's saved tensors with their per-GPU sizes.
class LayerTensors {
 public:
  explicit LayerTensors(const ActivationContext& c) : c_(c), seq_split_(c.sequence_parallel ? c.tp : 1.0) {}

  // A [tokens, width] tensor. Tensors in the tensor-parallel region (between the column- and
  // row-parallel linears) are split by TP; the others only by sequence parallelism.
  void add(const std::string& name, double tokens, double width, const std::string& width_text, Dtype dtype,
           TensorRole role, bool tensor_region) {
    const double split = tensor_region ? c_.tp : seq_split_;
    out_.push_back({name, shape(tokens, width_text), dtype, tokens * width * dtype_bytes(dtype) / split, role, false});
  }
  void mask(const std::string& name, double tokens) {
    out_.push_back({name, shape(tokens, "h"), Dtype::int8, tokens * c_.hidden * kMaskBytes / seq_split_,
                    TensorRole::dropout_mask, false});
  }
  // [b, heads, q_len, k_len] attention scores or probabilities, split by TP (heads).
  void scores(const std::string& name, double heads, double q_len, double k_len, double bytes, Dtype dtype) {
    out_.push_back({name, "[b, " + dim(heads) + ", " + dim(q_len) + ", " + dim(k_len) + "]", dtype,
                    c_.micro_batch * heads * q_len * k_len * bytes / c_.tp, TensorRole::attention_core, false});
  }
  // Per-token (and per-head) fp32 values: norm statistics, log-sum-exp.
  void per_token(const std::string& name, double tokens, double per, const std::string& shape_text, TensorRole role,
                 bool tensor_region) {
    out_.push_back({name, shape_text, Dtype::fp32, tokens * per * kFp32Bytes / (tensor_region ? c_.tp : seq_split_), role, false});
  }

  // A normalization over `width`; `input_role` is block_input for the layer's first norm.
  void norm(const std::string& name, double tokens, double width, const std::string& width_text, bool tensor_region,
            double per_token_rows = 1) {
    if (c_.norm == NormKind::rms_norm && c_.framework.unfused_rms_norm) {
      // LlamaRMSNorm in Python: x.to(float32) is kept for pow/mul, and the normalized tensor
      // (cast back) for the weight multiply.
      add(name + ".input_fp32", tokens, width, width_text, Dtype::fp32, TensorRole::norm_internal, tensor_region);
      add(name + ".normalized", tokens, width, width_text, c_.dtype, TensorRole::norm_internal, tensor_region);
    } else {
      add(name + ".input", tokens, width, width_text, c_.dtype, TensorRole::norm_internal, tensor_region);
    }
    // rstd (RMSNorm) or mean and rstd (LayerNorm), fp32, per row.
    const double stats = c_.norm == NormKind::layer_norm ? 2.0 : 1.0;
    per_token(name + ".statistics", tokens, stats * per_token_rows, "[b, s]", TensorRole::norm_internal, tensor_region);
  }

  std::vector<SavedTensor> take() { return std::move(out_); }
  double tokens() const { return c_.micro_batch * c_.seq; }

 private:
  std::string shape(double tokens, const std::string& width_text) const {
    if (tokens == c_.micro_batch * c_.seq) return "[b, s, " + width_text + "]";
    if (tokens == c_.micro_batch * c_.encoder_seq) return "[b, s_enc, " + width_text + "]";
    return "[" + dim(tokens) + " tokens, " + width_text + "]";
  }
  const ActivationContext& c_;
  double seq_split_;
  std::vector<SavedTensor> out_;
};

void attention_block(LayerTensors& t, const LayerGroup& g, const ActivationContext& c, double q_tokens, double kv_tokens,
                     const std::string& prefix) {
  const AttentionShape& at = g.attention;
  const double heads = static_cast<double>(at.num_attention_heads);
  const double kv_heads = static_cast<double>(at.num_key_value_heads);
  const double d = static_cast<double>(at.head_dim), dv = static_cast<double>(at.v_head_dim);
  const bool eager = c.attention == AttentionImplementation::eager;
  // Eager attention repeats k/v to every head before its matmuls (HF repeat_kv makes a copy), so
  // the saved k/v are full width; flash/SDPA kernels take the GQA-sized k/v.
  const double kv_saved_heads = eager ? heads : kv_heads;
  t.add(prefix + "q", q_tokens, heads * d, dim(heads) + "*" + dim(d), c.dtype, TensorRole::matmul_output, true);
  t.add(prefix + "k", kv_tokens, kv_saved_heads * d, dim(kv_saved_heads) + "*" + dim(d), c.dtype, TensorRole::matmul_output, true);
  t.add(prefix + "v", kv_tokens, kv_saved_heads * dv, dim(kv_saved_heads) + "*" + dim(dv), c.dtype, TensorRole::matmul_output, true);
  const double q_len = q_tokens / c.micro_batch, k_len = kv_tokens / c.micro_batch;
  const double a_bytes = dtype_bytes(c.dtype);
  if (eager) {
    if (c.softmax_fp32) {
      // softmax(scores, dtype=float32).to(dtype): both the fp32 output and the cast are kept.
      t.scores(prefix + "softmax_output_fp32", heads, q_len, k_len, kFp32Bytes, Dtype::fp32);
      t.scores(prefix + "probabilities", heads, q_len, k_len, a_bytes, c.dtype);
    } else {
      t.scores(prefix + "softmax_output", heads, q_len, k_len, a_bytes, c.dtype);
    }
    if (c.attention_dropout > 0) {
      t.scores(prefix + "attention_dropout_mask", heads, q_len, k_len, kMaskBytes, Dtype::int8);
      t.scores(prefix + "attention_dropout_output", heads, q_len, k_len, a_bytes, c.dtype);
    }
  } else {
    // FlashAttention keeps the fp32 log-sum-exp per query and head (softmax_lse).
    t.per_token(prefix + "log_sum_exp", q_tokens, heads, "[b, " + dim(heads) + ", s]", TensorRole::attention_core, true);
  }
  t.add(prefix + "output", q_tokens, heads * dv, dim(heads) + "*" + dim(dv), c.dtype, TensorRole::attention_output, true);
}

void mlp_block(LayerTensors& t, const LayerGroup& g, const ActivationContext& c, double tokens) {
  const MlpShape& m = g.mlp;
  auto dense = [&](const std::string& prefix, double tok, double width) {
    const std::string w = dim(width);
    if (m.gated) {
      t.add(prefix + "gate_proj_output", tok, width, w, c.dtype, TensorRole::matmul_output, true);
      t.add(prefix + "up_proj_output", tok, width, w, c.dtype, TensorRole::matmul_output, true);
      // act(gate) is kept by the multiply unless a fused kernel recomputes it.
      if (c.framework.unfused_gated_activation)
        t.add(prefix + "activation_output", tok, width, w, c.dtype, TensorRole::elementwise, true);
      t.add(prefix + "down_proj_input", tok, width, w, c.dtype, TensorRole::elementwise, true);
    } else {
      t.add(prefix + "fc1_output", tok, width, w, c.dtype, TensorRole::matmul_output, true);
      t.add(prefix + "activation_output", tok, width, w, c.dtype, TensorRole::elementwise, true);
    }
  };
  if (m.num_local_experts == 0) {
    dense("mlp.", tokens, static_cast<double>(m.intermediate_size));
    return;
  }
  // MoE: router probabilities (fp32 softmax over experts), the dispatched tokens (each token
  // copied to num_experts_per_tok experts), and each expert's MLP on its tokens only
  // (NVIDIA/Megatron-LM PR #6782: routed activations scale with top-k, not as one dense MLP).
  const double experts = static_cast<double>(m.num_local_experts), k = static_cast<double>(m.num_experts_per_tok);
  t.per_token("mlp.router_probabilities", tokens, experts, "[b, s, " + dim(experts) + "]", TensorRole::matmul_output, false);
  t.add("mlp.dispatched_tokens", tokens * k, c.hidden, "h", c.dtype, TensorRole::matmul_output, false);
  dense("mlp.experts.", tokens * k, static_cast<double>(m.moe_intermediate_size));
  if (m.shared_intermediate_size > 0) dense("mlp.shared_experts.", tokens, static_cast<double>(m.shared_intermediate_size));
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
          // torchtitan op-level SAC keeps matmul and attention outputs, recomputes the cheap rest.
          t.recomputed = t.role == TensorRole::norm_internal || t.role == TensorRole::norm_output ||
                         t.role == TensorRole::elementwise || t.role == TensorRole::dropout_mask;
        }
        break;
      case Checkpointing::full: t.recomputed = t.role != TensorRole::block_input; break;
    }
  }
}

}  // namespace

std::vector<SavedTensor> layer_activations(const LayerGroup& g, const ActivationContext& c) {
  LayerTensors t(c);
  const bool decoder_of_pair = g.attention.cross_attention;
  const double tokens = decoder_of_pair || g.stack == Stack::decoder ? c.micro_batch * c.seq : c.micro_batch * c.encoder_seq;
  const std::string h = "h";
  // The layer input: what full recompute keeps (Korthikanti §4.2: 2sbh per layer).
  t.add("block_input", tokens, c.hidden, h, c.dtype, TensorRole::block_input, false);

  std::vector<const Norm*> hidden_norms;
  for (const auto& n : g.norms)
    if (static_cast<double>(n.size) == c.hidden && n.name != "q_norm" && n.name != "k_norm") hidden_norms.push_back(&n);
  // Pre-norm layers read each norm's output with the following linears; layers with 4 norms
  // (Gemma 2/3) also normalize the attention and MLP outputs.
  const bool post_norms = hidden_norms.size() >= 4;

  t.norm("attention_norm", tokens, c.hidden, h, false);
  t.add("attention_norm.output", tokens, c.hidden, h, c.dtype, TensorRole::norm_output, false);
  for (const auto& n : g.norms) {
    if (n.name != "q_norm" && n.name != "k_norm") continue;
    const bool q = n.name == "q_norm";
    const double heads = static_cast<double>(q ? g.attention.num_attention_heads : g.attention.num_key_value_heads);
    const double width = heads * static_cast<double>(g.attention.head_dim);
    // Per-head q/k norms (Qwen3, Gemma 3) normalize each head: one statistic per head and token.
    const double rows = static_cast<double>(n.size) == width ? 1.0 : heads;
    t.norm(std::string("self_attn.") + n.name, tokens, width, dim(width), true, rows);
  }
  attention_block(t, g, c, tokens, tokens, "self_attn.");
  if (c.hidden_dropout > 0) t.mask("attention_residual_dropout_mask", tokens);
  if (post_norms) t.norm("post_attention_norm", tokens, c.hidden, h, false);
  if (g.attention.cross_attention) {
    const double enc_tokens = c.micro_batch * c.encoder_seq;
    t.norm("cross_attention_norm", tokens, c.hidden, h, false);
    t.add("cross_attention_norm.output", tokens, c.hidden, h, c.dtype, TensorRole::norm_output, false);
    attention_block(t, g, c, tokens, enc_tokens, "cross_attn.");
    if (c.hidden_dropout > 0) t.mask("cross_attention_residual_dropout_mask", tokens);
  }
  t.norm("mlp_norm", tokens, c.hidden, h, false);
  t.add("mlp_norm.output", tokens, c.hidden, h, c.dtype, TensorRole::norm_output, false);
  mlp_block(t, g, c, tokens);
  if (c.hidden_dropout > 0) t.mask("mlp_residual_dropout_mask", tokens);
  if (post_norms) t.norm("post_mlp_norm", tokens, c.hidden, h, false);

  std::vector<SavedTensor> tensors = t.take();
  // Without full recompute the first norm keeps the layer input itself (or, in Python, its fp32
  // copy): the separate entry exists only for full recompute.
  if (c.checkpointing != Checkpointing::full) tensors.erase(tensors.begin());
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
  c.sequence_parallel = s.parallel.sequence_parallel && s.parallel.tensor_parallel_size > 1;
  c.dtype = compute;
  c.attention = s.attention;
  c.framework = framework_behaviour(s.framework, s.compile);
  c.checkpointing = s.activation_checkpointing;
  c.selective_policy = s.selective_policy;
  c.attention_dropout = a.attention_dropout;
  c.hidden_dropout = a.hidden_dropout;
  c.norm = a.norm;
  c.softmax_fp32 = a.eager_softmax_fp32 && c.framework.fused_softmax == false;
  c.hidden = static_cast<double>(a.hidden_size);
  return c;
}

std::string role_name(TensorRole r) {
  switch (r) {
    case TensorRole::block_input: return "block_input";
    case TensorRole::norm_internal: return "norm_internal";
    case TensorRole::norm_output: return "norm_output";
    case TensorRole::matmul_output: return "matmul_output";
    case TensorRole::attention_core: return "attention_core";
    case TensorRole::attention_output: return "attention_output";
    case TensorRole::elementwise: return "elementwise";
    case TensorRole::dropout_mask: return "dropout_mask";
  }
  return "?";
}

}  // namespace trainmem
