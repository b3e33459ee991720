// A transformer described as the tensors it owns, in Hugging Face terms.
//
// The Hugging Face config importer (hf_config.hpp) turns a config.json into this; parameter
// counting, LoRA targeting, QLoRA quantization, ZeRO-3 gather sizes and activations all read it.
// Every size is a count of elements (not bytes).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
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
  // True for transformers' Conv1D modules (GPT-2's c_attn, c_proj, c_fc: a linear with its weight
  // stored transposed). bitsandbytes' replacement converts them as it does nn.Linear; HQQ converts
  // torch.nn.Linear only (transformers src/transformers/integrations/hqq.py _prepare_for_hqq_linear).
  bool conv1d = false;

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
// What mixes tokens in a layer: self-attention, a selective state-space scan (Mamba, Mamba-2), or
// attention to the vision encoder's states only (Llama 3.2 Vision's cross-attention layers).
enum class Mixer { attention, mamba, mamba2, cross_attention };
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
  // The attention keeps the fused q/k/v projection's whole output: the model takes v as a view of
  // it and rotates q and k into new tensors, so the v the attention saves for its backward holds
  // the q and k parts too (activations.hpp). Multi-head layers of families that slice their fused
  // projection (Phi-3, GPT-NeoX); grouped k/v are repeated or copied, and the view is not saved.
  bool value_view_keeps_fused_qkv = false;
  // Elements a KV cache keeps per token: kv_heads x (head_dim + v_head_dim), or under MLA the
  // compressed latent kv_lora_rank + qk_rope_head_dim (DeepSeek-V2 paper, §2.1.2).
  std::int64_t kv_cache_elements_per_token = 0;
};

// How a plain (two-matrix) MLP's activation runs: one fused op that keeps its input, or one of
// transformers' activations written as Python arithmetic (src/transformers/activations.py), whose
// every op keeps what its backward needs (activations.hpp).
enum class MlpActivation {
  fused,       // nn.functional.gelu (exact or tanh), relu, silu: keeps its input
  new_gelu,    // "gelu_new" (NewGELUActivation): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  fast_gelu,   // "gelu_fast" (FastGELUActivation): 0.5 x (1 + tanh(0.7978845608 x (1 + 0.044715 x x)))
  quick_gelu,  // "quick_gelu" (QuickGELUActivation): x sigmoid(1.702 x)
};

struct MlpShape {
  bool gated = true;                      // SwiGLU/GeGLU: gate, up, down; else fc1, fc2
  MlpActivation activation = MlpActivation::fused;  // of a plain MLP
  std::int64_t intermediate_size = 0;     // dense MLP width (0 in a MoE layer without one)
  std::int64_t num_local_experts = 0;     // routed experts (0: dense layer)
  std::int64_t num_experts_per_tok = 0;
  std::int64_t moe_intermediate_size = 0;
  std::int64_t shared_intermediate_size = 0;  // all shared experts together
};

// A selective state-space mixer, in the names of transformers' MambaConfig / Mamba2Config
// (configuration_mamba.py, configuration_mamba2.py). Sizes are elements.
struct SsmShape {
  std::int64_t intermediate_size = 0;  // d_inner = expand x hidden_size
  std::int64_t state_size = 0;         // N (d_state)
  std::int64_t conv_kernel = 0;        // width of the depthwise causal conv1d
  std::int64_t time_step_rank = 0;     // Mamba: rank of the dt projection
  std::int64_t num_heads = 0;          // Mamba-2: heads of the SSD scan (one dt and A per head)
  std::int64_t head_dim = 0;           // Mamba-2: channels per head
  std::int64_t n_groups = 0;           // Mamba-2: groups sharing B and C
  std::int64_t chunk_size = 0;         // Mamba-2: chunk length of the chunked scan
  // Mamba: one fused kernel for conv, projections and scan (mamba_inner_fn) rather than separate
  // autograd nodes (Jamba's mixer, whose dt/B/C norms sit between them).
  bool fused_inner = true;
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
  Mixer mixer = Mixer::attention;
  AttentionShape attention;
  SsmShape ssm;  // mamba / mamba2 mixers only
  MlpShape mlp;  // intermediate_size 0 and no experts: the layer has no MLP (Mamba blocks)

  std::int64_t params_per_layer() const;
  // Full module name of a linear in layer `layer` (index within the prefix), for routed experts of
  // expert `expert`: "model.layers.3.self_attn.q_proj", "model.layers.3.mlp.experts.7.gate_proj".
  std::string module_name(const Linear& linear, std::int64_t layer, std::int64_t expert = 0) const;
  // Parameters that one token runs through (routed experts counted num_experts_per_tok times).
  std::int64_t active_params_per_layer() const;
};

// How a family turns one image into vision-encoder patches and language-model tokens
// (engine/include/trainmem/image_tokens.hpp computes them).
enum class ImageTokenRule {
  fixed,       // resized to image_size: patches (+ class token), a fixed number of LM tokens
  qwen2_vl,    // dynamic resolution: the image rounded to multiples of patch x merge, merged 2x2
  llava_next,  // anyres: a base image plus the tiles of the best grid pinpoint, unpadded, newlines
  idefics3,    // split into square tiles of image_size plus one global image, pixel-shuffled
  internvl,    // dynamic tiling into image_size tiles (closest aspect ratio) plus a thumbnail
  mllama,      // up to max_num_tiles tiles of image_size; the LM sees one token, cross-attends
};

// A vision encoder and the projector that carries its output into the language model: a
// multimodal checkpoint's other parts. Counts are elements.
struct VisionTower {
  std::string model_type;      // vision_config.model_type (or the family's own name)
  std::string module = "vision_tower";  // name of the module in the checkpoint
  std::int64_t hidden_size = 0;
  NormKind norm = NormKind::layer_norm;
  std::vector<LayerGroup> layers;     // encoder layers (Stack::encoder)
  std::int64_t embedding_params = 0;  // patch embedding, class token, position and tile embeddings
  std::int64_t other_params = 0;      // pre/post layer norms, gates and heads outside the layers
  std::vector<Linear> projector;      // the multimodal projector's linears (in order)
  std::int64_t projector_other_params = 0;  // its norms and raw parameters
  bool projector_norm = false;              // a norm over the projector's input (Gemma 3, Qwen2-VL, InternVL)
  // Image geometry and the family's token rule.
  ImageTokenRule rule = ImageTokenRule::fixed;
  std::int64_t image_height = 0, image_width = 0;  // vision_config.image_size (0: none stated)
  std::int64_t patch_size = 0;
  bool class_token = false;                 // one extra encoder position per image (tile)
  std::int64_t padded_positions = 0;        // mllama: positions per tile after padding to 8
  std::int64_t lm_tokens_per_image = 0;     // fixed rule: image tokens the LM sees per image
  std::int64_t merge_size = 1;              // qwen2_vl: spatial merge; idefics3/internvl: pixel-shuffle factor
  std::int64_t min_pixels = 0, max_pixels = 0;   // qwen2_vl processor bounds
  std::int64_t max_tiles = 0;               // idefics3, internvl, mllama: tiles per image at most
  std::int64_t longest_edge = 0;            // idefics3: images resized to this longest edge
  std::vector<std::pair<std::int64_t, std::int64_t>> grid_pinpoints;  // llava_next [h, w] choices
  bool drop_class_token = false;            // vision_feature_select_strategy "default"
  std::int64_t feature_layers = 1;          // encoder layers concatenated into the projector input

  std::int64_t encoder_params() const;    // embeddings, layers, norms
  std::int64_t projector_params() const;
  std::int64_t total_params() const { return encoder_params() + projector_params(); }
};

// A config part the engine does not price (an audio tower, an unknown sub-config): reported.
struct UnpricedPart {
  std::string field;               // document path, e.g. "model.hf_config.audio_config"
  std::string description;         // what it is (model_type), and why it is not priced
  std::int64_t parameters = 0;     // a generic encoder count from its sizes; 0 when not countable
};

// The attention kernel transformers runs when from_pretrained is given no attn_implementation
// (engine/src/architectures/transformers_attention.cpp cites each model_type).
enum class TransformersAttention {
  sdpa,                // torch SDPA (flash / memory-efficient kernels): no s x s scores kept
  sdpa_eager_advised,  // SDPA by default, but the modeling file asks for eager when training
  eager_only,          // no SDPA path: eager attention, its s x s scores kept
  unknown,             // remote code or a generic decoder: the model's own file decides
};

struct Architecture {
  std::string model_type;
  std::int64_t vocab_size = 0;
  std::int64_t hidden_size = 0;
  NormKind norm = NormKind::rms_norm;
  bool tie_word_embeddings = false;
  bool encoder_decoder = false;
  bool vocab_logits = true;  // false for encoders trained with a small task head (BERT)
  // HF config final_logit_softcapping (Gemma 2: 30 by default): the head's logits pass through
  // cap * tanh(logits / cap) in the model's forward, whose tanh keeps its output for the backward
  // (loss_memory.hpp). False where the config sets none.
  bool final_logit_softcapping = false;
  std::int64_t max_position_embeddings = 0;  // context the model was built for (0: not stated)
  bool learned_positions = false;            // a position table: no sequence beyond it exists
  // ALiBi: a per-head linear bias added to the attention scores instead of rotating q and k (Press
  // et al., arXiv:2108.12409); no rotary passes (step_time.hpp). MPT, BLOOM, Falcon with alibi.
  bool alibi_positions = false;
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
  // What the HF Trainer's model runs when the setup names no attention implementation.
  TransformersAttention transformers_attention = TransformersAttention::unknown;

  std::int64_t embedding_params = 0;           // token embeddings (vocab_size x hidden_size)
  std::int64_t position_embedding_params = 0;  // learned absolute positions, token types
  std::int64_t embedding_norm_params = 0;      // BLOOM's word_embeddings_layernorm, BERT's LayerNorm
  std::int64_t final_norm_params = 0;          // all final norms together
  std::int64_t lm_head_params = 0;             // 0 when tied to the embeddings
  std::int64_t head_other_params = 0;          // e.g. BERT's pooler and MLM transform
  std::vector<LayerGroup> layers;

  double attention_dropout = 0.0;
  double hidden_dropout = 0.0;

  // Multimodal checkpoints: the vision encoder and projector (counted in total_params()).
  std::optional<VisionTower> vision;
  // Parts of the config left out of the figures, each named in a warning.
  std::vector<UnpricedPart> unpriced_parts;
  // quantization_config.quant_method of a checkpoint stored quantized ("gptq", "awq", "fp8",
  // "bitsandbytes" loading 4 or 8 bits, ...); empty for a checkpoint in a float dtype. Its weights
  // are priced in the training dtype, with a quantized_checkpoint warning.
  std::string checkpoint_quantization;
  // What the layout assumed where the config was silent (a model_type without a family layout
  // here is read as a generic decoder); empty for a known family. Reported as a warning.
  std::vector<std::string> layout_assumptions;

  std::int64_t num_hidden_layers() const;
  // The whole checkpoint: language model plus vision tower and projector.
  std::int64_t total_params() const;
  std::int64_t active_params() const;
  // The language model alone (what a text-only figure counts).
  std::int64_t text_params() const;
  // Parameters outside the transformer layers (embeddings, head, final norms).
  std::int64_t non_layer_params() const;
  // The larger of the token embedding and the untied head, elements.
  std::int64_t largest_embedding_or_head_params() const { return std::max(embedding_params, lm_head_params); }
  // The largest module inside the layers by its own parameters (PyTorch's parameters(recurse=False))
  // on one of `tp` tensor-parallel shards, each linear's elements weighted by `per_element` (1 for
  // elements, its bytes for bytes): one nn.Linear (each routed expert a module of its own) or a
  // module holding raw expert weights (gpt-oss's experts: all of them). DeepSpeed sizes ZeRO-3's
  // per-GPU working set by the largest module, this one or the embedding or head
  // (deepspeed/runtime/zero/stage3.py @v0.13.5, model_to_params: max over model.modules() of
  // sum(p.numel() for p in m.parameters(recurse=False))).
  double largest_layer_module(double tp, const std::function<double(const Linear&)>& per_element) const;
};

}  // namespace trainmem
