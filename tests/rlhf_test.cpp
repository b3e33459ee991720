// Multi-model RLHF budgets: DPO, PPO, GRPO.
#include <nlohmann/json.hpp>

#include "test_support.hpp"

#include "trainmem/explain.hpp"
#include "trainmem/rlhf.hpp"

using namespace trainmem;
using trainmem::test::kTinyGqaLlama;
using trainmem::test::estimate_from;

namespace {
// h 64, 4 heads of 16, 2 kv heads, 2 layers, vocab 128.
// The same body with Qwen2.5's 151,936-token vocabulary: the loss dominates its transients.
const std::string kTinyBigVocab = R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
  "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 151936})";
std::string doc(const std::string& rest) { return R"({"model": {"hf_config": )" + kTinyGqaLlama + "}, " + rest + "}"; }
const ModelBudget* role(const Estimate& e, const std::string& name) {
  for (const auto& m : e.per_gpu_models)
    if (m.role == name) return &m;
  return nullptr;
}
}  // namespace

TEST_CASE("rollout KV cache: 2 x layers x kv_heads x head_dim per token, by hand", "[rlhf]") {
  // GRPO as TRL counts it: a micro-batch of 4 completions with 2 accumulation steps generates
  // 4 x 2 = 8 sequences at once, of 32 + 96 = 128 tokens; per token 2 layers x 2 kv heads x
  // (16 + 16) = 128 elements x 2 bytes = 256 bytes -> 8 x 128 x 256. num_generations only groups
  // the completions by prompt.
  for (const char* generations : {"4", "8"}) {
    const auto e = estimate_from(doc(std::string(R"("rlhf": {"algorithm": "grpo", "rollout": {"max_new_tokens": 96,
      "num_generations": )") + generations + R"(}}, "batch": {"micro_batch_size": 4, "seq_length": 32, "gradient_accumulation_steps": 2})"));
    REQUIRE(e.rollout_kv_cache_bytes);
    CHECK(*e.rollout_kv_cache_bytes == 8.0 * 128 * 256);
  }
}

TEST_CASE("GRPO trains the micro-batch's completions: prompt + completion tokens each", "[rlhf]") {
  // TRL's per_device_train_batch_size counts completions: 4 sequences of 32 + 96 tokens, the
  // activations of a plain run of 4 x 128 tokens.
  const auto grpo = estimate_from(doc(R"("rlhf": {"algorithm": "grpo", "rollout": {"max_new_tokens": 96, "num_generations": 8}},
    "batch": {"micro_batch_size": 4, "seq_length": 32})"));
  const auto plain = estimate_from(doc(R"("batch": {"micro_batch_size": 4, "seq_length": 128})"));
  CHECK(role(grpo, "policy")->activations == *plain.per_gpu.activations);
}

TEST_CASE("DPO: a frozen reference copy, and chosen + rejected double the policy's batch", "[rlhf]") {
  const auto dpo = estimate_from(doc(R"("rlhf": {"algorithm": "dpo"}, "batch": {"micro_batch_size": 2, "seq_length": 64})"));
  const auto plain_2x = estimate_from(doc(R"("batch": {"micro_batch_size": 4, "seq_length": 64})"));
  REQUIRE(role(dpo, "reference"));
  // The reference holds every weight in bf16, no gradients or optimizer states.
  CHECK(role(dpo, "reference")->parameters == 2.0 * static_cast<double>(dpo.parameters.total));
  CHECK(role(dpo, "reference")->optimizer_states == 0);
  CHECK(role(dpo, "policy")->activations == *plain_2x.per_gpu.activations);
  CHECK(dpo.per_gpu.model_states == role(dpo, "policy")->model_states + role(dpo, "reference")->model_states);
  CHECK_FALSE(dpo.rollout_kv_cache_bytes);
  // `trainmem activations` lists the tensors of the batch the policy trains on: the same as a
  // supervised micro-batch of 4, logits included.
  const auto listed = nlohmann::json::parse(activations_json(doc(R"("rlhf": {"algorithm": "dpo"}, "batch": {"micro_batch_size": 2, "seq_length": 64})")).json);
  const auto listed_2x = nlohmann::json::parse(activations_json(doc(R"("batch": {"micro_batch_size": 4, "seq_length": 64})")).json);
  CHECK(listed["layer_groups"][0]["saved_bytes_per_layer"] == listed_2x["layer_groups"][0]["saved_bytes_per_layer"]);
  CHECK(listed["head"]["logits_elements"] == listed_2x["head"]["logits_elements"]);
  CHECK(listed["head"]["logits_elements"] == 4 * 64 * 128);  // 2 pairs of 64 tokens, vocabulary 128
}

TEST_CASE("a LoRA policy's reference can share the frozen base", "[rlhf]") {
  const std::string lora = R"("method": "lora", "lora": {"r": 8, "target_modules": ["q_proj"]}, )";
  const auto shared = estimate_from(doc(lora + R"("rlhf": {"algorithm": "dpo", "reference": {"method": "shared_base"}})"));
  const auto frozen = estimate_from(doc(lora + R"("rlhf": {"algorithm": "dpo", "reference": {"method": "frozen"}})"));
  CHECK(role(shared, "reference")->model_states == 0);
  CHECK(frozen.per_gpu.model_states - shared.per_gpu.model_states == 2.0 * static_cast<double>(frozen.parameters.total));
}

TEST_CASE("PPO prices actor, critic, reference and reward models", "[rlhf]") {
  const auto e = estimate_from(doc(R"("rlhf": {"algorithm": "ppo", "rollout": {"max_new_tokens": 32}}, "batch": {"seq_length": 32})"));
  for (const char* r : {"policy", "reference", "reward", "critic"}) CHECK(role(e, r));
  // The critic trains in full: it has gradients and optimizer states; the reward model has none.
  CHECK(role(e, "critic")->optimizer_states > 0);
  CHECK(role(e, "reward")->gradients == 0);
  // Same architecture, full training: the critic's states equal the actor's; it saves activations.
  CHECK(role(e, "critic")->model_states == role(e, "policy")->model_states);
  CHECK(role(e, "critic")->activations > 0);
  double states = 0;
  for (const auto& m : e.per_gpu_models) states += m.model_states;
  CHECK(e.per_gpu.model_states == states);
  CHECK(*e.per_gpu.peak_allocated >= states);
}

TEST_CASE("an rlhf block needs an algorithm", "[rlhf][errors]") {
  const auto errors = parse_estimate_document(doc(R"("rlhf": {})")).errors;
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].field == "rlhf.algorithm");
}

TEST_CASE("RLHF models are validated like single runs; unused parts are reported", "[rlhf][errors]") {
  // GPT-2 has 1,024 learned positions: 1,024 + 64 generated tokens do not exist.
  const auto fields = trainmem::test::error_fields(R"({"model": {"preset": "gpt2"}, "batch": {"seq_length": 1024},
    "rlhf": {"algorithm": "grpo", "rollout": {"max_new_tokens": 64}}})");
  CHECK(std::find(fields.begin(), fields.end(), "rlhf.rollout.max_new_tokens") != fields.end());
  // A reward model whose heads tensor parallelism cannot split.
  const auto reward = trainmem::test::error_fields(R"({"model": {"preset": "llama-3.2-1b"}, "parallel": {"tensor_parallel_size": 8,
    "world_size": 8}, "rlhf": {"algorithm": "ppo", "reward": {"model": {"preset": "gpt2"}}}})");
  CHECK(std::find(reward.begin(), reward.end(), "rlhf.reward.model") != reward.end());
  const JsonResult r = estimate_json(doc(R"("rlhf": {"algorithm": "dpo", "rollout": {"max_new_tokens": 8}})"));
  REQUIRE(r.ok);
  CHECK_THAT(r.json, Catch::Contains("rlhf.rollout (DPO does not generate)"));
}

TEST_CASE("GRPO prices the loss over the completion's logits only, in bf16 (TRL logits_to_keep)", "[rlhf][loss]") {
  // TRL (trl/trainer/grpo_trainer.py, _get_per_token_logps_and_entropies) asks the model for
  // logits_to_keep = completion + 1 positions and takes selective_log_softmax in bf16 (no fp32
  // upcast): forward 2 B (logits) + 2 B (saved log-softmax) per logit, backward 2 (saved) + 2 (its
  // gradient) + 2 (the logits' gradient) = 6 B. A micro-batch of 1 completion, prompt 512,
  // completion 1,024 on a 151,936-token vocabulary: (1,024 + 1) x 151,936 = 155,734,400 logits,
  // x 6 B = 934,406,400 B at the start of backward; the whole sequence upcast (1,536 positions x
  // 151,936 x 12 B, the plain HF loss) would be 2,800,484,352 B.
  const auto e = estimate_from(R"({"model": {"hf_config": )" + kTinyBigVocab + R"(}, "rlhf": {"algorithm": "grpo",
    "rollout": {"max_new_tokens": 1024}}, "batch": {"micro_batch_size": 1, "seq_length": 512}})");
  // The tiny body's own transients are a few MB beside it. The step's only micro-batch starts its
  // backward with no gradient (the loop freed them), so the peak above the policy's states is the
  // loss's working set less the gradients not built yet.
  CHECK(role(e, "policy")->transient + role(e, "policy")->gradients == Approx(934406400.0).epsilon(0.02));
  // The reference scores the same positions without grad: 4 B per logit at most.
  CHECK(role(e, "reference")->transient <= 4.0 * 155734400 * 1.02);
}

TEST_CASE("DPO's log-probs take bf16 logits over both sequences, no fp32 upcast (TRL selective_log_softmax)", "[rlhf][loss]") {
  // trl/trainer/dpo_trainer.py _compute_loss: selective_log_softmax on the model's bf16 logits.
  // Chosen + rejected = 2 sequences of 512 on a 151,936-token vocabulary: 155,582,464 logits x 6 B
  // (saved log-softmax, its gradient, the logits' gradient) = 933,494,784 B at the start of
  // backward; with the plain HF loss's upcast (12 B) it would be twice that.
  const auto e = estimate_from(R"({"model": {"hf_config": )" + kTinyBigVocab + R"(}, "rlhf": {"algorithm": "dpo"},
    "batch": {"micro_batch_size": 1, "seq_length": 512}})");
  // As above, less the gradients backward has not built yet.
  CHECK(role(e, "policy")->transient + role(e, "policy")->gradients == Approx(933494784.0).epsilon(0.02));
}

TEST_CASE("GRPO under DeepSpeed ZeRO-3 gathers the whole policy for generation (TRL ds3_gather_for_generation)", "[rlhf]") {
  // The tiny model: embedding and head 128 x 64 each (16,384), per layer q 4096 + k 2048 + v 2048 +
  // o 4096 + gate, up, down 3 x 8192 + two norms 128 = 36,992, x 2 layers = 73,984, final norm 64:
  // 90,432 parameters x 2 B (bf16) = 180,864 B gathered on each GPU beside its shard.
  // A long rollout (64 sequences of 8 + 4,096 tokens) makes generation the peak phase, which holds
  // the process's two cuBLAS workspaces too (no GPU named: 2 x 8,519,680 = 17,039,360 B,
  // cublas_workspaces.hpp): the generation's matmuls made them before the first training step.
  // TRL trains under the HF Trainer, whose DeepSpeed configs leave the buckets "auto": ZeRO-3's
  // reduce bucket, allocated with the optimizer and kept through the rollout, is hidden_size^2 =
  // 4,096 elements x 2 B = 8,192 B (transient_buffers.hpp); ZeRO-2's exist in backward only.
  const std::string rollout = R"("rlhf": {"algorithm": "grpo", "rollout": {"max_new_tokens": 4096}},
    "batch": {"micro_batch_size": 1, "seq_length": 8, "gradient_accumulation_steps": 64}, "framework": "hf_trainer",
    "precision": {"param_dtype": "bf16"}, "parallel": {"sharding_engine": "deepspeed", "world_size": 2, "zero_stage": )";
  const auto z3 = estimate_from(doc(rollout + "3}"));
  REQUIRE(z3.per_gpu.peak_phase == "rollout");
  REQUIRE(z3.rollout_kv_cache_bytes);
  // The model states count each model's largest module (a 64 x 128 linear or the 128 x 64 embedding:
  // 8,192 x 2 B = 16,384 B) gathered, and the policy's gradient of it, as DeepSpeed's estimator does;
  // the rollout holds none of them apart from the whole gathered policy: 3 x 16,384 = 49,152 B less.
  CHECK(*z3.per_gpu.peak_allocated == z3.per_gpu.model_states - 49152.0 + *z3.rollout_kv_cache_bytes + 180864.0 + 17039360.0 + 8192.0);
  // With the parameters offloaded the GPU holds no shard, yet generation still gathers the whole
  // policy, 180,864 B; the model states are then the gathered modules alone, which the rollout does
  // not hold.
  const auto offloaded = estimate_from(doc(rollout + R"(3, "offload_param": "cpu", "offload_optimizer": "cpu"})"));
  REQUIRE(offloaded.per_gpu.peak_phase == "rollout");
  CHECK(offloaded.per_gpu.model_states == 49152.0);
  CHECK(*offloaded.per_gpu.peak_allocated == *offloaded.rollout_kv_cache_bytes + 180864.0 + 17039360.0 + 8192.0);
  // ZeRO-2 keeps whole weights anyway: nothing is gathered.
  const auto z2 = estimate_from(doc(rollout + "2}"));
  REQUIRE(z2.per_gpu.peak_phase == "rollout");
  CHECK(*z2.per_gpu.peak_allocated == z2.per_gpu.model_states + *z2.rollout_kv_cache_bytes + 17039360.0);
}

TEST_CASE("an RLHF job's training phase is the policy's own peak plus the other models' states", "[rlhf]") {
  // DeepSpeed ZeRO-3 on 2 GPUs holds an fp32 gradient partition only in the optimizer step; the
  // policy's peak (backward) leaves it out, and the job's must too. The frozen reference: the tiny
  // model's 90,432 parameters (see above) x 2 B / 2 GPUs = 90,432 B, and, while it scores, its largest
  // module gathered (8,192 x 2 B = 16,384 B), which DeepSpeed's estimator counts as a model state.
  const std::string common = R"("framework": "deepspeed", "precision": {"param_dtype": "bf16"},
    "parallel": {"world_size": 2, "zero_stage": 3}, "loss": {"logits_fp32": false})";
  const auto dpo = estimate_from(doc(R"("rlhf": {"algorithm": "dpo"}, "batch": {"micro_batch_size": 2, "seq_length": 64}, )" + common));
  const auto plain_2x = estimate_from(doc(R"("batch": {"micro_batch_size": 4, "seq_length": 64}, )" + common));
  REQUIRE(dpo.per_gpu.peak_phase == "policy_training");
  CHECK(role(dpo, "reference")->model_states == 90432.0 + 16384.0);
  CHECK(*dpo.per_gpu.peak_allocated == *plain_2x.per_gpu.peak_allocated + 90432.0);
}

TEST_CASE("unstated, a LoRA policy's reference is its own base with adapters disabled; a full policy's a frozen copy", "[rlhf]") {
  // TRL runs DPO/GRPO/PPO with a PEFT model without a ref_model: no second copy of the weights. The
  // full policy's frozen reference holds the tiny model's 90,432 parameters x 2 B = 180,864 B.
  const std::string lora = R"("method": "lora", "lora": {"r": 8, "target_modules": ["q_proj"]}, )";
  CHECK(role(estimate_from(doc(lora + R"("rlhf": {"algorithm": "dpo"})")), "reference")->model_states == 0);
  CHECK(role(estimate_from(doc(R"("rlhf": {"algorithm": "dpo"})")), "reference")->model_states == 180864.0);
}

TEST_CASE("GRPO with no reference (TRL's beta 0.0) holds the policy alone; DPO and PPO need one", "[rlhf]") {
  // trl/trainer/grpo_trainer.py @f2cd577: beta == 0.0 leaves ref_model None. A full policy's frozen
  // reference was the tiny model's 90,432 parameters x 2 B = 180,864 B of states.
  const std::string grpo = R"("batch": {"seq_length": 32}, "rlhf": {"algorithm": "grpo", "rollout": {"max_new_tokens": 16}, )";
  const auto none = estimate_from(doc(grpo + R"("reference": {"method": "none"}})"));
  const auto frozen = estimate_from(doc(grpo + R"("reference": {"method": "frozen"}})"));
  CHECK(role(none, "reference") == nullptr);
  REQUIRE(role(frozen, "reference"));
  CHECK(role(frozen, "reference")->model_states == 180864.0);
  CHECK(none.per_gpu.model_states == role(none, "policy")->model_states);
  CHECK(frozen.per_gpu.model_states - none.per_gpu.model_states == 180864.0);
  for (const char* algorithm : {"dpo", "ppo"}) {
    const auto errors = parse_estimate_document(doc(std::string(R"("rlhf": {"algorithm": ")") + algorithm + R"(", "reference": {"method": "none"}})")).errors;
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].field == "rlhf.reference.method");
    CHECK(errors[0].message.find("only GRPO") != std::string::npos);
  }
}

TEST_CASE("colocated vLLM holds its share of the device through training unless it sleeps", "[rlhf]") {
  // TRL GRPO with use_vllm in colocate mode: vLLM sizes its pool to vllm_gpu_memory_utilization of
  // the device's total memory. On an H100 SXM (driver total 85,520,809,984 B) at TRL's default 0.3:
  // 25,656,242,995.2 B. Awake, the share adds to the training peak (server mode has none); with
  // sleep mode it exists only while generating, beside the resident model states and the process's
  // cuBLAS workspaces (2 x 33,554,432 B on Hopper, cublas_workspaces.hpp).
  const double share = 0.3 * 85520809984.0, workspaces = 67108864.0;
  const std::string base = R"("gpu": "h100-sxm-80gb", "batch": {"micro_batch_size": 4, "seq_length": 32}, "rlhf": {"algorithm": "grpo",
    "reference": {"method": "none"}, "rollout": {"max_new_tokens": 96, )";
  const auto server = estimate_from(doc(base + R"("use_vllm": true, "colocated": false}})"));
  const auto awake = estimate_from(doc(base + R"("use_vllm": true}})"));
  const auto asleep = estimate_from(doc(base + R"("use_vllm": true, "vllm_enable_sleep_mode": true}})"));
  REQUIRE(awake.rollout_vllm_bytes);
  CHECK(*awake.rollout_vllm_bytes == share);
  CHECK(!server.rollout_vllm_bytes);
  CHECK(*awake.per_gpu.peak_allocated == Approx(*server.per_gpu.peak_allocated + share).epsilon(1e-12));
  CHECK(*asleep.per_gpu.peak_allocated ==
        Approx(std::max(*server.per_gpu.peak_allocated, asleep.per_gpu.model_states + workspaces + share)).epsilon(1e-12));
  CHECK(asleep.per_gpu.peak_phase == "rollout");
  // vLLM replaces transformers' generate: no KV cache of its own beside the pool.
  CHECK(!awake.rollout_kv_cache_bytes);
  // Its size is a fraction of the device: without one the document is refused, naming gpu.
  CHECK(trainmem::test::error_fields(doc(R"("rlhf": {"algorithm": "grpo", "rollout": {"use_vllm": true}})")) ==
        std::vector<std::string>{"gpu"});
  // The allocator's overhead (fragmentation_fraction, 0.10 by default) is on PyTorch's own blocks,
  // not on the pool vLLM sized itself.
  CHECK(*awake.per_gpu.fragmentation == Approx((*awake.per_gpu.peak_allocated - share) * 0.10).epsilon(1e-12));
  // TRL's PPOTrainer has no vLLM path: the field is reported as ignored and generate's KV cache priced.
  const auto ppo = estimate_from(doc(R"("gpu": "h100-sxm-80gb", "rlhf": {"algorithm": "ppo", "rollout": {"use_vllm": true}})"));
  CHECK(!ppo.rollout_vllm_bytes);
  CHECK(ppo.rollout_kv_cache_bytes);
}

TEST_CASE("colocated vLLM's weight sync under ZeRO-3: one parameter at a time, the whole model for a PEFT merge", "[rlhf]") {
  // trl/generation/vllm_generation.py sync_weights @f2cd577: a PEFT model is gathered whole to merge
  // its adapters; otherwise each parameter is gathered alone, the largest being kTinyGqaLlama's 128 x 64
  // embedding (or head) in bf16: 8,192 x 2 = 16,384 B. Asleep, the rollout holds the model states,
  // the cuBLAS workspaces (2 x 33,554,432 B on Hopper), vLLM's share, that gather and ZeRO-3's
  // reduce bucket (the HF Trainer's "auto": hidden_size^2 = 4,096 elements x 2 B = 8,192 B). The
  // model states' gathered largest module (16,384 B) and its gradient (16,384 B, none under LoRA) are
  // not held while vLLM generates.
  const double share = 0.3 * 85520809984.0, workspaces = 67108864.0, bucket = 8192.0;
  const std::string rest = R"("gpu": "h100-sxm-80gb", "framework": "hf_trainer", "precision": {"param_dtype": "bf16"},
    "parallel": {"sharding_engine": "deepspeed", "world_size": 2, "zero_stage": 3}, "rlhf": {"algorithm": "grpo", "reference": {"method": "none"},
    "rollout": {"use_vllm": true, "vllm_enable_sleep_mode": true}})";
  const auto full = estimate_from(doc(rest));
  CHECK(full.per_gpu.peak_phase == "rollout");
  CHECK(*full.per_gpu.peak_allocated == Approx(full.per_gpu.model_states - 32768.0 + workspaces + share + 16384.0 + bucket).epsilon(1e-12));
  const auto lora = estimate_from(doc(std::string(R"("method": "lora", )") + rest));
  CHECK(*lora.per_gpu.peak_allocated ==
        Approx(lora.per_gpu.model_states - 16384.0 + workspaces + share + (role(lora, "policy")->parameters - 16384.0) * 2 + bucket).epsilon(1e-12));
}

TEST_CASE("a colocated vLLM share below the policy's weights is named: vLLM cannot load the model", "[rlhf][vllm][warnings]") {
  // Qwen2.5-7B (7,615,616,512 parameters) in bf16: 15,231,233,024 B of weights; 0.15 of an H100
  // SXM's 85,520,809,984 B is 12,828,121,497.6 B.
  const std::string doc = R"({"model": {"preset": "qwen2.5-7b"}, "method": "lora", "gpu": "h100-sxm-80gb",
    "rlhf": {"algorithm": "grpo", "rollout": {"use_vllm": true, "vllm_gpu_memory_utilization": SHARE}}})";
  auto warnings_at = [&](const std::string& share) {
    std::string d = doc;
    d.replace(d.find("SHARE"), 5, share);
    const TrainingSetup s = trainmem::test::setup_from(d);
    return estimate_warnings(s, estimate(s));
  };
  auto param = [](const Warning& w, const std::string& key) {
    for (const auto& [k, v] : w.params.values)
      if (k == key) return std::get<double>(v);
    return -1.0;
  };
  bool found = false;
  for (const auto& w : warnings_at("0.15")) {
    if (w.code != "vllm_share_below_weights") continue;
    found = true;
    CHECK(param(w, "weights") == 15231233024.0);
    CHECK(param(w, "bytes") == Approx(12828121497.6));
  }
  CHECK(found);
  for (const auto& w : warnings_at("0.3")) CHECK(w.code != "vllm_share_below_weights");
}

TEST_CASE("a PPO critic trained with LoRA takes its adapters from the lora block, which is then not ignored", "[rlhf]") {
  // The policy trains in full, the critic with LoRA on q_proj: per layer r x (64 in + 64 out), 2
  // layers -> 256 r trainable parameters; r 16 instead of 8 adds 2,048, each with two fp32 Adam
  // moments: 2,048 x 8 B = 16,384 B more optimizer state in the critic, none in the policy.
  auto ppo = [](int r) {
    return doc(R"("rlhf": {"algorithm": "ppo", "critic": {"method": "lora"}, "rollout": {"max_new_tokens": 32}},
      "batch": {"seq_length": 32}, "lora": {"r": )" + std::to_string(r) + R"(, "target_modules": ["q_proj"]})");
  };
  const auto r8 = estimate_from(ppo(8));
  const auto r16 = estimate_from(ppo(16));
  CHECK(role(r16, "critic")->optimizer_states - role(r8, "critic")->optimizer_states == 16384.0);
  CHECK(role(r16, "policy")->optimizer_states == role(r8, "policy")->optimizer_states);
  const auto parsed = parse_estimate_document(ppo(8));
  REQUIRE(parsed.errors.empty());
  for (const auto& field : parsed.setup.ignored_fields) CHECK(field.paths[0] != "lora");
  // Without a LoRA critic the block is reported as without effect.
  const auto full_critic = parse_estimate_document(doc(R"("rlhf": {"algorithm": "ppo"}, "lora": {"r": 8})"));
  REQUIRE(full_critic.errors.empty());
  CHECK(std::count_if(full_critic.setup.ignored_fields.begin(), full_critic.setup.ignored_fields.end(),
                      [](const trainmem::IgnoredField& f) { return f.paths == std::vector<std::string>{"lora"}; }) == 1);
}

TEST_CASE("An RLHF job's allocator overhead is its flat share of the job's peak, and its explanation says so", "[rlhf]") {
  // DPO without vLLM: reserved - allocated = 0.1 x the job's allocated peak (the policy's own
  // allocator terms describe its step alone), the figure the fragmentation explanation states.
  const auto e = estimate_from(doc(R"("rlhf": {"algorithm": "dpo"}, "batch": {"micro_batch_size": 2, "seq_length": 64})"));
  REQUIRE(e.per_gpu.peak_allocated);
  CHECK(*e.per_gpu.fragmentation == Approx(0.1 * *e.per_gpu.peak_allocated));
  CHECK(*e.per_gpu.allocator_uncertainty == *e.per_gpu.fragmentation);
  CHECK(*e.per_gpu.allocator_rounding == 0);
  CHECK(*e.per_gpu.allocator_cache == 0);
}

TEST_CASE("an RLHF job's model-state formulas are the policy's, plus every other model's share, summing to the job's", "[rlhf]") {
  // PPO with a LoRA policy: the policy trains its adapters alone; the critic trains every weight.
  // Each formula's result is the policy's bytes, then the other models', then the job's total.
  const TrainingSetup s = trainmem::test::setup_from(doc(R"("method": "lora", "rlhf": {"algorithm": "ppo"}, "batch": {"seq_length": 64})"));
  const Estimate e = estimate(s);
  const auto digits = [](double bytes) {  // 1234567 -> "1,234,567 B"
    std::string n = std::to_string(std::llround(bytes));
    for (int i = static_cast<int>(n.size()) - 3; i > 0; i -= 3) n.insert(static_cast<std::size_t>(i), ",");
    return n + " B";
  };
  const ModelBudget* policy = role(e, "policy");
  const ModelBudget* critic = role(e, "critic");
  REQUIRE(policy);
  REQUIRE(critic);
  CHECK(policy->gradients + critic->gradients == e.per_gpu.gradients);  // reference and reward train nothing
  bool seen = false;
  for (const Explanation& x : explain(s, e)) {
    if (x.component != "gradients") continue;
    seen = true;
    CHECK_THAT(x.formula, Catch::Contains(" = " + digits(policy->gradients) + " (policy) + critic " + digits(critic->gradients) +
                                          " = " + digits(e.per_gpu.gradients)));
  }
  CHECK(seen);
}

TEST_CASE("GRPO as TRL's GRPOConfig takes it: at least 2 completions per prompt, whole prompt groups per generation batch", "[rlhf]") {
  // trl/trainer/grpo_config.py (huggingface/trl f2cd577) __post_init__: the generation batch is
  // per_device_train_batch_size x processes x steps_per_generation (gradient_accumulation_steps by
  // default) and must be divisible by num_generations; num_generations < 2 is refused.
  const auto warned = [](const std::string& batch) {
    const TrainingSetup s = trainmem::test::setup_from(doc(R"("rlhf": {"algorithm": "grpo", "rollout": {"num_generations": 8}}, "batch": )" + batch));
    const auto w = estimate_warnings(s, estimate(s));
    return std::any_of(w.begin(), w.end(), [](const Warning& x) { return x.code == std::string("grpo_partial_prompt_groups"); });
  };
  CHECK(warned(R"({"micro_batch_size": 3, "seq_length": 64})"));                                 // 3 completions
  CHECK_FALSE(warned(R"({"micro_batch_size": 8, "seq_length": 64})"));                           // one group
  CHECK_FALSE(warned(R"({"micro_batch_size": 2, "seq_length": 64, "gradient_accumulation_steps": 4})"));  // 2 x 4 = 8
  const JsonResult one = estimate_json(doc(R"("rlhf": {"algorithm": "grpo", "rollout": {"num_generations": 1}}, "batch": {"seq_length": 64})"));
  CHECK_FALSE(one.ok);
  CHECK_THAT(one.json, Catch::Contains("\"field\": \"rlhf.rollout.num_generations\""));
}

TEST_CASE("ignored_fields names each ignored field by its path alone in params.paths", "[rlhf][warnings]") {
  // A full-fine-tuned GRPO policy with a shared-base reference and vLLM settings but no colocated
  // vLLM: the reference's setting and both vLLM settings, each by its full path, without the value.
  const nlohmann::json out = trainmem::test::estimate_doc(R"({"model": {"preset": "qwen2.5-0.5b"}, "rlhf": {"algorithm": "grpo",
    "reference": {"method": "shared_base"}, "rollout": {"vllm_gpu_memory_utilization": 0.3, "vllm_enable_sleep_mode": true}}})");
  std::string paths;
  for (const auto& w : out["warnings"])
    if (w["code"] == "ignored_fields") paths = w["params"]["paths"];
  CHECK(paths == "rlhf.rollout.vllm_gpu_memory_utilization, rlhf.rollout.vllm_enable_sleep_mode, rlhf.reference");
}
