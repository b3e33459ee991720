// FLOPs per layer and per step, worked out by hand from the published shapes.
#include "test_support.hpp"

#include "trainmem/flops.hpp"

using namespace trainmem;
using trainmem::test::setup_from;

namespace {

LayerForwardFlops first_layer(const TrainingSetup& s, double seq) {
  FlopsContext c;
  c.seq = seq;
  c.setup = &s;
  c.base_trained = s.method == Method::full;
  return layer_forward_flops(s.model.architecture->layers.front(), c);
}

}  // namespace

TEST_CASE("Llama-3.1-8B block: forward FLOPs per token by hand", "[flops]") {
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3.1-8b"}})");
  // h = 4096, 32 heads of 128, 8 kv heads, intermediate 14336 (config.json).
  // q 4096x4096 = 16,777,216; k, v 4096x1024 = 4,194,304 each; o 16,777,216;
  // gate, up, down 4096x14336 = 58,720,256 each: 218,103,808 weights, 2 FLOPs each.
  const LayerForwardFlops f = first_layer(s, 8192);
  CHECK(f.matmul == 2.0 * 218'103'808);
  CHECK(f.trained_matmul == f.matmul);
  // QK^T + PV: 2 x 8192 keys x 32 heads x (128 + 128) = 134,217,728 = 4 s h.
  CHECK(f.attention == 134'217'728.0);
  CHECK(f.attention == 4.0 * 8192 * 4096);
  // FlashAttention's causal kernel runs the lower half.
  CHECK(f.attention_executed == 67'108'864.0);
  // Op-level SAC recomputes the 2nd, 4th and 6th matmul in execution order (q k v o gate up down):
  // k 4,194,304 + o 16,777,216 + up 58,720,256 = 79,691,776 weights.
  CHECK(f.op_level_recompute == 2.0 * 79'691'776);
  CHECK(f.adapter_matmul == 0);
}

TEST_CASE("Qwen3-30B-A3B MoE block: routed experts count top-k times", "[flops]") {
  const TrainingSetup s = setup_from(R"({"model": {"preset": "qwen3-30b-a3b"}})");
  // h = 2048, 32 heads of 128, 4 kv heads: q 2048x4096 = 8,388,608; k, v 2048x512 = 1,048,576
  // each; o 4096x2048 = 8,388,608 (18,874,368 in attention). Router 2048x128 = 262,144.
  // 128 experts of gate/up/down 2048x768 = 1,572,864 each (4,718,592 per expert), 8 per token:
  // 37,748,736. Active weights per token: 18,874,368 + 262,144 + 37,748,736 = 56,885,248.
  const LayerForwardFlops f = first_layer(s, 4096);
  CHECK(f.matmul == 2.0 * 56'885'248);
  // Attention: 2 x 4096 x 32 x 256 = 67,108,864 (the 4 s h form does not hold: 32 x 128 != 2048).
  CHECK(f.attention == 67'108'864.0);
}

TEST_CASE("LoRA adds 2 r (in + out) per targeted linear and trains no base weight", "[flops]") {
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora",
    "lora": {"r": 16, "target_modules": ["q_proj", "v_proj"]}})");
  const LayerForwardFlops f = first_layer(s, 2048);
  // q: 16 x (4096 + 4096) = 131,072; v: 16 x (4096 + 1024) = 81,920; 2 FLOPs per weight.
  CHECK(f.adapter_matmul == 2.0 * (131'072 + 81'920));
  CHECK(f.trained_matmul == 0);
}

TEST_CASE("Narayanan et al. 2021 Appendix: 96 B s l h^2 (1 + s/6h + V/16lh) with full recompute", "[flops]") {
  // A GPT with MHA and a 4h MLP, eager attention (no causal skipping), every layer recomputed:
  // the paper's count of 4 passes. h = 256, l = 4, s = 512, V = 1024, B = 8 sequences per step.
  const TrainingSetup s = setup_from(R"({"model": {"hf_config": {"model_type": "gpt2", "n_embd": 256, "n_layer": 4,
    "n_head": 8, "n_positions": 512, "vocab_size": 1024}}, "attention": "eager", "activation_checkpointing": "full",
    "batch": {"micro_batch_size": 2, "seq_length": 512, "gradient_accumulation_steps": 4}})");
  const double B = 8, seq = 512, l = 4, h = 256, V = 1024;
  const TrainingFlops t = training_flops(s);
  CHECK(t.tokens_per_step == B * seq);
  CHECK(t.executed_per_step() == Approx(96 * B * seq * l * h * h * (1 + seq / (6 * h) + V / (16 * l * h))).epsilon(1e-12));
  // PaLM's model FLOPs: the same without the recompute pass (3 passes of the layers; the head
  // is never recomputed): 72 B s l h^2 (1 + s/6h) + 6 B s h V.
  CHECK(t.model_per_step == Approx(72 * B * seq * l * h * h * (1 + seq / (6 * h)) + 6 * B * seq * h * V).epsilon(1e-12));
  CHECK(t.recompute == Approx(24 * B * seq * l * h * h * (1 + seq / (6 * h))).epsilon(1e-12));
}

TEST_CASE("Model FLOPs follow PaLM: 6 N + 12 L H Q T per token, flash and recompute aside", "[flops]") {
  // Llama-3.1-8B, 8 sequences of 8192 per step, selective recompute and FlashAttention.
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3.1-8b"}, "activation_checkpointing": "selective",
    "selective_policy": "op_level", "batch": {"micro_batch_size": 1, "seq_length": 8192, "gradient_accumulation_steps": 8}})");
  const double tokens = 8 * 8192.0;
  // N = 32 layers x 218,103,808 + head 4096 x 128,256 = 6,979,321,856 + 525,336,576 = 7,504,658,432
  // matmul weights; attention 12 L H Q T = 12 x 32 x 32 x 128 x 8192 per token.
  const double n = 32 * 218'103'808.0 + 4096.0 * 128'256;
  const double attention = 12.0 * 32 * 32 * 128 * 8192;
  const TrainingFlops t = training_flops(s);
  CHECK(t.model_per_step == Approx((6 * n + attention) * tokens).epsilon(1e-12));
  // Executed: causal attention runs half, its backward 2.5x; op-level SAC re-runs k, o, up.
  const double layer_attention = 4.0 * 8192 * 4096 / 2;
  CHECK(t.forward == Approx((2 * n + 32 * layer_attention) * tokens).epsilon(1e-12));
  CHECK(t.backward == Approx((4 * n + 32 * 2.5 * layer_attention) * tokens).epsilon(1e-12));
  CHECK(t.recompute == Approx(32 * 2 * 79'691'776.0 * tokens).epsilon(1e-12));
}

TEST_CASE("Freeze: no backward below the lowest trained layer, no weight gradient for the head", "[flops]") {
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3.1-8b"}, "method": "freeze",
    "freeze": {"trainable_layers": 2}, "batch": {"micro_batch_size": 1, "seq_length": 1024}})");
  const double tokens = 1024;
  const double layer = 2 * 218'103'808.0, attention = 4.0 * 1024 * 4096 / 2, head = 2 * 4096.0 * 128'256;
  const TrainingFlops t = training_flops(s);
  CHECK(t.forward == Approx((32 * (layer + attention) + head) * tokens).epsilon(1e-12));
  // Two trained layers: input and weight gradients (2x), attention 2.5x; head input gradient only.
  CHECK(t.backward == Approx((2 * (2 * layer + 2.5 * attention) + head) * tokens).epsilon(1e-12));
}

TEST_CASE("a sliding window binds only when shorter than the sequence", "[flops][attention]") {
  // 32 heads of 128 (q.k and p.v): 2 x 32 x (128 + 128) = 16,384 FLOPs per key per token.
  AttentionShape at;
  at.num_attention_heads = 32;
  at.num_key_value_heads = 8;
  at.head_dim = at.v_head_dim = 128;
  FlopsContext c;
  c.seq = 4096;
  // A 4096-key window over 4096 tokens masks nothing beyond causality: the causal kernel runs half
  // of 16,384 x 4096 = 67,108,864, as without a window.
  at.sliding_window = 4096;
  CHECK(attention_forward_flops(at, c).counted == 67108864.0);
  CHECK(attention_forward_flops(at, c).executed == 33554432.0);
  at.sliding_window = 0;
  CHECK(attention_forward_flops(at, c).executed == 33554432.0);
  // A 1024-key window: each query attends to at most 1024 keys, 16,384 x 1024 = 16,777,216.
  at.sliding_window = 1024;
  CHECK(attention_forward_flops(at, c).executed == 16777216.0);
}
