// BERT encoder: transformers src/transformers/models/bert/modeling_bert.py, checked at commit
// 004ad5f50b627b59bf0d581c31bc0052b6cfd40b (BertModel with
// its pooler: query/key/value/dense with bias, intermediate and output dense, two LayerNorms per
// layer, word + position + token-type embeddings and their LayerNorm). Trained with a small task
// head, so the architecture has no vocabulary-sized output.
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> bert(ConfigFields& f, const std::string& model_type) {
  const std::int64_t h = f.size({"hidden_size"});
  const std::int64_t layers = f.size({"num_hidden_layers"});
  const std::int64_t heads = f.size({"num_attention_heads"});
  const std::int64_t inter = f.size({"intermediate_size"});
  const std::int64_t vocab = f.size({"vocab_size"});
  const std::int64_t positions = f.optional_size("max_position_embeddings", 512, 1);
  const std::int64_t types = f.optional_size("type_vocab_size", 2, 0);
  const double hidden_dropout = f.probability("hidden_dropout_prob", 0.1);
  const double attention_dropout = f.probability("attention_probs_dropout_prob", 0.1);
  heads_divide_hidden(f, h, heads, "num_attention_heads");
  if (!f.ok()) return std::nullopt;
  Architecture a;
  a.model_type = model_type;
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
  // RoBERTa's position ids count from padding_idx + 1 (transformers modeling_roberta.py
  // create_position_ids_from_input_ids: cumsum of the non-padding mask + padding_idx), so its table
  // of max_position_embeddings rows (514) holds max_position_embeddings - pad_token_id - 1 tokens (512).
  const bool roberta = model_type == "roberta" || model_type == "xlm-roberta";
  const std::int64_t pad = roberta ? f.optional_size("pad_token_id", 1, 0) : 0;
  a.max_position_embeddings = roberta ? positions - pad - 1 : positions;
  if (roberta && a.max_position_embeddings < 1) {
    f.fail("max_position_embeddings", error_code::out_of_range,
           "max_position_embeddings = " + std::to_string(positions) + " leaves no position after padding_idx " + std::to_string(pad) +
               " (RoBERTa's position ids start at pad_token_id + 1)");
    return std::nullopt;
  }
  a.learned_positions = true;
  a.default_lora_targets = {"query", "value"};
  a.embedding_module = "embeddings.word_embeddings";
  a.lm_head_module = "";  // no vocabulary-sized head
  a.attention_dropout = attention_dropout;
  a.hidden_dropout = hidden_dropout;
  LayerGroup g;
  g.name = "layer";
  g.count = layers;
  g.stack = Stack::encoder;
  g.prefix = "encoder.layer";
  g.linears = {linear("query", h, h, true), linear("key", h, h, true), linear("value", h, h, true),
               linear("dense", h, h, true), linear("dense", h, inter, true), linear("dense", inter, h, true)};
  for (const auto& [i, parent] : {std::pair{0, "attention.self"}, {1, "attention.self"}, {2, "attention.self"},
                                  {3, "attention.output"}, {4, "intermediate"}, {5, "output"}})
    g.linears[static_cast<std::size_t>(i)].parent = parent;
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

}  // namespace trainmem::architectures
