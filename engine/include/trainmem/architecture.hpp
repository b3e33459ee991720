// A transformer described as the tensors it owns, in Hugging Face terms.
//
// The Hugging Face config importer (hf_config.hpp) turns a config.json into this; parameter
// counting, LoRA targeting, QLoRA quantization, ZeRO-3 gather sizes and activations all read it.
// Every size is a count of elements (not bytes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainmem {

// One nn.Linear (or an expert's projection), named as the Hugging Face module is named
// (q_proj, k_proj, ..., c_attn for GPT-2), so PEFT's target_modules match it.
struct Linear {
  std::string name;
  // The module holding it inside its layer ("self_attn", "mlp", "mlp.experts"): with the layer
  // group's prefix it gives the module's full name as PEFT matches it (LayerGroup::module_name).
  std::string parent;
  std::int64_t in_features = 0;
  std::int64_t out_features = 0;
  bool bias = false;
  // Copies of this module in one layer: num_local_experts for routed experts, else 1.
  std::int64_t copies = 1;
  // True for routed experts: only num_experts_per_tok of the copies run per token.
  bool routed_expert = false;
  // True when tensor parallelism splits this matrix (Megatron column/row parallel);
  // false for small replicated ones (MoE router, MLA low-rank down-projections).
  bool tp_sharded = true;
  // False for weights held as raw parameters rather than an nn.Linear module (gpt-oss experts):
  // PEFT's target_modules cannot wrap them.
  bool nn_linear = true;

  std::int64_t weight_params() const { return in_features * out_features; }
  std::int64_t params_per_copy() const { return weight_params() + (bias ? out_features : 0); }
  std::int64_t params() const { return params_per_copy() * copies; }
};

// A normalization layer's own parameters (RMSNorm: weight; LayerNorm: weight + bias).
struct Norm {
  std::string name;
  std::int64_t size = 0;
  bool bias = false;
  std::int64_t params() const { return size * (bias ? 2 : 1); }
};

enum class NormKind { rms_norm, layer_norm };
enum class AttentionKind { multi_head, multi_latent };  // MHA/GQA/MQA vs DeepSeek MLA
enum class Stack { decoder, encoder };

// Shapes that activations depend on.
struct AttentionShape {
  AttentionKind kind = AttentionKind::multi_head;
  std::int64_t num_attention_heads = 0;
  std::int64_t num_key_value_heads = 0;
  std::int64_t head_dim = 0;        // query/key width per head
  std::int64_t v_head_dim = 0;      // value width per head (differs under MLA)
  bool cross_attention = false;     // encoder-decoder decoder layers also attend to the encoder
  std::int64_t sliding_window = 0;  // 0: full attention (sliding layers bound the s^2 term)
  // Elements a KV cache keeps per token: kv_heads x (head_dim + v_head_dim), or under MLA the
  // compressed latent kv_lora_rank + qk_rope_head_dim (DeepSeek-V2 paper, §2.1.2).
  std::int64_t kv_cache_elements_per_token = 0;
};

struct MlpShape {
  bool gated = true;                      // SwiGLU/GeGLU: gate, up, down; else fc1, fc2
  std::int64_t intermediate_size = 0;     // dense MLP width (0 in a MoE layer without one)
  std::int64_t num_local_experts = 0;     // routed experts (0: dense layer)
  std::int64_t num_experts_per_tok = 0;
  std::int64_t moe_intermediate_size = 0;
  std::int64_t shared_intermediate_size = 0;  // all shared experts together
};

// Layers that share one shape; a model is a few groups (e.g. DeepSeek's dense first layers).
struct LayerGroup {
  std::string name;
  std::int64_t count = 0;
  // Module path of the layer list ("model.layers", "transformer.h", "encoder.block"); layers of
  // one prefix are numbered from 0 across the groups that share it.
  std::string prefix = "model.layers";
  Stack stack = Stack::decoder;
  std::vector<Linear> linears;
  std::vector<Norm> norms;
  std::int64_t other_params = 0;  // parameters that are neither linear nor norm (in each layer)
  AttentionShape attention;
  MlpShape mlp;

  std::int64_t params_per_layer() const;
  // Full module name of a linear in layer `layer` (index within the prefix), for routed experts of
  // expert `expert`: "model.layers.3.self_attn.q_proj", "model.layers.3.mlp.experts.7.gate_proj".
  std::string module_name(const Linear& linear, std::int64_t layer, std::int64_t expert = 0) const;
  // Parameters that one token runs through (routed experts counted num_experts_per_tok times).
  std::int64_t active_params_per_layer() const;
};

struct Architecture {
  std::string model_type;
  std::int64_t vocab_size = 0;
  std::int64_t hidden_size = 0;
  NormKind norm = NormKind::rms_norm;
  bool tie_word_embeddings = false;
  bool encoder_decoder = false;
  bool vocab_logits = true;  // false for encoders trained with a small task head (BERT)
  std::int64_t max_position_embeddings = 0;  // context the model was built for (0: not stated)
  bool learned_positions = false;            // a position table: no sequence beyond it exists
  // PEFT's default LoRA targets for the family (TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING).
  std::vector<std::string> default_lora_targets{"q_proj", "v_proj"};
  // False where PEFT has no default for the model_type (it then requires target_modules); the
  // default above is this project's choice and the estimate says so.
  bool peft_default_targets = true;
  // Full module names of the token embedding and the output head (LoRA targets, modules_to_save).
  std::string embedding_module = "model.embed_tokens";
  std::string lm_head_module = "lm_head";
  // Eager attention computes the softmax in fp32 and casts back (HF eager_attention_forward of the
  // Llama family, T5, BLOOM); GPT-2, BERT and Falcon take the softmax in the activation dtype.
  bool eager_softmax_fp32 = true;

  std::int64_t embedding_params = 0;           // token embeddings (vocab_size x hidden_size)
  std::int64_t position_embedding_params = 0;  // learned absolute positions, token types
  std::int64_t embedding_norm_params = 0;      // BLOOM's word_embeddings_layernorm, BERT's LayerNorm
  std::int64_t final_norm_params = 0;          // all final norms together
  std::int64_t lm_head_params = 0;             // 0 when tied to the embeddings
  std::int64_t head_other_params = 0;          // e.g. BERT's pooler and MLM transform
  std::vector<LayerGroup> layers;

  double attention_dropout = 0.0;
  double hidden_dropout = 0.0;

  // What the layout assumed where the config was silent (a model_type without a family layout
  // here is read as a generic decoder); empty for a known family. Reported as a warning.
  std::vector<std::string> layout_assumptions;

  std::int64_t num_hidden_layers() const;
  std::int64_t total_params() const;
  std::int64_t active_params() const;
  // Parameters outside the transformer layers (embeddings, head, final norms).
  std::int64_t non_layer_params() const;
  // Parameters of the largest single layer: the unit ZeRO-3/FSDP gathers at a time.
  std::int64_t largest_layer_params() const;
};

}  // namespace trainmem
