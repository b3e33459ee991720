// Setups that no trainer can run are refused at the field that makes them impossible, with a
// message a user can act on, rather than priced (validate.cpp). Each case's numbers are worked out
// in its comment.
#include <nlohmann/json.hpp>

#include "test_support.hpp"

using trainmem::test::error_fields;

namespace {

// The first error of a document, parsed.
nlohmann::json first_error(const std::string& document) {
  const nlohmann::json out = nlohmann::json::parse(trainmem::estimate_json(document).json);
  REQUIRE(out.contains("errors"));
  return out["errors"][0];
}

}  // namespace

TEST_CASE("a global batch past 2^53 sequences is refused, never wrapped", "[impossible]") {
  // 1e9 x 10 x 1e9 = 1e19 sequences > 2^53 = 9,007,199,254,740,992; as 64-bit integers the product
  // would wrap to -8,446,744,073,709,551,616.
  const nlohmann::json e = first_error(R"({"model": {"num_parameters": 1000}, "parallel": {"world_size": 10},
    "batch": {"micro_batch_size": 1e9, "gradient_accumulation_steps": 1e9}})");
  CHECK(e["code"] == "out_of_range");
  CHECK(e["field"] == "batch.gradient_accumulation_steps");
  CHECK(e["params"]["reason"] == "global_batch_above_2_53");
  CHECK(e["params"]["limit"] == 9007199254740992.0);
  // Without accumulation the micro-batch is the field: 1e9 x 1e7 GPUs = 1e16 > 2^53.
  CHECK(error_fields(R"({"model": {"num_parameters": 1000}, "parallel": {"world_size": 1e7},
    "batch": {"micro_batch_size": 1e9}})") == std::vector<std::string>{"batch.micro_batch_size"});
  // 2^53 itself is exact: 2^20 x 2^13 GPUs x 2^20 steps is accepted, one step more is not.
  const std::string edge = R"({"model": {"num_parameters": 1000}, "parallel": {"world_size": 8192},
    "batch": {"micro_batch_size": 1048576, "gradient_accumulation_steps": )";
  CHECK(error_fields(edge + "1048576}}").empty());
  CHECK(error_fields(edge + "1048577}}") == std::vector<std::string>{"batch.gradient_accumulation_steps"});
}

TEST_CASE("a usable figure leaves room for the CUDA context", "[impossible]") {
  // 43e9 usable + 20e9 context > 43e9 of memory: the peak (context included) would pass a check
  // against usable_bytes while exceeding the device.
  const nlohmann::json e = first_error(R"({"model": {"preset": "llama-3.2-1b"}, "batch": {"seq_length": 4096},
    "gpu": {"memory_bytes": 43e9, "usable_bytes": 43e9, "cuda_context_bytes": 20e9}})");
  CHECK(e["code"] == "inconsistent");
  CHECK(e["field"] == "gpu.usable_bytes");
  CHECK(e["params"]["reason"] == "usable_and_context_above_memory");
  CHECK(e["params"]["limit"] == 43e9);
  // Without a context figure the default, 512 MiB = 536,870,912 B, counts: 24e9 + 536,870,912 >
  // 24e9 is refused, 23e9 + 536,870,912 <= 24e9 is accepted.
  CHECK(error_fields(R"({"model": {"preset": "llama-3.2-1b"}, "gpu": {"memory_bytes": 24e9, "usable_bytes": 24e9}})") ==
        std::vector<std::string>{"gpu.usable_bytes"});
  CHECK(error_fields(R"({"model": {"preset": "llama-3.2-1b"}, "gpu": {"memory_bytes": 24e9, "usable_bytes": 23e9}})").empty());
  // The context the message names is in its params: 20e9 given.
  CHECK(e["params"]["context"] == 20e9);
  // A device of 500 MiB = 524,288,000 B is not above the default context of 536,870,912 B.
  const nlohmann::json small = first_error(R"({"model": {"preset": "smollm-135m"}, "gpu": {"memory_bytes": 524288000}})");
  CHECK(small["field"] == "gpu.memory_bytes");
  CHECK(small["params"]["reason"] == "context_not_below_memory");
  CHECK(small["params"]["context"] == 536870912.0);
  CHECK(error_fields(R"({"model": {"preset": "smollm-135m"}, "gpu": {"memory_bytes": 524288000, "cuda_context_bytes": 1e8}})").empty());
  // A given context is held to the same rule, at its own field.
  CHECK(error_fields(R"({"model": {"preset": "smollm-135m"}, "gpu": {"memory_bytes": 524288000, "cuda_context_bytes": 524288000}})") ==
        std::vector<std::string>{"gpu.cuda_context_bytes"});
}

TEST_CASE("the optimizer stepped in backward leaves no gradient to accumulate", "[impossible]") {
  // torchtune's recipes raise on optimizer_in_bwd with gradient_accumulation_steps > 1.
  const std::string doc = R"({"model": {"preset": "llama-2-7b"}, "framework": "torchtune", "precision": {"optimizer_in_backward": true},
    "batch": {"gradient_accumulation_steps": )";
  CHECK(error_fields(doc + "4}}") == std::vector<std::string>{"precision.optimizer_in_backward"});
  CHECK(error_fields(doc + "1}}").empty());
}

TEST_CASE("Megatron's tensor parallelism must divide each MLP's width", "[impossible]") {
  // A Llama whose intermediate_size 11,000 is not a multiple of 16 (11,000 / 16 = 687.5); its 32
  // heads and 32 key/value heads do divide. Megatron's ColumnParallelLinear asserts the split.
  const std::string config = R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11000,
    "num_attention_heads": 32, "num_key_value_heads": 32, "num_hidden_layers": 4, "vocab_size": 32000})";
  const std::string doc = R"({"model": {"hf_config": )" + config +
                          R"(}, "parallel": {"world_size": 16, "tensor_parallel_size": 16}, "framework": )";
  const nlohmann::json e = first_error(doc + R"("megatron"})");
  CHECK(e["code"] == "not_divisible");
  CHECK(e["field"] == "parallel.tensor_parallel_size");
  CHECK(e["params"]["of"] == "intermediate_size");
  CHECK(e["params"]["value"] == 11000);
  // 11,000 / 8 = 1,375: TP 8 is accepted.
  CHECK(error_fields(R"({"model": {"hf_config": )" + config +
                     R"(}, "parallel": {"world_size": 8, "tensor_parallel_size": 8}, "framework": "megatron"})").empty());
  // Mixtral's experts split over the expert tensor-parallel size: 14,336 / 3 is not whole, 14,336 / 2 is.
  const std::string mixtral = R"({"model": {"preset": "mixtral-8x7b"}, "framework": "megatron", "parallel": {"world_size": )";
  CHECK(error_fields(mixtral + R"(48, "expert_parallel_size": 8, "expert_tensor_parallel_size": 3}})") ==
        std::vector<std::string>{"parallel.expert_tensor_parallel_size"});
  CHECK(error_fields(mixtral + R"(16, "expert_parallel_size": 8, "expert_tensor_parallel_size": 2}})").empty());
}

TEST_CASE("a layout beyond what the framework's own code offers is priced as stated and said to be so", "[impossible]") {
  // framework_parallelism.cpp: DeepSpeed around a transformers model has no pipeline parallelism
  // and its AutoTP stops at ZeRO-2, FSDP has no ZeRO-1, Megatron-LM no adapters, the Hugging Face
  // Trainer no pipeline parallelism; each such field gets a layout_beyond_framework warning.
  auto flagged = [](const std::string& rest) {
    const nlohmann::json out = nlohmann::json::parse(trainmem::estimate_json(
        R"({"model": {"preset": "llama-2-7b"}, "gpu": "h100-sxm-80gb", )" + rest + "}").json);
    REQUIRE(out.contains("per_gpu"));
    std::vector<std::string> fields;
    for (const auto& w : out["warnings"])
      if (w["code"] == "layout_beyond_framework") fields.push_back(w["params"]["field"].get<std::string>());
    return fields;
  };
  CHECK(flagged(R"("framework": "deepspeed", "parallel": {"world_size": 4, "pipeline_parallel_size": 2, "zero_stage": 1})") ==
        std::vector<std::string>{"parallel.pipeline_parallel_size"});
  CHECK(flagged(R"("framework": "fsdp", "parallel": {"world_size": 4, "zero_stage": 1})") ==
        std::vector<std::string>{"parallel.zero_stage"});
  CHECK(flagged(R"("framework": "megatron", "method": "lora")") == std::vector<std::string>{"method"});
  CHECK(flagged(R"("framework": "hf_trainer", "parallel": {"world_size": 8, "tensor_parallel_size": 2, "pipeline_parallel_size": 2})") ==
        std::vector<std::string>{"parallel.pipeline_parallel_size"});
  CHECK(flagged(R"("framework": "deepspeed", "parallel": {"world_size": 8, "zero_stage": 3, "tensor_parallel_size": 2})") ==
        std::vector<std::string>{"parallel.tensor_parallel_size"});
  // Optimizer offload with no sharding engine: the HF Trainer's DDP, or DeepSpeed at stage 0 (its
  // ZeRO optimizer, which offloads, is built from stage 1). ZeRO-Offload at stage 2 is runnable.
  CHECK(flagged(R"("framework": "hf_trainer", "parallel": {"world_size": 8, "zero_stage": 0, "offload_optimizer": "cpu"})") ==
        std::vector<std::string>{"parallel.offload_optimizer"});
  CHECK(flagged(R"("framework": "deepspeed", "parallel": {"world_size": 8, "zero_stage": 0, "offload_optimizer": "cpu"})") ==
        std::vector<std::string>{"parallel.offload_optimizer"});
  CHECK(flagged(R"("framework": "deepspeed", "parallel": {"world_size": 8, "zero_stage": 2, "offload_optimizer": "cpu"})").empty());
  // Megatron-LM's CPU optimizer needs its distributed optimizer (ZeRO-1); torchtune offloads on one GPU.
  CHECK(flagged(R"("framework": "megatron", "parallel": {"world_size": 8, "zero_stage": 0, "offload_optimizer": "cpu"})") ==
        std::vector<std::string>{"parallel.offload_optimizer"});
  CHECK(flagged(R"("framework": "megatron", "parallel": {"world_size": 8, "zero_stage": 1, "offload_optimizer": "cpu"})").empty());
  CHECK(flagged(R"("framework": "torchtune", "parallel": {"world_size": 1, "zero_stage": 0, "offload_optimizer": "cpu"})").empty());
  // DeepSpeed's MoE layer, which expert parallelism needs, refuses ZeRO-3 (runtime/engine.py).
  const auto moe_flagged = [](int stage) {
    const nlohmann::json out = nlohmann::json::parse(trainmem::estimate_json(
        R"({"model": {"preset": "mixtral-8x7b"}, "gpu": "h100-sxm-80gb", "framework": "deepspeed",
            "parallel": {"world_size": 8, "expert_parallel_size": 8, "zero_stage": )" + std::to_string(stage) + "}}").json);
    std::vector<std::string> fields;
    for (const auto& w : out["warnings"])
      if (w["code"] == "layout_beyond_framework") fields.push_back(w["params"]["field"].get<std::string>());
    return fields;
  };
  CHECK(moe_flagged(3) == std::vector<std::string>{"parallel.expert_parallel_size"});
  CHECK(moe_flagged(2).empty());
  // Runnable: DeepSpeed AutoTP at ZeRO-2, Megatron's all-to-all context parallelism, the HF Trainer
  // driving DeepSpeed with Ulysses, or FSDP2 with ring attention.
  CHECK(flagged(R"("framework": "deepspeed", "parallel": {"world_size": 8, "zero_stage": 2, "tensor_parallel_size": 2})").empty());
  CHECK(flagged(R"("framework": "megatron", "parallel": {"world_size": 8, "context_parallel_size": 2, "context_parallel_kind": "ulysses"}, "batch": {"seq_length": 4096})").empty());
  CHECK(flagged(R"("framework": "hf_trainer", "parallel": {"world_size": 8, "zero_stage": 3, "sharding_engine": "deepspeed", "context_parallel_size": 4, "context_parallel_kind": "ulysses"}, "batch": {"seq_length": 4096})").empty());
  CHECK(flagged(R"("framework": "hf_trainer", "parallel": {"world_size": 8, "zero_stage": 3, "sharding_engine": "fsdp2", "context_parallel_size": 2}, "batch": {"seq_length": 4096})").empty());
  // What each offers: no warning. DeepSpeed's sequence parallelism is Ulysses; ring is flagged.
  CHECK(flagged(R"("framework": "megatron", "parallel": {"world_size": 8, "tensor_parallel_size": 2, "pipeline_parallel_size": 2, "zero_stage": 1})").empty());
  CHECK(flagged(R"("framework": "deepspeed", "parallel": {"world_size": 4, "zero_stage": 3, "context_parallel_size": 2, "context_parallel_kind": "ulysses"})").empty());
  CHECK(flagged(R"("framework": "deepspeed", "parallel": {"world_size": 4, "zero_stage": 3, "context_parallel_size": 2}, "batch": {"seq_length": 4096})") ==
        std::vector<std::string>{"parallel.context_parallel_kind"});
}

TEST_CASE("a checkpoint stored quantized is named, not silently priced as 16-bit", "[impossible]") {
  // A Llama-2-7B-shaped config with GPTQ's quantization_config (quant_method "gptq", 4 bits): the
  // weights are priced in the training dtype, and a warning says so; QLoRA prices a quantized base.
  auto warned = [](const char* method, const char* quantization) {
    const nlohmann::json out = nlohmann::json::parse(trainmem::estimate_json(
        std::string(R"({"model": {"hf_config": {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008,
      "num_attention_heads": 32, "num_hidden_layers": 32, "vocab_size": 32000)") + quantization + R"(}}, "method": ")" + method + "\"}").json);
    REQUIRE(out.contains("per_gpu"));
    for (const auto& w : out["warnings"])
      if (w["code"] == "quantized_checkpoint") return w["params"];
    return nlohmann::json();
  };
  const char* gptq = R"(, "quantization_config": {"quant_method": "gptq", "bits": 4})";
  CHECK(warned("full", gptq) == nlohmann::json{{"quant_method", "gptq"}, {"method", "full"}});
  CHECK(warned("lora", gptq) == nlohmann::json{{"quant_method", "gptq"}, {"method", "lora"}});
  CHECK(warned("qlora", gptq).is_null());
  CHECK(warned("full", "").is_null());
  CHECK(warned("freeze", gptq) == nlohmann::json{{"quant_method", "gptq"}, {"method", "freeze"}});
  // No method named, or bitsandbytes loading neither 4 nor 8 bits: not a quantized checkpoint.
  CHECK(warned("full", R"(, "quantization_config": {})").is_null());
  CHECK(warned("full", R"(, "quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": false, "load_in_8bit": false})").is_null());
  CHECK(warned("full", R"(, "quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": true})") ==
        nlohmann::json{{"quant_method", "bitsandbytes"}, {"method", "full"}});
}

TEST_CASE("virtual pipeline stages without a pipeline are reported as ignored", "[impossible]") {
  // Interleaving splits each pipeline rank's layers into chunks; with one stage there is nothing to
  // interleave, and the estimate is that of the plain setup.
  const std::string base = R"({"model": {"preset": "llama-2-7b"}, "framework": "megatron", "gpu": "h100-sxm-80gb", "parallel": {"world_size": 1)";
  const trainmem::TrainingSetup s = trainmem::test::setup_from(base + R"(, "pipeline_schedule": "interleaved_1f1b", "virtual_pipeline_stages": 4}})");
  REQUIRE(s.ignored_fields.size() == 1);
  CHECK(s.ignored_fields[0].paths[0] == "parallel.virtual_pipeline_stages");
  CHECK(trainmem::test::setup_from(base + "}}").ignored_fields.empty());
}

TEST_CASE("QLoRA computes in 16 or 32 bits: fp8 weights or compute are refused at their field", "[impossible][qlora]") {
  // bitsandbytes dequantizes its 4-bit base to bnb_4bit_compute_dtype (fp16, bf16 or fp32) and
  // torchao's NF4 linear to the model's dtype before every matmul; the unquantized weights and the
  // adapters train in that dtype, never in fp8.
  for (const char* framework : {"hf_trainer", "torchtune"}) {
    const std::string base = std::string(R"({"model": {"preset": "llama-3.1-8b"}, "method": "qlora", "framework": ")") + framework + "\", ";
    const nlohmann::json compute = first_error(base + R"("precision": {"compute_dtype": "fp8"}})");
    CHECK(compute["code"] == "inconsistent");
    CHECK(compute["field"] == "precision.compute_dtype");
    CHECK(compute["params"]["reason"] == "qlora_fp8");
    const nlohmann::json weights = first_error(base + R"("precision": {"param_dtype": "fp8"}})");
    CHECK(weights["field"] == "precision.param_dtype");
    CHECK(weights["params"]["reason"] == "qlora_fp8");
    const nlohmann::json linears = first_error(base + R"("precision": {"fp8_compute": true}})");
    CHECK(linears["field"] == "precision.fp8_compute");
    CHECK(linears["params"]["reason"] == "qlora_fp8");
  }
  // fp8 compute under LoRA over a 16-bit base stays Transformer Engine's or torchao's fp8 training.
  CHECK(trainmem::estimate_json(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora", "precision": {"compute_dtype": "fp8"}})").ok);
}
