// T5 and mT5 encoder-decoders: transformers src/transformers/models/t5/modeling_t5.py, 4.x releases
// (no biases, RMS-style T5LayerNorm, relative_attention_bias in the first layer of each stack,
// shared embedding, DenseReluDense wi/wo or gated wi_0/wi_1/wo) and models/mt5/modeling_mt5.py
// (untied head by default).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> t5(ConfigFields& f, const std::string& model_type) {
  const std::int64_t h = f.size({"d_model"});
  const std::int64_t d_kv = f.size({"d_kv"});
  const std::int64_t d_ff = f.size({"d_ff"});
  const std::int64_t heads = f.size({"num_heads"});
  const std::int64_t enc_layers = f.size({"num_layers"});
  const std::int64_t dec_layers = f.optional_size("num_decoder_layers", enc_layers, 1);
  const std::int64_t vocab = f.size({"vocab_size"});
  const std::int64_t buckets = f.optional_size("relative_attention_num_buckets", 32, 1);
  const std::string ff = f.text("feed_forward_proj", "relu");
  const bool tie = f.flag("tie_word_embeddings", model_type != "mt5");
  const double dropout = f.probability("dropout_rate", 0.1);
  if (!f.ok()) return std::nullopt;
  const bool gated = ff.rfind("gated-", 0) == 0;
  const std::int64_t inner = heads * d_kv;
  Architecture a;
  a.model_type = model_type;
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
  a.embedding_module = "shared";
  // T5Block: layer.0 self-attention, (decoder) layer.1 cross-attention, last layer the feed-forward.
  auto attention = [&](std::vector<Linear>& out, const std::string& parent) {
    for (const char* n : {"q", "k", "v"}) out.push_back(linear(n, h, inner));
    out.push_back(linear("o", inner, h));
    for (std::size_t i = out.size() - 4; i < out.size(); ++i) out[i].parent = parent;
  };
  auto feed_forward = [&](std::vector<Linear>& out, const std::string& parent) {
    if (gated) {
      out.push_back(linear("wi_0", h, d_ff));
      out.push_back(linear("wi_1", h, d_ff));
    } else {
      out.push_back(linear("wi", h, d_ff));
    }
    out.push_back(linear("wo", d_ff, h));
    for (std::size_t i = out.size() - (gated ? 3 : 2); i < out.size(); ++i) out[i].parent = parent;
  };
  for (const bool decoder : {false, true}) {
    LayerGroup g;
    g.name = decoder ? "decoder_layer" : "encoder_layer";
    g.count = decoder ? dec_layers : enc_layers;
    g.stack = decoder ? Stack::decoder : Stack::encoder;
    g.prefix = decoder ? "decoder.block" : "encoder.block";
    attention(g.linears, "layer.0.SelfAttention");
    if (decoder) attention(g.linears, "layer.1.EncDecAttention");
    feed_forward(g.linears, decoder ? "layer.2.DenseReluDense" : "layer.1.DenseReluDense");
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

}  // namespace trainmem::architectures
