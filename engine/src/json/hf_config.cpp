// Family by family, the modules a Hugging Face model class creates, read from its config.json.
// Sources: the modeling_<family>.py file of transformers for each model_type (module names and
// shapes), and the configuration_<family>.py defaults for keys a published config omits.
#include "hf_config.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "object_reader.hpp"

namespace trainmem::json_io {

namespace {

using std::int64_t;

// Largest accepted size of any one dimension (hidden size, vocabulary, layers, experts...).
constexpr double kMaxDimension = 1e8;
// Largest accepted model: beyond this no GPU catalog matters and byte counts leave exact doubles.
constexpr double kMaxParameters = 1e15;

// Reads config fields with the family's defaults; records missing/invalid fields.
class ConfigFields {
 public:
  ConfigFields(const json& cfg, const std::string& path, Errors& errors) : reader_(cfg, path, errors), errors_(errors) {}

  // A required positive size; any of `keys` (aliases such as n_embd / hidden_size) may hold it.
  int64_t size(std::initializer_list<const char*> keys, std::optional<int64_t> fallback = std::nullopt) {
    for (const char* k : keys) {
      if (reader_.has(k)) {
        auto v = reader_.integer(k, 1, kMaxDimension);
        if (v) return *v;
        ok_ = false;
        return 1;
      }
    }
    if (fallback) return *fallback;
    errors_.push_back({error_code::missing_field, reader_.field(*keys.begin()),
                       reader_.field(*keys.begin()) + " is required for this model_type and is missing"});
    ok_ = false;
    return 1;
  }
  // An optional size (absent or null -> fallback, which may be 0 for "none").
  int64_t optional_size(const char* key, int64_t fallback, double min = 0, double max = kMaxDimension) {
    if (!reader_.has(key)) return fallback;
    auto v = reader_.integer(key, min, max);
    if (!v) ok_ = false;
    return v.value_or(fallback);
  }
  bool flag(const char* key, bool fallback) {
    if (!reader_.has(key)) return fallback;
    auto v = reader_.boolean(key);
    if (!v) ok_ = false;
    return v.value_or(fallback);
  }
  double probability(const char* key, double fallback) {
    if (!reader_.has(key)) return fallback;
    auto v = reader_.number(key, 0, 1);
    if (!v) ok_ = false;
    return v.value_or(fallback);
  }
  std::string text(const char* key, const std::string& fallback) {
    if (!reader_.has(key)) return fallback;
    auto v = reader_.string(key);
    if (!v) ok_ = false;
    return v.value_or(fallback);
  }
  std::vector<int64_t> integer_list(const char* key) {
    std::vector<int64_t> out;
    const json* v = reader_.get(key);
    if (!v) return out;
    if (!v->is_array()) {
      reader_.type_error(key, "a list of layer indices", *v);
      ok_ = false;
      return out;
    }
    for (const auto& x : *v) {
      if (!x.is_number_integer()) {
        reader_.type_error(key, "a list of layer indices", *v);
        ok_ = false;
        return {};
      }
      out.push_back(x.get<int64_t>());
    }
    return out;
  }
  void fail(const std::string& key, const char* code, const std::string& message) {
    errors_.push_back({code, reader_.field(key), message});
    ok_ = false;
  }
  std::string field(const std::string& key) const { return reader_.field(key); }
  bool ok() const { return ok_; }

 private:
  ObjectReader reader_;
  Errors& errors_;
  bool ok_ = true;
};

Linear linear(std::string name, int64_t in, int64_t out, bool bias = false) {
  Linear l;
  l.name = std::move(name);
  l.in_features = in;
  l.out_features = out;
  l.bias = bias;
  return l;
}

// The shape of a decoder-only family, filled from its config, then built into layer groups.
struct DecoderRecipe {
  int64_t hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0, vocab = 0;
  bool tie = false;
  NormKind norm = NormKind::rms_norm;
  bool norm_bias = false;
  int norms_per_layer = 2;
  bool qkv_bias = false, o_bias = false, mlp_bias = false;
  std::string fused_qkv;      // non-empty: one fused q/k/v projection with this name
  std::string fused_gate_up;  // non-empty: one fused gate/up projection (Phi-3)
  bool gated = true;
  std::string fc1 = "up_proj", fc2 = "down_proj";  // non-gated MLP names
  std::string o_name = "o_proj";
  enum class QkNorm { none, per_head, full } qk_norm = QkNorm::none;
  int64_t learned_positions = 0;  // rows of a learned position table
  bool embedding_norm = false;    // BLOOM's word_embeddings_layernorm
  bool eager_softmax_fp32 = true;
  // Mixture of experts.
  int64_t experts = 0, top_k = 0, expert_intermediate = 0, shared_intermediate = 0;
  bool shared_expert_gate = false;
  std::string expert_gate = "gate_proj", expert_up = "up_proj", expert_down = "down_proj";
  int64_t router_bias_per_expert = 0;  // DeepSeek-V3 e_score_correction_bias
  int64_t moe_layers = 0;              // how many of `layers` are MoE layers
  // DeepSeek multi-head latent attention.
  bool mla = false;
  int64_t q_lora_rank = 0, kv_lora_rank = 0, qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  double attention_dropout = 0, hidden_dropout = 0;
  int64_t sliding_window = 0;
  int64_t max_positions = 0;
  std::vector<std::string> lora_targets{"q_proj", "v_proj"};
};

std::vector<Linear> attention_linears(const DecoderRecipe& r) {
  std::vector<Linear> out;
  const int64_t h = r.hidden, q_out = r.heads * r.head_dim, kv_out = r.kv_heads * r.head_dim;
  if (r.mla) {
    const int64_t q_head = r.qk_nope_head_dim + r.qk_rope_head_dim;
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
    out.push_back(linear("q_proj", h, q_out, r.qkv_bias));
    out.push_back(linear("k_proj", h, kv_out, r.qkv_bias));
    out.push_back(linear("v_proj", h, kv_out, r.qkv_bias));
  }
  out.push_back(linear(r.o_name, q_out, h, r.o_bias));
  return out;
}

void add_dense_mlp(std::vector<Linear>& out, const DecoderRecipe& r, int64_t width) {
  if (!r.gated) {
    out.push_back(linear(r.fc1, r.hidden, width, r.mlp_bias));
    out.push_back(linear(r.fc2, width, r.hidden, r.mlp_bias));
  } else if (!r.fused_gate_up.empty()) {
    out.push_back(linear(r.fused_gate_up, r.hidden, 2 * width, r.mlp_bias));
    out.push_back(linear("down_proj", width, r.hidden, r.mlp_bias));
  } else {
    out.push_back(linear("gate_proj", r.hidden, width, r.mlp_bias));
    out.push_back(linear("up_proj", r.hidden, width, r.mlp_bias));
    out.push_back(linear("down_proj", width, r.hidden, r.mlp_bias));
  }
}

LayerGroup decoder_group(const DecoderRecipe& r, bool moe, int64_t count) {
  LayerGroup g;
  g.name = moe ? "moe_layer" : "layer";
  g.count = count;
  g.linears = attention_linears(r);
  for (int i = 0; i < r.norms_per_layer; ++i)
    g.norms.push_back({i == 0 ? "input_layernorm" : "layernorm_" + std::to_string(i), r.hidden, r.norm_bias});
  if (r.mla) {
    if (r.q_lora_rank > 0) g.norms.push_back({"q_a_layernorm", r.q_lora_rank, false});
    g.norms.push_back({"kv_a_layernorm", r.kv_lora_rank, false});
  }
  if (r.qk_norm == DecoderRecipe::QkNorm::per_head) {
    g.norms.push_back({"q_norm", r.head_dim, false});
    g.norms.push_back({"k_norm", r.head_dim, false});
  } else if (r.qk_norm == DecoderRecipe::QkNorm::full) {
    g.norms.push_back({"q_norm", r.heads * r.head_dim, false});
    g.norms.push_back({"k_norm", r.kv_heads * r.head_dim, false});
  }
  g.attention.kind = r.mla ? AttentionKind::multi_latent : AttentionKind::multi_head;
  g.attention.num_attention_heads = r.heads;
  g.attention.num_key_value_heads = r.mla ? r.heads : r.kv_heads;
  g.attention.head_dim = r.mla ? r.qk_nope_head_dim + r.qk_rope_head_dim : r.head_dim;
  g.attention.v_head_dim = r.mla ? r.v_head_dim : r.head_dim;
  g.attention.sliding_window = r.sliding_window;
  g.attention.kv_cache_elements_per_token =
      r.mla ? r.kv_lora_rank + r.qk_rope_head_dim : g.attention.num_key_value_heads * (g.attention.head_dim + g.attention.v_head_dim);
  g.mlp.gated = r.gated;
  if (!moe) {
    add_dense_mlp(g.linears, r, r.intermediate);
    g.mlp.intermediate_size = r.intermediate;
    return g;
  }
  Linear router = linear("gate", r.hidden, r.experts);
  router.tp_sharded = false;
  g.linears.push_back(router);
  g.other_params += r.router_bias_per_expert * r.experts;
  for (const auto& [name, in, out] : {std::tuple{r.expert_gate, r.hidden, r.expert_intermediate},
                                      std::tuple{r.expert_up, r.hidden, r.expert_intermediate},
                                      std::tuple{r.expert_down, r.expert_intermediate, r.hidden}}) {
    Linear e = linear(name, in, out, false);
    e.copies = r.experts;
    e.routed_expert = true;
    g.linears.push_back(e);
  }
  if (r.shared_intermediate > 0) {
    DecoderRecipe shared = r;
    shared.fused_gate_up.clear();
    shared.mlp_bias = false;
    add_dense_mlp(g.linears, shared, r.shared_intermediate);
    if (r.shared_expert_gate) {
      Linear gate = linear("shared_expert_gate", r.hidden, 1);
      gate.tp_sharded = false;
      g.linears.push_back(gate);
    }
  }
  g.mlp.num_local_experts = r.experts;
  g.mlp.num_experts_per_tok = r.top_k;
  g.mlp.moe_intermediate_size = r.expert_intermediate;
  g.mlp.shared_intermediate_size = r.shared_intermediate;
  return g;
}

Architecture build_decoder(const std::string& model_type, const DecoderRecipe& r) {
  Architecture a;
  a.model_type = model_type;
  a.vocab_size = r.vocab;
  a.hidden_size = r.hidden;
  a.norm = r.norm;
  a.tie_word_embeddings = r.tie;
  a.embedding_params = r.vocab * r.hidden;
  a.position_embedding_params = r.learned_positions * r.hidden;
  a.embedding_norm_params = r.embedding_norm ? r.hidden * (r.norm_bias ? 2 : 1) : 0;
  a.final_norm_params = r.hidden * (r.norm_bias ? 2 : 1);
  a.lm_head_params = r.tie ? 0 : r.vocab * r.hidden;
  a.attention_dropout = r.attention_dropout;
  a.hidden_dropout = r.hidden_dropout;
  a.eager_softmax_fp32 = r.eager_softmax_fp32;
  a.max_position_embeddings = r.learned_positions > 0 ? r.learned_positions : r.max_positions;
  a.learned_positions = r.learned_positions > 0;
  a.default_lora_targets = r.lora_targets;
  const int64_t dense_layers = r.layers - r.moe_layers;
  if (dense_layers > 0) a.layers.push_back(decoder_group(r, false, dense_layers));
  if (r.moe_layers > 0) a.layers.push_back(decoder_group(r, true, r.moe_layers));
  return a;
}

// hidden_size / heads when the config gives no head_dim; heads must divide hidden_size then.
int64_t heads_divide_hidden(ConfigFields& f, int64_t hidden, int64_t heads, const char* heads_key) {
  if (!f.ok()) return 1;
  if (hidden % heads != 0) {
    f.fail(heads_key, error_code::not_divisible,
           f.field(heads_key) + " = " + std::to_string(heads) + " must divide hidden_size = " + std::to_string(hidden) +
               " (or give head_dim)");
    return 1;
  }
  return hidden / heads;
}

// Fields shared by the Llama-like families.
void read_llama_like(ConfigFields& f, DecoderRecipe& r, bool tie_default) {
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

// Qwen2-MoE / Qwen3-MoE layer placement: MoE unless listed in mlp_only_layers or off the
// decoder_sparse_step grid (modeling_qwen2_moe.py, Qwen2MoeDecoderLayer).
int64_t qwen_moe_layer_count(ConfigFields& f, int64_t layers) {
  const int64_t step = f.optional_size("decoder_sparse_step", 1, 1);
  const auto mlp_only = f.integer_list("mlp_only_layers");
  int64_t moe = 0;
  for (int64_t i = 0; i < layers; ++i) {
    const bool listed = std::find(mlp_only.begin(), mlp_only.end(), i) != mlp_only.end();
    if (!listed && (i + 1) % step == 0) ++moe;
  }
  return moe;
}

using Importer = std::function<std::optional<Architecture>(ConfigFields&, const std::string&)>;

std::optional<Architecture> finish(ConfigFields& f, const std::string& type, const DecoderRecipe& r) {
  if (!f.ok()) return std::nullopt;
  if (!r.mla && r.heads % r.kv_heads != 0) {
    f.fail("num_key_value_heads", error_code::not_divisible,
           f.field("num_key_value_heads") + " = " + std::to_string(r.kv_heads) + " must divide num_attention_heads = " +
               std::to_string(r.heads));
    return std::nullopt;
  }
  if (r.top_k > r.experts) {
    f.fail("num_experts_per_tok", error_code::out_of_range,
           f.field("num_experts_per_tok") + " = " + std::to_string(r.top_k) + " exceeds the number of experts " +
               std::to_string(r.experts));
    return std::nullopt;
  }
  return build_decoder(type, r);
}

std::optional<Architecture> llama(ConfigFields& f, const std::string& type) {
  DecoderRecipe r;
  read_llama_like(f, r, false);
  r.sliding_window = f.optional_size("sliding_window", 0);
  return finish(f, type, r);
}

std::optional<Architecture> qwen2(ConfigFields& f, const std::string& type) {
  DecoderRecipe r;
  read_llama_like(f, r, false);
  r.qkv_bias = true;  // Qwen2Attention: q/k/v with bias, o_proj without
  r.o_bias = false;
  if (type == "qwen2_moe") {
    r.experts = f.size({"num_experts"});
    r.top_k = f.size({"num_experts_per_tok"});
    r.expert_intermediate = f.size({"moe_intermediate_size"});
    r.shared_intermediate = f.optional_size("shared_expert_intermediate_size", 0);
    r.shared_expert_gate = r.shared_intermediate > 0;
    r.moe_layers = qwen_moe_layer_count(f, r.layers);
  }
  return finish(f, type, r);
}

std::optional<Architecture> qwen3(ConfigFields& f, const std::string& type) {
  DecoderRecipe r;
  read_llama_like(f, r, false);
  r.qk_norm = DecoderRecipe::QkNorm::per_head;
  if (type == "qwen3_moe") {
    r.experts = f.size({"num_experts"});
    r.top_k = f.size({"num_experts_per_tok"});
    r.expert_intermediate = f.size({"moe_intermediate_size"});
    r.moe_layers = qwen_moe_layer_count(f, r.layers);
  }
  return finish(f, type, r);
}

std::optional<Architecture> mixtral(ConfigFields& f, const std::string& type) {
  DecoderRecipe r;
  read_llama_like(f, r, false);
  r.experts = f.size({"num_local_experts"});
  r.top_k = f.size({"num_experts_per_tok"});
  r.expert_intermediate = r.intermediate;
  r.expert_gate = "w1";  // MixtralBlockSparseTop2MLP: w1 (gate), w3 (up), w2 (down)
  r.expert_up = "w3";
  r.expert_down = "w2";
  r.moe_layers = r.layers;
  return finish(f, type, r);
}

std::optional<Architecture> gemma(ConfigFields& f, const std::string& type) {
  DecoderRecipe r;
  read_llama_like(f, r, true);
  if (type == "gemma2" || type == "gemma3_text") r.norms_per_layer = 4;  // pre/post attention and MLP norms
  if (type == "gemma3_text") r.qk_norm = DecoderRecipe::QkNorm::per_head;
  r.sliding_window = f.optional_size("sliding_window", 0);
  return finish(f, type, r);
}

// Gemma 3 multimodal configs omit text_config keys that equal Gemma3TextConfig's defaults
// (configuration_gemma3.py).
void gemma3_text_defaults(json& text) {
  const std::pair<const char*, json> defaults[] = {
      {"vocab_size", 262208}, {"hidden_size", 2304}, {"intermediate_size", 9216}, {"num_hidden_layers", 26},
      {"num_attention_heads", 8}, {"num_key_value_heads", 4}, {"head_dim", 256}, {"sliding_window", 4096},
  };
  for (const auto& [k, v] : defaults)
    if (!text.contains(k)) text[k] = v;
}

std::optional<Architecture> phi3(ConfigFields& f, const std::string& type) {
  DecoderRecipe r;
  read_llama_like(f, r, false);
  r.lora_targets = {"qkv_proj"};
  r.fused_qkv = "qkv_proj";  // Phi3Attention: one qkv_proj, and Phi3MLP: gate_up_proj
  r.fused_gate_up = "gate_up_proj";
  r.sliding_window = f.optional_size("sliding_window", 0);
  return finish(f, type, r);
}

std::optional<Architecture> olmo2(ConfigFields& f, const std::string& type) {
  DecoderRecipe r;
  read_llama_like(f, r, false);
  r.qk_norm = DecoderRecipe::QkNorm::full;  // Olmo2Attention: RMSNorm over all heads of q and k
  return finish(f, type, r);
}

std::optional<Architecture> deepseek(ConfigFields& f, const std::string& type) {
  DecoderRecipe r;
  r.hidden = f.size({"hidden_size"});
  r.layers = f.size({"num_hidden_layers"});
  r.heads = f.size({"num_attention_heads"});
  r.kv_heads = r.heads;
  r.intermediate = f.size({"intermediate_size"});
  r.vocab = f.size({"vocab_size"});
  r.tie = f.flag("tie_word_embeddings", false);
  r.qkv_bias = f.flag("attention_bias", false);
  r.o_bias = r.qkv_bias;
  r.mla = true;
  r.q_lora_rank = f.optional_size("q_lora_rank", 0);
  r.kv_lora_rank = f.size({"kv_lora_rank"});
  r.qk_nope_head_dim = f.size({"qk_nope_head_dim"});
  r.qk_rope_head_dim = f.size({"qk_rope_head_dim"});
  r.v_head_dim = f.size({"v_head_dim"});
  r.head_dim = r.qk_nope_head_dim + r.qk_rope_head_dim;
  r.max_positions = f.optional_size("max_position_embeddings", 0);
  // No PEFT default for DeepSeek: the query projection and the key/value up-projection.
  r.lora_targets = {r.q_lora_rank > 0 ? "q_b_proj" : "q_proj", "kv_b_proj"};
  r.experts = f.optional_size("n_routed_experts", 0);
  if (r.experts > 0) {
    r.top_k = f.size({"num_experts_per_tok"});
    r.expert_intermediate = f.size({"moe_intermediate_size"});
    r.shared_intermediate = f.optional_size("n_shared_experts", 0) * r.expert_intermediate;
    const int64_t first_dense = f.optional_size("first_k_dense_replace", 0);
    const int64_t freq = f.optional_size("moe_layer_freq", 1, 1);
    for (int64_t i = first_dense; i < r.layers; ++i)
      if (i % freq == 0) ++r.moe_layers;
    // DeepSeek-V3's noaux_tc router keeps a per-expert score-correction bias.
    if (f.text("topk_method", "") == "noaux_tc") r.router_bias_per_expert = 1;
  }
  return finish(f, type, r);
}

// Hidden size, layers and heads of the older families, whose configs name them variously
// (n_embd / n_embed / hidden_size, ...); every head has its own k and v unless the family says so.
void read_shape(ConfigFields& f, DecoderRecipe& r, std::initializer_list<const char*> hidden,
                std::initializer_list<const char*> layers, std::initializer_list<const char*> heads) {
  r.hidden = f.size(hidden);
  r.layers = f.size(layers);
  r.heads = f.size(heads);
  r.kv_heads = r.heads;
  r.head_dim = heads_divide_hidden(f, r.hidden, r.heads, *heads.begin());
}

std::optional<Architecture> gpt2(ConfigFields& f, const std::string& type) {
  DecoderRecipe r;
  read_shape(f, r, {"n_embd", "hidden_size"}, {"n_layer", "num_hidden_layers"}, {"n_head", "num_attention_heads"});
  r.intermediate = f.optional_size("n_inner", 4 * r.hidden, 1);
  r.vocab = f.size({"vocab_size"});
  r.learned_positions = f.size({"n_positions", "max_position_embeddings"});
  r.tie = f.flag("tie_word_embeddings", true);
  r.norm = NormKind::layer_norm;
  r.norm_bias = true;
  r.qkv_bias = r.o_bias = r.mlp_bias = true;
  r.lora_targets = {"c_attn"};
  r.fused_qkv = "c_attn";  // GPT2Attention: c_attn (Conv1D, 3h), c_proj; GPT2MLP: c_fc, c_proj
  r.o_name = "c_proj";
  r.gated = false;
  r.fc1 = "c_fc";
  r.fc2 = "c_proj";
  r.eager_softmax_fp32 = false;  // GPT2Attention: softmax in the activation dtype
  r.attention_dropout = f.probability("attn_pdrop", 0.1);
  r.hidden_dropout = f.probability("resid_pdrop", 0.1);
  return finish(f, type, r);
}

// GPT-NeoX, Falcon and BLOOM share module names (query_key_value, dense, dense_h_to_4h,
// dense_4h_to_h), LayerNorm with bias and a plain MLP.
void neox_style(DecoderRecipe& r, bool bias) {
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

std::optional<Architecture> gpt_neox(ConfigFields& f, const std::string& type) {
  DecoderRecipe r;
  read_shape(f, r, {"hidden_size"}, {"num_hidden_layers"}, {"num_attention_heads"});
  r.intermediate = f.size({"intermediate_size"});
  r.vocab = f.size({"vocab_size"});
  r.tie = f.flag("tie_word_embeddings", false);
  neox_style(r, true);
  r.qkv_bias = r.o_bias = f.flag("attention_bias", true);
  r.attention_dropout = f.probability("attention_dropout", 0.0);
  r.hidden_dropout = f.probability("hidden_dropout", 0.0);
  return finish(f, type, r);
}

std::optional<Architecture> falcon(ConfigFields& f, const std::string& type) {
  DecoderRecipe r;
  read_shape(f, r, {"hidden_size", "n_embed"}, {"num_hidden_layers", "n_layer"}, {"num_attention_heads", "n_head"});
  const bool new_arch = f.flag("new_decoder_architecture", false);
  const bool multi_query = f.flag("multi_query", true);
  const bool parallel_attn = f.flag("parallel_attn", true);
  // FalconAttention: kv heads = num_kv_heads (new architecture), 1 (multi-query) or all heads.
  r.kv_heads = new_arch ? f.size({"num_kv_heads"}, r.heads) : (multi_query ? 1 : r.heads);
  r.intermediate = f.optional_size("ffn_hidden_size", 4 * r.hidden, 1);
  r.vocab = f.size({"vocab_size"});
  r.tie = f.flag("tie_word_embeddings", true);
  neox_style(r, f.flag("bias", false));
  r.eager_softmax_fp32 = false;  // FalconAttention: softmax(dtype=hidden_states.dtype)
  // FalconDecoderLayer: ln_attn + ln_mlp (new architecture with 2 norms), one input_layernorm for
  // parallel attention, else input + post-attention norms.
  const int64_t parallel_norms = f.optional_size("num_ln_in_parallel_attn", 2, 1, 2);
  r.norms_per_layer = new_arch ? static_cast<int>(parallel_norms) : (parallel_attn ? 1 : 2);
  r.attention_dropout = f.probability("attention_dropout", 0.0);
  r.hidden_dropout = f.probability("hidden_dropout", 0.0);
  return finish(f, type, r);
}

std::optional<Architecture> bloom(ConfigFields& f, const std::string& type) {
  DecoderRecipe r;
  read_shape(f, r, {"hidden_size", "n_embed"}, {"n_layer", "num_hidden_layers"}, {"n_head", "num_attention_heads"});
  r.intermediate = 4 * r.hidden;  // BloomMLP: dense_h_to_4h
  r.vocab = f.size({"vocab_size"});
  r.tie = f.flag("tie_word_embeddings", true);
  neox_style(r, true);
  r.embedding_norm = true;
  r.attention_dropout = f.probability("attention_dropout", 0.0);
  r.hidden_dropout = f.probability("hidden_dropout", 0.0);
  return finish(f, type, r);
}

// BERT encoder (BertModel with pooler; modeling_bert.py). Trained with a small task head, so the
// architecture has no vocabulary-sized output.
std::optional<Architecture> bert(ConfigFields& f, const std::string& type) {
  const int64_t h = f.size({"hidden_size"});
  const int64_t layers = f.size({"num_hidden_layers"});
  const int64_t heads = f.size({"num_attention_heads"});
  const int64_t inter = f.size({"intermediate_size"});
  const int64_t vocab = f.size({"vocab_size"});
  const int64_t positions = f.optional_size("max_position_embeddings", 512, 1);
  const int64_t types = f.optional_size("type_vocab_size", 2, 0);
  const double hidden_dropout = f.probability("hidden_dropout_prob", 0.1);
  const double attention_dropout = f.probability("attention_probs_dropout_prob", 0.1);
  heads_divide_hidden(f, h, heads, "num_attention_heads");
  if (!f.ok()) return std::nullopt;
  Architecture a;
  a.model_type = type;
  a.vocab_size = vocab;
  a.hidden_size = h;
  a.norm = NormKind::layer_norm;
  a.tie_word_embeddings = true;
  a.vocab_logits = false;
  a.eager_softmax_fp32 = false;  // BertSelfAttention: softmax in the activation dtype
  a.embedding_params = vocab * h;
  a.position_embedding_params = (positions + types) * h;
  a.embedding_norm_params = 2 * h;
  a.head_other_params = h * h + h;  // BertPooler dense
  a.max_position_embeddings = positions;
  a.learned_positions = true;
  a.default_lora_targets = {"query", "value"};
  a.attention_dropout = attention_dropout;
  a.hidden_dropout = hidden_dropout;
  LayerGroup g;
  g.name = "layer";
  g.count = layers;
  g.stack = Stack::encoder;
  g.linears = {linear("query", h, h, true), linear("key", h, h, true), linear("value", h, h, true),
               linear("dense", h, h, true), linear("dense", h, inter, true), linear("dense", inter, h, true)};
  g.norms = {{"attention.output.LayerNorm", h, true}, {"output.LayerNorm", h, true}};
  g.attention.num_attention_heads = heads;
  g.attention.num_key_value_heads = heads;
  g.attention.head_dim = h / heads;
  g.attention.v_head_dim = h / heads;
  g.attention.kv_cache_elements_per_token = 2 * h;
  g.mlp.gated = false;
  g.mlp.intermediate_size = inter;
  a.layers.push_back(g);
  return a;
}

// T5 / mT5 encoder-decoder (modeling_t5.py): no biases, RMS-style T5LayerNorm, relative position
// bias in the first layer of each stack, shared embedding.
std::optional<Architecture> t5(ConfigFields& f, const std::string& type) {
  const int64_t h = f.size({"d_model"});
  const int64_t d_kv = f.size({"d_kv"});
  const int64_t d_ff = f.size({"d_ff"});
  const int64_t heads = f.size({"num_heads"});
  const int64_t enc_layers = f.size({"num_layers"});
  const int64_t dec_layers = f.optional_size("num_decoder_layers", enc_layers, 1);
  const int64_t vocab = f.size({"vocab_size"});
  const int64_t buckets = f.optional_size("relative_attention_num_buckets", 32, 1);
  const std::string ff = f.text("feed_forward_proj", "relu");
  const bool tie = f.flag("tie_word_embeddings", type != "mt5");
  const double dropout = f.probability("dropout_rate", 0.1);
  if (!f.ok()) return std::nullopt;
  const bool gated = ff.rfind("gated-", 0) == 0;
  const int64_t inner = heads * d_kv;
  Architecture a;
  a.model_type = type;
  a.encoder_decoder = true;
  a.vocab_size = vocab;
  a.hidden_size = h;
  a.norm = NormKind::rms_norm;
  a.tie_word_embeddings = tie;
  a.embedding_params = vocab * h;
  a.position_embedding_params = 2 * buckets * heads;  // relative_attention_bias, encoder and decoder
  a.final_norm_params = 2 * h;
  a.lm_head_params = tie ? 0 : vocab * h;
  a.attention_dropout = dropout;
  a.hidden_dropout = dropout;
  a.default_lora_targets = {"q", "v"};
  auto attention = [&](std::vector<Linear>& out) {
    for (const char* n : {"q", "k", "v"}) out.push_back(linear(n, h, inner));
    out.push_back(linear("o", inner, h));
  };
  auto feed_forward = [&](std::vector<Linear>& out) {
    if (gated) {
      out.push_back(linear("wi_0", h, d_ff));
      out.push_back(linear("wi_1", h, d_ff));
    } else {
      out.push_back(linear("wi", h, d_ff));
    }
    out.push_back(linear("wo", d_ff, h));
  };
  for (const bool decoder : {false, true}) {
    LayerGroup g;
    g.name = decoder ? "decoder_layer" : "encoder_layer";
    g.count = decoder ? dec_layers : enc_layers;
    g.stack = decoder ? Stack::decoder : Stack::encoder;
    attention(g.linears);
    if (decoder) attention(g.linears);  // cross-attention
    feed_forward(g.linears);
    for (int i = 0; i < (decoder ? 3 : 2); ++i) g.norms.push_back({"layer_norm", h, false});
    g.attention.num_attention_heads = heads;
    g.attention.num_key_value_heads = heads;
    g.attention.head_dim = d_kv;
    g.attention.v_head_dim = d_kv;
    g.attention.cross_attention = decoder;
    g.attention.kv_cache_elements_per_token = 2 * heads * d_kv;
    g.mlp.gated = gated;
    g.mlp.intermediate_size = d_ff;
    a.layers.push_back(g);
  }
  return a;
}

const std::map<std::string, Importer>& importers() {
  static const std::map<std::string, Importer> table{
      {"llama", llama},         {"mistral", llama},     {"mixtral", mixtral},     {"qwen2", qwen2},
      {"qwen2_moe", qwen2},     {"qwen3", qwen3},       {"qwen3_moe", qwen3},     {"gemma", gemma},
      {"gemma2", gemma},        {"gemma3_text", gemma}, {"phi3", phi3},           {"olmo2", olmo2},
      {"deepseek_v2", deepseek}, {"deepseek_v3", deepseek}, {"gpt2", gpt2},       {"gpt_neox", gpt_neox},
      {"falcon", falcon},       {"bloom", bloom},       {"bert", bert},           {"t5", t5},
      {"mt5", t5},
  };
  return table;
}

// The parameter count in doubles (no integer overflow however large the shapes), against the limit.
bool within_limits(const Architecture& a) {
  double total = static_cast<double>(a.embedding_params) + static_cast<double>(a.position_embedding_params) +
                 static_cast<double>(a.lm_head_params);
  for (const auto& g : a.layers) {
    double layer = 0;
    for (const auto& l : g.linears)
      layer += static_cast<double>(l.in_features) * static_cast<double>(l.out_features) * static_cast<double>(l.copies);
    total += layer * static_cast<double>(g.count);
  }
  return total <= kMaxParameters;
}

}  // namespace

const std::vector<std::string>& supported_model_types() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& [k, v] : importers()) n.push_back(k);
    n.push_back("gemma3");  // multimodal wrapper, read through its text_config
    std::sort(n.begin(), n.end());
    return n;
  }();
  return names;
}

std::optional<Architecture> import_hf_config(const json& config, const std::string& path, Errors& errors) {
  if (!config.is_object()) {
    errors.push_back({error_code::wrong_type, path, path + " must be a config.json object, got " + type_name(config)});
    return std::nullopt;
  }
  const json* source = &config;
  std::string source_path = path;
  json text_copy;
  auto read_type = [&](const json& obj, const std::string& at, std::string& out) {
    auto t = obj.find("model_type");
    if (t == obj.end() || t->is_null()) return true;
    if (!t->is_string()) {
      errors.push_back({error_code::wrong_type, join_path(at, "model_type"),
                        join_path(at, "model_type") + " must be a string, got " + type_name(*t)});
      return false;
    }
    out = t->get<std::string>();
    return true;
  };
  std::string type;
  if (!read_type(config, path, type)) return std::nullopt;
  auto text_it = config.find("text_config");
  if (text_it != config.end() && !text_it->is_null()) {
    if (!text_it->is_object()) {
      errors.push_back({error_code::wrong_type, join_path(path, "text_config"),
                        join_path(path, "text_config") + " must be an object, got " + type_name(*text_it)});
      return std::nullopt;
    }
    // Multimodal configs: the language model sits in text_config; its model_type may be absent.
    text_copy = *text_it;
    std::string text_type;
    if (!read_type(text_copy, join_path(path, "text_config"), text_type)) return std::nullopt;
    if (text_type.empty()) text_type = type == "gemma3" ? "gemma3_text" : type;
    if (text_type == "gemma3_text") gemma3_text_defaults(text_copy);
    text_copy["model_type"] = text_type;
    type = text_type;
    source = &text_copy;
    source_path = join_path(path, "text_config");
  } else if (type == "gemma3") {
    errors.push_back({error_code::missing_field, join_path(path, "text_config"),
                      "model_type \"gemma3\" is multimodal: its text model is read from text_config, which is missing"});
    return std::nullopt;
  }
  if (type.empty()) {
    errors.push_back({error_code::missing_field, join_path(path, "model_type"),
                      join_path(path, "model_type") + " is missing: it names the architecture family"});
    return std::nullopt;
  }
  auto it = importers().find(type);
  if (it == importers().end()) {
    std::string list;
    for (const auto& n : supported_model_types()) list += (list.empty() ? "" : ", ") + n;
    const std::string near = closest_match(type, supported_model_types());
    errors.push_back({error_code::unsupported_model_type, join_path(source_path, "model_type"),
                      "model_type \"" + type + "\" is not supported; supported: " + list +
                          (near.empty() ? "" : "; closest: \"" + near + "\"")});
    return std::nullopt;
  }
  ConfigFields fields(*source, source_path, errors);
  std::optional<Architecture> a = it->second(fields, type);
  if (a && !within_limits(*a)) {
    errors.push_back({error_code::out_of_range, source_path,
                      source_path + " describes a model of more than 1e15 parameters; the limit is 1e15"});
    return std::nullopt;
  }
  return a;
}

}  // namespace trainmem::json_io
