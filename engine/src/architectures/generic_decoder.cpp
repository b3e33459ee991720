// A decoder for a model_type without a family layout here, inferred from the keys most
// Hugging Face decoder configs share (configuration_llama.py names and their common aliases).
// Every inference the config does not state is recorded in Architecture::layout_assumptions, with
// the parameter count the layout implies, so it can be checked against the model card. A key the
// layout needs and cannot infer (hidden_size, num_hidden_layers, num_attention_heads,
// intermediate_size, vocab_size) is an error naming it.
#include <algorithm>

#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

namespace {

const char* first_present(ConfigFields& f, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (f.has(k)) return k;
  return nullptr;
}

std::string thousands(std::int64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

bool gated_activation(const std::string& act) {
  return act == "silu" || act == "swish" || act == "swiglu" || act.find("glu") != std::string::npos ||
         act.rfind("gated", 0) == 0;
}

}  // namespace

std::optional<Architecture> generic_decoder(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  std::vector<std::string> assumed;
  r.hidden = f.size({"hidden_size", "n_embd", "d_model"});
  r.layers = f.size({"num_hidden_layers", "n_layer", "num_layers", "n_layers"});
  r.heads = f.size({"num_attention_heads", "n_head", "num_heads", "n_heads"});
  // num_query_groups: Megatron-LM's name (TransformerConfig), used when group_query_attention is set.
  const char* kv = first_present(f, {"num_key_value_heads", "num_kv_heads", "n_head_kv", "multi_query_group_num"});
  if (!kv && f.flag("group_query_attention", true)) kv = first_present(f, {"num_query_groups"});
  if (kv) {
    r.kv_heads = f.size({kv});
  } else {
    r.kv_heads = r.heads;
    if (!f.has("kv_lora_rank"))
      assumed.push_back("num_key_value_heads absent: every query head has its own key/value head (multi-head attention)");
  }
  if (f.has("kv_lora_rank")) {
    // Multi-head latent attention keys: DeepSeek-V2's attention modules (deepseek.cpp).
    read_mla(f, r);
    assumed.push_back("kv_lora_rank given: multi-head latent attention as DeepSeek-V2 builds it");
  } else {
    r.head_dim = f.size({"head_dim"}, 0);
    if (r.head_dim == 0) r.head_dim = heads_divide_hidden(f, r.hidden, r.heads, "num_attention_heads");
  }
  for (const char* hybrid : {"linear_num_key_heads", "full_attention_interval", "ssm_cfg", "mamba_d_state", "attn_layer_indices"})
    if (f.has(hybrid)) {
      assumed.push_back(std::string(hybrid) + " given: the model mixes in linear-attention or state-space layers, which "
                        "this layout counts as full attention layers (the count is approximate)");
      break;
    }
  r.experts = f.size({"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts"}, 0);
  const bool moe = r.experts > 0;
  const bool expert_width_given = f.has("moe_intermediate_size");
  const char* act_key = first_present(f, {"hidden_act", "activation_function", "hidden_activation"});
  const std::string act = act_key ? f.text(act_key, "silu") : "silu";
  r.gated = gated_activation(act);
  r.activation = mlp_activation(act);

  // A plain (GELU-style) MLP whose width is absent or null is 4 x hidden_size: the default of
  // GPT2Block, GPTNeoBlock, GPTJBlock and CodeGenBlock in transformers (inner_dim = n_inner or
  // intermediate_size if not None else 4 * hidden_size). A gated MLP has no such default.
  const char* width_key = first_present(f, {"intermediate_size", "ffn_hidden_size", "n_inner", "ffn_dim", "d_ff"});
  std::optional<std::int64_t> width_fallback;
  if (moe && expert_width_given) width_fallback = 0;
  else if (act_key && !r.gated) width_fallback = 4 * r.hidden;
  r.intermediate = f.size({"intermediate_size", "ffn_hidden_size", "n_inner", "ffn_dim", "d_ff"}, width_fallback);
  if (!width_key && width_fallback && *width_fallback > 0)
    assumed.push_back("intermediate_size (n_inner) absent or null with a plain MLP: 4 x hidden_size = " +
                      std::to_string(r.intermediate) + ", the GPT-2 / GPT-Neo / GPT-J / CodeGen default");
  r.vocab = f.size({"vocab_size", "padded_vocab_size"});
  r.max_positions = f.optional_size("max_position_embeddings", 0);
  if (!act_key) {
    assumed.push_back("hidden_act absent: a gated MLP (gate_proj, up_proj, down_proj; SwiGLU)");
  } else {
    assumed.push_back(std::string(act_key) + " \"" + act + "\": " +
                      (r.gated ? "a gated MLP (gate_proj, up_proj, down_proj)" : "a plain MLP of two matrices (up_proj, down_proj)"));
  }

  if (f.has("rms_norm_eps")) {
    r.norm = NormKind::rms_norm;
    assumed.push_back("rms_norm_eps given: RMSNorm (weight only)");
  } else if (const char* ln = first_present(f, {"layer_norm_eps", "layer_norm_epsilon", "norm_epsilon", "layernorm_epsilon"})) {
    r.norm = NormKind::layer_norm;
    r.norm_bias = true;
    assumed.push_back(std::string(ln) + " given: LayerNorm with weight and bias");
  } else {
    assumed.push_back("no norm epsilon key: RMSNorm (weight only)");
  }
  assumed.push_back("two norms per layer (before attention and before the MLP) and one after the last layer");

  const bool all_bias = f.flag("bias", false) || f.flag("use_bias", false);
  if (all_bias)
    assumed.push_back(std::string(f.has("bias") ? "bias" : "use_bias") +
                      " true: q/k/v/o and the MLP projections with bias (unless attention_bias or mlp_bias says otherwise)");
  const bool attention_bias = f.flag("attention_bias", all_bias);
  r.qkv_bias = f.flag("qkv_bias", attention_bias);
  r.o_bias = attention_bias;
  r.mlp_bias = f.flag("mlp_bias", all_bias);
  if (!f.has("attention_bias") && !f.has("bias") && !f.has("use_bias") && !f.has("qkv_bias"))
    assumed.push_back("attention_bias absent: q/k/v/o projections without bias");
  else if (f.has("attention_bias") && attention_bias)
    assumed.push_back("attention_bias true: q/k/v/o projections with bias, as LlamaAttention reads it (Qwen2-derived "
                      "models bias q/k/v only: " + thousands(r.layers * r.hidden) + " parameters fewer)");

  if (f.has("tie_word_embeddings")) {
    r.tie = f.flag("tie_word_embeddings", false);
  } else {
    r.tie = false;
    assumed.push_back("tie_word_embeddings absent: an untied lm_head (the larger count)");
  }
  assumed.push_back("rotary or ALiBi positions: no position-embedding parameters");

  if (moe) {
    r.top_k = f.size({"num_experts_per_tok", "moe_topk", "experts_per_token", "top_k"});
    r.expert_intermediate = expert_width_given ? f.size({"moe_intermediate_size"}) : r.intermediate;
    if (f.has("shared_expert_intermediate_size")) {
      r.shared_intermediate = f.optional_size("shared_expert_intermediate_size", 0);
    } else {
      r.shared_intermediate = f.optional_size("n_shared_experts", 0) * r.expert_intermediate;
    }
    const std::int64_t first_dense = std::min(r.layers, f.optional_size("first_k_dense_replace", 0));
    r.moe_layers = r.layers - first_dense;
    if (r.intermediate == 0 && first_dense > 0)
      f.fail("intermediate_size", error_code::missing_field,
             f.field("intermediate_size") + " is required: first_k_dense_replace makes the first layers dense",
             {{"reason", "dense_layers_need_width"}});
    assumed.push_back(std::to_string(r.experts) + " routed experts of width " + std::to_string(r.expert_intermediate) +
                      " (gate, up, down) and a router without bias in " + std::to_string(r.moe_layers) + " of " +
                      std::to_string(r.layers) + " layers" +
                      (r.shared_intermediate > 0 ? ", shared experts of total width " + std::to_string(r.shared_intermediate) : ""));
  }

  // Multi-token-prediction layers (num_nextn_predict_layers: DeepSeek-V3's and MiMo's key). MiMo's
  // remote-code MiMoModel holds them as parameters (modeling_mimo.py, MiMoMTPLayers: a decoder layer,
  // a 2 x hidden -> hidden input_proj and token, hidden and final RMSNorms), so they are counted:
  // each as one more layer like the last, the projection and three norms. Their activations are not
  // modelled. (transformers' DeepseekV3 drops them on load; the deepseek_v3 family does not count them.)
  const std::int64_t mtp_layers = f.optional_size("num_nextn_predict_layers", 0, 0, 64);

  std::optional<Architecture> a = finish(f, model_type, r);
  if (!a) return a;
  if (mtp_layers > 0 && !a->layers.empty()) {
    const std::int64_t norm = r.norm == NormKind::layer_norm && r.norm_bias ? 2 * r.hidden : r.hidden;
    const std::int64_t per_mtp = a->layers.back().params_per_layer() + 2 * r.hidden * r.hidden + 3 * norm;
    a->head_other_params += mtp_layers * per_mtp;
    assumed.push_back("num_nextn_predict_layers " + std::to_string(mtp_layers) +
                      ": multi-token-prediction layers counted as parameters (each a decoder layer like the last, a "
                      "2 x hidden_size input projection and three norms, as MiMo's MiMoMTPLayers): " +
                      thousands(mtp_layers * per_mtp) + " parameters; their activations are not modelled");
  }
  a->default_lora_targets = {"q_proj", "v_proj"};
  a->layout_assumptions = std::move(assumed);
  a->layout_assumptions.push_back("this layout has " + thousands(a->total_params()) +
                                  " parameters: compare with the model card's figure");
  return a;
}

}  // namespace trainmem::architectures
