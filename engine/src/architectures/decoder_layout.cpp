#include "decoder_layout.hpp"

#include <tuple>

namespace trainmem::architectures {

Linear linear(std::string name, std::int64_t in, std::int64_t out, bool bias) {
  Linear l;
  l.name = std::move(name);
  l.in_features = in;
  l.out_features = out;
  l.bias = bias;
  return l;
}

namespace {

std::string child(const std::string& parent, const std::string& name) {
  return parent.empty() ? name : name.empty() ? parent : parent + "." + name;
}

void set_parent(std::vector<Linear>& linears, std::size_t from, const std::string& parent) {
  for (std::size_t i = from; i < linears.size(); ++i) linears[i].parent = parent;
}

std::vector<Linear> attention_projections(const DecoderLayout& r) {
  std::vector<Linear> out;
  const std::int64_t h = r.hidden, q_out = r.heads * r.head_dim, kv_out = r.kv_heads * r.head_dim;
  if (r.mla) {
    const std::int64_t q_head = r.qk_nope_head_dim + r.qk_rope_head_dim;
    if (r.q_lora_rank > 0) {
      Linear qa = linear("q_a_proj", h, r.q_lora_rank, r.qkv_bias);
      qa.tp_sharded = false;  // low-rank down-projections are replicated (Megatron MLA)
      out.push_back(qa);
      out.push_back(linear("q_b_proj", r.q_lora_rank, r.heads * q_head));
    } else {
      out.push_back(linear("q_proj", h, r.heads * q_head));
    }
    Linear kva = linear("kv_a_proj_with_mqa", h, r.kv_lora_rank + r.qk_rope_head_dim, r.qkv_bias);
    kva.tp_sharded = false;
    out.push_back(kva);
    out.push_back(linear("kv_b_proj", r.kv_lora_rank, r.heads * (r.qk_nope_head_dim + r.v_head_dim)));
    out.push_back(linear(r.o_name, r.heads * r.v_head_dim, h, r.o_bias));
    return out;
  }
  if (!r.fused_qkv.empty()) {
    out.push_back(linear(r.fused_qkv, h, q_out + 2 * kv_out, r.qkv_bias));
  } else {
    out.push_back(linear(r.q, h, q_out, r.qkv_bias));
    out.push_back(linear(r.k, h, kv_out, r.qkv_bias));
    out.push_back(linear(r.v, h, kv_out, r.qkv_bias));
  }
  out.push_back(linear(r.o_name, q_out, h, r.o_bias));
  return out;
}

std::vector<Linear> attention_linears(const DecoderLayout& r) {
  std::vector<Linear> out = attention_projections(r);
  set_parent(out, 0, r.attention_parent);
  return out;
}

void add_mlp_projections(std::vector<Linear>& out, const DecoderLayout& r, std::int64_t width) {
  if (!r.gated) {
    out.push_back(linear(r.fc1, r.hidden, width, r.mlp_bias));
    out.push_back(linear(r.fc2, width, r.hidden, r.mlp_bias));
  } else if (!r.fused_gate_up.empty()) {
    out.push_back(linear(r.fused_gate_up, r.hidden, 2 * width, r.mlp_bias));
    out.push_back(linear(r.down, width, r.hidden, r.mlp_bias));
  } else {
    out.push_back(linear(r.gate, r.hidden, width, r.mlp_bias));
    out.push_back(linear(r.up, r.hidden, width, r.mlp_bias));
    out.push_back(linear(r.down, width, r.hidden, r.mlp_bias));
  }
}

void add_dense_mlp(std::vector<Linear>& out, const DecoderLayout& r, std::int64_t width, const std::string& parent) {
  const std::size_t from = out.size();
  add_mlp_projections(out, r, width);
  set_parent(out, from, parent);
}

// GPT-2's projections are Conv1D modules (decoder_layout.hpp); its layers have no router.
void mark_conv1d(LayerGroup& g, const DecoderLayout& r) {
  for (auto& l : g.linears) l.conv1d = r.conv1d;
}

LayerGroup decoder_group(const DecoderLayout& r, bool moe, std::int64_t count, std::int64_t sliding_window) {
  LayerGroup g;
  g.name = moe ? "moe_layer" : "layer";
  g.count = count;
  g.prefix = r.layers_prefix;
  g.linears = attention_linears(r);
  for (int i = 0; i < r.norms_per_layer; ++i)
    g.norms.push_back({i == 0 ? "input_layernorm" : "layernorm_" + std::to_string(i), r.norm_weights ? r.hidden : 0,
                       r.norm_bias});
  g.other_params += r.attention_sinks_per_head * r.heads;
  if (r.mla) {
    if (r.q_lora_rank > 0) g.norms.push_back({"q_a_layernorm", r.q_lora_rank, false});
    g.norms.push_back({"kv_a_layernorm", r.kv_lora_rank, false});
  }
  if (r.qk_norm == DecoderLayout::QkNorm::per_head) {
    g.norms.push_back({"q_norm", r.head_dim, r.qk_norm_bias});
    g.norms.push_back({"k_norm", r.head_dim, r.qk_norm_bias});
  } else if (r.qk_norm == DecoderLayout::QkNorm::full) {
    g.norms.push_back({"q_norm", r.heads * r.head_dim, false});
    g.norms.push_back({"k_norm", r.kv_heads * r.head_dim, false});
  }
  g.attention.kind = r.mla ? AttentionKind::multi_latent : AttentionKind::multi_head;
  g.attention.num_attention_heads = r.heads;
  g.attention.num_key_value_heads = r.mla ? r.heads : r.kv_heads;
  g.attention.head_dim = r.mla ? r.qk_nope_head_dim + r.qk_rope_head_dim : r.head_dim;
  g.attention.v_head_dim = r.mla ? r.v_head_dim : r.head_dim;
  g.attention.sliding_window = sliding_window;
  g.attention.value_view_keeps_fused_qkv = r.value_view_of_fused_qkv && !r.fused_qkv.empty() && !r.mla && r.kv_heads == r.heads;
  g.attention.kv_cache_elements_per_token =
      r.mla ? r.kv_lora_rank + r.qk_rope_head_dim : g.attention.num_key_value_heads * (g.attention.head_dim + g.attention.v_head_dim);
  g.mlp.gated = r.gated;
  g.mlp.activation = r.gated ? MlpActivation::fused : r.activation;
  if (!moe) {
    add_dense_mlp(g.linears, r, r.intermediate, r.mlp_parent);
    g.mlp.intermediate_size = r.intermediate;
    mark_conv1d(g, r);
    return g;
  }
  Linear router = linear(r.router, r.hidden, r.experts, r.router_bias);
  router.parent = r.mlp_parent;
  router.tp_sharded = false;
  router.nn_linear = r.router_nn_linear;
  g.linears.push_back(router);
  g.other_params += r.router_bias_per_expert * r.experts;
  std::vector<std::tuple<std::string, std::int64_t, std::int64_t>> experts;
  if (!r.expert_gate_up.empty()) {
    experts.emplace_back(r.expert_gate_up, r.hidden, 2 * r.expert_intermediate);
  } else {
    experts.emplace_back(r.expert_gate, r.hidden, r.expert_intermediate);
    experts.emplace_back(r.expert_up, r.hidden, r.expert_intermediate);
  }
  experts.emplace_back(r.expert_down, r.expert_intermediate, r.hidden);
  for (const auto& [name, in, out] : experts) {
    Linear e = linear(name, in, out, r.expert_bias);
    e.copies = r.experts;
    e.routed_expert = true;
    e.nn_linear = !r.experts_are_parameters;
    e.parent = child(r.mlp_parent, r.experts_parent);
    g.linears.push_back(e);
  }
  if (r.shared_intermediate > 0) {
    DecoderLayout shared = r;
    shared.fused_gate_up.clear();
    shared.mlp_bias = false;
    add_dense_mlp(g.linears, shared, r.shared_intermediate, child(r.mlp_parent, r.shared_parent));
    if (r.shared_expert_gate) {
      Linear gate = linear("shared_expert_gate", r.hidden, 1);
      gate.tp_sharded = false;
      gate.parent = r.mlp_parent;
      g.linears.push_back(gate);
    }
  }
  g.mlp.num_local_experts = r.experts;
  g.mlp.num_experts_per_tok = r.top_k;
  g.mlp.moe_intermediate_size = r.expert_intermediate;
  g.mlp.shared_intermediate_size = r.shared_intermediate;
  mark_conv1d(g, r);
  return g;
}

Architecture build_decoder(const std::string& model_type, const DecoderLayout& r) {
  Architecture a;
  a.model_type = model_type;
  a.vocab_size = r.vocab;
  a.hidden_size = r.hidden;
  a.norm = r.norm;
  a.tie_word_embeddings = r.tie;
  a.embedding_params = r.vocab * r.hidden;
  a.position_embedding_params = r.learned_positions * r.hidden;
  const std::int64_t norm_params = r.norm_weights ? r.hidden * (r.norm_bias ? 2 : 1) : 0;
  a.embedding_norm_params = r.embedding_norm ? norm_params : 0;
  a.final_norm_params = r.final_norm ? norm_params : 0;
  a.lm_head_params = r.tie ? 0 : r.vocab * r.hidden + (r.lm_head_bias ? r.vocab : 0);
  a.attention_dropout = r.attention_dropout;
  a.hidden_dropout = r.hidden_dropout;
  a.eager_softmax_fp32 = r.eager_softmax_fp32;
  a.final_logit_softcapping = r.final_logit_softcapping;
  a.max_position_embeddings = r.learned_positions > 0 ? r.learned_positions : r.max_positions;
  a.learned_positions = r.learned_positions > 0;
  a.alibi_positions = r.alibi;
  a.default_lora_targets = r.lora_targets;
  a.embedding_module = r.embedding_module;
  a.lm_head_module = r.lm_head_module;
  // Sliding and full-attention layers as groups of their own where every layer is of one kind
  // (dense or MoE); a model mixing both with a window keeps the window on every layer.
  auto add = [&](bool moe, std::int64_t count) {
    if (count <= 0) return;
    const std::int64_t full = r.sliding_window > 0 && count == r.layers ? r.full_attention_layers : 0;
    if (count > full) a.layers.push_back(decoder_group(r, moe, count - full, r.sliding_window));
    if (full > 0) a.layers.push_back(decoder_group(r, moe, full, 0));
  };
  add(false, r.layers - r.moe_layers);
  add(true, r.moe_layers);
  return a;
}

}  // namespace

std::int64_t heads_divide_hidden(ConfigFields& f, std::int64_t hidden, std::int64_t heads, const char* heads_key) {
  if (!f.ok()) return 1;
  if (hidden % heads != 0) {
    f.fail(heads_key, error_code::not_divisible,
           f.field(heads_key) + " = " + std::to_string(heads) + " must divide hidden_size = " + std::to_string(hidden) +
               " (or give head_dim)",
           {{"divisor", static_cast<double>(heads)}, {"of", "hidden_size"}, {"value", static_cast<double>(hidden)}});
    return 1;
  }
  return hidden / heads;
}

void read_sliding_window(ConfigFields& f, DecoderLayout& r, std::int64_t pattern) {
  r.sliding_window = f.optional_size("sliding_window", 0);
  const HfValue* types = f.config().find("layer_types");
  if (!types || types->kind == HfValue::Kind::null) {
    const std::int64_t every = f.optional_size("sliding_window_pattern", pattern);
    r.full_attention_layers = every > 0 ? r.layers / every : 0;
    return;
  }
  if (types->kind != HfValue::Kind::list || static_cast<std::int64_t>(types->items.size()) != r.layers) {
    f.fail("layer_types", error_code::inconsistent,
           f.field("layer_types") + " must list \"sliding_attention\" or \"full_attention\" for each of the " +
               std::to_string(r.layers) + " layers",
           {{"reason", "layer_types_per_layer"}, {"layers", static_cast<double>(r.layers)}});
    return;
  }
  r.full_attention_layers = 0;
  for (std::size_t i = 0; i < types->items.size(); ++i) {
    const HfValue& t = types->items[i];
    const bool full = t.kind == HfValue::Kind::string && t.text == "full_attention";
    if (!full && !(t.kind == HfValue::Kind::string && t.text == "sliding_attention")) {
      const std::string key = "layer_types[" + std::to_string(i) + "]";
      f.fail(key, error_code::unknown_value, f.field(key) + " is " + t.shown + "; expected \"sliding_attention\" or \"full_attention\"",
             {{"value", t.shown}, {"allowed", "sliding_attention, full_attention"}});
      return;
    }
    if (full) ++r.full_attention_layers;
  }
}

void read_llama_like(ConfigFields& f, DecoderLayout& r, bool tie_default) {
  r.hidden = f.size({"hidden_size"});
  r.layers = f.size({"num_hidden_layers"});
  r.heads = f.size({"num_attention_heads"});
  r.kv_heads = f.size({"num_key_value_heads"}, r.heads);
  r.head_dim = f.size({"head_dim"}, 0);
  if (r.head_dim == 0) r.head_dim = heads_divide_hidden(f, r.hidden, r.heads, "num_attention_heads");
  r.intermediate = f.size({"intermediate_size"});
  r.vocab = f.size({"vocab_size"});
  r.tie = f.flag("tie_word_embeddings", tie_default);
  r.max_positions = f.optional_size("max_position_embeddings", 0);
  r.attention_dropout = f.probability("attention_dropout", 0.0);
  const bool attention_bias = f.flag("attention_bias", false);
  r.qkv_bias = attention_bias;
  r.o_bias = attention_bias;
  r.mlp_bias = f.flag("mlp_bias", false);
}

void read_shape(ConfigFields& f, DecoderLayout& r, std::initializer_list<const char*> hidden,
                std::initializer_list<const char*> layers, std::initializer_list<const char*> heads) {
  r.hidden = f.size(hidden);
  r.layers = f.size(layers);
  r.heads = f.size(heads);
  r.kv_heads = r.heads;
  r.head_dim = heads_divide_hidden(f, r.hidden, r.heads, *heads.begin());
}

MlpActivation mlp_activation(const std::string& name) {
  if (name == "gelu_new") return MlpActivation::new_gelu;
  if (name == "gelu_fast") return MlpActivation::fast_gelu;
  if (name == "quick_gelu") return MlpActivation::quick_gelu;
  return MlpActivation::fused;
}

void neox_style(DecoderLayout& r, bool bias) {
  r.norm = NormKind::layer_norm;
  r.norm_bias = true;
  r.qkv_bias = r.o_bias = r.mlp_bias = bias;
  r.lora_targets = {"query_key_value"};
  r.fused_qkv = "query_key_value";
  r.o_name = "dense";
  r.gated = false;
  r.fc1 = "dense_h_to_4h";
  r.fc2 = "dense_4h_to_h";
}

void gpt2_style(DecoderLayout& r) {
  r.norm = NormKind::layer_norm;
  r.norm_bias = true;
  r.qkv_bias = r.o_bias = r.mlp_bias = true;
  r.lora_targets = {"c_attn"};  // PEFT's mapping for "gpt2" and "gpt_bigcode"
  r.fused_qkv = "c_attn";
  r.o_name = "c_proj";
  r.gated = false;
  r.fc1 = "c_fc";
  r.fc2 = "c_proj";
  r.layers_prefix = "transformer.h";
  r.attention_parent = "attn";
  r.embedding_module = "transformer.wte";
}

void mixtral_style_experts(ConfigFields& f, DecoderLayout& r, std::int64_t experts) {
  r.experts = experts;
  r.top_k = f.size({"num_experts_per_tok"});
  r.expert_intermediate = r.intermediate;
  r.expert_gate = "w1";
  r.expert_up = "w3";
  r.expert_down = "w2";
  r.moe_layers = r.layers;
}

void read_mla(ConfigFields& f, DecoderLayout& r) {
  r.mla = true;
  r.q_lora_rank = f.optional_size("q_lora_rank", 0);
  r.kv_lora_rank = f.size({"kv_lora_rank"});
  r.qk_nope_head_dim = f.size({"qk_nope_head_dim"});
  r.qk_rope_head_dim = f.size({"qk_rope_head_dim"});
  r.v_head_dim = f.size({"v_head_dim"});
  r.head_dim = r.qk_nope_head_dim + r.qk_rope_head_dim;
  r.kv_heads = r.heads;
}

std::optional<Architecture> finish(ConfigFields& f, const std::string& model_type, const DecoderLayout& r) {
  if (!f.ok()) return std::nullopt;
  if (!r.mla && r.heads % r.kv_heads != 0) {
    f.fail("num_key_value_heads", error_code::not_divisible,
           f.field("num_key_value_heads") + " = " + std::to_string(r.kv_heads) + " must divide num_attention_heads = " +
               std::to_string(r.heads),
           {{"divisor", static_cast<double>(r.kv_heads)}, {"of", "num_attention_heads"}, {"value", static_cast<double>(r.heads)}});
    return std::nullopt;
  }
  if (r.top_k > r.experts) {
    f.fail("num_experts_per_tok", error_code::out_of_range,
           f.field("num_experts_per_tok") + " = " + std::to_string(r.top_k) + " exceeds the number of experts " +
               std::to_string(r.experts),
           {{"value", std::to_string(r.top_k)}, {"max", static_cast<double>(r.experts)}});
    return std::nullopt;
  }
  return build_decoder(model_type, r);
}

}  // namespace trainmem::architectures
