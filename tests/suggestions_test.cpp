// Make it fit: suggestions for a setup that does not fit or is borderline, each a single change
// re-estimated (engine/src/json/suggestions_document.cpp).
#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

using nlohmann::json;
using namespace trainmem;
using trainmem::test::has;

namespace {

json estimate_json_doc(const json& document) { return trainmem::test::estimate_doc(document.dump()); }

std::vector<std::string> codes(const json& out) {
  std::vector<std::string> c;
  for (const auto& s : out["suggestions"]) c.push_back(s["code"]);
  return c;
}

// Llama-3.1-8B full fine-tune, micro-batch 4 x 4,096 tokens, on one 24 GiB GPU: 16 B/param of
// model states alone (128 GB) do not fit.
const json kTooBig = json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "gpu": "rtx-4090-24gb",
  "batch": {"micro_batch_size": 4, "seq_length": 4096}})");

}  // namespace

TEST_CASE("Every suggestion is the estimate of the changed document, ranked by bytes saved", "[suggestions]") {
  for (const json& doc : {kTooBig, json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "deepspeed", "gpu": "a100-40gb",
                                                 "parallel": {"world_size": 8, "zero_stage": 1}, "activation_checkpointing": "none",
                                                 "batch": {"micro_batch_size": 2, "seq_length": 4096, "gradient_accumulation_steps": 4}})")}) {
    const json out = estimate_json_doc(doc);
    REQUIRE(out["verdict"] != "fits");
    REQUIRE(!out["suggestions"].empty());
    double previous = 1e300;
    for (const auto& s : out["suggestions"]) {
      INFO(s.dump());
      json changed = doc;
      changed.merge_patch(s["change"]);
      REQUIRE(changed != doc);  // never a change that is already on
      const json again = estimate_json_doc(changed);
      CHECK(s["peak"] == again["per_gpu"]["peak"]);
      CHECK(s["verdict"] == again["verdict"]);
      // Exactly the difference of the two peaks as written (whole bytes), not within a byte of it.
      CHECK(s["saved_bytes"].get<double>() == out["per_gpu"]["peak"].get<double>() - again["per_gpu"]["peak"].get<double>());
      CHECK(s["saved_bytes"].get<double>() > 0);
      CHECK(s["saved_bytes"].get<double>() <= previous);
      previous = s["saved_bytes"].get<double>();
    }
  }
}

TEST_CASE("ZeRO stages are suggested as the framework's own configuration offers them", "[suggestions]") {
  // The HF Trainer over accelerate's FSDP has NO_SHARD, SHARD_GRAD_OP and FULL_SHARD (stages 0, 2
  // and 3; framework_parallelism.cpp): from stage 0 it is offered 2 and 3, never a ZeRO-1 that
  // FSDP has not. Under DeepSpeed the next stage, 1, and the top one.
  auto stages = [](const char* framework) {
    const json out = estimate_json_doc(json::parse(std::string(R"({"model": {"preset": "llama-3.1-8b"}, "framework": ")") + framework +
                                                   R"(", "gpu": "a100-40gb", "parallel": {"world_size": 8, "zero_stage": 0},
      "batch": {"micro_batch_size": 2, "seq_length": 4096}})"));
    REQUIRE(out["verdict"] != "fits");
    std::vector<int> z;
    for (const auto& s : out["suggestions"])
      if (s["code"] == "zero_stage") z.push_back(s["params"]["zero_stage"]);
    std::sort(z.begin(), z.end());
    return z;
  };
  CHECK(stages("hf_trainer") == std::vector<int>{2, 3});
  CHECK(stages("deepspeed") == std::vector<int>{1, 3});
}

TEST_CASE("A setup that fits has no suggestions", "[suggestions]") {
  const json out = estimate_json_doc(json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "method": "qlora", "gpu": "h100-sxm-80gb",
    "batch": {"seq_length": 1024}, "activation_checkpointing": "full"})"));
  REQUIRE(out["verdict"] == "fits");
  CHECK(out["suggestions"].empty());
}

TEST_CASE("Never a change already on, never one impossible for the setup", "[suggestions]") {
  SECTION("one GPU: no ZeRO stage and no more GPUs (nothing to shard over)") {
    const auto c = codes(estimate_json_doc(kTooBig));
    CHECK(!has(c, "zero_stage"));
    CHECK(!has(c, "more_gpus"));
    CHECK(has(c, "lora"));
    CHECK(has(c, "qlora"));
    CHECK(has(c, "checkpointing"));
  }
  SECTION("checkpointing, a fused loss and QLoRA already on are not offered again") {
    json doc = kTooBig;
    doc.merge_patch(json::parse(R"({"method": "qlora", "activation_checkpointing": "full", "loss": {"implementation": "fused"},
      "batch": {"micro_batch_size": 16, "seq_length": 16384}})"));
    const json out = estimate_json_doc(doc);
    REQUIRE(out["verdict"] != "fits");
    const auto c = codes(out);
    CHECK(!has(c, "checkpointing"));
    CHECK(!has(c, "fused_loss"));
    CHECK(!has(c, "lora"));
    CHECK(!has(c, "qlora"));
    CHECK(has(c, "smaller_micro_batch"));
  }
  SECTION("Liger's kernels where they apply: a Llama under the HF Trainer, never under torchtune or for GPT-2") {
    CHECK(has(codes(estimate_json_doc(kTooBig)), "liger_kernel"));
    json tune = kTooBig;
    tune["framework"] = "torchtune";
    CHECK(!has(codes(estimate_json_doc(tune)), "liger_kernel"));
    json gpt2 = kTooBig;
    gpt2["model"]["preset"] = "gpt2";
    gpt2["gpu"] = "t4-16gb";
    gpt2["batch"] = json::parse(R"({"micro_batch_size": 64, "seq_length": 1024})");
    const json out = estimate_json_doc(gpt2);
    REQUIRE(out["verdict"] != "fits");
    CHECK(!has(codes(out), "liger_kernel"));
  }
  SECTION("the HF Trainer has no selective recompute to turn on; Megatron-LM and torchtitan have") {
    // kTooBig states no checkpointing: the HF Trainer's default, none.
    const auto policies = [](const json& out) {
      std::vector<std::string> p;
      for (const auto& s : out["suggestions"])
        if (s["code"] == "checkpointing") p.push_back(s["change"]["activation_checkpointing"]);
      return p;
    };
    CHECK(policies(estimate_json_doc(kTooBig)) == std::vector<std::string>{"full"});
    json titan = kTooBig;
    titan["framework"] = "torchtitan";
    titan["activation_checkpointing"] = "none";
    const auto t = policies(estimate_json_doc(titan));
    CHECK(std::find(t.begin(), t.end(), "selective") != t.end());
  }
  SECTION("torchtitan has no adapters and DeepSpeed no bitsandbytes optimizer") {
    json titan = kTooBig;
    titan["framework"] = "torchtitan";
    const auto t = codes(estimate_json_doc(titan));
    CHECK(!has(t, "lora"));
    CHECK(!has(t, "qlora"));
    CHECK(!has(t, "eight_bit_optimizer"));
    json ds = kTooBig;
    ds["framework"] = "deepspeed";
    const auto d = codes(estimate_json_doc(ds));
    CHECK(!has(d, "eight_bit_optimizer"));
    CHECK(has(d, "offload_optimizer"));  // ZeRO-Offload: stage 2 with the optimizer on the host
  }
  SECTION("no change the device cannot run: bitsandbytes and Liger have no TPU kernels") {
    // The HF Trainer on a TPU v5p: a bitsandbytes optimizer, a QLoRA base or Liger's kernels would
    // make it unrunnable there (cannot_run tpu_unsupported_software); checkpointing and LoRA stay.
    json tpu = kTooBig;
    tpu["gpu"] = "tpu-v5p-95gb";
    tpu["batch"] = json::parse(R"({"micro_batch_size": 16, "seq_length": 8192})");
    const json out = estimate_json_doc(tpu);
    REQUIRE(out["verdict"] != "fits");
    const auto c = codes(out);
    CHECK(!has(c, "eight_bit_optimizer"));
    CHECK(!has(c, "paged_optimizer"));
    CHECK(!has(c, "qlora"));
    CHECK(!has(c, "liger_kernel"));
    CHECK(has(c, "checkpointing"));
    CHECK(has(c, "lora"));
  }
  SECTION("no change beyond what the framework runs: ZeRO-3 beside DeepSpeed's AutoTP") {
    // DeepSpeed's AutoTP trains at ZeRO 0-2 (fields_beyond_framework): with tensor parallelism 2
    // the ZeRO stage above 2 is not offered.
    json ds = kTooBig;
    ds["framework"] = "deepspeed";
    ds["parallel"] = json::parse(R"({"world_size": 8, "tensor_parallel_size": 2, "zero_stage": 1})");
    ds["model"]["preset"] = "llama-3-70b";
    const json out = estimate_json_doc(ds);
    REQUIRE(out["verdict"] != "fits");
    std::vector<int> stages;
    for (const auto& x : out["suggestions"])
      if (x["code"] == "zero_stage") stages.push_back(x["params"]["zero_stage"]);
    CHECK(stages == std::vector<int>{2});
  }
}

TEST_CASE("QLoRA under FSDP1 with adapters in the layers' flat parameters: make the adapters units of their own", "[suggestions]") {
  // A new user's case: Llama-3.1-70B QLoRA on 2 x 24 GB under framework fsdp (FSDP1,
  // use_orig_params=True by default): every layer's flat parameter carries a gradient, 17.2 GB per
  // GPU. use_orig_params: false leaves only the adapters' gradients; the suggestion is that change,
  // re-estimated, and it is not offered once it is on.
  const json doc = json::parse(R"({"model": {"preset": "llama-3.1-70b"}, "method": "qlora", "framework": "fsdp",
    "parallel": {"world_size": 2, "zero_stage": 3}, "batch": {"micro_batch_size": 1, "seq_length": 2048},
    "activation_checkpointing": "full", "gpu": "rtx-4090-24gb"})");
  const json out = estimate_json_doc(doc);
  const auto it = std::find_if(out["suggestions"].begin(), out["suggestions"].end(), [](const json& s) { return s["code"] == "adapter_units"; });
  REQUIRE(it != out["suggestions"].end());
  CHECK((*it)["change"] == json::parse(R"({"parallel": {"use_orig_params": false}})"));
  json changed = doc;
  changed["parallel"]["use_orig_params"] = false;
  const json after = estimate_json_doc(changed);
  CHECK((*it)["peak"] == after["per_gpu"]["peak"]);
  CHECK(out["per_gpu"]["gradients"].get<double>() - after["per_gpu"]["gradients"].get<double>() > 17e9);
  CHECK_FALSE(has(codes(after), "adapter_units"));
}

TEST_CASE("FSDP under accelerate with accumulation: reduce the gradients on every micro-batch", "[suggestions]") {
  // A new user's case: Llama-3-70B (70.55e9 parameters) under framework fsdp on 16 GPUs with 4
  // accumulation steps. accelerate's accumulate() runs the first three micro-batches in no_sync, so
  // the whole bf16 gradients stay (70.55e9 x 2 B = 141 GB); sync_each_batch reduce-scatters them
  // each time, leaving the fp32 shard (70.55e9 x 4 B / 16 = 17.6 GB): about 123 GB less.
  const json doc = json::parse(R"({"model": {"preset": "llama-3-70b"}, "framework": "fsdp", "gpu": "h100-sxm-80gb",
    "parallel": {"world_size": 16, "zero_stage": 3}, "activation_checkpointing": "full",
    "batch": {"micro_batch_size": 1, "seq_length": 4096, "gradient_accumulation_steps": 4}})");
  const json out = estimate_json_doc(doc);
  const auto it = std::find_if(out["suggestions"].begin(), out["suggestions"].end(), [](const json& s) { return s["code"] == "gradient_sync"; });
  REQUIRE(it != out["suggestions"].end());
  CHECK((*it)["change"] == json::parse(R"({"parallel": {"gradient_sync": "every_micro_batch"}})"));
  json changed = doc;
  changed["parallel"]["gradient_sync"] = "every_micro_batch";
  const json after = estimate_json_doc(changed);
  CHECK((*it)["peak"] == after["per_gpu"]["peak"]);
  CHECK(out["per_gpu"]["gradients"].get<double>() - after["per_gpu"]["gradients"].get<double>() > 120e9);
  CHECK_FALSE(has(codes(after), "gradient_sync"));
  json one_step = doc;
  one_step["batch"]["gradient_accumulation_steps"] = 1;
  CHECK_FALSE(has(codes(estimate_json_doc(one_step)), "gradient_sync"));
}

TEST_CASE("Accumulation keeps the global batch: smaller micro-batches, more GPUs", "[suggestions]") {
  const json doc = json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "fsdp", "gpu": "a100-40gb",
    "parallel": {"world_size": 8, "zero_stage": 3}, "activation_checkpointing": "none",
    "batch": {"micro_batch_size": 4, "seq_length": 4096, "gradient_accumulation_steps": 2}})");
  const json out = estimate_json_doc(doc);
  REQUIRE(out["verdict"] != "fits");
  // Global batch: 4 x 8 ranks x 2 = 64 sequences.
  REQUIRE(out["global_batch_size"] == 64);
  bool micro = false, gpus = false;
  for (const auto& s : out["suggestions"]) {
    json changed = doc;
    changed.merge_patch(s["change"]);
    if (s["code"] == "smaller_micro_batch") {
      micro = true;
      // 2 x 8 x 4 = 64.
      CHECK(s["params"] == json({{"micro_batch_size", 2}, {"gradient_accumulation_steps", 4}}));
      CHECK(estimate_json_doc(changed)["global_batch_size"] == 64);
    }
    if (s["code"] == "more_gpus") {
      gpus = true;
      // 4 x 16 x 1 = 64.
      CHECK(s["params"]["world_size"] == 16);
      CHECK(estimate_json_doc(changed)["global_batch_size"] == 64);
    }
  }
  CHECK(micro);
  CHECK(gpus);
}

TEST_CASE("GRPO with colocated vLLM: sleep mode, the share its generation batch needs, or a vLLM server", "[suggestions][rlhf]") {
  // Llama-3.1-8B LoRA policy, GRPO, vLLM in each training process at axolotl's default share 0.9 of
  // an H100 SXM (driver total 85,520,809,984 B: 76.97 GB held while the policy trains).
  const json doc = json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora", "gpu": "h100-sxm-80gb",
    "batch": {"micro_batch_size": 8, "seq_length": 1024, "gradient_accumulation_steps": 4},
    "rlhf": {"algorithm": "grpo", "rollout": {"max_new_tokens": 1024, "use_vllm": true, "vllm_gpu_memory_utilization": 0.9}}})");
  const json out = estimate_json_doc(doc);
  REQUIRE(out["verdict"] == "does_not_fit");
  std::map<std::string, json> by_code;
  for (const auto& s : out["suggestions"]) by_code[s["code"]] = s;
  REQUIRE(by_code.count("vllm_sleep_mode"));
  CHECK(by_code["vllm_sleep_mode"]["change"] == json::parse(R"({"rlhf": {"rollout": {"vllm_enable_sleep_mode": true}}})"));
  REQUIRE(by_code.count("vllm_server"));
  CHECK(by_code["vllm_server"]["change"] == json::parse(R"({"rlhf": {"rollout": {"colocated": false}}})"));
  // The share that holds vLLM's weights and the whole generation batch's KV cache:
  //   weights: 8,030,261,248 parameters x 2 B (bf16) = 16,060,522,496 B
  //   KV cache: 32 layers x 2 (K, V) x 8 KV heads x 128 = 65,536 elements x 2 B = 131,072 B per token,
  //     x 32 sequences (micro-batch 8 x 4 accumulation steps: TRL's steps_per_generation)
  //     x 2,048 tokens (1,024 prompt + 1,024 new) = 8,589,934,592 B
  //   (16,060,522,496 + 8,589,934,592) / 85,520,809,984 = 0.28824 -> 0.29
  REQUIRE(by_code.count("vllm_memory_share"));
  CHECK(by_code["vllm_memory_share"]["params"]["vllm_gpu_memory_utilization"].get<double>() == 0.29);
  // Each one is the estimate of the changed document.
  for (const auto& [code, s] : by_code) {
    json changed = doc;
    changed.merge_patch(s["change"]);
    CHECK(s["peak"] == estimate_json_doc(changed)["per_gpu"]["peak"]);
  }

  SECTION("sleep mode already on, a share already that small: neither offered again") {
    json asleep = doc;
    asleep["rlhf"]["rollout"]["vllm_enable_sleep_mode"] = true;
    asleep["rlhf"]["rollout"]["vllm_gpu_memory_utilization"] = 0.29;
    asleep["batch"]["micro_batch_size"] = 32;  // still does not fit
    const json again = estimate_json_doc(asleep);
    REQUIRE(again["verdict"] != "fits");
    const auto c = codes(again);
    CHECK(!has(c, "vllm_sleep_mode"));
    CHECK(!has(c, "vllm_memory_share"));  // 128 sequences need a larger share than 0.29
    // Asleep, the pool is on the GPU only while generating (model states + 0.29 x 85.5 GB), below
    // the training phase at micro-batch 32: a server would save nothing, so it is left out.
    REQUIRE(again["per_gpu"]["peak_phase"] == "policy_training");
    CHECK(!has(c, "vllm_server"));
  }
  SECTION("no vLLM setting without vLLM in the training processes") {
    for (const char* patch : {R"({"rlhf": {"rollout": {"colocated": false}}})", R"({"rlhf": {"rollout": {"use_vllm": false}}})"}) {
      json other = doc;
      other.merge_patch(json::parse(patch));
      const json again = estimate_json_doc(other);
      REQUIRE(again["verdict"] != "fits");
      const auto c = codes(again);
      CHECK(!has(c, "vllm_sleep_mode"));
      CHECK(!has(c, "vllm_memory_share"));
      CHECK(!has(c, "vllm_server"));
    }
  }
}

TEST_CASE("GRPO and DPO get LoRA and QLoRA suggestions too", "[suggestions][rlhf]") {
  // A full Llama-3.1-8B GRPO policy with colocated vLLM on one H100: model states alone (16 B per
  // parameter, 128 GB) do not fit; LoRA drops them to the bf16 weights.
  const json doc = json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "gpu": "h100-sxm-80gb",
    "batch": {"micro_batch_size": 4, "seq_length": 1024, "gradient_accumulation_steps": 2},
    "rlhf": {"algorithm": "grpo", "rollout": {"use_vllm": true, "vllm_gpu_memory_utilization": 0.9, "max_new_tokens": 1024}}})");
  const json out = estimate_json_doc(doc);
  REQUIRE(out["verdict"] == "does_not_fit");
  const auto c = codes(out);
  CHECK(has(c, "lora"));
  CHECK(has(c, "qlora"));
}
