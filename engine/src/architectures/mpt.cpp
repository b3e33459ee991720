// MPT: transformers src/transformers/models/mpt/modeling_mpt.py, checked at commit
// 4352620161a5f53911ddc19dbfa1bd76d92c93be (MptAttention: one fused Wqkv (d -> 3d) and out_proj,
// both without bias, every head with its own k and v; MptMLP: up_proj, GELU, down_proj without bias;
// MptBlock: norm_1 and norm_2 LayerNorms whose bias is removed ("backward compatibility with weights
// on the Hub"), likewise norm_f; ALiBi positions, so no position table; lm_head tied to wte).
// Keys as MptConfig names them (d_model, n_heads, n_layers, expansion_ratio); transformers' MptMLP
// at that commit is 4 x d_model wide, the expansion_ratio of every published MPT, which is read here.
#include "decoder_layout.hpp"
#include "families.hpp"

namespace trainmem::architectures {

std::optional<Architecture> mpt(ConfigFields& f, const std::string& model_type) {
  DecoderLayout r;
  read_shape(f, r, {"d_model", "hidden_size"}, {"n_layers", "num_hidden_layers"}, {"n_heads", "num_attention_heads"});
  r.intermediate = static_cast<std::int64_t>(f.number("expansion_ratio", 4, 1, 64) * static_cast<double>(r.hidden));
  r.vocab = f.size({"vocab_size"});
  r.max_positions = f.optional_size("max_seq_len", 0);
  r.tie = f.flag("tie_word_embeddings", true);
  r.norm = NormKind::layer_norm;
  r.norm_bias = false;
  r.fused_qkv = "Wqkv";
  r.o_name = "out_proj";
  r.gated = false;
  r.fc1 = "up_proj";
  r.fc2 = "down_proj";
  r.lora_targets = {"Wqkv"};  // PEFT's mapping for "mpt"
  r.layers_prefix = "transformer.blocks";
  r.attention_parent = "attn";
  r.mlp_parent = "ffn";
  r.embedding_module = "transformer.wte";
  r.alibi = true;  // MptModel.build_mpt_alibi_tensor: transformers' MPT has no other position scheme
  return finish(f, model_type, r);
}

}  // namespace trainmem::architectures
