// Activations tensor by tensor: Korthikanti et al. 2022 (Table 2) and hand-added blocks.
#include "test_support.hpp"

#include "trainmem/activations.hpp"

using namespace trainmem;
using trainmem::test::estimate_from;
using trainmem::test::setup_from;

namespace {

// A GPT-style block as in Korthikanti et al.: LayerNorm, MHA, GeLU MLP of 4h, dropout 0.1.
// h = 64, a = 4 heads, 2 layers.
const std::string kGptStyle = R"({"model_type": "gpt2", "n_embd": 64, "n_layer": 2, "n_head": 4, "n_positions": 64,
  "vocab_size": 128, "attn_pdrop": 0.1, "resid_pdrop": 0.1})";
// A Llama-style block: RMSNorm, GQA (4 heads, 2 kv heads, head_dim 16), SwiGLU of 128, no dropout.
const std::string kLlamaStyle = R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
  "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 128})";

std::vector<SavedTensor> block(const std::string& cfg, const std::string& extra) {
  const TrainingSetup s = setup_from(R"({"model": {"hf_config": )" + cfg + "}, " + extra + "}");
  const Architecture& a = *s.model.architecture;
  return layer_activations(a.layers.front(), activation_context(s, a, Dtype::bf16));
}

double without_norm_statistics(const std::vector<SavedTensor>& tensors) {
  double total = 0;
  for (const auto& t : tensors)
    if (!t.recomputed && std::string(t.name) != "statistics") total += t.bytes;
  return total;
}

double norm_statistics(const std::vector<SavedTensor>& tensors) {
  double total = 0;
  for (const auto& t : tensors)
    if (!t.recomputed && std::string(t.name) == "statistics") total += t.bytes;
  return total;
}

constexpr double s = 32, b = 2, h = 64, a = 4;

}  // namespace

TEST_CASE("Korthikanti Table 2: s b h (34 + 5 a s / h) bytes per GPT layer", "[activations][paper]") {
  // Megatron keeps the softmax in 16 bits and fuses the norms, as the paper assumes.
  const std::string base = R"("framework": "megatron", "attention": "eager", "batch": {"micro_batch_size": 2, "seq_length": 32})";
  SECTION("no parallelism") {
    const auto t = block(kGptStyle, base);
    CHECK(without_norm_statistics(t) == s * b * h * (34 + 5 * a * s / h));  // 180,224
    // Korthikanti ignores the LayerNorms' fp32 mean and rstd: 2 norms x 8 bytes per token.
    CHECK(norm_statistics(t) == 2 * 8 * s * b);
  }
  SECTION("tensor parallel t = 2: s b h (10 + 24/t + 5 a s / (h t))") {
    const auto t = block(kGptStyle, base + R"(, "parallel": {"tensor_parallel_size": 2})");
    CHECK(without_norm_statistics(t) == s * b * h * (10 + 24.0 / 2 + 5 * a * s / (h * 2)));
  }
  SECTION("tensor + sequence parallel: s b h (34/t + 5 a s / (h t))") {
    const auto t = block(kGptStyle, base + R"(, "parallel": {"tensor_parallel_size": 2, "sequence_parallel": true})");
    CHECK(without_norm_statistics(t) == s * b * h * (34.0 / 2 + 5 * a * s / (h * 2)));
  }
  SECTION("selective recompute with sequence parallel: 34 s b h / t") {
    const auto t = block(kGptStyle, base + R"(, "activation_checkpointing": "selective",
      "parallel": {"tensor_parallel_size": 2, "sequence_parallel": true})");
    CHECK(without_norm_statistics(t) == s * b * h * 34 / 2);
  }
  SECTION("full recompute: the layer input, 2 s b h") {
    const auto t = block(kGptStyle, base + R"(, "activation_checkpointing": "full")");
    CHECK(saved_bytes(t) == 2 * s * b * h);
  }
}

TEST_CASE("Llama-style block by hand: RMSNorm, GQA, SwiGLU, no dropout, flash", "[activations]") {
  // Per token, bf16 (HF eager Python RMSNorm keeps an fp32 input copy and the normalized tensor):
  //   attention norm: 4h (fp32 input) + 2h (normalized) + 4 (rstd); its output 2h
  //   q 2 x 4 x 16 = 2h; k, v 2 x 2 x 16 each = 64 + 64; log-sum-exp 4 x 4 heads = 16; output 2h
  //   MLP norm: 4h + 2h + 4; its output 2h
  //   gate, up, SiLU output, down input: 4 x 2 x 128 = 1024
  // = 20h + 128 + 16 + 8 + 1024 = 2456 bytes per token; 64 tokens -> 157,184
  const auto t = block(kLlamaStyle, R"("attention": "flash", "batch": {"micro_batch_size": 2, "seq_length": 32})");
  CHECK(saved_bytes(t) == 2456.0 * 64);
}

TEST_CASE("torchtitan op-level SAC caches every odd matmul's output, the attention kernel's and the block input (Llama-3.1-8B by hand)",
          "[activations]") {
  // torchtitan's policy saves aten.mm outputs except every second one in the block's order
  // (q 1, k 2, v 3, o 4, gate 5, up 6, down 7: q, v, gate and down kept), the SDPA outputs, and
  // the checkpoint keeps the block input. 8,192 tokens, bf16, h 4,096, kv 1,024, MLP 14,336:
  //   input 8192 x 4096 x 2 = 67,108,864; q 67,108,864; v 8192 x 1024 x 2 = 16,777,216;
  //   gate 8192 x 14336 x 2 = 234,881,024; down 67,108,864; attention output 67,108,864;
  //   log-sum-exp 8192 x 32 heads x 4 = 1,048,576: 521,142,272 bytes per layer.
  const std::string doc = R"({"model": {"preset": "llama-3.1-8b"}, "framework": "torchtitan", "activation_checkpointing": "selective",
    "selective_policy": "op_level", "batch": {"micro_batch_size": 1, "seq_length": 8192})";
  const auto layer = [](const std::string& d) {
    const TrainingSetup st = setup_from(d);
    const Architecture& arch = *st.model.architecture;
    return saved_bytes(layer_activations(arch.layers.front(), activation_context(st, arch, Dtype::bf16)));
  };
  CHECK(layer(doc + "}") == 521'142'272.0);
  // TP 2 with sequence parallelism: the input and the attention kernel's outputs split by 2, the
  // column-parallel q, v, gate by 2, down's output whole on each rank (partial sums before the
  // reduce-scatter), and the reduce-scattered outputs of o and down (reduce_scatter_tensor is
  // saved), 8192 / 2 x 4096 x 2 = 33,554,432 each:
  //   33,554,432 + 33,554,432 + 8,388,608 + 117,440,512 + 67,108,864 + 2 x 33,554,432
  //   + 33,554,432 + 524,288 = 361,234,432.
  CHECK(layer(doc + R"(, "parallel": {"world_size": 2, "tensor_parallel_size": 2, "sequence_parallel": true}})") == 361'234'432.0);
}

TEST_CASE("FP8 under Transformer Engine: the linears keep their FP8 inputs (Llama-3-70B, Megatron TP 4 + SP, by hand)",
          "[activations][fp8]") {
  // Llama-3-70B (h 8192, 64 heads / 8 kv heads of 128, SwiGLU 28672), one sequence of 8192 tokens,
  // TP 4 with sequence parallelism: every tensor is split 4 ways. Megatron's fused norm + linear
  // keep the norm's bf16 input, its fp32 rstd and its FP8 output; flash keeps q, k, v, the fp32
  // log-sum-exp and its bf16 output, beside which the output projection keeps its FP8 copy; the
  // fused SwiGLU keeps gate and up, fc2 its FP8 input. Bytes per token and rank:
  //   norms: 2 x (2h + 4 + h) / 4 = 2 x 6,145 = 12,290
  //   q 2h/4 = 4,096; k, v 2 x 1024 / 4 = 512 each; lse 4 x 64 / 4 = 64; output 2h/4 + h/4 = 6,144
  //   gate, up 2 x 2 x 28672 / 4 = 28,672; fc2 input 28672 / 4 = 7,168
  //   = 59,458 bytes per token; x 8192 = 487,079,936 (bf16 inputs: 562,577,408).
  const std::string doc = R"({"model": {"preset": "llama-3-70b"}, "framework": "megatron", "batch": {"micro_batch_size": 1,
    "seq_length": 8192}, "parallel": {"world_size": 4, "tensor_parallel_size": 4, "sequence_parallel": true}, "precision": {)";
  const auto per_layer = [&](const std::string& precision) {
    const TrainingSetup s = setup_from(doc + precision + "}}");
    const Architecture& arch = *s.model.architecture;
    return saved_bytes(layer_activations(arch.layers.front(), activation_context(s, arch, Dtype::bf16)));
  };
  CHECK(per_layer(R"("fp8_compute": true)") == 59458.0 * 8192);
  CHECK(per_layer(R"("param_dtype": "bf16")") == 562577408.0);
  // torchao's Float8Linear (torchtitan) keeps its 16-bit input: no change.
  const TrainingSetup titan = setup_from(R"({"model": {"preset": "llama-3-70b"}, "framework": "torchtitan", "batch": {"micro_batch_size": 1,
    "seq_length": 8192}, "parallel": {"world_size": 4, "tensor_parallel_size": 4, "sequence_parallel": true}, "precision": {"fp8_compute": true}})");
  const TrainingSetup titan16 = setup_from(R"({"model": {"preset": "llama-3-70b"}, "framework": "torchtitan", "batch": {"micro_batch_size": 1,
    "seq_length": 8192}, "parallel": {"world_size": 4, "tensor_parallel_size": 4, "sequence_parallel": true}})");
  const Architecture& arch = *titan.model.architecture;
  CHECK(saved_bytes(layer_activations(arch.layers.front(), activation_context(titan, arch, Dtype::bf16))) ==
        saved_bytes(layer_activations(arch.layers.front(), activation_context(titan16, arch, Dtype::bf16))));
}

TEST_CASE("GPT-2 block by hand: HF eager, LayerNorm, gelu_new, dropout", "[activations]") {
  // Per token: LN inputs 2 x 2h, LN outputs 2 x 2h, q k v 6h, output 2h, fc1 out 8h, GELU out 8h,
  // two residual dropout masks 2 x h (1 byte) = 34h, and what GPT-2's gelu_new (NewGELUActivation,
  // Python arithmetic) keeps beside fc1's output: 0.5x, tanh's output and 1 + tanh, 3 x 8h = 24h;
  // per query: softmax 2as + dropout mask as + dropout output 2as = 5as (GPT2Attention keeps the
  // softmax in bf16); LN mean+rstd 2 x 8 bytes.
  const auto t = block(kGptStyle, R"("attention": "eager", "batch": {"micro_batch_size": 2, "seq_length": 32})");
  CHECK(saved_bytes(t) == (58 * h + 5 * a * s + 16) * s * b);
}

TEST_CASE("Llama eager attention keeps fp32 probabilities and the cast copy, repeated k/v", "[activations]") {
  const auto flash = block(kLlamaStyle, R"("attention": "flash", "batch": {"micro_batch_size": 2, "seq_length": 32})");
  const auto eager = block(kLlamaStyle, R"("attention": "eager", "batch": {"micro_batch_size": 2, "seq_length": 32})");
  // eager - flash = scores (4 + 2) a s^2 b + k/v repeated to all heads (2 x 2 x (64 - 32) per token)
  //                 - log-sum-exp (4 a per token)
  const double expected = 6 * a * s * s * b + (2 * 2 * (64 - 32)) * s * b - 4 * a * s * b;
  CHECK(saved_bytes(eager) - saved_bytes(flash) == expected);
}

TEST_CASE("doubling seq_length doubles hidden activations and quadruples the eager s^2 term", "[activations]") {
  auto doc = [](int seq, const char* attention) {
    return std::string(R"("attention": ")") + attention + R"(", "batch": {"micro_batch_size": 1, "seq_length": )" +
           std::to_string(seq) + "}";
  };
  CHECK(saved_bytes(block(kLlamaStyle, doc(64, "flash"))) == 2 * saved_bytes(block(kLlamaStyle, doc(32, "flash"))));
  auto scores = [](const std::vector<SavedTensor>& t) {
    double total = 0;
    for (const auto& x : t)
      if (x.role == TensorRole::attention_core) total += x.bytes;
    return total;
  };
  CHECK(scores(block(kLlamaStyle, doc(64, "eager"))) == 4 * scores(block(kLlamaStyle, doc(32, "eager"))));
}

TEST_CASE("checkpointing never raises activations: full <= selective <= none", "[activations][property]") {
  for (const char* attention : {"flash", "eager"}) {
    for (const char* cfg : {kLlamaStyle.c_str(), kGptStyle.c_str()}) {
      auto acts = [&](const char* mode) {
        return *estimate_from(R"({"model": {"hf_config": )" + std::string(cfg) + R"(}, "attention": ")" + attention +
                              R"(", "activation_checkpointing": ")" + mode + R"(", "batch": {"seq_length": 64}})")
                    .per_gpu.activations;
      };
      CAPTURE(attention, cfg);
      CHECK(acts("full") <= acts("selective"));
      CHECK(acts("selective") <= acts("none"));
      CHECK(acts("full") < acts("none"));
    }
  }
}

TEST_CASE("activations scale linearly with micro-batch; gradient accumulation does not raise them", "[activations][faults]") {
  // A batch-blind estimator gives the same answer for batch 1 and 8.
  auto acts = [](int mbs, int ga) {
    return *estimate_from(R"({"model": {"hf_config": )" + kLlamaStyle + R"(}, "batch": {"micro_batch_size": )" +
                          std::to_string(mbs) + R"(, "seq_length": 64, "gradient_accumulation_steps": )" + std::to_string(ga) + "}}")
                .per_gpu.activations;
  };
  CHECK(acts(8, 1) == 8 * acts(1, 1));
  CHECK(acts(1, 16) == acts(1, 1));
}

TEST_CASE("Llama-2-7B shapes, GPT-style formula: 956,301,312 bytes per layer, 28.5 GiB for 32 (huggingface/accelerate#2512, manuelescobar-dev/LLM-Tools#4)", "[activations][faults]") {
  // Korthikanti at h 4096, a 32, s 2048, b 1: 2048 x 4096 x (34 + 80) = 956,301,312 B per layer;
  // the total multiplies by the 32 layers (LLM-Tools multiplied by 4 bytes and forgot L).
  const std::string cfg = R"({"model_type": "gpt2", "n_embd": 4096, "n_layer": 32, "n_head": 32, "n_positions": 2048,
    "vocab_size": 32000, "attn_pdrop": 0.1, "resid_pdrop": 0.1})";
  const TrainingSetup st = setup_from(R"({"model": {"hf_config": )" + cfg + R"(}, "framework": "megatron",
    "attention": "eager", "batch": {"micro_batch_size": 1, "seq_length": 2048}})");
  const Architecture& arch = *st.model.architecture;
  const auto t = layer_activations(arch.layers.front(), activation_context(st, arch, Dtype::bf16));
  CHECK(without_norm_statistics(t) == 956301312.0);
  CHECK(32 * without_norm_statistics(t) / trainmem::test::GiB == Approx(28.5).epsilon(0.001));
}

TEST_CASE("ZeRO/FSDP do not shard activations (furiousteabag/vram-calculator 6e816e7)", "[activations][faults]") {
  auto acts = [](int gpus) {
    return *estimate_from(R"({"model": {"hf_config": )" + kLlamaStyle + R"(}, "batch": {"seq_length": 64},
      "parallel": {"world_size": )" + std::to_string(gpus) + R"(, "zero_stage": 3}})")
                .per_gpu.activations;
  };
  CHECK(acts(1) == acts(8));
}

TEST_CASE("MoE activations follow num_experts_per_tok, not one dense MLP (NVIDIA/Megatron-LM#1784)", "[activations][faults]") {
  auto moe = [](int top_k) {
    return R"({"model_type": "mixtral", "hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
      "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 128, "num_local_experts": 4,
      "num_experts_per_tok": )" + std::to_string(top_k) + "}";
  };
  const std::string batch = R"("batch": {"micro_batch_size": 1, "seq_length": 32})";
  // One more expert per token adds, per token: the dispatched copy 2h and the expert MLP's
  // gate, up, SiLU output and down input 4 x 2 x 128.
  const double per_token = 2 * 64 + 4 * 2 * 128;
  CHECK(saved_bytes(block(moe(2), batch)) - saved_bytes(block(moe(1), batch)) == per_token * 32);
}

TEST_CASE("pipeline schedules: 1F1B keeps p micro-batches on the first stage, GPipe all m", "[activations][parallel]") {
  auto run = [](const char* schedule) {
    return estimate_from(R"({"model": {"hf_config": )" + kLlamaStyle + R"(}, "batch": {"seq_length": 4096,
      "gradient_accumulation_steps": 8}, "parallel": {"pipeline_parallel_size": 2, "pipeline_schedule": ")" + schedule + R"("}})");
  };
  // One layer per stage, m = 8 micro-batches. 1F1B: the first stage holds min(p, m) = 2 and is the
  // most loaded. GPipe: every stage holds all 8 (the last one also the head's inputs).
  const auto one_f_one_b = run("1f1b");
  CHECK(one_f_one_b.per_gpu.pipeline_stage == 0);
  CHECK(*one_f_one_b.per_gpu.activations == 2 * *one_f_one_b.per_gpu.activations_per_layer);
  const auto gpipe = run("gpipe");
  CHECK(*gpipe.per_gpu.activations >= 8 * *gpipe.per_gpu.activations_per_layer);
}

TEST_CASE("context parallel divides the sequence", "[activations][parallel]") {
  auto acts = [](int cp) {
    return *estimate_from(R"({"model": {"hf_config": )" + kLlamaStyle + R"(}, "batch": {"seq_length": 4096},
      "parallel": {"context_parallel_size": )" + std::to_string(cp) + "}}")
                .per_gpu.activations;
  };
  CHECK(acts(2) * 2 == Approx(acts(1)));
}

TEST_CASE("with fp32 activations the fp32 softmax output is the probabilities: one copy", "[activations]") {
  auto layer = [](const char* attention) {
    const TrainingSetup st = setup_from(R"({"model": {"hf_config": )" + kLlamaStyle + R"(}, "attention": ")" + attention +
                                        R"(", "batch": {"micro_batch_size": 2, "seq_length": 32}})");
    const Architecture& arch = *st.model.architecture;
    return layer_activations(arch.layers.front(), activation_context(st, arch, Dtype::fp32));
  };
  // eager - flash in fp32 = one fp32 score tensor 4 a s^2 b (softmax(dtype=float32).to(float32) is
  // the same tensor) + k/v repeated to all heads (2 x 4 x (64 - 32) per token) - log-sum-exp (4 a per token)
  const double expected = 4 * a * s * s * b + (2 * 4 * (64 - 32)) * s * b - 4 * a * s * b;
  CHECK(saved_bytes(layer("eager")) - saved_bytes(layer("flash")) == expected);
}

TEST_CASE("eager attention's scores and their fp32 copy are a forward transient", "[activations]") {
  // Llama-style, b = 2, s = 512, 4 heads, bf16: one layer's scores b a s^2 = 2,097,152 elements in
  // bf16 (2 B) plus the softmax input's fp32 copy (4 B): 12,582,912 B above the saved activations,
  // more than the loss's 10 B x 1,024 tokens x 128 vocabulary = 1,310,720 B at the end of forward.
  // The HF Trainer freed the gradients after the last step (zero_grad set_to_none): forward holds
  // the weights and optimizer states only, beside PyTorch's two cuBLAS workspaces (no GPU named:
  // 2 x 8,519,680 B, cublas_workspaces.hpp): 12,582,912 + 17,039,360 = 29,622,272 B.
  const auto e = estimate_from(R"({"model": {"hf_config": )" + kLlamaStyle + R"(}, "attention": "eager",
    "batch": {"micro_batch_size": 2, "seq_length": 512}})");
  const double states_without_gradients = e.per_gpu.parameters + e.per_gpu.optimizer_states;
  CHECK(e.per_gpu.phases->forward - states_without_gradients - *e.per_gpu.activations == 29622272.0);
}

namespace {

double saved_named(const std::vector<SavedTensor>& tensors, const std::string& name) {
  double total = 0;
  for (const auto& t : tensors)
    if (!t.recomputed && name == t.name) total += t.bytes;
  return total;
}

}  // namespace

TEST_CASE("autocast over fp32 weights: fp32 hidden states, and each linear keeps its own 16-bit cast of a norm's output",
          "[activations][autocast]") {
  // The HF Trainer's --bf16 on an fp32 Llama-style model without FSDP: T = b s = 64 tokens, h = 64.
  const std::string batch = R"("framework": "hf_trainer", "attention": "flash", "batch": {"micro_batch_size": 2, "seq_length": 32})";
  const auto autocast = block(kLlamaStyle, batch + R"(, "precision": {"param_dtype": "fp32", "compute_dtype": "bf16"})");
  const auto bf16 = block(kLlamaStyle, batch + R"(, "precision": {"param_dtype": "bf16"})");
  const double T = 64;
  // LlamaRMSNorm casts x.to(float32) * rsqrt back to x's dtype, fp32 here: two norms, T h x 4 B each.
  CHECK(saved_named(autocast, "normalized") == 2 * T * h * 4);
  CHECK(saved_named(bf16, "normalized") == 2 * T * h * 2);
  // q, k and v each cast the attention norm's output (o_proj reads the attention output), gate and
  // up the MLP norm's: 5 casts of T h x 2 B, where bf16 weights share one output per norm.
  CHECK(saved_named(autocast, "linear_input_casts") == 5 * T * h * 2);
  const auto norm_outputs = [](const std::vector<SavedTensor>& tensors) {
    double total = 0;
    for (const auto& t : tensors)
      if (t.role == TensorRole::norm_output) total += t.bytes;
    return total;
  };
  CHECK(norm_outputs(autocast) == 5 * T * h * 2);
  CHECK(norm_outputs(bf16) == 2 * T * h * 2);
  // Everything else (q, k, v, attention output, the MLP's 16-bit tensors) is the same.
  CHECK(saved_bytes(autocast) - saved_bytes(bf16) == 2 * T * h * 2 + (5 - 2) * T * h * 2);  // 40,960 B
  SECTION("full recompute keeps the fp32 block input") {
    const std::string full = R"(, "activation_checkpointing": "full")";
    CHECK(saved_bytes(block(kLlamaStyle, batch + full + R"(, "precision": {"param_dtype": "fp32", "compute_dtype": "bf16"})")) == T * h * 4);
    CHECK(saved_bytes(block(kLlamaStyle, batch + full + R"(, "precision": {"param_dtype": "bf16"})")) == T * h * 2);
  }
  SECTION("FSDP's MixedPrecision and ZeRO-3 hand the forward 16-bit weights: no autocast") {
    const std::string fp32_bf16 = R"(, "precision": {"param_dtype": "fp32", "compute_dtype": "bf16"})";
    CHECK(saved_bytes(block(kLlamaStyle, batch + fp32_bf16 + R"(, "parallel": {"world_size": 2, "zero_stage": 2})")) == saved_bytes(bf16));
    CHECK(saved_bytes(block(kLlamaStyle, R"("framework": "deepspeed", "attention": "flash", "batch": {"micro_batch_size": 2, "seq_length": 32})" +
                                             fp32_bf16 + R"(, "parallel": {"world_size": 2, "zero_stage": 3})")) == saved_bytes(bf16));
  }
}

TEST_CASE("eager attention under autocast: softmax keeps its fp32 output; the matmul keeps the dropout's 16-bit output",
          "[activations][autocast]") {
  // GPT-style block, attention dropout 0.1: b a s^2 = 2 x 4 x 32 x 32 = 8,192 scores. Under autocast
  // softmax runs in fp32 (4 B kept), the dropout keeps its mask (1 B) and the matmul with v its
  // 16-bit input (2 B): 7 B a score, where fp16 weights keep 2 + 1 + 2.
  const std::string batch = R"("framework": "hf_trainer", "attention": "eager", "batch": {"micro_batch_size": 2, "seq_length": 32})";
  const auto scores = [](const std::vector<SavedTensor>& tensors) {
    double total = 0;
    for (const auto& t : tensors)
      if (t.role == TensorRole::attention_core) total += t.bytes;
    return total;
  };
  CHECK(scores(block(kGptStyle, batch + R"(, "precision": {"param_dtype": "fp32", "compute_dtype": "fp16"})")) == 8192.0 * 7);
  CHECK(scores(block(kGptStyle, batch + R"(, "precision": {"param_dtype": "fp16"})")) == 8192.0 * 5);
  // Without attention dropout the 16-bit cast of the probabilities is what the matmul keeps: 4 + 2 B.
  const std::string no_dropout = R"({"model_type": "gpt2", "n_embd": 64, "n_layer": 2, "n_head": 4, "n_positions": 64,
    "vocab_size": 128, "attn_pdrop": 0.0, "resid_pdrop": 0.1})";
  CHECK(scores(block(no_dropout, batch + R"(, "precision": {"param_dtype": "fp32", "compute_dtype": "fp16"})")) == 8192.0 * 6);
}

TEST_CASE("frozen weights keep no input: LoRA on q and v, Llama-style block by hand", "[activations][lora]") {
  // Per token, bf16, adapters in bf16 (the compute dtype: lora_A reads the shared tensor) on q_proj
  // and v_proj, flash. Autograd keeps a matmul's input only for its weight's gradient, and the
  // normalized tensor of a frozen norm weight not at all:
  //   attention norm: 4h (fp32 input) + 4 (rstd); its output 2h, kept by q's and v's lora_A
  //   q 2h; k, v 64 + 64; log-sum-exp 16; output 2h (flash keeps it)
  //   MLP norm: 4h + 4 (gate/up frozen: no output kept)
  //   gate, up, SiLU output: 3 x 2 x 128 = 768 (down frozen: its input not kept)
  // = 14h + 128 + 16 + 8 + 768 = 1816 bytes per token (full fine-tuning: 2456); 64 tokens -> 116,224
  const std::string batch = R"("attention": "flash", "batch": {"micro_batch_size": 2, "seq_length": 32})";
  const auto lora = block(kLlamaStyle, batch + R"(, "method": "lora", "lora": {"r": 4, "target_modules": ["q_proj", "v_proj"],
    "adapter_dtype": "bf16"})");
  CHECK(saved_bytes(lora) == 1816.0 * 64);
  // An adapter on down_proj reads the down_proj input: 2 x 128 per token more.
  const auto down = block(kLlamaStyle, batch + R"(, "method": "lora", "lora": {"r": 4, "target_modules": ["q_proj", "v_proj",
    "down_proj"], "adapter_dtype": "bf16"})");
  CHECK(saved_bytes(down) == (1816.0 + 256) * 64);
  // fp32 adapters over bf16 compute: PEFT casts each adapter's input to fp32 and autocast casts it
  // back for lora_A, so q's and v's adapters each keep their own 2h copy: 2h more per token.
  const auto fp32 = block(kLlamaStyle, batch + R"(, "method": "lora", "lora": {"r": 4, "target_modules": ["q_proj", "v_proj"],
    "adapter_dtype": "fp32"})");
  CHECK(saved_bytes(fp32) == (1816.0 + 2 * h) * 64);
  // DoRA (peft lora/dora.py, DoraLinearLayer.forward): (m / ||W + sBA|| - 1) * base_result +
  // m / ||W + sBA|| * lora_result * s keeps base_result and lora_result for the magnitude's
  // gradient: q's output 64 and v's 32 wide, 2 tensors of 2 bytes each: 4 x 96 = 384 per token.
  const auto dora = block(kLlamaStyle, batch + R"(, "method": "lora", "lora": {"r": 4, "target_modules": ["q_proj", "v_proj"],
    "adapter_dtype": "bf16", "use_dora": true})");
  CHECK(saved_bytes(dora) == (1816.0 + 384) * 64);
}

TEST_CASE("eager softmax backward holds the probabilities' and the scores' gradients: two fp32 score tensors", "[activations]") {
  // Llama-style, b = 2, s = 512, 4 heads, bf16, full checkpointing: the layer being rebuilt holds
  // its fp32 softmax output and bf16 probabilities; softmax(dtype=float32)'s backward then reads
  // the fp32 gradient of the probabilities and writes the fp32 gradient of the scores, 2 x
  // 2,097,152 x 4 = 16,777,216 B, in place of the layer's own gradients in flight that flash's
  // backward peaks with (residual and op gradients 2 x 1,024 x 64 x 2 + three MLP gradients
  // 3 x 1,024 x 128 x 2 = 1,048,576 B; the larger of the two is counted).
  const std::string base = R"({"model": {"hf_config": )" + kLlamaStyle + R"(}, "activation_checkpointing": "full",
    "batch": {"micro_batch_size": 2, "seq_length": 512}, "attention": ")";
  const auto eager = estimate_from(base + R"(eager"})");
  const auto flash = estimate_from(base + R"(flash"})");
  REQUIRE(eager.per_gpu.peak_phase == "backward");
  // Rebuilt layer: eager keeps 2,097,152 x (4 + 2) B of scores and k/v at all 4 heads (2 x 1,024
  // tokens x 2 x 16 x 2 B more) but no log-sum-exp (1,024 x 4 x 4 B).
  const double rebuilt_difference = 2097152.0 * 6 + 1024 * 2 * 32 * 2 - 1024 * 16;
  CHECK(*eager.per_gpu.peak_allocated - *flash.per_gpu.peak_allocated == rebuilt_difference + 16777216.0 - 1048576.0);
}

TEST_CASE("A v sliced out of a fused q/k/v projection keeps the projection's q and k parts (Phi-3, GPT-NeoX)", "[activations]") {
  // hidden 64, 4 heads of 16, 2 x 32 = 64 tokens: SDPA saves v, a view of qkv_proj's [64, 192]
  // output whose q and k parts (64 + 64 columns) stay alive with it: 64 x 128 x 2 B = 16,384 B.
  const std::string run = R"("framework": "hf_trainer", "attention": "sdpa", "batch": {"micro_batch_size": 2, "seq_length": 32})";
  const auto kept = [&](const std::string& cfg) {
    double bytes = 0;
    for (const auto& t : block(cfg, run))
      if (std::string(t.name) == "fused_qkv_query_key") bytes += t.bytes;
    return bytes;
  };
  const std::string phi3 = R"({"model_type": "phi3", "hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
    "num_hidden_layers": 2, "vocab_size": 128)";
  CHECK(kept(phi3 + "}") == 64.0 * 128 * 2);
  CHECK(kept(R"({"model_type": "gpt_neox", "hidden_size": 64, "intermediate_size": 256, "num_attention_heads": 4,
    "num_hidden_layers": 2, "vocab_size": 128})") == 64.0 * 128 * 2);
  // Grouped k/v (2 kv heads) are repeated or copied before the attention saves them; separate
  // projections (Llama) give separate tensors.
  CHECK(kept(phi3 + R"(, "num_key_value_heads": 2})") == 0);
  CHECK(kept(kLlamaStyle) == 0);
}

TEST_CASE("transformers' Python GELUs keep each product's operands and tanh's or sigmoid's output", "[activations]") {
  // GPT-2 style block, h 64, MLP width 256, 2 x 32 = 64 tokens in bf16: one [64, 256] tensor is
  // 32,768 B. gelu_new (0.5 x (1 + tanh(c (x + 0.044715 pow(x, 3))))) keeps, beside x (pow's
  // input), 0.5x, tanh's output and 1 + tanh; gelu_fast six: 0.797x, 0.0447x, 1 + 0.0447x^2, tanh's
  // output, 0.5x, 1 + tanh; quick_gelu (x sigmoid(1.702x)) the sigmoid's output.
  const auto saved = [](const std::string& act, const std::string& extra) {
    const std::string cfg = R"({"model_type": "gpt2", "n_embd": 64, "n_layer": 2, "n_head": 4, "n_positions": 64,
      "vocab_size": 128, "attn_pdrop": 0.0, "resid_pdrop": 0.0, "activation_function": ")" + act + R"("})";
    return all_bytes(block(cfg, R"("batch": {"micro_batch_size": 2, "seq_length": 32})" + extra));
  };
  const std::string hf = R"(, "framework": "hf_trainer")";
  const double tensor = 64.0 * 256 * 2;
  CHECK(saved("gelu_new", hf) - saved("gelu", hf) == 3 * tensor);
  CHECK(saved("gelu_fast", hf) - saved("gelu", hf) == 6 * tensor);
  CHECK(saved("quick_gelu", hf) - saved("gelu", hf) == 1 * tensor);
  CHECK(saved("gelu_pytorch_tanh", hf) == saved("gelu", hf));
  // Under autocast over fp32 weights torch.pow runs in fp32: x's fp32 copy (4 B) instead of x, and
  // tanh's output and 1 + tanh in fp32, beside the 16-bit 0.5x: 14 B per element against the fused
  // GELU's 2.
  const std::string autocast = hf + R"(, "precision": {"param_dtype": "fp32", "compute_dtype": "bf16"})";
  CHECK(saved("gelu_new", autocast) - saved("gelu", autocast) == 64.0 * 256 * 12);
  // Megatron builds its own MLP with a fused bias-GeLU, whatever the config names.
  const std::string megatron = R"(, "framework": "megatron")";
  CHECK(saved("gelu_new", megatron) == saved("gelu", megatron));
}
