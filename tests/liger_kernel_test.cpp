// Liger-Kernel (use_liger_kernel): its RMSNorm, SwiGLU and fused linear cross-entropy as their
// sources keep and allocate tensors (engine/src/framework_defaults.cpp, engine/src/loss_memory.cpp),
// and the trainer configs that turn it on.
#include <nlohmann/json.hpp>

#include "config_files.hpp"
#include "test_support.hpp"
#include "trainmem/catalog.hpp"
#include "trainmem/config_import.hpp"
#include "trainmem/config_value.hpp"
#include "trainmem/loss_memory.hpp"

using nlohmann::json;
using namespace trainmem;
using trainmem::test::estimate_from;
using trainmem::test::setup_from;

namespace {

// Llama-3.1-8B (h 4,096, I 14,336, 8 KV heads of 128, V 128,256), one sequence of 8,192 tokens,
// bf16, FlashAttention, no checkpointing.
std::string llama(const std::string& extra) {
  return R"({"model": {"preset": "llama-3.1-8b"}, "precision": {"param_dtype": "bf16"}, "attention": "flash",
    "activation_checkpointing": "none", "batch": {"micro_batch_size": 1, "seq_length": 8192})" +
         (extra.empty() ? "" : ", " + extra) + "}";
}

LossMemory loss_of(const std::string& document) {
  const TrainingSetup s = setup_from(document);
  return loss_memory(s, *s.model.architecture, Dtype::bf16, framework_behaviour(s));
}

json imported(const char* name, const std::string& text) {
  Errors errors;
  auto f = cli::load_config_file(name, text, errors);
  REQUIRE(f);
  const ImportResult r = import_configs({*f}, builtin_catalog());
  INFO(error_document(r.errors));
  REQUIRE(r.errors.empty());
  return json::parse(config_value_json(r.document));
}

}  // namespace

TEST_CASE("Liger's RMSNorm and SwiGLU keep fewer tensors per layer", "[liger][activations]") {
  // Per layer at T = 8,192 tokens (bf16 [T, 4096] = 67,108,864 B; [T, 14336] = 234,881,024 B):
  //   HF's Python RMSNorm keeps the fp32 input (134,217,728) and the normalized tensor (67,108,864)
  //   per norm; LlamaMLP keeps gate, up, silu(gate) and their product (4 x 234,881,024):
  //   1,645,281,280 B.
  //   Liger's RMSNorm keeps its bf16 input and the fp32 rstd (67,108,864 + 32,768) and
  //   LigerSiLUMulFunction gate and up only (the product is down_proj's input):
  //   q 67,108,864 + k 16,777,216 + v 16,777,216 + log-sum-exp 1,048,576 + output 67,108,864
  //   + 2 x (67,108,864 + 32,768 + norm output 67,108,864) + 3 x 234,881,024 = 1,141,964,800 B.
  CHECK(*estimate_from(llama("")).per_gpu.activations_per_layer == 1645281280.0);
  CHECK(*estimate_from(llama(R"("use_liger_kernel": true)")).per_gpu.activations_per_layer == 1141964800.0);
}

TEST_CASE("Liger's SwiGLU backward writes the gate and up gradients in place", "[liger][backward]") {
  // torch.compile keeps the same tensors as Liger but allocates the gate's and up's gradients:
  // with the same fused loss and LoRA (no head gradient), the backward peaks differ by those two
  // [T, I] bf16 tensors: 2 x 8,192 x 14,336 x 2 = 469,762,048 B.
  const std::string lora = R"("method": "lora", "loss": {"implementation": "fused"})";
  const Estimate compiled = estimate_from(llama(lora + R"(, "compile": true)"));
  const Estimate liger = estimate_from(llama(lora + R"(, "use_liger_kernel": true)"));
  REQUIRE(*compiled.per_gpu.activations == *liger.per_gpu.activations);
  REQUIRE(compiled.per_gpu.peak_phase == "backward");
  CHECK(compiled.per_gpu.phases->backward - liger.per_gpu.phases->backward == 469762048.0);
}

TEST_CASE("Liger's fused linear cross-entropy chunks the tokens by V / h", "[liger][loss]") {
  // V = 128,256, h = 4,096: ceil(V / h) = 32; T = 8,192: chunks of next_pow2(ceil(8192 / 32)) = 256
  // rows. Forward: the chunk's bf16 logits (their gradient written in place) 256 x 128,256 x 2
  // = 65,667,072 B, the input gradient 8,192 x 4,096 x 2 = 67,108,864 B and the fp32 per-token loss
  // 8,192 x 4 = 32,768 B: 132,808,704 B. Full fine-tuning adds the head's bf16 gradient
  // 128,256 x 4,096 x 2 = 1,050,673,152 B and, while a chunk is accumulated into it, the [V, h]
  // product and its fp32 copy 128,256 x 4,096 x (2 + 4) = 3,152,019,456 B: 4,335,501,312 B.
  // Backward keeps the two gradients.
  const LossMemory lora = loss_of(llama(R"("method": "lora", "use_liger_kernel": true)"));
  CHECK(lora.forward_transient == Approx(132808704.0).epsilon(1e-12));
  CHECK(lora.backward_transient == Approx(67108864.0).epsilon(1e-12));
  const LossMemory full = loss_of(llama(R"("use_liger_kernel": true)"));
  CHECK(full.forward_transient == Approx(4335501312.0).epsilon(1e-12));
  CHECK(full.backward_transient == Approx(67108864.0 + 1050673152.0).epsilon(1e-12));
  // LoRA that trains the head (modules_to_save) computes its gradient the same way.
  const LossMemory saved = loss_of(llama(R"("method": "lora", "lora": {"modules_to_save": ["lm_head"]}, "use_liger_kernel": true)"));
  CHECK(saved.forward_transient == Approx(4335501312.0).epsilon(1e-12));
  // T = 262,144: chunks of next_pow2(8192) = 8,192 rows: 8,192 x 128,256 x 2 = 2,101,346,304 B of
  // logits + 262,144 x 4,096 x 2 = 2,147,483,648 B + 262,144 x 4 = 1,048,576 B, where a fixed 8
  // chunks at 16 bytes per logit would price 2 x 262,144 x 128,256 = 67,243,081,728 B.
  const LossMemory longer = loss_of(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora", "use_liger_kernel": true,
    "batch": {"micro_batch_size": 1, "seq_length": 262144}})");
  CHECK(longer.forward_transient == Approx(4249878528.0).epsilon(1e-12));
  // A kernel that chunks by count (loss.num_chunks given) keeps unsloth's 16 bytes per chunk logit.
  const LossMemory counted = loss_of(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora", "use_liger_kernel": true,
    "loss": {"num_chunks": 8}, "batch": {"micro_batch_size": 1, "seq_length": 262144}})");
  CHECK(counted.forward_transient == Approx(67243081728.0).epsilon(1e-12));
}

TEST_CASE("Liger has no kernels for GPT-2: use_liger_kernel changes nothing and is reported", "[liger][ignored]") {
  // monkey_patch.py @ead96b6 MODEL_TYPE_TO_APPLY_LIGER_FN has no "gpt2".
  const std::string gpt2 = R"({"model": {"preset": "gpt2"}, "batch": {"micro_batch_size": 1, "seq_length": 512}})";
  const std::string with = R"({"model": {"preset": "gpt2"}, "use_liger_kernel": true, "batch": {"micro_batch_size": 1, "seq_length": 512}})";
  CHECK(*estimate_from(with).per_gpu.peak == *estimate_from(gpt2).per_gpu.peak);
  const TrainingSetup s = setup_from(with);
  REQUIRE(s.ignored_fields.size() == 1);
  CHECK(s.ignored_fields[0].paths[0] == "use_liger_kernel");
}

TEST_CASE("Under DPO Liger's kernels apply but its fused loss does not: TRL's trainers need the logits", "[liger][rlhf]") {
  // The loss the policy is priced with is the one without Liger (transformers' full loss here);
  // the per-layer activations are Liger's.
  const std::string dpo = R"("method": "lora", "rlhf": {"algorithm": "dpo"})";
  const Estimate plain = estimate_from(llama(dpo));
  const Estimate liger = estimate_from(llama(dpo + R"(, "use_liger_kernel": true)"));
  const Estimate liger_loss_full = estimate_from(llama(dpo + R"(, "use_liger_kernel": true, "loss": {"implementation": "full"})"));
  CHECK(*liger.per_gpu.peak == *liger_loss_full.per_gpu.peak);
  CHECK(*liger.per_gpu.activations < *plain.per_gpu.activations);
}

TEST_CASE("use_liger_kernel is reported as without effect where the framework builds its own model", "[liger][ignored]") {
  const Estimate tune = estimate_from(llama(R"("framework": "torchtune", "use_liger_kernel": true)"));
  CHECK(*tune.per_gpu.activations_per_layer == *estimate_from(llama(R"("framework": "torchtune")")).per_gpu.activations_per_layer);
  const TrainingSetup s = setup_from(llama(R"("framework": "torchtune", "use_liger_kernel": true)"));
  REQUIRE(s.ignored_fields.size() == 1);
  CHECK(s.ignored_fields[0].paths[0] == "use_liger_kernel");
}

TEST_CASE("trainer configs that apply Liger's kernels", "[liger][import]") {
  // transformers TrainingArguments use_liger_kernel: Liger's defaults, its fused loss included.
  const json hf = imported("args.yaml", "model_name_or_path: meta-llama/Llama-3.1-8B\nuse_liger_kernel: true\nbf16: true\n");
  CHECK(hf.at("use_liger_kernel") == true);
  CHECK_FALSE(hf.contains("loss"));
  // LLaMA-Factory (model/model_utils/liger_kernel.py): stages other than pt and sft need the logits,
  // so Liger's fused loss is off there.
  const json dpo = imported("dpo.yaml", "model_name_or_path: meta-llama/Llama-3.1-8B\nstage: dpo\nfinetuning_type: lora\n"
                                        "enable_liger_kernel: true\n");
  CHECK(dpo.at("use_liger_kernel") == true);
  CHECK(dpo.at("loss").at("implementation") == "full");
  // axolotl's LigerPlugin without liger_fused_linear_cross_entropy: the model's own loss.
  const json axo = imported("a.yml", "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nplugins:\n"
                                     "  - axolotl.integrations.liger.LigerPlugin\nliger_rms_norm: true\nliger_glu_activation: true\n");
  CHECK(axo.at("use_liger_kernel") == true);
  CHECK(axo.at("loss").at("implementation") == "full");
}
