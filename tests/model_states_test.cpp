// Model states per GPU: the bytes-per-parameter table and the ZeRO formulas (docs/memory-model.md), and the
// estimator faults that concern them.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "trainmem/explain.hpp"

using namespace trainmem;
using trainmem::test::estimate_from;
using trainmem::test::GiB;

namespace {
std::string params_doc(const std::string& n, const std::string& precision, const std::string& parallel = "{}") {
  return R"({"model": {"num_parameters": )" + n + R"(}, "precision": )" + precision + R"(, "parallel": )" + parallel + "}";
}
const std::string kMixedAdamW = R"({"param_dtype": "bf16", "grad_dtype": "bf16", "master_weights": true, "optimizer": "adamw"})";
// A 2-layer model small enough to reason about; only ratios matter where it is used.
const std::string kTinyLlamaVocab1000 = R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
  "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 1000})";
using trainmem::test::error_fields;
using trainmem::test::kLlama2_7b;
}  // namespace

// Bytes per parameter (weights, gradients, optimizer states), docs/memory-model.md.
TEST_CASE("bytes per parameter: every row of the bytes-per-parameter table", "[model_states][seed]") {
  struct Row { const char* precision; double p, g, o; };
  const Row row = GENERATE(
      Row{R"({"param_dtype": "fp32", "grad_dtype": "fp32", "optimizer": "adamw"})", 4, 4, 8},
      Row{R"({"param_dtype": "bf16", "grad_dtype": "bf16", "master_weights": true, "optimizer": "adamw"})", 2, 2, 12},
      Row{R"({"param_dtype": "bf16", "grad_dtype": "bf16", "master_weights": false, "optimizer": "adamw"})", 2, 2, 8},
      Row{R"({"param_dtype": "bf16", "grad_dtype": "bf16", "master_weights": false, "optimizer": "sgd_momentum"})", 2, 2, 4});
  const Estimate e = estimate_from(params_doc("1e9", row.precision));
  CHECK(e.per_gpu.parameters == row.p * 1e9);
  CHECK(e.per_gpu.gradients == row.g * 1e9);
  CHECK(e.per_gpu.optimizer_states == row.o * 1e9);
}

// bitsandbytes 0.43.1 bitsandbytes/optim/optimizer.py Optimizer2State.init_state: a 32-bit optimizer
// (PagedAdamW's optim_bits=32) allocates state1 and state2 as torch.float32 whatever the parameter's
// dtype, while torchtune's own torch.optim.AdamW keeps them in the bf16 parameter dtype.
// 1e9 parameters: PagedAdamW 2 moments x 4 bytes x 1e9 = 8e9 bytes, all paged (outside the
// allocator); AdamW 2 moments x 2 bytes x 1e9 = 4e9 bytes.
TEST_CASE("bitsandbytes PagedAdamW keeps fp32 states under torchtune's bf16 training", "[model_states][paged]") {
  const std::string doc = R"({"model": {"num_parameters": 1e9}, "framework": "torchtune", "precision": {"param_dtype": "bf16", "optimizer": ")";
  const Estimate paged = estimate_from(doc + R"(paged_adamw"}})");
  CHECK(paged.per_gpu.optimizer_states == 8e9);
  REQUIRE(paged.per_gpu.paged_optimizer_states);
  CHECK(*paged.per_gpu.paged_optimizer_states == 8e9);
  CHECK(estimate_from(doc + R"(adamw"}})").per_gpu.optimizer_states == 4e9);
}

// bitsandbytes 0.43.1 optim/lion.py Lion (optim_bits=32) -> Optimizer1State.init_state: one
// torch.float32 state. 1e9 parameters: 1 moment x 4 bytes = 4e9 bytes, not bf16's 2e9. A Lion
// that keeps bf16 states (lion_pytorch) is written with its state dtype.
TEST_CASE("bitsandbytes Lion keeps one fp32 state under torchtune's bf16 training", "[model_states]") {
  const std::string doc = R"({"model": {"num_parameters": 1e9}, "framework": "torchtune", "precision": {"param_dtype": "bf16", "optimizer": "lion")";
  CHECK(estimate_from(doc + "}}").per_gpu.optimizer_states == 4e9);
  CHECK(estimate_from(doc + R"(, "optimizer_state_dtype": "bf16"}})").per_gpu.optimizer_states == 2e9);
}

TEST_CASE("a frozen bf16 model holds weights only: 2N", "[model_states][seed]") {
  // The tiny Llama: embeddings and head 2 x 1000 x 64 = 128,000, final norm 64, each layer
  // 4 x 64^2 (q, k, v, o) + 3 x 64 x 128 (gate, up, down) + 2 x 64 (norms) = 41,088: N = 210,240.
  // Freeze tuning of the last layer: the 169,152 frozen parameters hold their bf16 weights only; the
  // trained layer adds bf16 gradients and fp32 AdamW moments (no master copy: 2 + 8 bytes).
  const Estimate e = estimate_from(R"({"model": {"hf_config": )" + kTinyLlamaVocab1000 +
                                   R"(}, "method": "freeze", "freeze": {"trainable_layers": 1},
    "precision": {"param_dtype": "bf16", "grad_dtype": "bf16", "master_weights": false, "optimizer": "adamw"}})");
  CHECK(e.parameters.total == 210240);
  CHECK(e.per_gpu.parameters == 2.0 * 210240);
  CHECK(e.per_gpu.gradients == 2.0 * 41088);
  CHECK(e.per_gpu.optimizer_states == 8.0 * 41088);
}

TEST_CASE("freeze tuning with no trainable layer is refused unless a vision part trains", "[model_states]") {
  CHECK(error_fields(R"({"model": {"hf_config": )" + kTinyLlamaVocab1000 +
                     R"(}, "method": "freeze", "freeze": {"trainable_layers": 0}})") ==
        std::vector<std::string>{"freeze.trainable_layers"});
  // LLaVA's first stage trains only the projector (multimodal.freeze_projector is false by default).
  const std::string llava = R"({"model": {"preset": "llava-1.5-7b"}, "method": "freeze", "freeze": {"trainable_layers": 0})";
  CHECK(error_fields(llava + "}").empty());
  CHECK(error_fields(llava + R"(, "multimodal": {"freeze_projector": true}})") == std::vector<std::string>{"freeze.trainable_layers"});
}

TEST_CASE("DDP replicates 16 bytes/param: 7B/13B/70B", "[model_states][seed]") {
  struct Row { const char* n; double bytes; };
  const Row row = GENERATE(Row{"7e9", 112e9}, Row{"13e9", 208e9}, Row{"70e9", 1120e9});
  const std::string doc = params_doc(row.n, kMixedAdamW, R"({"world_size": 8, "zero_stage": 0})");
  CHECK(estimate_from(doc).per_gpu.model_states == row.bytes);
}

TEST_CASE("ZeRO stages on 8 GPUs: the ZeRO paper's formulas", "[model_states][seed]") {
  // N = 7e9, b_p = 2, b_g = 2, b_o = 12, D = 8
  auto states = [](int stage) {
    return estimate_from(params_doc("7e9", kMixedAdamW, R"({"world_size": 8, "zero_stage": )" + std::to_string(stage) + "}"))
        .per_gpu.model_states;
  };
  CHECK(states(1) == 7e9 * (2 + 2 + 12.0 / 8));  // 38.5 GB
  CHECK(states(2) == 7e9 * (2 + 14.0 / 8));      // 26.25 GB
  CHECK(states(3) == 112e9 / 8);                 // 14 GB / GPU
}

TEST_CASE("HYBRID_SHARD shards within groups and replicates across them", "[model_states]") {
  // 16 GPUs, groups of 8: the same per-GPU states as FULL_SHARD on 8.
  const auto hybrid = estimate_from(params_doc("7e9", kMixedAdamW, R"({"world_size": 16, "zero_stage": 3, "sharding_group_size": 8})"));
  CHECK(hybrid.per_gpu.model_states == 14e9);
}

TEST_CASE("mixed-precision AdamW is 16 bytes/param, never less than fp32 (huggingface/accelerate#2659)", "[model_states][faults]") {
  // Meta-Llama-3-8B: 16 x 8,030,261,248 = 128,484,179,968 bytes (119.66 GiB), not accelerate's 8 B/param.
  const std::string llama3 = R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
    "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32, "vocab_size": 128256})";
  const auto mixed = estimate_from(R"({"model": {"hf_config": )" + llama3 + R"(}, "precision": )" + kMixedAdamW + "}");
  const auto fp32 = estimate_from(R"({"model": {"hf_config": )" + llama3 +
                                  R"(}, "precision": {"param_dtype": "fp32", "optimizer": "adamw"}})");
  CHECK(mixed.per_gpu.model_states == 128484179968.0);
  CHECK(mixed.per_gpu.model_states >= fp32.per_gpu.model_states);
}

TEST_CASE("weight bytes do not depend on a config's torch_dtype (huggingface/accelerate#3379)", "[model_states][faults]") {
  // Llama-3.1-70B, bf16 weights: 2 x 70,553,706,496 = 141,107,412,992 bytes (131.42 GiB).
  const std::string cfg = R"({"model_type": "llama", "hidden_size": 8192, "intermediate_size": 28672,
    "num_attention_heads": 64, "num_key_value_heads": 8, "num_hidden_layers": 80, "vocab_size": 128256,
    "torch_dtype": "bfloat16"})";
  const auto e = estimate_from(R"({"model": {"hf_config": )" + cfg + R"(}, "precision": {"param_dtype": "bf16"}})");
  CHECK(e.parameters.total == 70553706496);
  CHECK(e.checkpoint.inference_weights_bytes == 141107412992.0);
  CHECK(e.per_gpu.parameters == 141107412992.0);
}

TEST_CASE("DeepSpeed keeps 16-bit gradients plus an fp32 gradient partition, Megatron fp32 main gradients", "[model_states][deepspeed]") {
  // DeepSpeed v0.19 stage_1_and_2.py: the bit16 gradients (full at ZeRO-1, a partition at ZeRO-2)
  // and, in step(), single_grad_partition = the 16-bit partition .to(fp32): 4 B per parameter of
  // the rank's partition, beside the fp32 master (4) and Adam's moments (8).
  auto ds = [](const std::string& gpus, int stage, const std::string& precision = "{}") {
    return estimate_from(R"({"model": {"num_parameters": 1e9}, "framework": "deepspeed", "precision": )" + precision +
                         R"(, "parallel": {"world_size": )" + gpus + R"(, "zero_stage": )" + std::to_string(stage) + "}}");
  };
  // ZeRO-1, N = 8: 2P + 2P + 16P/8 = 6 B/param (the engine used to price full fp32 gradients: 7.5).
  CHECK(ds("8", 1).per_gpu.model_states == 6e9);
  // ZeRO-2, N = 8: 2P + 18P/8 = 4.25 B/param, what estimate_zero2_model_states_mem_needs computes
  // since deepspeedai/DeepSpeed#5099 ("2 * total_params + int(18 * total_params / total_gpus)").
  const auto z2 = ds("8", 2);
  CHECK(z2.per_gpu.model_states == 4.25e9);
  CHECK(z2.per_gpu.gradients == 1e9 * (2.0 + 4.0) / 8);
  // Without ZeRO the fp16/bf16 optimizer upcasts all gradients at the step: 2 + 2 + 4 + 12 = 20.
  CHECK(ds("1", 0).per_gpu.model_states == 20e9);
  // grad_accum_dtype fp32 (BF16_Optimizer): fp32 gradients, no second copy: 2 + 4 + 12 = 18.
  CHECK(ds("1", 1, R"({"grad_dtype": "fp32"})").per_gpu.model_states == 18e9);
  // Megatron's fp32 main-grad buffer: 2 + 4 + 12 = 18 B/param on one GPU.
  CHECK(estimate_from(R"({"model": {"num_parameters": 1e9}, "framework": "megatron"})").per_gpu.model_states == 18e9);
  // The HF Trainer (torch's DDP/FSDP path) keeps the ZeRO paper's 16 B/param.
  CHECK(estimate_from(R"({"model": {"num_parameters": 1e9}, "framework": "hf_trainer"})").per_gpu.model_states == 16e9);
}

TEST_CASE("DeepSpeed's fp32 gradient partition exists in the optimizer step only", "[model_states][deepspeed]") {
  // ZeRO-2 on 8 GPUs, Llama-2-7B (P = 6,738,415,616): the step holds 2P + 18P/8; forward and
  // backward hold 2P + 14P/8 (16-bit partition 2P/8, master and moments 12P/8).
  const auto e = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "deepspeed",
    "batch": {"seq_length": 16}, "parallel": {"world_size": 8, "zero_stage": 2}})");
  const double p = 6738415616.0;
  CHECK(e.per_gpu.model_states == Approx(2 * p + 18 * p / 8));
  CHECK(e.per_gpu.phases->forward - *e.per_gpu.activations < 2 * p + 14 * p / 8 + 2 * GiB);
  CHECK(e.per_gpu.phases->optimizer_step >= 2 * p + 18 * p / 8);
}

TEST_CASE("an HF Trainer run says which engine shards: DeepSpeed's rules under sharding_engine deepspeed", "[model_states][deepspeed]") {
  // HF Trainer + a DeepSpeed ZeRO-2 file on 8 GPUs: the same 2P + 18P/8 as DeepSpeed alone.
  const auto hf_ds = estimate_from(R"({"model": {"num_parameters": 1e9}, "framework": "hf_trainer",
    "parallel": {"world_size": 8, "zero_stage": 2, "sharding_engine": "deepspeed"}})");
  CHECK(hf_ds.per_gpu.model_states == 4.25e9);
}

TEST_CASE("Megatron distributed optimizer: 6 + 12/DP or 4 + 12/DP bytes/param (NVIDIA/Megatron-LM#654)", "[model_states][faults]") {
  // Llama-2-7B, TP1 PP1 DP8: 7.5 B/param x 6,738,415,616 = 50,538,117,120 (47.07 GiB)
  const std::string base = R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "megatron",
    "parallel": {"world_size": 8, "zero_stage": 1})";
  CHECK(estimate_from(base + "}").per_gpu.model_states == 50538117120.0);
  // bf16 gradients: 5.5 B/param = 37,061,285,888 (34.52 GiB)
  CHECK(estimate_from(base + R"(, "precision": {"grad_dtype": "bf16"}})").per_gpu.model_states == 37061285888.0);
}

TEST_CASE("pipeline parallel shards states too (George614/gpu-mem-calculator 4cd6bce)", "[model_states][faults]") {
  // Llama-2-7B, ZeRO-1, TP2 PP2 DP2, 12 B/param optimizer state. Each rank holds 16 layers of
  // (202,375,168 / 2 matrix + 8,192 norm) parameters plus half the 131,072,000-parameter embedding
  // (or head): 1,684,668,416 parameters; the last stage also holds the final norm (4,096), so it is
  // the most loaded: 1,684,672,512 x 12 / DP 2 = 10,108,035,072 bytes (~12 P / 8).
  const auto e = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "megatron",
    "parallel": {"world_size": 8, "zero_stage": 1, "tensor_parallel_size": 2, "pipeline_parallel_size": 2}})");
  CHECK(e.per_gpu.optimizer_states == 10108035072.0);
  CHECK(e.per_gpu.optimizer_states == Approx(12.0 * 6738415616.0 / 8).epsilon(0.001));
}

TEST_CASE("DDP replicates a LoRA model's frozen base on every GPU (hiyouga/LLaMA-Factory#3825)", "[model_states][faults]") {
  const std::string llama3_70b = R"({"model_type": "llama", "hidden_size": 8192, "intermediate_size": 28672,
    "num_attention_heads": 64, "num_key_value_heads": 8, "num_hidden_layers": 80, "vocab_size": 128256})";
  const std::string base = R"({"model": {"hf_config": )" + llama3_70b + R"(}, "method": "lora",
    "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"]}, "gpu": {"memory_bytes": 85899345920})";
  const auto ddp = estimate_from(base + R"(, "parallel": {"world_size": 8, "zero_stage": 0}})");
  // 2 x 70,553,706,496 = 131.42 GiB of frozen weights per GPU, whatever the GPU count.
  CHECK(ddp.per_gpu.parameters / GiB == Approx(131.42).epsilon(0.001));
  CHECK(ddp.fits == false);
  const auto z3 = estimate_from(base + R"(, "parallel": {"world_size": 8, "zero_stage": 3}})");
  CHECK(z3.per_gpu.parameters / GiB == Approx(16.43).epsilon(0.001));
}

TEST_CASE("MoE training keeps every expert's states (AlexsJones/llmfit#230)", "[model_states][faults]") {
  const std::string mixtral = R"({"model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336,
    "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32, "vocab_size": 32000,
    "num_local_experts": 8, "num_experts_per_tok": 2})";
  const auto e = estimate_from(R"({"model": {"hf_config": )" + mixtral + R"(}, "precision": )" + kMixedAdamW + "}");
  CHECK(e.per_gpu.model_states == 16.0 * 46702792704.0);  // 695.9 GiB
  CHECK(e.per_gpu.model_states / GiB == Approx(695.9).epsilon(0.001));
}

TEST_CASE("Llama-3.1-70B full fine-tune is ~1,051 GiB of model states (huggingface/blog#2245)", "[model_states][faults]") {
  const auto e = estimate_from(params_doc("70553706496", kMixedAdamW));
  CHECK(e.per_gpu.model_states / GiB == Approx(1051.3).epsilon(0.001));
}

TEST_CASE("property: more GPUs under ZeRO-3 never raise model states per GPU", "[model_states][property]") {
  double previous = 1e300;
  for (int gpus = 1; gpus <= 512; gpus *= 2) {
    const std::string doc = R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "parallel": {"world_size": )" +
                            std::to_string(gpus) + R"(, "zero_stage": 3}})";
    const double states = estimate_from(doc).per_gpu.model_states;
    CHECK(states <= previous);
    previous = states;
  }
}

TEST_CASE("property: a higher ZeRO stage never raises model states", "[model_states][property]") {
  const int gpus = GENERATE(1, 2, 8, 64);
  const char* optimizer = GENERATE("adamw", "sgd", "lion", "adamw_8bit");
  double previous = 1e300;
  for (int stage = 0; stage <= 3; ++stage) {
    const std::string doc = R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "precision": {"optimizer": ")" +
                            optimizer + R"("}, "parallel": {"world_size": )" + std::to_string(gpus) +
                            R"(, "zero_stage": )" + std::to_string(stage) + "}}";
    const double states = estimate_from(doc).per_gpu.model_states;
    CHECK(states <= previous);
    previous = states;
  }
}

TEST_CASE("a model too large for the GPU is fits: false, not an error", "[model_states]") {
  const auto e = estimate_from(R"({"model": {"num_parameters": 1e12}, "gpu": {"memory_bytes": 85899345920}})");
  REQUIRE(e.fits.has_value());
  CHECK_FALSE(*e.fits);
}

// FP8 weights never mean FP8 gradients (precision.cpp: Transformer Engine's weight-gradient GEMM
// writes the activation dtype; torchao's float8 training keeps gradients in high precision).
// 1e9 parameters in fp8 with AdamW and an fp32 master: weights 1 x 1e9 = 1e9 bytes, bf16 gradients
// 2 x 1e9 = 2e9 bytes (fp8 gradients would be 1e9), two fp32 moments + the fp32 master
// (4 + 4 + 4) x 1e9 = 12e9 bytes. A grad_dtype given is kept, and says so without the warning.
TEST_CASE("fp8 weights keep bf16 gradients unless grad_dtype says otherwise, with a warning", "[model_states][fp8]") {
  const Estimate e = estimate_from(params_doc("1e9", R"({"param_dtype": "fp8", "master_weights": true, "optimizer": "adamw"})"));
  CHECK(e.precision.grad_dtype == Dtype::bf16);
  CHECK(e.per_gpu.parameters == 1e9);
  CHECK(e.per_gpu.gradients == 2e9);
  CHECK(e.per_gpu.optimizer_states == 12e9);
  auto codes = [](const std::string& doc) {
    const auto out = nlohmann::json::parse(estimate_json(doc).json);
    std::vector<std::string> c;
    for (const auto& w : out.at("warnings")) c.push_back(w.at("code"));
    return c;
  };
  const auto fp8 = codes(params_doc("1e9", R"({"param_dtype": "fp8"})"));
  CHECK(std::count(fp8.begin(), fp8.end(), "fp8_weights_bf16_gradients") == 1);
  // The resolved block says why the gradients are bf16, not "the parameter dtype".
  const auto resolved = nlohmann::json::parse(estimate_json(params_doc("1e9", R"({"param_dtype": "fp8"})")).json).at("resolved");
  CHECK(resolved.at("precision.grad_dtype").at("value") == "bf16");
  CHECK(resolved.at("precision.grad_dtype").at("origin").get<std::string>().find("fp8 weights") != std::string::npos);
  // grad_dtype fp32 given: 4 x 1e9 = 4e9 bytes of gradients, no warning.
  const std::string fp32_grads = params_doc("1e9", R"({"param_dtype": "fp8", "grad_dtype": "fp32"})");
  CHECK(estimate_from(fp32_grads).per_gpu.gradients == 4e9);
  const auto given = codes(fp32_grads);
  CHECK(std::count(given.begin(), given.end(), "fp8_weights_bf16_gradients") == 0);
}

TEST_CASE("accelerate's FSDP upcasts trainable 16-bit weights to fp32: no fp32 copy of the gradients in the step",
          "[model_states][accelerate]") {
  // Llama-3-8B (8,030,261,248 parameters) loaded in bf16, fully fine-tuned by the HF Trainer with
  // --bf16 under FSDP FULL_SHARD on 4 GPUs. accelerate v0.30+ (huggingface/accelerate#2674) upcasts
  // the trainable flat parameters to fp32: fp32 weights (4 B) that are their own master, fp32
  // gradients (4 B), Adam moments (8 B): 16 B x 8,030,261,248 / 4 = 32,121,044,992 B of states.
  // The step: torch's foreach AdamW (adamw_torch) takes one fp32 temporary per element of the rank's
  // partition, 8,030,261,248 / 4 x 4 B = 8,030,261,248 B, and no gradient needs an fp32 copy; with
  // PyTorch's two cuBLAS workspaces (no GPU named: 8,519,680 B each, cublas_workspaces.hpp):
  // 40,151,306,240 + 17,039,360 = 40,168,345,600 B.
  const std::string head = R"({"model": {"preset": "llama-3-8b"}, "activation_checkpointing": "full", "parallel": {"world_size": 4, "zero_stage": 3})";
  const std::string base = head + R"(, "batch": {"seq_length": 512})";
  const auto upcast = estimate_from(base + "}");
  CHECK(upcast.bytes_per_param.param == 4);
  CHECK(upcast.bytes_per_param.grad == 4);
  CHECK(upcast.bytes_per_param.optimizer == 8);
  CHECK(upcast.per_gpu.model_states == 32121044992.0);
  CHECK(upcast.per_gpu.phases->optimizer_step == 40168345600.0);
  // The saved weights are the fp32 ones (accelerate warns that the upcast reaches the checkpoints):
  // 8,030,261,248 x 4 B.
  CHECK(upcast.checkpoint.inference_weights_bytes == 32121044992.0);
  // A 16-bit gradient given describes accelerate before v0.30: bf16 weights and gradients beside an
  // fp32 master (2 + 2 + 12 B, the same 32,121,044,992 B), and the step upcasts each gradient of the
  // partition to fp32 as well: + 8,030,261,248 B = 48,198,606,848 B.
  const auto kept = estimate_from(base + R"(, "precision": {"grad_dtype": "bf16"}})");
  CHECK(kept.per_gpu.model_states == 32121044992.0);
  CHECK(kept.per_gpu.phases->optimizer_step == 48198606848.0);
  // Accumulating 4 micro-batches, the HF Trainer runs the first three under no_sync: full unsharded
  // gradients in FSDP's reduce dtype (bf16), 8,030,261,248 x 2 = 16,060,522,496 B, which the last
  // micro-batch's reduce-scatter frees (FSDPParamGroup.post_backward). The optimizer step then holds
  // the sharded fp32 gradients only: the same 40,168,345,600 B as without accumulation.
  const auto accumulating = estimate_from(head + R"(, "batch": {"seq_length": 512, "gradient_accumulation_steps": 4}})");
  CHECK(accumulating.per_gpu.gradients == 16060522496.0);
  CHECK(accumulating.per_gpu.phases->optimizer_step == 40168345600.0);
  // DeepSpeed's ZeRO-3 keeps its own layout (bf16 weights, an fp32 master): no upcast.
  CHECK(estimate_from(base + R"(, "framework": "deepspeed"})").bytes_per_param.param == 2);
}

namespace {
// The formula the explanation of `doc` gives for `component` (gradients, optimizer_states, ...).
std::string formula_of(const std::string& doc, const std::string& component) {
  const auto explanations = explain(trainmem::test::setup_from(doc), estimate_from(doc));
  const auto x = std::find_if(explanations.begin(), explanations.end(), [&](const Explanation& e) { return e.component == component; });
  REQUIRE(x != explanations.end());
  return x->formula;
}
}  // namespace

TEST_CASE("DeepSpeed ZeRO-3 holds the fp32 gradient of one optimizer sub-group at a time, and its formula says so", "[model_states]") {
  // 8e9 bf16 parameters on 2 GPUs: 16-bit gradients 8e9 x 2 B / 2 = 8e9 B; the fp32 gradient of the
  // optimizer partition would be 8e9 x 4 B / 2 = 16e9 B, but stage3.py steps one sub-group
  // (sub_group_size 1e9 elements) at a time: 1e9 x 4 B = 4e9 B. Total 12e9 B.
  const std::string doc = R"({"model": {"num_parameters": 8e9}, "framework": "deepspeed",
    "parallel": {"world_size": 2, "zero_stage": 3}, "precision": {"param_dtype": "bf16"}})";
  const Estimate e = estimate_from(doc);
  CHECK(e.per_gpu.gradients == 12e9);
  CHECK_THAT(formula_of(doc, "gradients"), Catch::Contains("one sub-group of at most 1e9 elements at a time under ZeRO-3"));
}

TEST_CASE("the optimizer states' formula names a master copy only where the trainable weights have one", "[model_states]") {
  // QLoRA through PEFT: the adapters train in fp32 (autocast_adapter_dtype), so paged 8-bit AdamW
  // keeps its moments and no fp32 master copy; a bf16 full fine-tune under DeepSpeed keeps one.
  CHECK_THAT(formula_of(R"({"model": {"preset": "llama-3.1-8b"}, "method": "qlora", "precision": {"optimizer": "paged_adamw_8bit"},
    "batch": {"seq_length": 2048}})", "optimizer_states"), Catch::Contains(" B (moments) = "));
  CHECK_THAT(formula_of(R"({"model": {"num_parameters": 8e9}, "framework": "deepspeed", "parallel": {"world_size": 2, "zero_stage": 3},
    "precision": {"param_dtype": "bf16"}})", "optimizer_states"), Catch::Contains(" B (moments + fp32 master)"));
}

TEST_CASE("under ZeRO-Offload the gradients' formula says where the partition went", "[model_states]") {
  // DeepSpeed ZeRO-2 with the optimizer on the CPU keeps the gradient partition on the host (Ren et
  // al. 2021, §4.1): 0 B on the GPU, and the formula says why instead of an arithmetic that reads 0.
  const std::string doc = R"({"model": {"num_parameters": 8e9}, "framework": "deepspeed",
    "parallel": {"world_size": 4, "zero_stage": 2, "offload_optimizer": "cpu"}, "precision": {"param_dtype": "bf16"}})";
  const Estimate e = estimate_from(doc);
  CHECK(e.per_gpu.gradients == 0);
  CHECK_THAT(formula_of(doc, "gradients"), Catch::EndsWith("= 0 B (offloaded with the optimizer: the partition is on the host)"));
}

TEST_CASE("QLoRA under ZeRO-3: the 4-bit weights shard, their quantization state does not", "[model_states][qlora]") {
  // bitsandbytes Params4bit keeps absmax and the double-quantization constants in quant_state, a
  // module attribute and no parameter, which ZeRO-3 and FSDP do not partition. Llama-2-70B's
  // linears: per layer q, o 8192^2 = 67,108,864 each, k, v 8192 x 1024 = 8,388,608 each, gate, up,
  // down 8192 x 28672 = 234,881,024 each: 855,638,016 x 80 layers = 68,451,041,280 weights. NF4
  // with double quantization: 1/64 B (8-bit absmax per 64 weights) + 4/(64 x 256) B per weight:
  // 1,069,547,520 + 16,711,680 = 1,086,259,200 B. On 2 GPUs each holds half of everything else
  // and all of these: half of them more than half the one-GPU parameters.
  const std::string doc = R"({"model": {"preset": "llama-2-70b"}, "method": "qlora", "batch": {"seq_length": 2048}, "parallel": )";
  const double one = estimate_from(doc + R"({"world_size": 1, "zero_stage": 3}})").per_gpu.parameters;
  const double two = estimate_from(doc + R"({"world_size": 2, "zero_stage": 3}})").per_gpu.parameters;
  CHECK(two - one / 2 == 1'086'259'200.0 / 2);
}

TEST_CASE("The activations' formula counts layers and micro-batches in words that agree with the number", "[model_states]") {
  // Two layers, one micro-batch in flight (no pipeline): "2 layers x ... x 1 micro-batch in flight".
  const std::string tiny = R"({"model": {"hf_config": )" + trainmem::test::kTinyGqaLlama + R"(}, "batch": {"seq_length": 32}})";
  const std::string formula = formula_of(tiny, "activations");
  CHECK_THAT(formula, Catch::StartsWith("2 layers x "));
  CHECK_THAT(formula, Catch::Contains(") x 1 micro-batch in flight"));
  CHECK_THAT(formula, !Catch::Contains("micro-batch(es)"));
  // Megatron's 1F1B on 4 stages with 8 micro-batches: the first stage holds 4 in flight.
  const std::string piped = R"({"model": {"preset": "llama-3.1-8b"}, "framework": "megatron",
    "batch": {"seq_length": 2048, "gradient_accumulation_steps": 8}, "parallel": {"world_size": 4, "pipeline_parallel_size": 4}})";
  const std::string many = formula_of(piped, "activations");
  CHECK_THAT(many, Catch::StartsWith("8 layers x "));
  CHECK_THAT(many, Catch::Contains(") x 4 micro-batches in flight"));
}

// DeepSpeed's estimator (deepspeed/runtime/zero/stage3.py @v0.13.5, model_to_params and
// estimate_zero3_model_states_mem_needs) counts ZeRO-3's working set as model states:
// largest_layer_memory = 4 B x the largest module's own parameters (16-bit weights gathered and
// their 16-bit gradient), plus 2P/N under optimizer offload and nothing more with the parameters
// offloaded too. T5-large, tied head: encoder 24 x (4 x 1024^2 + 2 x 1024 x 4096 + 2 x 1024) +
// 512 (relative bias) + 1024 (final norm) = 302,040,576; decoder 24 x (8 x 1024^2 + 2 x 1024 x
// 4096 + 3 x 1024) + 512 + 1024 = 402,728,448; shared embedding 32,128 x 1024 = 32,899,072 (the
// largest module); P = 737,668,096. On 4 GPUs: 2 x 737,668,096 / 4 = 368,834,048 plus
// 4 x 32,899,072 = 131,596,288: 500,430,336 B (the docs' t5-large example prints 0.47 GB).
TEST_CASE("DeepSpeed ZeRO-3 counts its largest module, gathered, and that module's gradient as model states", "[model_states][deepspeed]") {
  const std::string doc = R"({"model": {"preset": "t5-large"}, "framework": "deepspeed", "precision": {"param_dtype": "fp16"},
    "parallel": {"world_size": 4, "zero_stage": 3, "offload_optimizer": "cpu", "offload_param": )";
  const Estimate optimizer_offloaded = estimate_from(doc + R"("none"}})");
  CHECK(optimizer_offloaded.parameters.total == 737'668'096);
  CHECK(optimizer_offloaded.per_gpu.parameters == 368'834'048.0 + 65'798'144.0);
  CHECK(optimizer_offloaded.per_gpu.gradients == 65'798'144.0);
  CHECK(optimizer_offloaded.per_gpu.model_states == 500'430'336.0);
  CHECK_THAT(formula_of(doc + R"("none"}})", "parameters"), Catch::Contains("includes the largest module, gathered for compute (65,798,144 B"));
  // Everything offloaded: the working set alone, 131,596,288 B (the docs print 0.12 GB).
  CHECK(estimate_from(doc + R"("cpu"}})").per_gpu.model_states == 131'596'288.0);
}

// gpt-oss keeps its experts as raw parameters of one module (transformers modeling_gpt_oss.py,
// GptOssExperts: gate_up_proj [E, H, 2I] and its bias [E, 2I], down_proj [E, I, H] and its bias
// [E, H]), which DeepSpeed gathers as one: gpt-oss-20b (E 32, H = I = 2880) 32 x (2880 x 5760 +
// 5760 + 2880 x 2880 + 2880) = 796,538,880 elements, more than its embedding (201,088 x 2880 =
// 579,133,440). In bf16, 2 B each, as parameters and as gradient.
TEST_CASE("a module holding raw expert weights is gathered whole by DeepSpeed ZeRO-3", "[model_states][deepspeed]") {
  const Estimate e = estimate_from(R"({"model": {"preset": "gpt-oss-20b"}, "framework": "deepspeed", "precision": {"param_dtype": "bf16"},
    "batch": {"seq_length": 1024}, "parallel": {"world_size": 8, "zero_stage": 3, "offload_optimizer": "cpu", "offload_param": "cpu"}})");
  CHECK(e.per_gpu.parameters == 796'538'880.0 * 2);
  CHECK(e.per_gpu.gradients == 796'538'880.0 * 2);
}

// Where ZeRO-3 gathers nothing its working set has no parameters: on one rank without parameter
// offload a parameter is its own partition (deepspeed/runtime/zero/partition_parameters.py
// @v0.13.5, _no_gather_coalesced). The largest module's gradient still exists in backward:
// Llama-2-7B's embedding, 32,000 x 4,096 = 131,072,000 elements x 2 B = 262,144,000 B.
// 6,738,415,616 parameters x 2 B = 13,476,831,232 B of fp16 weights.
TEST_CASE("DeepSpeed ZeRO-3 on one GPU without parameter offload gathers no module", "[model_states][deepspeed]") {
  const Estimate e = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "deepspeed",
    "precision": {"param_dtype": "fp16"}, "batch": {"seq_length": 512}, "parallel": {"world_size": 1, "zero_stage": 3}})");
  CHECK(e.gathered_module_bytes == 0);
  CHECK(e.per_gpu.parameters == 13'476'831'232.0);
  CHECK(e.gathered_module_gradient_bytes == 262'144'000.0);
}

// Under LoRA the working set's gradient is that of one trainable module: with modules_to_save
// lm_head and embed_tokens (131,072,000 elements each in Llama-2-7B) the largest of them,
// 131,072,000 x 2 B = 262,144,000 B, not both.
TEST_CASE("LoRA's modules_to_save add one module's gradient to DeepSpeed ZeRO-3's working set", "[model_states][deepspeed][lora]") {
  const Estimate e = estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "deepspeed", "method": "lora",
    "precision": {"param_dtype": "bf16"}, "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"], "modules_to_save": ["lm_head", "embed_tokens"]},
    "batch": {"seq_length": 512}, "parallel": {"world_size": 8, "zero_stage": 3}})");
  CHECK(e.gathered_module_gradient_bytes == 262'144'000.0);
  CHECK(e.gathered_module_bytes == 262'144'000.0);
}

// bitsandbytes converts nn.Linear modules only: gpt-oss's raw expert weights stay in 16 bits under
// QLoRA, so its largest module is still its experts, 796,538,880 elements x 2 B (see above), and not
// at the 4-bit width; frozen, they have no gradient.
TEST_CASE("QLoRA keeps raw expert weights at 16 bits in DeepSpeed ZeRO-3's working set", "[model_states][deepspeed][qlora]") {
  const Estimate e = estimate_from(R"({"model": {"preset": "gpt-oss-20b"}, "framework": "deepspeed", "method": "qlora",
    "precision": {"param_dtype": "bf16"}, "batch": {"seq_length": 1024}, "parallel": {"world_size": 8, "zero_stage": 3}})");
  CHECK(e.gathered_module_bytes == 796'538'880.0 * 2);
  CHECK(e.gathered_module_gradient_bytes == 0);
}
