// LoRA trainable counts: r (d_in + d_out) per targeted matrix (Hu et al. 2021).
#include "test_support.hpp"

using namespace trainmem;
using trainmem::test::estimate_from;

namespace {
using trainmem::test::kLlama2_7b;
std::int64_t trainable(const std::string& lora) {
  return estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "method": "lora", "lora": )" + lora + "}")
      .parameters.trainable;
}
}  // namespace

TEST_CASE("Llama-2-7B LoRA r=8 on q_proj, v_proj: 4,194,304", "[lora]") {
  // 32 layers x 2 matrices x 8 x (4096 + 4096)
  CHECK(trainable(R"({"r": 8, "target_modules": ["q_proj", "v_proj"]})") == 4194304);
}

TEST_CASE("Llama-2-7B LoRA r=16 on all linear layers: 39,976,960", "[lora]") {
  // per layer: 4 x 16 x 8192 (q,k,v,o) + 3 x 16 x (4096 + 11008) (gate, up, down) = 524,288 + 724,992
  CHECK(trainable(R"({"r": 16, "target_modules": "all-linear"})") == 39976960);
  CHECK(trainable(R"({"r": 16, "target_modules": ["q_proj","k_proj","v_proj","o_proj","gate_proj","up_proj","down_proj"]})") == 39976960);
}

TEST_CASE("rank and targets change the trainable count (RahulSChand/gpu_poor#5)", "[lora][faults]") {
  // r = 64 on all linear layers: 4 x 159,907,840 / 4 ... = 64/16 x 39,976,960 = 159,907,840
  CHECK(trainable(R"({"r": 64, "target_modules": "all-linear"})") == 159907840);
  // Adapter weight + grad + Adam in fp32 (16 B/param): 2.38 GiB vs 64 MiB for r = 8 on q, v.
  CHECK(159907840.0 * 16 / (1 << 30) == Approx(2.38).epsilon(0.002));
  CHECK(4194304.0 * 16 / (1 << 20) == 64.0);
}

TEST_CASE("DoRA adds a magnitude vector of d_out per targeted matrix", "[lora]") {
  // 4,194,304 + 32 x 2 x 4096
  CHECK(trainable(R"({"r": 8, "target_modules": ["q_proj", "v_proj"], "use_dora": true})") == 4194304 + 262144);
}

TEST_CASE("a target module the model lacks is an error naming the modules", "[lora][errors]") {
  const auto parsed = parse_estimate_document(R"({"model": {"hf_config": )" + kLlama2_7b +
                                              R"(}, "method": "lora", "lora": {"target_modules": ["q_prj"]}})");
  REQUIRE(parsed.errors.size() == 1);
  CHECK(parsed.errors[0].code == "unknown_value");
  CHECK(parsed.errors[0].field == "lora.target_modules");
  CHECK_THAT(parsed.errors[0].message, Catch::Contains("did you mean \"q_proj\""));
}

TEST_CASE("lm_head and embed_tokens as LoRA targets: r (d_in + d_out) each", "[lora]") {
  // q, v: 4,194,304; lm_head Linear 4096 -> 32000: 8 x 36,096 = 288,768; embed_tokens (lora.Embedding,
  // A r x 32000, B 4096 x r): the same 288,768.
  CHECK(trainable(R"({"r": 8, "target_modules": ["q_proj", "v_proj", "lm_head"]})") == 4194304 + 288768);
  CHECK(trainable(R"({"r": 8, "target_modules": ["q_proj", "v_proj", "embed_tokens"]})") == 4194304 + 288768);
  // all-linear leaves the output head out (PEFT); a module in modules_to_save gets no adapter.
  CHECK(trainable(R"({"r": 16, "target_modules": "all-linear"})") == 39976960);
  CHECK(trainable(R"({"r": 8, "target_modules": ["q_proj", "v_proj", "lm_head"], "modules_to_save": ["lm_head"]})") ==
        4194304 + 32000LL * 4096);
}

TEST_CASE("fused projections get adapters of their real shapes", "[lora]") {
  // Phi-3-mini: qkv_proj 3072 -> 9216 and gate_up_proj 3072 -> 16384, r = 8, 32 layers.
  const std::string phi3 = R"({"model_type": "phi3", "hidden_size": 3072, "intermediate_size": 8192,
    "num_attention_heads": 32, "num_hidden_layers": 32, "vocab_size": 32064})";
  auto lora = [&](const std::string& cfg, const std::string& l) {
    return estimate_from(R"({"model": {"hf_config": )" + cfg + R"(}, "method": "lora", "lora": )" + l + "}").parameters.trainable;
  };
  CHECK(lora(phi3, R"({"r": 8, "target_modules": ["qkv_proj"]})") == 32LL * 8 * (3072 + 9216));
  CHECK(lora(phi3, R"({"r": 8, "target_modules": ["gate_up_proj"]})") == 32LL * 8 * (3072 + 16384));
  // Falcon-7B's multi-query query_key_value: 4544 -> 4544 + 2 x 64.
  const std::string falcon = R"({"model_type": "falcon", "hidden_size": 4544, "num_attention_heads": 71,
    "num_hidden_layers": 32, "vocab_size": 65024, "multi_query": true, "parallel_attn": true})";
  CHECK(lora(falcon, R"({"r": 8})") == 32LL * 8 * (4544 + 4672));
}

TEST_CASE("target_modules as a regex string matches whole module names (re.fullmatch)", "[lora]") {
  // Layers 0 and 1, q and v: 2 x 2 x 8 x 8192 = 262,144.
  CHECK(trainable(R"({"r": 8, "target_modules": ".*\\.layers\\.(0|1)\\.self_attn\\.(q|v)_proj"})") == 262144);
  // A bare name is not a suffix for a regex: "q_proj" matches no full name and is refused.
  const auto parsed = parse_estimate_document(R"({"model": {"hf_config": )" + kLlama2_7b +
                                              R"(}, "method": "lora", "lora": {"target_modules": "q_proj"}})");
  REQUIRE(parsed.errors.size() == 1);
  CHECK(parsed.errors[0].field == "lora.target_modules");
  // Too long a pattern (links carry it) is refused before any matching.
  const std::string long_pattern(600, 'a');
  const auto too_long = parse_estimate_document(R"({"model": {"hf_config": )" + kLlama2_7b +
                                                R"(}, "method": "lora", "lora": {"target_modules": ")" + long_pattern + "\"}}");
  REQUIRE(too_long.errors.size() == 1);
  CHECK_THAT(too_long.errors[0].message, Catch::Contains("the limit is 512"));
}

TEST_CASE("exclude_modules, layers_to_transform and rank_pattern as PEFT applies them", "[lora]") {
  // all-linear r = 16 without down_proj: 39,976,960 - 32 x 16 x (11008 + 4096) = 32,243,712.
  CHECK(trainable(R"({"r": 16, "target_modules": "all-linear", "exclude_modules": ["down_proj"]})") == 32243712);
  // A regex exclude_modules: the last layer left out, 31/32 of all-linear.
  CHECK(trainable(R"({"r": 16, "target_modules": "all-linear", "exclude_modules": ".*\\.layers\\.31\\..*"})") ==
        39976960 / 32 * 31);
  // layers_to_transform [0, 1, 2, 3]: 4 of 32 layers of q, v at r = 8.
  CHECK(trainable(R"({"r": 8, "target_modules": ["q_proj", "v_proj"], "layers_to_transform": [0, 1, 2, 3]})") == 524288);
  CHECK(trainable(R"({"r": 8, "target_modules": ["q_proj", "v_proj"], "layers_to_transform": 5})") == 131072);
  // rank_pattern {"v_proj": 16}: q at 8, v at 16: 32 x (8 + 16) x 8192 = 6,291,456.
  CHECK(trainable(R"({"r": 8, "target_modules": ["q_proj", "v_proj"], "rank_pattern": {"v_proj": 16}})") == 6291456);
  // A layer-specific key: layer 0's q_proj at 64: 4,194,304 + (64 - 8) x 8192 = 4,653,056.
  CHECK(trainable(R"({"r": 8, "target_modules": ["q_proj", "v_proj"],
    "rank_pattern": {"layers\\.0\\.self_attn\\.q_proj": 64}})") == 4653056);
  // A key that is no regex: the error counts the position in the key as written ("(" ends after
  // one character), and names the key in params.
  const auto bad = parse_estimate_document(R"({"model": {"hf_config": )" + kLlama2_7b +
                                           R"(}, "method": "lora", "lora": {"rank_pattern": {"(": 4}}})");
  REQUIRE(bad.errors.size() == 1);
  CHECK(bad.errors[0].field == "lora.rank_pattern.(");
  CHECK(bad.errors[0].message == "lora.rank_pattern.(: missing ')' at position 1");
}

TEST_CASE("LoRA settings that target nothing or name a missing layer are refused", "[lora][errors]") {
  CHECK(trainable(R"({"r": 8})") == 4194304);  // PEFT's default for llama: q_proj, v_proj
  const auto none = parse_estimate_document(R"({"model": {"hf_config": )" + kLlama2_7b +
                                            R"(}, "method": "lora", "lora": {"target_modules": ["q_proj"], "exclude_modules": ["q_proj"]}})");
  REQUIRE(none.errors.size() == 1);
  CHECK(none.errors[0].code == "inconsistent");
  const auto layer = parse_estimate_document(R"({"model": {"hf_config": )" + kLlama2_7b +
                                             R"(}, "method": "lora", "lora": {"layers_to_transform": [32]}})");
  REQUIRE(layer.errors.size() == 1);
  CHECK(layer.errors[0].field == "lora.layers_to_transform");
  // A negative index names the model's range too (PEFT matches it against no layer), not the list's type.
  const auto negative = parse_estimate_document(R"({"model": {"hf_config": )" + kLlama2_7b +
                                                R"(}, "method": "lora", "lora": {"layers_to_transform": [-1]}})");
  REQUIRE(negative.errors.size() == 1);
  CHECK(negative.errors[0].message == "lora.layers_to_transform: layer -1 is outside 0 to 31");
}

TEST_CASE("lora_dropout saves a dropout copy of each targeted linear's input and its mask", "[lora][activations]") {
  // PEFT's LoRA Linear computes lora_B(lora_A(dropout(x))): each targeted module keeps its own
  // dropout output (bf16, 2 B) and mask (1 B) of [tokens, in_features]. Llama-2-7B, q_proj and
  // v_proj (in 4,096), 2,048 tokens: 32 layers x 2 modules x 2,048 x 4,096 x 3 B = 1,610,612,736 B;
  // and no adapter reads the attention norm's output itself any more, which the frozen q/k/v keep
  // not: 32 x 2,048 x 4,096 x 2 B = 536,870,912 B fewer. Net 1,073,741,824 B. (Adapters in bf16,
  // the compute dtype: they read the shared tensor rather than each its own cast.)
  auto activations = [](const char* dropout, const char* checkpointing) {
    return *estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "method": "lora",
      "lora": {"r": 16, "target_modules": ["q_proj", "v_proj"], "adapter_dtype": "bf16", "lora_dropout": )" + std::string(dropout) + R"(},
      "batch": {"micro_batch_size": 1, "seq_length": 2048}, "activation_checkpointing": ")" + checkpointing + R"("})")
                .per_gpu.activations;
  };
  CHECK(activations("0.05", "none") - activations("0.0", "none") == 1073741824.0);
  // Full recompute rebuilds them in backward: nothing more is saved.
  CHECK(activations("0.05", "full") == activations("0.0", "full"));
}

TEST_CASE("bitsandbytes up to v0.43.1 keeps every 4-bit linear's input (qlora.saves_base_inputs)", "[lora][activations]") {
  // MatMul4Bit kept ctx.tensors = (A, B) until bitsandbytes-foundation/bitsandbytes#1270 (v0.43.2).
  // Llama-2-7B (hidden 4,096, MLP 11,008, 32 layers), LoRA on q_proj and v_proj, 1,024 tokens, no
  // checkpointing, bf16 (2 B). With lora_dropout 0 lora_A already keeps the attention norm's
  // output; the base linears add the MLP norm's output (read by gate_proj and up_proj) and
  // down_proj's input: 32 x 1,024 x (4,096 + 11,008) x 2 = 989,855,744 B. With lora_dropout 0.05
  // the adapters keep their dropout outputs instead, so the attention norm's output is new too:
  // 32 x 1,024 x (4,096 + 4,096 + 11,008) x 2 = 1,258,291,200 B.
  auto document = [](const std::string& framework, const char* dropout, const char* saves) {
    return R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": ")" + framework +
           R"(", "method": "qlora", "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"], "adapter_dtype": "bf16", "lora_dropout": )" + dropout +
           R"(}, "qlora": {"saves_base_inputs": )" + saves + R"(}, "attention": "flash",
      "batch": {"micro_batch_size": 1, "seq_length": 1024}, "activation_checkpointing": "none"})";
  };
  auto activations = [&](const std::string& framework, const char* dropout, const char* saves) {
    return *estimate_from(document(framework, dropout, saves)).per_gpu.activations;
  };
  CHECK(activations("hf_trainer", "0.0", "true") - activations("hf_trainer", "0.0", "false") == 989855744.0);
  CHECK(activations("hf_trainer", "0.05", "true") - activations("hf_trainer", "0.05", "false") == 1258291200.0);
  // torchtune quantizes with torchao's NF4Tensor, whose linear keeps the weight alone: ignored there.
  CHECK(activations("torchtune", "0.0", "true") == activations("torchtune", "0.0", "false"));
  const TrainingSetup torchtune = trainmem::test::setup_from(document("torchtune", "0.0", "true"));
  REQUIRE(torchtune.ignored_fields.size() == 1);
  CHECK(torchtune.ignored_fields[0].paths[0] == "qlora.saves_base_inputs");
}

TEST_CASE("an 8-bit base keeps every linear's input; bitsandbytes up to v0.44.1 also an int8 copy per linear", "[lora][activations]") {
  // MatMul8bitLt keeps ctx.tensors = (CAt, subA, A) in every version, so the base linears keep
  // their inputs as the older 4-bit kernel did (the test above: 989,855,744 B); up to v0.44.1 each
  // 8-bit linear also keeps CAt, an int8 copy of its input (F.double_quant; none for a frozen
  // weight since bitsandbytes-foundation/bitsandbytes#1401, v0.45.0): per layer the inputs of
  // q, k, v, o, gate, up (4,096 each) and down (11,008) = 35,584 bytes per token, so
  // 32 x 1,024 x 35,584 = 1,166,016,512 B.
  auto activations = [](const char* quant, const char* saves) {
    return *estimate_from(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "hf_trainer", "method": "qlora",
      "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"], "adapter_dtype": "bf16", "lora_dropout": 0.0},
      "qlora": {"quant_type": ")" + std::string(quant) + R"(", "saves_base_inputs": )" + saves + R"(}, "attention": "flash",
      "batch": {"micro_batch_size": 1, "seq_length": 1024}, "activation_checkpointing": "none"})").per_gpu.activations;
  };
  CHECK(activations("int8", "false") - activations("nf4", "false") == 989855744.0);
  CHECK(activations("int8", "false") == activations("nf4", "true"));
  CHECK(activations("int8", "true") - activations("int8", "false") == 1166016512.0);
}

TEST_CASE("an 8-bit base needs bitsandbytes: torchtune and the other frameworks' own models quantize to 4 bits", "[lora][errors]") {
  const std::string document = R"({"model": {"preset": "llama-2-7b"}, "framework": "torchtune", "method": "qlora",
    "qlora": {"quant_type": "int8"}})";
  CHECK(trainmem::test::error_codes(document) == std::vector<std::string>{"inconsistent"});
  CHECK(trainmem::test::error_fields(document) == std::vector<std::string>{"qlora.quant_type"});
  // FSDP and ZeRO-3 shard the frozen weights too, which an int8 base cannot join; ZeRO-2 under
  // DeepSpeed and DDP leave them whole.
  auto sharded = [](const char* parallel) {
    return trainmem::test::error_codes(R"({"model": {"preset": "llama-2-7b"}, "framework": "hf_trainer", "method": "qlora",
      "qlora": {"quant_type": "int8"}, "parallel": )" + std::string(parallel) + "}");
  };
  CHECK(sharded(R"({"world_size": 8, "zero_stage": 3, "sharding_engine": "deepspeed"})") == std::vector<std::string>{"inconsistent"});
  CHECK(sharded(R"({"world_size": 8, "zero_stage": 2, "sharding_engine": "fsdp"})") == std::vector<std::string>{"inconsistent"});
  CHECK(sharded(R"({"world_size": 8, "zero_stage": 2, "sharding_engine": "deepspeed"})").empty());
  CHECK(sharded(R"({"world_size": 8, "zero_stage": 0})").empty());
}

TEST_CASE("a LoRA rank whose adapter outgrows the model is warned about", "[lora][warnings]") {
  // All linear layers of Llama-2-7B: 39,976,960 / 16 = 2,498,560 adapter parameters per unit of
  // rank (above); the model has 6,738,415,616. r = 2696 gives 6,736,117,760 (fewer), r = 2697
  // gives 6,738,616,320 (more).
  auto warns = [](int r) {
    const JsonResult out = estimate_json(R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "method": "lora",
      "lora": {"r": )" + std::to_string(r) + R"(, "target_modules": "all-linear"}})");
    REQUIRE(out.ok);
    return out.json.find("lora_rank_exceeds_model") != std::string::npos;
  };
  CHECK_FALSE(warns(2696));
  CHECK(warns(2697));
}

TEST_CASE("lora.adapter_dtype given: the adapters' weights, gradients and moments take its bytes", "[lora]") {
  // Llama-3.1-8B, r 64 on all-linear: per layer 64 x ((4096 + 4096) x 2 + (4096 + 1024) x 2 +
  // (4096 + 14336) x 3) = 5,242,880 adapter parameters, x 32 layers = 167,772,160. Under torchtune's
  // pure bf16 (no master copy, bf16 moments) a bf16 adapter costs 2 + 2 + 2 x 2 = 8 B, an fp32 one
  // 4 + 4 + 2 x 4 = 16 B (fp32 moments, no master): 8 x 167,772,160 = 1,342,177,280 B more.
  const auto doc = [](const std::string& dtype) {
    return R"({"model": {"preset": "llama-3.1-8b"}, "framework": "torchtune", "method": "lora",
      "lora": {"r": 64, "target_modules": "all-linear")" + dtype + R"(}, "precision": {"param_dtype": "bf16",
      "master_weights": false, "optimizer_state_dtype": "bf16"}, "batch": {"micro_batch_size": 1, "seq_length": 2048}})";
  };
  const auto fp32 = estimate_from(doc(R"(, "adapter_dtype": "fp32")"));
  const auto bf16 = estimate_from(doc(R"(, "adapter_dtype": "bf16")"));
  const auto unstated = estimate_from(doc(""));
  REQUIRE(fp32.parameters.adapter == 167772160);
  CHECK(fp32.per_gpu.model_states - bf16.per_gpu.model_states == 1342177280.0);
  // Left out, the adapters follow the precision block: here bf16 like the stated bf16.
  CHECK(unstated.per_gpu.model_states == bf16.per_gpu.model_states);
}

TEST_CASE("bytes_per_param under LoRA are the adapters' bytes, as the model states price them", "[lora]") {
  // Llama-2-7B LoRA r=8 on q_proj, v_proj (4,194,304 adapters), bf16 weights, AdamW: PEFT (>= 0.12)
  // upcasts the adapters to fp32, so each holds 4 B, its gradient 4 B (autograd: the weight's dtype)
  // and two fp32 moments, 8 B, with no master copy; it said the weights' 2 / 2 / 12.
  const auto e = trainmem::test::estimate_from(R"({"model": {"hf_config": )" + trainmem::test::kLlama2_7b + R"(}, "method": "lora",
    "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"]}})");
  CHECK(e.bytes_per_param.param == 4);
  CHECK(e.bytes_per_param.grad == 4);
  CHECK(e.bytes_per_param.optimizer == 8);
  CHECK(e.per_gpu.gradients == 4194304.0 * 4);
  CHECK(e.per_gpu.optimizer_states == 4194304.0 * 8);
  // Held in bf16 (lora.adapter_dtype): 2 B, a bf16 gradient, fp32 master and moments, 12 B.
  const auto bf16 = trainmem::test::estimate_from(R"({"model": {"hf_config": )" + trainmem::test::kLlama2_7b + R"(}, "method": "lora",
    "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"], "adapter_dtype": "bf16"}})");
  CHECK(bf16.bytes_per_param.param == 2);
  CHECK(bf16.bytes_per_param.grad == 2);
  CHECK(bf16.bytes_per_param.optimizer == 12);
}
