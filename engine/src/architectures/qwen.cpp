// Qwen (v1: Qwen-1.8B/7B/14B/72B, model_type "qwen", remote code): modeling_qwen.py as published
// in the Qwen/Qwen-7B model repository, read in its copy at
// https://github.com/zhangningboo/Qwen-7B/blob/d4efd21e866b9cb3466cb65b963933f5e98016d1/modeling_qwen.py
// QWenAttention: c_attn = nn.Linear(hidden_size, 3 x kv_channels x heads) with bias (the default),
// c_proj without bias (no_bias); QWenMLP: w1 and w2 = nn.Linear(hidden_size, intermediate_size / 2)
// and c_proj = nn.Linear(intermediate_size / 2, hidden_size), without bias (no_bias): the config's
// intermediate_size is twice each matrix's width, and forward is w1(x) * silu(w2(x)); RMSNorm ln_1
// and ln_2 per layer, ln_f; wte and an untied lm_head (QWenLMHeadModel, tie_word_embeddings false).
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> qwen(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  r.hidden = f.size({"hidden_size"});
  r.layers = f.size({"num_hidden_layers"});
  r.heads = f.size({"num_attention_heads"});
  r.kv_heads = r.heads;
  r.head_dim = f.size({"kv_channels"}, 0);
  if (r.head_dim == 0) r.head_dim = heads_divide_hidden(f, r.hidden, r.heads, "num_attention_heads");
  const std::int64_t intermediate = f.size({"intermediate_size"});
  if (f.ok() && intermediate % 2 != 0)
    f.fail("intermediate_size", error_code::not_divisible,
           f.field("intermediate_size") + " = " + std::to_string(intermediate) +
               " must be even: QWenMLP's w1, w2 and c_proj are intermediate_size / 2 wide",
           {{"divisor", 2.0}, {"of", "intermediate_size"}, {"value", static_cast<double>(intermediate)}});
  r.intermediate = intermediate / 2;
  r.vocab = f.size({"vocab_size"});
  r.tie = f.flag("tie_word_embeddings", false);
  r.max_positions = f.optional_size("max_position_embeddings", f.optional_size("seq_length", 0));
  r.attention_dropout = f.probability("attn_dropout_prob", 0.0);
  const bool bias = !f.flag("no_bias", true);
  r.fused_qkv = "c_attn";
  r.qkv_bias = true;  // c_attn keeps nn.Linear's default bias whatever no_bias says
  r.o_name = "c_proj";
  r.o_bias = bias;
  r.gate = "w2";  // silu is applied to w2's output
  r.up = "w1";
  r.down = "c_proj";
  r.mlp_bias = bias;
  r.layers_prefix = "transformer.h";
  r.attention_parent = "attn";
  r.embedding_module = "transformer.wte";
  r.lora_targets = {"c_attn"};  // PEFT has no default for "qwen": the fused q/k/v projection
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
