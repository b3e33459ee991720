// State-space and hybrid models: exact parameter counts against published totals, and the
// activations the selective-scan kernels keep for backward (ssm_activations.hpp cites them).
#include <cmath>
#include <fstream>
#include <sstream>

#include "test_support.hpp"
#include "trainmem/activations.hpp"

using namespace trainmem;
using trainmem::test::hf_config_fixture;
using trainmem::test::total_of;
using trainmem::test::with_config;
using trainmem::test::estimate_from;
using trainmem::test::setup_from;

namespace {

// state-spaces/mamba-<size>-hf config.json (architecture keys).
std::string mamba_hf(int hidden, int layers) {
  return R"({"model_type": "mamba", "hidden_size": )" + std::to_string(hidden) + R"(, "num_hidden_layers": )" +
         std::to_string(layers) + R"(, "state_size": 16, "expand": 2, "conv_kernel": 4, "time_step_rank": "auto",
         "use_bias": false, "use_conv_bias": true, "vocab_size": 50280})";
}

}  // namespace

TEST_CASE("Mamba: in/out projections - conv1d - x_proj - dt_proj - A_log and D - tied head", "[ssm][parameters]") {
  // mamba-130m-hf: hidden 768, d_inner 1536, dt_rank ceil(768 / 16) = 48, N 16:
  //   in_proj 768*3072 = 2,359,296; conv1d 1536*4 + 1536 = 7,680; x_proj 1536*(48 + 32) = 122,880;
  //   dt_proj 48*1536 + 1536 = 75,264; A_log 1536*16 = 24,576; D 1,536; out_proj 1536*768 = 1,179,648;
  //   norm 768 -> 3,771,648 x 24 = 90,519,552; embeddings 50280*768 = 38,615,040; norm_f 768
  //   -> 129,135,360 (state-spaces/mamba-130m-hf).
  CHECK(total_of(mamba_hf(768, 24)) == 129135360);
  CHECK(total_of(mamba_hf(1024, 48)) == 371516416);   // mamba-370m-hf
  CHECK(total_of(mamba_hf(2048, 48)) == 1372178432);  // mamba-1.4b-hf
  // mamba-2.8b-hf, stored verbatim: hidden 2560, 64 layers, time_step_rank 160 -> 2,768,345,600.
  CHECK(total_of(hf_config_fixture("mamba-2.8b-hf.json")) == 2768345600);
}

TEST_CASE("Mamba-2: one in_proj for z - x - B - C and dt - per-head dt_bias - A_log - D - gated norm", "[ssm][parameters]") {
  // Mamba-Codestral-7B: hidden 4096, d_inner 8192, 8 groups of N 128, 128 heads of 64:
  //   in_proj 4096*(2*8192 + 2*8*128 + 128) = 4096*18560 = 76,021,760;
  //   conv1d (8192 + 2048) channels * (4 + 1) = 51,200; dt_bias, A_log, D 3*128 = 384;
  //   gated RMSNorm 8192; out_proj 8192*4096 = 33,554,432; block norm 4096 -> 109,640,064 x 64
  //   = 7,016,964,096; embeddings and untied lm_head 2*32768*4096 = 268,435,456; norm_f 4096
  //   -> 7,285,403,648 (14,570,807,296 bytes of bf16 weights). The config's time_step_limit holds
  //   Python's Infinity: read as written.
  CHECK(total_of(hf_config_fixture("mamba-codestral-7b-v0.1.json")) == 7285403648);
  // A second size, the same layout with one group: hidden 768, 24 layers, 24 heads, tied head,
  // vocab 50288 (state-spaces/mamba2-130m's sizes): in_proj 768*(3072 + 256 + 24) = 2,574,336;
  // conv1d 1792*5 = 8,960; 72; norm 1536; out_proj 1,179,648; block norm 768 -> 3,765,320 x 24
  // = 90,367,680 + 50288*768 + 768 = 128,989,632. Published, rounded: AntonV/mamba2-130m-hf (these
  // config.json values, @97d2a95f2466fec3dbc48fbc16ac63c4a2525d9b) ships model.safetensors of 516 MB in
  // fp32: 4 x 128,989,632 = 515,958,528 bytes (an untied head would add 154 MB).
  const std::int64_t small = total_of(R"({"model_type": "mamba2", "hidden_size": 768, "num_hidden_layers": 24, "num_heads": 24,
    "head_dim": 64, "n_groups": 1, "state_size": 128, "expand": 2, "conv_kernel": 4, "vocab_size": 50288,
    "tie_word_embeddings": true})");
  CHECK(small == 128989632);
  CHECK(std::fabs(4.0 * static_cast<double>(small) - 516e6) <= 0.5e6);
  // mamba2-370m (hidden 1024, 48 layers, 32 heads of 64, one group, N 128, tied): in_proj
  // 1024*(4096 + 256 + 32) = 4,489,216; conv1d 2304*5 = 11,520; 96; norm 2,048; out_proj 2,097,152;
  // block norm 1,024 -> 6,601,056 x 48 = 316,850,688 + 50288*1024 + 1024 = 368,346,624. Published,
  // rounded: the Hub's "Model size 368M params" for its transformers port (rokyang/mamba2-370m-hf).
  const std::int64_t medium = total_of(R"({"model_type": "mamba2", "hidden_size": 1024, "num_hidden_layers": 48, "num_heads": 32,
    "head_dim": 64, "n_groups": 1, "state_size": 128, "expand": 2, "conv_kernel": 4, "vocab_size": 50288,
    "tie_word_embeddings": true})");
  CHECK(medium == 368346624);
  CHECK(std::fabs(static_cast<double>(medium) - 368e6) <= 0.5e6);
}

TEST_CASE("Jamba: attention every 8 layers - experts every 2 - Mamba elsewhere", "[ssm][hybrid][parameters]") {
  // AI21-Jamba-1.5-Mini, stored verbatim. Layers i % 8 == 4 attend (4, 12, 20, 28: all dense since
  // they are even); i % 2 == 1 are MoE (16 layers, all Mamba); 12 dense Mamba layers.
  //   attention: q, o 2*4096^2 + k, v 2*4096*1024 = 41,943,040
  //   Mamba (d_inner 8192, dt_rank 256, N 16): in_proj 67,108,864; conv1d 8192*5 = 40,960;
  //     x_proj 8192*288 = 2,359,296; dt_proj 256*8192 + 8192 = 2,105,344; A_log 131,072; D 8,192;
  //     out_proj 33,554,432; dt/B/C norms 256 + 32 = 288 -> 105,308,448
  //   dense MLP 3*4096*14336 = 176,160,768; MoE router 65,536 + 16 * 176,160,768 = 2,818,637,824
  //   norms 2*4096 per layer
  // 4 * (41,943,040 + 176,160,768 + 8,192) + 12 * (105,308,448 + 176,160,768 + 8,192)
  //   + 16 * (105,308,448 + 2,818,637,824 + 8,192) + 2*65536*4096 + 4096 = 51,570,323,328
  //   = total_size 103,140,646,656 / 2 (bf16) in its model.safetensors.index.json.
  const auto s = setup_from(with_config(hf_config_fixture("ai21-jamba-1.5-mini.json")));
  const Architecture& a = *s.model.architecture;
  CHECK(a.total_params() == 51570323328);
  std::int64_t attention = 0, mamba = 0, moe = 0;
  for (const auto& g : a.layers) {
    (g.mixer == Mixer::attention ? attention : mamba) += g.count;
    if (g.mlp.num_local_experts > 0) moe += g.count;
  }
  CHECK(attention == 4);
  CHECK(mamba == 28);
  CHECK(moe == 16);
}

TEST_CASE("Mamba activations: what mamba_inner_fn saves - not an attention layer's", "[ssm][activations]") {
  // mamba-130m shapes, b = 1, L = 4096 tokens, bf16, no checkpointing, HF framework (unfused RMSNorm):
  // per token: block RMSNorm fp32 input 3072 + normalized 1536 + rstd 4 + output (in_proj's input)
  // 1536; xz 2*1536*2 = 6144; x_dbl (48 + 32)*2 = 160; B and C 2*16*2 = 64; out 1536*2 = 3072
  //   -> 15,588 B x 4096 = 63,848,448; plus the fp32 chunk states 1 x 1536 x ceil(4096 / 2048) x 32 x 4
  //   = 393,216 -> 64,241,664 B per layer.
  const auto s = setup_from(with_config(mamba_hf(768, 24), R"("batch": {"seq_length": 4096}, "precision": {"param_dtype": "bf16"},
    "activation_checkpointing": "none", "framework": "hf_trainer")"));
  const Architecture& a = *s.model.architecture;
  const auto tensors = layer_activations(a.layers.front(), activation_context(s, a, Dtype::bf16));
  CHECK(saved_bytes(tensors) == 64241664.0);
}

TEST_CASE("Mamba-2 activations: zxbcdt - the scan output and the norm's rstd", "[ssm][activations]") {
  // Codestral shapes, b = 1, L = 2048, bf16, per token: the block RMSNorm's fp32 input 16,384 +
  // normalized 8,192 + rstd 4 + output 8,192; zxbcdt 18560*2 = 37,120;
  // out_x 8192*2 = 16,384; rstd 8 groups * 4 = 32 -> 86,308 B x 2048 = 176,758,784 B per layer.
  const auto s = setup_from(with_config(hf_config_fixture("mamba-codestral-7b-v0.1.json"),
                                        R"("batch": {"seq_length": 2048}, "precision": {"param_dtype": "bf16"},
    "activation_checkpointing": "none", "framework": "hf_trainer")"));
  const Architecture& a = *s.model.architecture;
  CHECK(saved_bytes(layer_activations(a.layers.front(), activation_context(s, a, Dtype::bf16))) == 176758784.0);
}

TEST_CASE("Python's NaN and Infinity: read as null inside hf_config - an error elsewhere", "[ssm][errors]") {
  CHECK(trainmem::test::error_fields(R"({"model": {"num_parameters": 1e9}, "batch": {"seq_length": Infinity}})") ==
        std::vector<std::string>{"batch.seq_length"});
  CHECK(total_of(R"({"model_type": "mamba", "hidden_size": 768, "num_hidden_layers": 24, "vocab_size": 50280,
    "time_step_limit": [0.0, Infinity], "time_step_floor": NaN})") == 129135360);
}
