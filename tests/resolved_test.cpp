// The `resolved` block: every input the estimate used, its value and its origin
// (engine/src/json/resolved_document.cpp, docs/api.md).
#include <functional>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

using nlohmann::json;
using namespace trainmem;

namespace {

json resolved(const std::string& document) {
  const JsonResult r = estimate_json(document);
  if (!r.ok) FAIL(r.json);
  return json::parse(r.json)["resolved"];
}

bool starts_with(const json& origin, const std::string& prefix) { return origin.get<std::string>().rfind(prefix, 0) == 0; }

}  // namespace

TEST_CASE("Defaults the user did not give are shown with the framework's reason", "[resolved]") {
  // HF QLoRA: PEFT's prepare_model_for_kbit_training turns on gradient checkpointing.
  const json qlora = resolved(R"({"model": {"preset": "llama-3.1-8b"}, "method": "qlora"})");
  CHECK(qlora["activation_checkpointing"]["value"] == "full");
  CHECK(starts_with(qlora["activation_checkpointing"]["origin"], "framework default (PEFT prepare_model_for_kbit_training"));
  // Llama-3.1-8B's catalog entry trains at 8,192 tokens (catalog/models); an engine choice.
  CHECK(qlora["batch.seq_length"]["value"] == 8192);
  CHECK(starts_with(qlora["batch.seq_length"]["origin"], "engine default"));
  // PEFT's target modules for Llama (TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING["llama"]).
  CHECK(qlora["lora.target_modules"]["value"] == json::array({"q_proj", "v_proj"}));
  CHECK(starts_with(qlora["lora.target_modules"]["origin"], "framework default (PEFT"));
  CHECK(qlora["method"] == json({{"value", "qlora"}, {"origin", "input"}}));
  // Adapters left without a dtype are held like the trainable weights (model_states.cpp): an fp32
  // model's in fp32, which resolved says (it said bf16, the field's unused initial value).
  const json fp32_lora = resolved(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora", "precision": {"param_dtype": "fp32"}})");
  CHECK(fp32_lora["lora.adapter_dtype"]["value"] == "fp32");
  CHECK(starts_with(fp32_lora["lora.adapter_dtype"]["origin"], "engine default"));

  // torchtune: chunked cross-entropy in 8 chunks, pure bf16 without an fp32 master copy.
  const json tune = resolved(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "torchtune"})");
  CHECK(tune["loss.implementation"]["value"] == "chunked");
  CHECK(tune["loss.num_chunks"]["value"] == 8);
  CHECK(tune["precision.master_weights"]["value"] == false);
  CHECK(starts_with(tune["precision.master_weights"]["origin"], "framework default (torchtune"));

  // DeepSpeed keeps gradients in the model dtype and an fp32 copy of the optimizer's partition.
  const json ds = resolved(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "deepspeed",
    "parallel": {"world_size": 8, "zero_stage": 2}, "batch": {"gradient_accumulation_steps": 4}})");
  CHECK(ds["precision.grad_dtype"]["value"] == "bf16");
  CHECK(starts_with(ds["precision.grad_dtype"]["origin"], "framework default (DeepSpeed"));
  CHECK(ds["parallel.sharding_engine"]["value"] == "deepspeed");
  CHECK(ds["parallel.gradient_sync"]["value"] == "every_micro_batch");
  // world_size 8 / (TP 1 x PP 1 x CP 1) = 8 data-parallel ranks, derived.
  CHECK(ds["parallel.data_parallel_size"]["value"] == 8);
  CHECK(starts_with(ds["parallel.data_parallel_size"]["origin"], "engine default"));

  // Megatron: fp32 main gradients and the vocabulary padded to a multiple of 128.
  const json mg = resolved(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "megatron"})");
  CHECK(mg["precision.grad_dtype"]["value"] == "fp32");
  CHECK(mg["make_vocab_size_divisible_by"]["value"] == 128);
}

TEST_CASE("compile: true takes the framework's scope; a scope given is input", "[resolved]") {
  const json titan = resolved(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "torchtitan", "compile": true})");
  CHECK(titan["compile"]["value"] == "blocks_and_loss");
  CHECK(starts_with(titan["compile"]["origin"], "framework default (torchtitan"));
  const json scoped = resolved(R"({"model": {"preset": "llama-3.1-8b"}, "compile": "blocks"})");
  CHECK(scoped["compile"] == json({{"value", "blocks"}, {"origin", "input"}}));
  const json off = resolved(R"({"model": {"preset": "llama-3.1-8b"}})");
  CHECK(off["compile"] == json({{"value", false}, {"origin", "engine default"}}));
}

TEST_CASE("Every field a document gives is in resolved as input, with the value given", "[resolved]") {
  const json doc = json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "hf_trainer", "method": "lora",
    "lora": {"r": 64, "target_modules": ["q_proj", "k_proj"], "use_dora": false, "lora_dropout": 0.05, "adapter_dtype": "fp32"},
    "precision": {"param_dtype": "bf16", "grad_dtype": "bf16", "compute_dtype": "bf16", "master_weights": true, "optimizer": "adamw_8bit",
                  "optimizer_state_dtype": "fp32", "optimizer_in_backward": false, "fp8_compute": false, "optimizer_implementation": "fused"},
    "batch": {"micro_batch_size": 2, "seq_length": 4096, "gradient_accumulation_steps": 8},
    "activation_checkpointing": "selective", "selective_policy": "op_level", "checkpointed_layers": 16, "activation_offload": false,
    "loss": {"implementation": "chunked", "logits_fp32": true, "num_chunks": 4}, "compile": "blocks_and_loss",
    "make_vocab_size_divisible_by": 64, "model_loading": "meta_init", "attention": "sdpa",
    "parallel": {"world_size": 16, "gpus_per_node": 8, "data_parallel_size": 8, "zero_stage": 3, "tensor_parallel_size": 2,
                 "sequence_parallel": true, "pipeline_parallel_size": 1, "context_parallel_size": 1, "offload_optimizer": "none",
                 "offload_param": "none", "reshard_after_forward": true, "sharding_engine": "fsdp2", "gradient_sync": "every_micro_batch"},
    "gpu": "h100-sxm-80gb", "overhead": {"fragmentation_fraction": 0.2},
    "checkpoint": {"save": "adapter", "keep_last": 3, "exclude_frozen_parameters": true}})");
  const json r = resolved(doc.dump());
  std::function<void(const json&, const std::string&)> walk = [&](const json& v, const std::string& path) {
    if (v.is_object() && path != "model") {
      for (auto it = v.begin(); it != v.end(); ++it) walk(it.value(), path.empty() ? it.key() : path + "." + it.key());
      return;
    }
    if (path == "model") return walk(v["preset"], "model.preset");
    INFO(path);
    REQUIRE(r.contains(path));
    CHECK(r[path]["origin"] == "input");
    CHECK(r[path]["value"] == v);
  };
  walk(doc, "");
}

TEST_CASE("A vision-language model's image settings: freeze options, images and the image size's source", "[resolved]") {
  // LLaVA 1.5: the tower frozen and the projector trained by default; one 336 x 336 image, the size
  // its vision_config states.
  const json llava = resolved(R"({"model": {"preset": "llava-1.5-7b"}, "multimodal": {"images_per_sample": 2}})");
  CHECK(llava["multimodal.freeze_vision_tower"]["value"] == true);
  CHECK(starts_with(llava["multimodal.freeze_vision_tower"]["origin"], "engine default"));
  CHECK(llava["multimodal.freeze_projector"]["value"] == false);
  CHECK(llava["multimodal.images_per_sample"] == json({{"value", 2}, {"origin", "input"}}));
  CHECK(llava["multimodal.image_size"] == json({{"value", {336, 336}}, {"origin", "read from config.json:vision_config.image_size"}}));
  // Qwen2.5-VL's config states no image size: 448 x 448, the engine's choice.
  const json qwen = resolved(R"({"model": {"preset": "qwen2.5-vl-7b"}})");
  CHECK(qwen["multimodal.image_size"]["value"] == json({448, 448}));
  CHECK(starts_with(qwen["multimodal.image_size"]["origin"], "engine default"));
  const json given = resolved(R"({"model": {"preset": "qwen2.5-vl-7b"}, "multimodal": {"image_size": [672, 448]}})");
  CHECK(given["multimodal.image_size"] == json({{"value", {672, 448}}, {"origin", "input"}}));
  // A text model has none.
  CHECK_FALSE(resolved(R"({"model": {"preset": "llama-3.1-8b"}})").contains("multimodal.images_per_sample"));
}

TEST_CASE("resolved says which loss and held logits the estimate priced, under Liger and under RLHF", "[resolved][loss]") {
  const std::string base = R"({"model": {"preset": "llama-3-8b"}, "framework": "deepspeed", "use_liger_kernel": true,
    "parallel": {"world_size": 4, "zero_stage": 3}, "batch": {"micro_batch_size": 1, "seq_length": 2048})";
  // Liger's fused linear cross-entropy returns no logits: nothing for DeepSpeed's loop to hold.
  const json sft = resolved(base + "}");
  CHECK(sft["loss.implementation"]["value"] == "fused");
  CHECK(sft["loss.held_logits"]["value"] == "none");
  // Under DPO, TRL computes its loss on the logits Liger's forward returns without labels: the
  // framework's full loss, and DeepSpeed's loop holds the 16-bit logits.
  const json dpo = resolved(base + R"(, "rlhf": {"algorithm": "dpo"}})");
  CHECK(dpo["loss.implementation"]["value"] == "full");
  CHECK(dpo["loss.held_logits"]["value"] == "compute_dtype");
  // A held_logits of none given with the fused loss agrees with it: input, not ignored.
  const JsonResult given = estimate_json(base + R"(, "loss": {"held_logits": "none"}})");
  REQUIRE(given.ok);
  const json out = json::parse(given.json);
  CHECK(out["resolved"]["loss.held_logits"]["origin"] == "input");
  for (const auto& w : out["warnings"]) CHECK(w["code"] != "ignored_fields");
}

TEST_CASE("selective checkpointing without a policy is the framework's own: op-level SAC under torchtitan", "[resolved]") {
  // torchtitan's shipped configs (train_configs/*.toml) set selective_ac_option = "op"; it has no
  // attention-core policy, which under flash attention saves nothing (Korthikanti et al. 2022's
  // selective recompute drops the attention scores, which flash attention never stores).
  const std::string doc = R"({"model": {"preset": "llama-3.1-8b"}, "framework": "torchtitan", "gpu": "h100-sxm-80gb",
    "parallel": {"world_size": 8}, "batch": {"seq_length": 8192}, "attention": "flash", "activation_checkpointing": "selective")";
  const json titan = resolved(doc + "}");
  CHECK(titan["selective_policy"]["value"] == "op_level");
  CHECK(starts_with(titan["selective_policy"]["origin"], "framework default (torchtitan"));
  const json op = json::parse(estimate_json(doc + "}").json);
  const json attention_core = json::parse(estimate_json(doc + R"(, "selective_policy": "attention_core"})").json);
  CHECK(op["per_gpu"]["activations"].get<double>() < attention_core["per_gpu"]["activations"].get<double>());
  // Megatron-LM's selective recompute is the core attention.
  const json megatron = resolved(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "megatron", "activation_checkpointing": "selective"})");
  CHECK(megatron["selective_policy"]["value"] == "attention_core");
}

TEST_CASE("precision.trainable_dtype names the dtype bytes_per_param.param prices", "[precision]") {
  const auto out = [](const std::string& doc) { return json::parse(estimate_json(doc).json); };
  // accelerate's FSDP upcasts a full fine-tune's bf16 weights to fp32 (huggingface/accelerate#2674): 4 B.
  const json fsdp = out(R"({"model": {"preset": "llama-3.1-8b"}, "parallel": {"world_size": 8, "zero_stage": 3}})");
  CHECK(fsdp["precision"]["trainable_dtype"] == "fp32");
  CHECK(fsdp["bytes_per_param"]["param"] == 4.0);
  // PEFT keeps the adapters in fp32 over the bf16 base (get_peft_model autocast_adapter_dtype).
  const json lora = out(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora"})");
  CHECK(lora["precision"]["trainable_dtype"] == "fp32");
  CHECK(lora["precision"]["param_dtype"] == "bf16");
  // DeepSpeed keeps 16-bit weights beside its fp32 master: 2 B.
  const json ds = out(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "deepspeed", "parallel": {"world_size": 8, "zero_stage": 3}})");
  CHECK(ds["precision"]["trainable_dtype"] == "bf16");
  CHECK(ds["bytes_per_param"]["param"] == 2.0);
}
