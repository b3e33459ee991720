// The layout kind most families share: a stack of decoder layers (attention, then a dense or
// mixture-of-experts MLP, with norms), token embeddings, a final norm and an LM head. A family file
// fills a DecoderLayout from its config keys; build_decoder() turns it into layer groups.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config_fields.hpp"
#include "trainmem/architecture.hpp"

namespace trainmem::architectures {

struct DecoderLayout {
  std::int64_t hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0, vocab = 0;
  bool tie = false;
  NormKind norm = NormKind::rms_norm;
  bool norm_bias = false;
  int norms_per_layer = 2;
  bool qkv_bias = false, o_bias = false, mlp_bias = false;
  std::string fused_qkv;      // non-empty: one fused q/k/v projection with this name
  // The modeling file slices v out of the fused projection as a view and rotates q and k
  // (AttentionShape::value_view_keeps_fused_qkv, kept for multi-head layers only).
  bool value_view_of_fused_qkv = false;
  bool conv1d = false;  // the block's projections are transformers' Conv1D (GPT-2), not nn.Linear
  std::string fused_gate_up;  // non-empty: one fused gate/up projection (Phi-3)
  bool gated = true;
  MlpActivation activation = MlpActivation::fused;  // a plain MLP's (read_mlp_activation)
  std::string fc1 = "up_proj", fc2 = "down_proj";  // non-gated MLP names
  std::string gate = "gate_proj", up = "up_proj", down = "down_proj";  // gated MLP names
  std::string q = "q_proj", k = "k_proj", v = "v_proj", o_name = "o_proj";
  bool final_norm = true;         // a norm after the last layer (ChatGLM: post_layer_norm)
  bool norm_weights = true;       // false: LayerNorm without affine parameters (OLMo v1)
  bool lm_head_bias = false;      // Phi-1.5/2 and GPT-J heads have a bias
  std::int64_t attention_sinks_per_head = 0;  // learned sink logits per head (gpt-oss)
  // q/k norms: per_head shares one head_dim-wide norm across heads; full has weights for every head.
  enum class QkNorm { none, per_head, full } qk_norm = QkNorm::none;
  bool qk_norm_bias = false;  // LayerNorm q/k norms with a bias (Phi)
  std::int64_t learned_positions = 0;  // rows of a learned position table
  bool alibi = false;                  // ALiBi score biases instead of rotary positions
  bool embedding_norm = false;    // BLOOM's word_embeddings_layernorm
  bool eager_softmax_fp32 = true;
  bool final_logit_softcapping = false;
  // Mixture of experts.
  std::int64_t experts = 0, top_k = 0, expert_intermediate = 0, shared_intermediate = 0;
  bool shared_expert_gate = false;
  std::string expert_gate = "gate_proj", expert_up = "up_proj", expert_down = "down_proj";
  std::string expert_gate_up;        // non-empty: experts hold gate and up as one projection
  bool expert_bias = false;          // biases on the expert projections (gpt-oss)
  bool experts_are_parameters = false;  // experts are raw parameters, not nn.Linear (gpt-oss)
  std::string router = "gate";
  bool router_bias = false;
  bool router_nn_linear = true;  // false: the router holds raw parameters used through F.linear (gpt-oss)
  std::int64_t router_bias_per_expert = 0;  // DeepSeek-V3 e_score_correction_bias
  std::int64_t moe_layers = 0;              // how many of `layers` are MoE layers
  // DeepSeek multi-head latent attention.
  bool mla = false;
  std::int64_t q_lora_rank = 0, kv_lora_rank = 0, qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  double attention_dropout = 0, hidden_dropout = 0;
  std::int64_t sliding_window = 0;           // keys a sliding layer attends to; 0: none slides
  std::int64_t full_attention_layers = 0;    // of `layers`, those that attend over the whole sequence
  std::int64_t max_positions = 0;
  std::vector<std::string> lora_targets{"q_proj", "v_proj"};
  // Module paths, as the modeling file names them (PEFT matches full module names).
  std::string layers_prefix = "model.layers";
  std::string attention_parent = "self_attn", mlp_parent = "mlp";
  std::string experts_parent = "experts", shared_parent = "shared_expert";
  std::string embedding_module = "model.embed_tokens", lm_head_module = "lm_head";
};

Linear linear(std::string name, std::int64_t in, std::int64_t out, bool bias = false);

// hidden_size / heads when the config gives no head_dim; heads must divide hidden_size then.
std::int64_t heads_divide_hidden(ConfigFields& f, std::int64_t hidden, std::int64_t heads, const char* heads_key);

// Fields shared by the Llama-like families (configuration_llama.py names and defaults).
void read_llama_like(ConfigFields& f, DecoderLayout& r, bool tie_default);

// sliding_window and which layers use it (after `layers` is read): the config's layer_types
// ("sliding_attention" or "full_attention" per layer, as transformers' configurations write them)
// when given, else the family's rule that layer i attends fully when (i + 1) % pattern == 0
// (sliding_window_pattern in the config overrides `pattern`; pattern 0: every layer slides, as in
// Mistral). transformers configuration_gemma2.py and configuration_gpt_oss.py: pattern 2;
// configuration_gemma3.py: 6; configuration_cohere2.py: 4 (each builds layer_types by this rule).
void read_sliding_window(ConfigFields& f, DecoderLayout& r, std::int64_t pattern);

// Hidden size, layers and heads of the older families, whose configs name them variously
// (n_embd / n_embed / hidden_size, ...); every head has its own k and v unless the family says so.
void read_shape(ConfigFields& f, DecoderLayout& r, std::initializer_list<const char*> hidden,
                std::initializer_list<const char*> layers, std::initializer_list<const char*> heads);

// GPT-NeoX, Falcon and BLOOM share module names (query_key_value, dense, dense_h_to_4h,
// dense_4h_to_h), LayerNorm with bias and a plain MLP.
void neox_style(DecoderLayout& r, bool bias);
// A plain MLP's activation from its transformers name (hidden_act / activation_function): the
// Python-written GELUs by name, every other one fused.
MlpActivation mlp_activation(const std::string& name);

// GPT-2's module names (c_attn, c_proj, c_fc, mlp c_proj, all with bias; LayerNorm with bias;
// transformer.h layers), shared by GPT-BigCode.
void gpt2_style(DecoderLayout& r);

// Mixtral's routed experts in every layer: `experts` copies of w1 (gate), w3 (up) and w2 (down),
// intermediate_size wide, num_experts_per_tok of them per token (Mixtral, MiniCPM-MoE).
void mixtral_style_experts(ConfigFields& f, DecoderLayout& r, std::int64_t experts);

// DeepSeek-V2's multi-head latent attention keys (q_lora_rank optional).
void read_mla(ConfigFields& f, DecoderLayout& r);

// Checks the shapes that must agree, then builds the architecture (nullopt after any error).
std::optional<Architecture> finish(ConfigFields& f, const std::string& model_type, const DecoderLayout& r);

}  // namespace trainmem::architectures
