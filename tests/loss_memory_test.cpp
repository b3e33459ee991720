// Logits and cross-entropy transients.
#include "test_support.hpp"

#include "trainmem/loss_memory.hpp"

using namespace trainmem;
using trainmem::test::setup_from;

namespace {
LossMemory loss_for(const std::string& cfg, const std::string& extra) {
  const TrainingSetup s = setup_from(R"({"model": {"hf_config": )" + cfg + "}, " + extra + "}");
  return loss_memory(s, *s.model.architecture, Dtype::bf16, framework_behaviour(s));
}
// Qwen3-30B-A3B's vocabulary (151,936) on a small body.
const std::string kQwenVocab = R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
  "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 151936})";
}  // namespace

TEST_CASE("HF loss upcasts logits: 10 bytes per logit at the loss (modelscope/ms-swift#6966)", "[loss][faults]") {
  // s = 32,768, b = 1, V = 151,936: bf16 logits 2 + fp32 copy 4 + fp32 log-softmax 4
  // = 10 x 32768 x 151936 = 49,786,388,480 bytes (46.37 GiB), before the backward's gradient.
  const auto m = loss_for(kQwenVocab, R"("batch": {"micro_batch_size": 1, "seq_length": 32768})");
  CHECK(m.forward_transient == 49786388480.0);
  CHECK(m.forward_transient / trainmem::test::GiB == Approx(46.37).epsilon(0.001));
  // Backward: the saved log-softmax, its gradient and the fp32 logits' gradient: 12 bytes.
  CHECK(m.backward_transient == 12.0 * 32768 * 151936);
}

TEST_CASE("without the upcast the loss works in bf16", "[loss]") {
  const auto m = loss_for(kQwenVocab, R"("batch": {"seq_length": 1024}, "loss": {"logits_fp32": false})");
  CHECK(m.bytes_per_logit_forward == 4);
  CHECK(m.bytes_per_logit_backward == 6);
}

TEST_CASE("fused cross-entropy prices 16 bytes per logit of a chunk (unslothai/unsloth#7203)", "[loss][faults]") {
  // T = 65,536, V = 262,144 unchunked: 16 x T x V = 256 GiB of working set (4-byte pricing: 64 GiB).
  const std::string cfg = R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 262144})";
  const auto one = loss_for(cfg, R"("batch": {"seq_length": 65536}, "loss": {"implementation": "fused", "num_chunks": 1})");
  CHECK(one.forward_transient / trainmem::test::GiB == 256.0);
  const auto eight = loss_for(cfg, R"("batch": {"seq_length": 65536}, "loss": {"implementation": "fused", "num_chunks": 8})");
  CHECK(eight.forward_transient / trainmem::test::GiB == 32.0);
}

TEST_CASE("chunked and fused losses never exceed the full upcast loss", "[loss][property]") {
  const auto full = loss_for(kQwenVocab, R"("batch": {"seq_length": 4096})");
  for (const char* impl : {"chunked", "fused"}) {
    const auto m = loss_for(kQwenVocab, std::string(R"("batch": {"seq_length": 4096}, "loss": {"implementation": ")") + impl + "\"}");
    CHECK(m.forward_transient <= full.forward_transient);
    CHECK(m.backward_transient <= full.backward_transient);
  }
}

TEST_CASE("tensor parallelism splits the vocabulary of the logits", "[loss]") {
  const auto one = loss_for(kQwenVocab, R"("batch": {"seq_length": 1024})");
  const auto two = loss_for(kQwenVocab, R"("batch": {"seq_length": 1024}, "parallel": {"tensor_parallel_size": 2})");
  CHECK(two.logits_elements * 2 == one.logits_elements);
}

TEST_CASE("logits the training loop holds stay alive in every phase of the step", "[loss][held_logits]") {
  // A loop written `outputs = model(**batch); backward(outputs.loss)` keeps the output's logits
  // referenced through backward, the optimizer step and the next forward. T = 1 x 4,096 tokens,
  // V = 151,936: 4096 x 151936 = 622,329,856 logits; in bf16 2 B each = 1,244,659,712 B, upcast by
  // the model's forward (transformers <= v4.45) 4 B each = 2,489,319,424 B.
  const std::string batch = R"("batch": {"micro_batch_size": 1, "seq_length": 4096})";
  auto estimate_with = [&](const std::string& held) {
    return trainmem::test::estimate_from(R"({"model": {"hf_config": )" + kQwenVocab + "}, " + batch +
                                         R"(, "loss": {"held_logits": ")" + held + R"("}})");
  };
  const auto none = estimate_with("none"), bf16 = estimate_with("compute_dtype"), fp32 = estimate_with("fp32");
  CHECK(loss_for(kQwenVocab, batch + R"(, "loss": {"held_logits": "compute_dtype"})").held == 1244659712.0);
  CHECK(loss_for(kQwenVocab, batch + R"(, "loss": {"held_logits": "fp32"})").held == 2489319424.0);
  for (const auto* e : {&bf16, &fp32}) {
    const double held = e == &bf16 ? 1244659712.0 : 2489319424.0;
    CHECK(e->per_gpu.phases->forward - none.per_gpu.phases->forward == Approx(held).epsilon(1e-9));
    CHECK(e->per_gpu.phases->backward - none.per_gpu.phases->backward == Approx(held).epsilon(1e-9));
    CHECK(e->per_gpu.phases->optimizer_step - none.per_gpu.phases->optimizer_step == Approx(held).epsilon(1e-9));
  }
  // Defaults: the HF Trainer drops the output before backward; an accelerate loop (framework
  // "fsdp") and a DeepSpeed script hold 16-bit logits.
  CHECK(loss_for(kQwenVocab, batch).held == 0);
  CHECK(loss_for(kQwenVocab, batch + R"(, "framework": "fsdp")").held == 1244659712.0);
  CHECK(loss_for(kQwenVocab, batch + R"(, "framework": "deepspeed")").held == 1244659712.0);
  // A fused linear cross-entropy returns no logits (Liger's lce_forward leaves them None in
  // training), so the same loops hold nothing: given as the loss or through Liger's patch.
  CHECK(loss_for(kQwenVocab, batch + R"(, "framework": "deepspeed", "loss": {"implementation": "fused"})").held == 0);
  CHECK(loss_for(kQwenVocab, batch + R"(, "framework": "fsdp", "use_liger_kernel": true)").held == 0);
  CHECK(loss_for(kQwenVocab, batch + R"(, "loss": {"implementation": "fused", "held_logits": "fp32"})").held == 0);
  const TrainingSetup s = setup_from(R"({"model": {"hf_config": )" + kQwenVocab + R"(}, "loss": {"implementation": "fused", "held_logits": "fp32"}})");
  REQUIRE(s.ignored_fields.size() == 1);
  CHECK(s.ignored_fields[0].paths[0] == "loss.held_logits");
}

TEST_CASE("a chunk holds at least one token: more chunks than tokens price one row each", "[loss]") {
  // T = 64 tokens, V = 151,936, 1,000,000 chunks asked: 64 chunks of one row, 16 B x 151,936
  // = 2,430,976 B for a count-chunked fused loss.
  const auto m = loss_for(kQwenVocab, R"("batch": {"seq_length": 64}, "loss": {"implementation": "fused", "num_chunks": 1000000})");
  CHECK(m.forward_transient == 2430976.0);
  // And a count given to the full loss is reported as without effect.
  const TrainingSetup s = setup_from(R"({"model": {"hf_config": )" + kQwenVocab + R"(}, "loss": {"implementation": "full", "num_chunks": 4}})");
  REQUIRE(s.ignored_fields.size() == 1);
  CHECK(s.ignored_fields[0].paths[0] == "loss.num_chunks");
}

TEST_CASE("Gemma 2's final-logit soft-capping keeps tanh's output: 2 more bytes per logit each way", "[loss]") {
  // Gemma2ForCausalLM.forward: logits / cap, tanh (saves its bf16 output for the backward), * cap,
  // then the fp32-upcast loss: forward 2 + 4 + 4 + 2 = 12, backward 4 + 4 + 4 + 2 = 14 bytes per
  // logit. 1 x 1024 tokens x 1,000 logits.
  const auto gemma = [](const std::string& model_type, const std::string& cap) {
    return R"({"model_type": ")" + model_type + R"(", "hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
      "num_key_value_heads": 2, "head_dim": 16, "num_hidden_layers": 2, "vocab_size": 1000)" + cap + "}";
  };
  const std::string run = R"("batch": {"micro_batch_size": 1, "seq_length": 1024})";
  const double logits = 1024.0 * 1000;
  for (const std::string& cap : {std::string(R"(, "final_logit_softcapping": 30.0)"), std::string("")}) {
    const auto m = loss_for(gemma("gemma2", cap), run);  // absent: Gemma2Config's default 30.0
    CHECK(m.forward_transient == 12 * logits);
    CHECK(m.backward_transient == 14 * logits);
  }
  // Gemma 3 sets none by default; a Gemma 2 config that sets it to null has none either.
  for (const std::string& config : {gemma("gemma3_text", ""), gemma("gemma2", R"(, "final_logit_softcapping": null)")}) {
    const auto off = loss_for(config, run);
    CHECK(off.forward_transient == 10 * logits);
    CHECK(off.backward_transient == 12 * logits);
  }
  // A fused linear cross-entropy caps inside its kernel: no logits, no tanh output.
  const auto fused = loss_for(gemma("gemma2", ""), run + R"(, "loss": {"implementation": "fused", "num_chunks": 8})");
  CHECK(fused.forward_transient == 16.0 / 8 * logits);
}
