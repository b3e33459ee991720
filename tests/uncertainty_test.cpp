// The uncertainty band and the three-way verdict (engine/src/uncertainty.cpp, docs/memory-model.md
// "Uncertainty band"), through the estimate document as the CLI and the page read it.
#include <cstdint>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

using nlohmann::json;
using namespace trainmem;
using trainmem::test::estimate_doc;
using trainmem::test::kTinyGqaLlama;

namespace {

using trainmem::test::kLlama2_7b;

double bytes(const json& v) { return v.get<double>(); }

// The estimator_error term lifts every allocated band's high end by 17.5 % of the expected
// allocated peak (docs/memory-model.md, "Uncertainty band"), whatever the document states. The
// document rounds bytes to integers, so a high end read back this way is within a byte.
constexpr double kEstimatorError = 0.175;

// The allocated band's high end without that lift: where the named settings alone take it, bytes.
double settings_high(const json& allocated_range) {
  return bytes(allocated_range["high"]) - kEstimatorError * bytes(allocated_range["expected"]);
}

// Llama-2-7B, LoRA, one GPU, every uncertain setting stated under DeepSpeed (whose defaults the band
// has no alternatives for): only the engine's own error, the allocator and, where not given, the CUDA
// context widen the band.
std::string stated(const std::string& gpu, const std::string& extra = "") {
  return R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "deepspeed", "method": "lora", "lora": {"r": 16},
    "batch": {"micro_batch_size": 1, "seq_length": 2048}, "activation_checkpointing": "full", "gpu": )" + gpu + extra + "}";
}

const char* kCustomGpu = R"({"memory_bytes": 85899345920, "cuda_context_bytes": 536870912})";

}  // namespace

TEST_CASE("Allocator fragmentation: reserved between the allocator's rules and 30 % above the allocated peak", "[uncertainty]") {
  // The reference's quick estimate adds 10-30 % overhead; the point estimate takes the 10 % as its
  // floor, but this project's H200 runs reserved as little as 0.2 % above the allocated peak, so the
  // band reaches down to what the caching allocator's rules alone give. For this setup they add
  // nothing (no rounding of the saved activations, no cache growth in the step), and with every
  // setting stated the allocated band is the engine's own error alone, [A, A x 1.175]. Reserved: that
  // band at the point estimate's ratio 1.10 (A x 0.1925 above) plus the fragmentation term, from A
  // (the rules' reserve) to A x 1.30 around the point estimate A x 1.10: [A, A x 1.4925].
  const json out = estimate_doc(stated(kCustomGpu));
  const json& g = out["per_gpu"];
  const double a = bytes(g["peak_allocated"]);
  REQUIRE(bytes(g["allocator_rounding"]) == 0);
  REQUIRE(bytes(g["allocator_cache"]) == 0);
  CHECK(bytes(g["peak_allocated_range"]["low"]) == a);
  CHECK(bytes(g["peak_allocated_range"]["high"]) == Approx(a * 1.175).epsilon(1e-9));
  CHECK(bytes(g["peak_reserved"]) == Approx(a * 1.10).epsilon(1e-9));
  CHECK(bytes(g["peak_reserved_range"]["low"]) == Approx(a).epsilon(1e-9));
  CHECK(bytes(g["peak_reserved_range"]["expected"]) == bytes(g["peak_reserved"]));
  CHECK(bytes(g["peak_reserved_range"]["high"]) == Approx(a * 1.4925).epsilon(1e-9));
  // The context was given (512 MiB): the peak band is the reserved band + 536,870,912 B.
  CHECK(bytes(g["peak_range"]["low"]) == Approx(a + 536870912.0).epsilon(1e-9));
  CHECK(bytes(g["peak_range"]["high"]) == Approx(a * 1.4925 + 536870912.0).epsilon(1e-9));
  // Two terms: the engine's error, A x 0.1925 above at the peak; fragmentation, 30 % of the
  // allocated peak wide, 10 % below the expected value and 20 % above.
  REQUIRE(out["uncertainty"].size() == 2);
  CHECK(out["uncertainty"][0]["source"] == "estimator_error");
  CHECK(bytes(out["uncertainty"][0]["below_bytes"]) == 0);
  CHECK(bytes(out["uncertainty"][0]["above_bytes"]) == Approx(a * 0.1925).epsilon(1e-6));
  CHECK(out["uncertainty"][1]["source"] == "allocator_fragmentation");
  CHECK(bytes(out["uncertainty"][1]["bytes"]) == Approx(a * 0.30).epsilon(1e-6));
  CHECK(bytes(out["uncertainty"][1]["below_bytes"]) == Approx(a * 0.10).epsilon(1e-6));
}

TEST_CASE("A fragmentation fraction given in the document is no longer a term: the engine's own error remains", "[uncertainty]") {
  // What is left is the engine's own error: nothing below the estimate, 17.5 % of the allocated
  // peak above it, carried to the peak at reserved / allocated = 1.20.
  const json out = estimate_doc(stated(kCustomGpu, R"(, "overhead": {"fragmentation_fraction": 0.2})"));
  REQUIRE(out["uncertainty"].size() == 1);
  CHECK(out["uncertainty"][0]["source"] == "estimator_error");
  const json& g = out["per_gpu"];
  CHECK(g["peak_range"]["low"] == g["peak"]);
  CHECK(bytes(g["peak_range"]["high"]) - bytes(g["peak"]) == Approx(bytes(g["peak_allocated"]) * 0.175 * 1.20).epsilon(1e-6));
}

TEST_CASE("CUDA context without a figure: between lazy and eager module loading", "[uncertainty]") {
  // pytorch/pytorch#86509: 287,047,680 B (lazy) and 666,632,192 B (eager) around the engine's
  // 512 MiB = 536,870,912 B: 249,823,232 B below and 129,761,280 B above.
  const json out = estimate_doc(stated(R"({"memory_bytes": 85899345920})"));
  const json* context = nullptr;
  for (const auto& t : out["uncertainty"])
    if (t["source"] == "cuda_context") context = &t;
  REQUIRE(context);
  CHECK(bytes((*context)["below_bytes"]) == 249823232.0);
  CHECK(bytes((*context)["above_bytes"]) == 129761280.0);
  const json& g = out["per_gpu"];
  CHECK(bytes(g["peak_range"]["low"]) == Approx(bytes(g["peak_reserved_range"]["low"]) + 287047680.0).epsilon(1e-9));
  CHECK(bytes(g["peak_range"]["high"]) == Approx(bytes(g["peak_reserved_range"]["high"]) + 666632192.0).epsilon(1e-9));
}

TEST_CASE("An unstated setting: the band reaches the estimate with the framework's other value", "[uncertainty]") {
  // torchtune's configs differ on activation checkpointing (the engine's default is full); left out,
  // the allocated band reaches the explicit "none" estimate; stated, the term disappears.
  const std::string base = R"({"model": {"hf_config": )" + std::string(kLlama2_7b) + R"(}, "framework": "torchtune",
    "method": "lora", "lora": {"r": 16}, "batch": {"seq_length": 2048}, "loss": {"implementation": "chunked"}, "gpu": "a100-80gb")";
  const json unstated = estimate_doc(base + "}");
  const json none = estimate_doc(base + R"(, "activation_checkpointing": "none"})");
  const json full = estimate_doc(base + R"(, "activation_checkpointing": "full"})");
  CHECK(unstated["per_gpu"]["peak_allocated"] == full["per_gpu"]["peak_allocated"]);
  CHECK(settings_high(unstated["per_gpu"]["peak_allocated_range"]) == Approx(bytes(none["per_gpu"]["peak_allocated"])).margin(1));
  CHECK(bytes(unstated["per_gpu"]["peak_allocated_range"]["low"]) == bytes(full["per_gpu"]["peak_allocated"]));
  bool named = false;
  for (const auto& t : unstated["uncertainty"])
    named |= t["source"] == "unstated_activation_checkpointing" && t["alternative"] == "activation_checkpointing: none";
  CHECK(named);
  for (const auto& t : full["uncertainty"]) CHECK(t["source"] != "unstated_activation_checkpointing");
}

TEST_CASE("The terms add up to the width of the peak band", "[uncertainty]") {
  const json out = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "method": "qlora", "gpu": "rtx-4090-24gb"})");
  double width = 0;
  for (const auto& t : out["uncertainty"]) width += bytes(t["bytes"]);
  const json& r = out["per_gpu"]["peak_range"];
  CHECK(width == Approx(bytes(r["high"]) - bytes(r["low"])).epsilon(1e-9));
  CHECK(bytes(r["low"]) <= bytes(r["expected"]));
  CHECK(bytes(r["expected"]) <= bytes(r["high"]));
}

TEST_CASE("A term's bytes are its below_bytes plus its above_bytes to the byte", "[uncertainty]") {
  // Each of the three is a whole number of bytes: the width is the sum of the two printed halves,
  // not the rounded sum of the unrounded halves (which can differ from theirs by one byte).
  for (const char* doc : {R"({"model": {"preset": "llama-3.1-8b"}, "method": "qlora", "gpu": "rtx-4090-24gb"})",
                          R"({"model": {"preset": "qwen2.5-7b"}, "method": "lora", "batch": {"micro_batch_size": 3, "seq_length": 1000,
                              "padding": "longest"}, "gpu": "a100-80gb"})",
                          R"({"model": {"preset": "llama-3.2-1b"}, "framework": "torchtune", "gpu": "rtx-4090-24gb"})"}) {
    const json out = estimate_doc(doc);
    REQUIRE_FALSE(out["uncertainty"].empty());
    for (const auto& t : out["uncertainty"]) {
      INFO(doc << " " << t.dump());
      CHECK(t["bytes"].get<std::int64_t>() == t["below_bytes"].get<std::int64_t>() + t["above_bytes"].get<std::int64_t>());
    }
  }
}

TEST_CASE("Reserved never lies below allocated at either end of the band", "[uncertainty]") {
  // A sequence length left unstated lowers the allocated peak; the allocator's floor (10 % of the
  // expected allocated peak) is then not taken away in full as well.
  for (const char* doc : {R"({"model": {"preset": "llama-3.1-8b"}, "framework": "hf_trainer", "parallel": {"world_size": 8, "zero_stage": 3},
                            "batch": {"micro_batch_size": 1}, "gpu": "h100-sxm-80gb", "activation_checkpointing": "full"})",
                          R"({"model": {"preset": "llama-3.1-8b"}, "method": "qlora", "gpu": "rtx-4090-24gb"})",
                          R"({"model": {"preset": "llama-3-70b"}, "framework": "megatron", "parallel": {"world_size": 64,
                            "tensor_parallel_size": 8, "sequence_parallel": true, "tp_comm_overlap": true}, "gpu": "h100-sxm-80gb"})"}) {
    const json out = estimate_doc(doc);
    const json& g = out["per_gpu"];
    CAPTURE(doc);
    CHECK(bytes(g["peak_reserved_range"]["low"]) >= bytes(g["peak_allocated_range"]["low"]));
    CHECK(bytes(g["peak_reserved_range"]["high"]) >= bytes(g["peak_allocated_range"]["high"]));
    double width = 0;
    for (const auto& t : out["uncertainty"]) width += bytes(t["bytes"]);
    CHECK(width == Approx(bytes(g["peak_range"]["high"]) - bytes(g["peak_range"]["low"])).epsilon(1e-9));
  }
}

TEST_CASE("Verdict: fits above the band's high end, does_not_fit below its low end, borderline between", "[uncertainty]") {
  const json probe = estimate_doc(stated(kCustomGpu));
  const double low = bytes(probe["per_gpu"]["peak_range"]["low"]), high = bytes(probe["per_gpu"]["peak_range"]["high"]);
  REQUIRE(high > low + 2);
  auto with_memory = [&](double memory) {
    return estimate_doc(stated(R"({"memory_bytes": )" + std::to_string(static_cast<long long>(memory)) +
                               R"(, "cuda_context_bytes": 536870912})"));
  };
  // The band does not depend on the device's size, so the same band is judged against each.
  const json roomy = with_memory(high + 1);  // + 1: the document rounds bytes to integers
  CHECK(roomy["verdict"] == "fits");
  CHECK(roomy["fits"] == true);
  const json between = with_memory(std::floor((low + high) / 2));
  CHECK(between["verdict"] == "borderline");
  CHECK(between["fits"] == false);  // fits is the conservative reading
  const json tight = with_memory(std::floor(low) - 1);
  CHECK(tight["verdict"] == "does_not_fit");
  CHECK(tight["fits"] == false);
  // Margins: capacity minus the compared quantity, for the point estimate and for the band.
  CHECK(bytes(between["margin_bytes"]) == Approx(std::floor((low + high) / 2) - bytes(between["per_gpu"]["peak"])).margin(1));
  CHECK(bytes(between["margin_range"]["low"]) < 0);
  CHECK(bytes(between["margin_range"]["high"]) > 0);
}

TEST_CASE("A usable figure is compared with the reserved band, the context being outside it", "[uncertainty]") {
  const json out = estimate_doc(stated(R"({"memory_bytes": 85899345920, "usable_bytes": 80000000000})"));
  CHECK(out["verdict"] == "fits");
  CHECK(bytes(out["margin_range"]["low"]) == Approx(80000000000.0 - bytes(out["per_gpu"]["peak_reserved_range"]["high"])).margin(1));
}

TEST_CASE("Without an architecture there is no band; the verdict rests on the model states", "[uncertainty]") {
  // 70e9 parameters x 16 B (bf16 + AdamW + fp32 master) = 1.12e12 B > 80 GiB.
  const json big = estimate_doc(R"({"model": {"num_parameters": 7e10}, "gpu": "a100-80gb"})");
  CHECK(big["per_gpu"]["peak_range"].is_null());
  CHECK(big["verdict"] == "does_not_fit");
  CHECK(big["fits"] == false);
  // 1e8 x 16 B = 1.6e9 B: the states fit, but without activations nothing more can be said.
  const json small = estimate_doc(R"({"model": {"num_parameters": 1e8}, "gpu": "a100-80gb"})");
  CHECK(small["verdict"].is_null());
  CHECK(small["fits"].is_null());
  const json no_gpu = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}})");
  CHECK(no_gpu["verdict"].is_null());
  CHECK(no_gpu["per_gpu"]["peak_range"].is_object());
}

namespace {

// The uncertainty term with this source, or null.
const json* term(const json& out, const std::string& source) {
  for (const auto& t : out["uncertainty"])
    if (t["source"] == source) return &t;
  return nullptr;
}

// An unstated setting whose alternative only raises the peak: checks the term names it and lowers
// nothing, and returns how far it lifts the allocated band's high end above the expected peak (the
// engine's own error aside), bytes.
double raise_by_term(const json& out, const std::string& source, const std::string& alternative) {
  const json* t = term(out, source);
  REQUIRE(t);
  CHECK((*t)["alternative"] == alternative);
  CHECK(bytes((*t)["below_bytes"]) == 0);
  const json& allocated = out["per_gpu"]["peak_allocated_range"];
  return settings_high(allocated) - bytes(allocated["expected"]);
}

// Llama-2-7B, full fine-tuning under torchtune on one A100, no checkpointing at 4,096 tokens (the
// activations make the end of forward the peak whatever the optimizer), chunked loss; `precision`
// closes the document's precision object.
std::string torchtune_full(const std::string& precision, const std::string& parallel = R"({"world_size": 1})") {
  return R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "torchtune", "method": "full",
    "precision": {"param_dtype": "bf16", "grad_dtype": "bf16", "master_weights": false)" + precision + R"(,
    "batch": {"micro_batch_size": 1, "seq_length": 4096, "gradient_accumulation_steps": 1},
    "activation_checkpointing": "none", "loss": {"implementation": "chunked"}, "parallel": )" + parallel + R"(,
    "gpu": "a100-80gb"})";
}

}  // namespace

TEST_CASE("torchtune's single-device configs step a paged 8-bit AdamW in backward: an unstated optimizer reaches it", "[uncertainty]") {
  // Left out, the estimate steps AdamW after backward with bf16 moments (torchtune's pure bf16);
  // llama3_1/8B_full_single_device.yaml steps PagedAdamW8bit inside backward (optimizer_in_bwd).
  // Llama-2-7B: 32 x (4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096) + 2 x 32000 x 4096 + 4096
  //   = 6,738,415,616 parameters. torchtune frees the gradients after each step
  // (zero_grad(set_to_none=True)), so the default peaks at the backward of the last layer: weights,
  // the two bf16 moments (4 B per parameter = 26,953,662,464 B), all activations, the head's
  // gradient (32,000 x 4,096 x 2 = 262,144,000 B), the last layer's share of the rest
  // ((13,476,831,232 - 262,144,000) / 32 = 412,958,976 B) and that layer's backward working set
  // (2 x 4096 x 4096 x 2 + 3 x 4096 x 11008 x 2 = 337,641,472 B). The alternative holds neither
  // moments (paged: outside the allocator) nor gradients (each stepped and freed in backward) and
  // peaks at the end of forward: weights, activations and the chunked loss's forward working set
  // (6.5 B x 4,096 x 32,000 = 851,968,000 B). Difference: 26,953,662,464 + 262,144,000 +
  // 412,958,976 + 337,641,472 - 851,968,000 = 27,114,438,912 B.
  const json out = estimate_doc(torchtune_full("}"));
  const json* t = term(out, "unstated_optimizer");
  REQUIRE(t);
  CHECK((*t)["alternative"] == "precision.optimizer: paged_adamw_8bit, precision.optimizer_in_backward: true");
  CHECK(out["per_gpu"]["peak_phase"] == "backward");
  const json& allocated = out["per_gpu"]["peak_allocated_range"];
  CHECK(bytes(allocated["expected"]) - bytes(allocated["low"]) == Approx(27114438912.0).epsilon(1e-9));
  CHECK(bytes((*t)["above_bytes"]) == 0);
  // The alternative stated is the band's low end.
  const json stated_alt = estimate_doc(torchtune_full(R"(, "optimizer": "paged_adamw_8bit", "optimizer_in_backward": true})"));
  CHECK(stated_alt["per_gpu"]["peak_phase"] == "forward");
  CHECK(bytes(stated_alt["per_gpu"]["peak_allocated"]) == Approx(bytes(allocated["low"])).epsilon(1e-12));
}

TEST_CASE("Stating the optimizer removes its term; a multi-device run has no such alternative", "[uncertainty]") {
  CHECK_FALSE(term(estimate_doc(torchtune_full(R"(, "optimizer": "adamw", "optimizer_in_backward": false})")), "unstated_optimizer"));
  // The optimizer given, optimizer_in_backward left out: only the latter is re-estimated. Both keep
  // the moments; AdamW in backward frees each gradient as it steps, so the alternative peaks at the
  // end of forward and the default at the backward of the last layer (above): 262,144,000 +
  // 412,958,976 + 337,641,472 - 851,968,000 = 160,776,448 B.
  const json in_backward = estimate_doc(torchtune_full(R"(, "optimizer": "adamw"})"));
  const json* t = term(in_backward, "unstated_optimizer");
  REQUIRE(t);
  CHECK((*t)["alternative"] == "precision.optimizer_in_backward: true");
  const json& allocated = in_backward["per_gpu"]["peak_allocated_range"];
  CHECK(bytes(allocated["expected"]) - bytes(allocated["low"]) == Approx(160776448.0).epsilon(1e-9));
  // The multi-device configs (llama3_1/8B_full.yaml) step AdamW after backward: the default.
  CHECK_FALSE(term(estimate_doc(torchtune_full("}", R"({"world_size": 2, "zero_stage": 3})")), "unstated_optimizer"));
}

TEST_CASE("HF Trainer on a model that picks its own kernel: the band reaches eager attention", "[uncertainty]") {
  // A remote-code model_type ("Yi", read with Llama's layout) runs whatever its own modeling file
  // picks. Eager attention keeps, per layer, the fp32 softmax output and its bf16 cast (Llama's
  // softmax(dtype=float32).to(dtype)): b x heads x s^2 x (4 + 2) B, and no log-sum-exp
  // (b x s x heads x 4 B). Llama-2-7B's shapes (32 layers, 32 heads, k/v not repeated), b = 8, s = 512:
  //   8 x 32 x 512^2 = 67,108,864 scores; x 6 B = 402,653,184 B; minus 8 x 512 x 32 x 4 = 524,288 B
  //   = 402,128,896 B a layer; x 32 layers = 12,868,124,672 B above the expected allocated peak.
  // At 512 tokens the loss's logits (8 x 512 x 32,000) outweigh one layer's score gradients, so
  // backward's transient is the loss's in both and the peak moves by the saved activations only.
  // (zero_grad_set_to_none stated, so that the gradients' term does not raise the high end too.)
  std::string yi = kLlama2_7b;
  yi.replace(yi.find("\"llama\""), 7, "\"Yi\"");
  const std::string base = R"({"model": {"hf_config": )" + yi + R"(}, "framework": "hf_trainer", "method": "full",
    "precision": {"param_dtype": "bf16", "master_weights": false, "optimizer": "sgd"},
    "batch": {"micro_batch_size": 8, "seq_length": 512, "gradient_accumulation_steps": 1},
    "activation_checkpointing": "none", "loss": {"implementation": "full"}, "zero_grad_set_to_none": true, "gpu": "a100-80gb")";
  CHECK(raise_by_term(estimate_doc(base + "}"), "unstated_attention", "attention: eager") == Approx(12868124672.0).epsilon(1e-9));
  // Stated, whatever the value, the term is gone.
  CHECK_FALSE(term(estimate_doc(base + R"(, "attention": "sdpa"})"), "unstated_attention"));
  CHECK_FALSE(term(estimate_doc(base + R"(, "attention": "eager"})"), "unstated_attention"));
}

TEST_CASE("QLoRA through bitsandbytes: the band reaches the older MatMul4Bit that kept every 4-bit linear's input", "[uncertainty]") {
  // Llama-2-7B, LoRA on q_proj and v_proj, 1,024 tokens, no checkpointing: bitsandbytes up to
  // v0.43.1 kept the MLP norm's output and down_proj's input besides lora_A's attention norm
  // output: 32 x 1,024 x (4,096 + 11,008) x 2 B = 989,855,744 B above the expected allocated peak.
  // (The weights' dtype stated: the kbit-preparation term, below, would share the band's end.)
  const std::string base = R"({"model": {"preset": "llama-2-7b"}, "method": "qlora", "precision": {"param_dtype": "bf16"},
    "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"], "lora_dropout": 0, "adapter_dtype": "bf16"}, "activation_checkpointing": "none",
    "attention": "flash", "zero_grad_set_to_none": true, "batch": {"micro_batch_size": 1, "seq_length": 1024}, "gpu": "a100-80gb")";
  CHECK(raise_by_term(estimate_doc(base + R"(, "framework": "hf_trainer"})"), "framework_version_bitsandbytes",
                      "qlora.saves_base_inputs: true") == Approx(989855744.0).epsilon(1e-9));
  // Stated, the term is gone; torchtune (torchao's NF4) has none.
  CHECK_FALSE(term(estimate_doc(base + R"(, "framework": "hf_trainer", "qlora": {"saves_base_inputs": false}})"), "framework_version_bitsandbytes"));
  CHECK_FALSE(term(estimate_doc(base + R"(, "framework": "torchtune"})"), "framework_version_bitsandbytes"));
  // An 8-bit base: up to v0.44.1 an int8 copy of every 8-bit linear's input, 32 x 1,024 x
  // (6 x 4,096 + 11,008) x 1 B = 1,166,016,512 B.
  CHECK(raise_by_term(estimate_doc(base + R"(, "framework": "hf_trainer", "qlora": {"quant_type": "int8"}})"),
                      "framework_version_bitsandbytes", "qlora.saves_base_inputs: true") == Approx(1166016512.0).epsilon(1e-9));
}

TEST_CASE("QLoRA through bitsandbytes with the weights' dtype unstated: the band reaches PEFT's prepare_model_for_kbit_training", "[uncertainty]") {
  // prepare_model_for_kbit_training casts the weights left unquantized to fp32: Llama-2-7B's
  // embeddings and head (2 x 32,000 x 4,096) and norms (65 x 4,096), 262,410,240 parameters, at
  // 4 B instead of 2: +524,820,480 B (the adapters fp32 either way).
  // (bitsandbytes', zero_grad's and PEFT's adapter-dtype terms stated away: the band's end would be
  // shared with them.)
  const std::string base = R"({"model": {"preset": "llama-2-7b"}, "framework": "hf_trainer", "method": "qlora",
    "qlora": {"saves_base_inputs": false}, "zero_grad_set_to_none": true,
    "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"], "adapter_dtype": "fp32"}, "activation_checkpointing": "full", "attention": "flash",
    "batch": {"micro_batch_size": 1, "seq_length": 1024}, "gpu": "a100-80gb")";
  const json plain = estimate_doc(base + "}");
  const json prepared = estimate_doc(base + R"(, "precision": {"param_dtype": "fp32", "compute_dtype": "bf16"}})");
  CHECK(prepared["per_gpu"]["parameters"].get<double>() - plain["per_gpu"]["parameters"].get<double>() == 524820480.0);
  // The term re-estimates exactly that setup.
  CHECK(raise_by_term(plain, "framework_version_kbit_preparation", "precision.param_dtype: fp32") ==
        Approx(prepared["per_gpu"]["peak_allocated"].get<double>() - plain["per_gpu"]["peak_allocated"].get<double>()).epsilon(1e-9));
  // Stated weights, a model FSDP or ZeRO-3 shards (TRL and axolotl skip the cast there), or
  // DeepSpeed at any stage (its 16-bit engine casts the parameters back): no term. DDP keeps it.
  CHECK_FALSE(term(prepared, "framework_version_kbit_preparation"));
  CHECK_FALSE(term(estimate_doc(base + R"(, "parallel": {"world_size": 8, "zero_stage": 3, "sharding_engine": "deepspeed"}})"),
                   "framework_version_kbit_preparation"));
  CHECK_FALSE(term(estimate_doc(base + R"(, "parallel": {"world_size": 8, "zero_stage": 2, "sharding_engine": "deepspeed"}})"),
                   "framework_version_kbit_preparation"));
  CHECK(term(estimate_doc(base + R"(, "parallel": {"world_size": 8, "zero_stage": 0}})"), "framework_version_kbit_preparation"));
}

TEST_CASE("adapters without a dtype over 16-bit weights are PEFT's fp32, and the band reaches the weights' dtype", "[uncertainty][resolved]") {
  // Llama-2-7B, LoRA r 8 on q_proj and v_proj: 32 x 2 x 8 x (4,096 + 4,096) = 4,194,304 adapter
  // parameters, fp32 under PEFT >= 0.12 (autocast_adapter_dtype=True): 16,777,216 B.
  const std::string base = R"({"model": {"preset": "llama-2-7b"}, "method": "lora", "precision": {"param_dtype": "bf16"},
    "lora": {"r": 8, "target_modules": ["q_proj", "v_proj"]}, "batch": {"micro_batch_size": 1, "seq_length": 1024}, "gpu": "a100-80gb")";
  const json peft = estimate_doc(base + R"(, "framework": "hf_trainer"})");
  CHECK(peft["resolved"]["lora.adapter_dtype"]["value"] == "fp32");
  CHECK(peft["checkpoint"]["adapter_bytes"].get<double>() == 16777216.0);
  CHECK(term(peft, "framework_version_peft_adapter_dtype"));
  // Stated, or built by torchtune in the model's dtype: no term.
  CHECK_FALSE(term(estimate_doc(R"({"model": {"preset": "llama-2-7b"}, "method": "lora", "framework": "hf_trainer",
    "lora": {"r": 8, "adapter_dtype": "bf16"}, "precision": {"param_dtype": "bf16"}, "gpu": "a100-80gb"})"),
                   "framework_version_peft_adapter_dtype"));
  const json torchtune = estimate_doc(base + R"(, "framework": "torchtune"})");
  CHECK(torchtune["resolved"]["lora.adapter_dtype"]["value"] == "bf16");
  CHECK_FALSE(term(torchtune, "framework_version_peft_adapter_dtype"));
}

TEST_CASE("HF Trainer without an attention implementation runs what transformers picks for the model", "[uncertainty][resolved]") {
  // transformers' from_pretrained takes sdpa where the modeling file has an SDPA path (Llama) and
  // eager where it has none (GPT-J); both are then certain, so neither widens the band. Gemma 2's
  // modeling file advises eager for training while it defaults to sdpa: the band spans both.
  const auto doc = [](const std::string& preset, const std::string& attention) {
    return R"({"model": {"preset": ")" + preset + R"("}, "framework": "hf_trainer", "batch": {"micro_batch_size": 4,
      "seq_length": 2048}, "activation_checkpointing": "none", "gpu": "a100-80gb")" + attention + "}";
  };
  struct Case { const char* preset; const char* kernel; const char* origin; };
  for (const Case c : {Case{"llama-2-7b", "sdpa", "sdpa since v4.36"}, Case{"gpt-j-6b", "eager", "no SDPA path"}}) {
    CAPTURE(c.preset);
    const json unstated = estimate_doc(doc(c.preset, ""));
    const json stated_kernel = estimate_doc(doc(c.preset, std::string(R"(, "attention": ")") + c.kernel + "\""));
    CHECK(unstated["resolved"]["attention"]["value"] == c.kernel);
    CHECK_THAT(unstated["resolved"]["attention"]["origin"].get<std::string>(), Catch::Contains(c.origin));
    CHECK(unstated["per_gpu"]["activations"] == stated_kernel["per_gpu"]["activations"]);
    CHECK_FALSE(term(unstated, "unstated_attention"));
  }
  const json gemma2 = estimate_doc(doc("gemma-2-9b", ""));
  CHECK(gemma2["resolved"]["attention"]["value"] == "sdpa");
  const json* t = term(gemma2, "unstated_attention");
  REQUIRE(t);
  CHECK((*t)["alternative"] == "attention: eager");
  CHECK(bytes((*t)["above_bytes"]) > 0);
  // Another framework runs its own fused kernel whatever the model: GPT-J under torchtune is flash.
  const json titan = estimate_doc(R"({"model": {"preset": "gpt-j-6b"}, "framework": "torchtune"})");
  CHECK(titan["resolved"]["attention"]["value"] == "flash");
  CHECK(titan["resolved"]["attention"]["origin"] == "engine default");
}

TEST_CASE("The band's low end is every lowering setting together, not a sum that counts the same bytes twice", "[uncertainty]") {
  // Llama-3.1-8B under the HF Trainer on 8 GPUs with ZeRO-3, checkpointing and sequence length left
  // out: full checkpointing and a 1,024-token sequence each shrink the same activations, so their
  // separate savings overlap. The low end is the peak of the setup with both (a sum of the two had
  // put it at 0.58 GB, below the 16 GB of sharded model states).
  const std::string base = R"({"model": {"preset": "llama-3.1-8b"}, "framework": "hf_trainer", "gpu": "rtx-5090-32gb",
    "parallel": {"world_size": 8, "zero_stage": 3}, "batch": {"micro_batch_size": 1)";
  const json unstated = estimate_doc(base + "}}");
  const json both = estimate_doc(base + R"(, "seq_length": 1024}, "activation_checkpointing": "full"})");
  REQUIRE(term(unstated, "unstated_activation_checkpointing"));
  REQUIRE(term(unstated, "unstated_seq_length"));
  CHECK(bytes(unstated["per_gpu"]["peak_allocated_range"]["low"]) == bytes(both["per_gpu"]["peak_allocated"]));
  CHECK(bytes(unstated["per_gpu"]["peak_allocated_range"]["low"]) > bytes(unstated["per_gpu"]["model_states"]));
}

TEST_CASE("No lora block: the band spans torchtune's LoRA configs, from r 8 on q and v to r 64 on every projection", "[uncertainty]") {
  // Llama-2-7B (hidden 4096, intermediate 11008, 32 layers) under torchtune, one sequence of 2,048
  // tokens, no checkpointing. Left out, the engine puts r 16 on q_proj and v_proj (PEFT's targets
  // for llama). At the peak each adapter parameter costs 6 B in torchtune's pure bf16 (weight 2, two
  // AdamW moments 4; torchtune frees the gradients after each step, and the step's only micro-batch
  // peaks before backward builds them).
  //  r 8 on q, v: 32 x 2 x 8 x (4096 + 4096) = 4,194,304 fewer parameters -> 25,165,824 B below.
  //  r 64 on q, v, o, gate, up, down: 32 x 64 x (3 x 8192 + 3 x 15104) = 143,130,624 parameters
  //    against 32 x 16 x 2 x 8192 = 8,388,608 -> 134,742,016 more x 6 B = 808,452,096 B; and the
  //    frozen base keeps no input, so the adapters that read one keep it: gate/up's adapters the MLP
  //    norm's output and down's the down_proj input, 32 x (2048 x 4096 + 2048 x 11008) x 2 B =
  //    1,979,711,488 B more activations -> 2,788,163,584 B above.
  const std::string base = R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "torchtune", "method": "lora",
    "batch": {"micro_batch_size": 1, "seq_length": 2048}, "activation_checkpointing": "none",
    "loss": {"implementation": "chunked"}, "gpu": "a100-80gb")";
  const json out = estimate_doc(base + "}");
  const json* t = term(out, "unstated_lora");
  REQUIRE(t);
  const json& allocated = out["per_gpu"]["peak_allocated_range"];
  CHECK(bytes(allocated["expected"]) - bytes(allocated["low"]) == Approx(25165824.0).epsilon(1e-9));
  CHECK(settings_high(allocated) - bytes(allocated["expected"]) == Approx(2788163584.0).epsilon(1e-9));
  CHECK_FALSE(term(estimate_doc(base + R"(, "lora": {"r": 16}})"), "unstated_lora"));
  // Under PEFT (HF Trainer) the alternative is LoraConfig's r = 8 on the same targets: below only.
  const std::string peft = R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "hf_trainer", "method": "lora",
    "batch": {"micro_batch_size": 1, "seq_length": 2048}, "activation_checkpointing": "none", "attention": "sdpa",
    "gpu": "a100-80gb")";
  const json peft_out = estimate_doc(peft + "}");
  const json* r8 = term(peft_out, "unstated_lora");
  REQUIRE(r8);
  CHECK((*r8)["alternative"] == "lora.r: 8");
  CHECK(bytes((*r8)["above_bytes"]) == 0);
  CHECK(bytes((*r8)["below_bytes"]) > 0);
  CHECK_FALSE(term(estimate_doc(peft + R"(, "lora": {"target_modules": ["q_proj", "v_proj"]}})"), "unstated_lora"));
}

TEST_CASE("torchtune's full-logits loss: the recipes kept the fp32 logits through backward before #1235", "[uncertainty]") {
  // pytorch/torchtune#1235 deleted the logits before backward; before it the fp32 logits (the
  // decoder returned self.output(h).float()) stayed referenced, T x V x 4 B in every phase:
  // Llama-2-7B, one sequence of 2,048 tokens: 2048 x 32,000 x 4 B = 262,144,000 B above.
  const std::string base = R"({"model": {"hf_config": )" + kLlama2_7b + R"(}, "framework": "torchtune", "method": "lora",
    "lora": {"r": 8}, "batch": {"micro_batch_size": 1, "seq_length": 2048}, "activation_checkpointing": "full",
    "gpu": "a100-80gb", "loss": {"implementation": )";
  const json out = estimate_doc(base + R"("full"}})");
  const json* t = term(out, "framework_version_held_logits");
  REQUIRE(t);
  CHECK((*t)["alternative"] == "loss.held_logits: fp32");
  const json& allocated = out["per_gpu"]["peak_allocated_range"];
  CHECK(settings_high(allocated) - bytes(allocated["expected"]) == Approx(262144000.0).margin(1));
  CHECK(bytes(allocated["low"]) == bytes(allocated["expected"]));
  CHECK_FALSE(term(estimate_doc(base + R"("full", "held_logits": "none"}})"), "framework_version_held_logits"));
  // The chunked loss came after #1235 (pytorch/torchtune#1390): no such recipe held its logits.
  CHECK_FALSE(term(estimate_doc(base + R"("chunked"}})"), "framework_version_held_logits"));
}

TEST_CASE("Batches padded to their longest sample: the band reaches a batch of short samples, the point stays at seq_length", "[uncertainty]") {
  // Every other setting stated (DeepSpeed, LoRA r 16, full checkpointing, a custom GPU with its
  // context): the allocated band is [estimate at 2 tokens, estimate at 2048 tokens]. 2 = 2 x CP 1 x
  // TP 1, the shortest length ring attention's and sequence parallelism's splits take.
  const auto with_batch = [](const std::string& batch) {
    return R"({"model": {"hf_config": )" + std::string(kLlama2_7b) + R"(}, "framework": "deepspeed", "method": "lora", "lora": {"r": 16},
      "activation_checkpointing": "full", "gpu": )" + kCustomGpu + R"(, "batch": )" + batch + "}";
  };
  const json packed = estimate_doc(with_batch(R"({"micro_batch_size": 1, "seq_length": 2048})"));
  const json longest = estimate_doc(with_batch(R"({"micro_batch_size": 1, "seq_length": 2048, "padding": "longest"})"));
  const json shortest = estimate_doc(with_batch(R"({"micro_batch_size": 1, "seq_length": 2})"));
  const json& g = longest["per_gpu"];
  CHECK(g["peak_allocated"] == packed["per_gpu"]["peak_allocated"]);
  CHECK(settings_high(g["peak_allocated_range"]) == Approx(bytes(g["peak_allocated"])).margin(1));
  CHECK(bytes(g["peak_allocated_range"]["low"]) == bytes(shortest["per_gpu"]["peak_allocated"]));
  CHECK(bytes(g["peak_allocated_range"]["low"]) < bytes(g["peak_allocated"]));
  bool named = false;
  for (const auto& t : longest["uncertainty"])
    named |= t["source"] == "data_dependent_seq_length" && t["alternative"] == "batch.seq_length: 2 (a batch of short samples)";
  CHECK(named);
  for (const auto& t : packed["uncertainty"]) CHECK(t["source"] != "data_dependent_seq_length");
  CHECK(longest["resolved"]["batch.padding"]["value"] == "longest");
  CHECK(longest["resolved"]["batch.padding"]["origin"] == "input");
  CHECK(packed["resolved"]["batch.padding"]["value"] == "max_length");

  // Tensor parallel 2 and ring context parallel 2: the shortest batch is 2 x 2 x 2 = 8 tokens.
  const json split = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "framework": "megatron", "batch": {"seq_length": 8192, "padding": "longest"},
    "parallel": {"world_size": 8, "tensor_parallel_size": 2, "context_parallel_size": 2}, "gpu": "h100-sxm-80gb"})");
  bool eight = false;
  for (const auto& t : split["uncertainty"]) eight |= t["alternative"] == "batch.seq_length: 8 (a batch of short samples)";
  CHECK(eight);

  // Without an architecture there are no activations to vary: the field is reported as ignored.
  const json bare = estimate_doc(R"({"model": {"num_parameters": 7000000000}, "batch": {"padding": "longest"}})");
  CHECK(bare["warnings"].dump().find("batch.padding (no activations without an architecture)") != std::string::npos);
}

namespace {
// Llama-style, two layers of hidden 64 and a 128-token vocabulary.
}  // namespace

TEST_CASE("left out, the band reaches the run with its gradients kept; DeepSpeed ignores the field", "[gradients][uncertainty]") {
  // Every other setting stated: the allocated band's high end is the run with
  // zero_grad_set_to_none false (source framework_version_zero_grad), its low end the estimate.
  const std::string stated = R"(, "activation_checkpointing": "none", "precision": {"optimizer_implementation": "fused"})";
  const json out = estimate_doc(R"({"model": {"hf_config": )" + kTinyGqaLlama + R"(}, "framework": "hf_trainer",
    "attention": "flash", "batch": {"micro_batch_size": 2, "seq_length": 32})" + stated + "}");
  const json kept = estimate_doc(R"({"model": {"hf_config": )" + kTinyGqaLlama + R"(}, "framework": "hf_trainer",
    "attention": "flash", "batch": {"micro_batch_size": 2, "seq_length": 32})" + stated + R"(, "zero_grad_set_to_none": false})");
  bool found = false;
  for (const auto& t : out["uncertainty"]) found = found || t["source"] == "framework_version_zero_grad";
  CHECK(found);
  CHECK(settings_high(out["per_gpu"]["peak_allocated_range"]) == Approx(bytes(kept["per_gpu"]["peak_allocated"])).margin(1));
  CHECK(out["per_gpu"]["peak_allocated_range"]["low"] == out["per_gpu"]["peak_allocated"]);
  CHECK(out["resolved"]["zero_grad_set_to_none"]["value"] == true);
  const json deepspeed = estimate_doc(R"({"model": {"hf_config": )" + kTinyGqaLlama + R"(}, "framework": "deepspeed",
    "zero_grad_set_to_none": true})");
  CHECK_THAT(deepspeed["warnings"].dump(), Catch::Contains("given but without effect for this setup: zero_grad_set_to_none"));
}

TEST_CASE("Colocated vLLM's pool is sized by the document: the band's relative terms leave it out", "[uncertainty][rlhf]") {
  // GRPO with vLLM colocated on an 80 GB A100: vLLM holds vllm_gpu_memory_utilization x the
  // device's memory as one block through training. The engine's own error (17.5 %) and the
  // allocator's share (up to 30 %) are of what the engine models, so raising the share from 0.4
  // to 0.5 moves the point estimate and both ends of the band by the pool's growth alone.
  const auto doc = [](const std::string& share) {
    return R"({"model": {"preset": "qwen2.5-7b"}, "method": "lora", "activation_checkpointing": "full",
      "lora": {"r": 16, "adapter_dtype": "bf16"}, "zero_grad_set_to_none": true, "gpu": "a100-80gb",
      "batch": {"seq_length": 2048, "micro_batch_size": 8},
      "rlhf": {"algorithm": "grpo", "rollout": {"use_vllm": true, "vllm_gpu_memory_utilization": )" + share + "}}}";
  };
  const json low = estimate_doc(doc("0.4")), high = estimate_doc(doc("0.5"));
  const double pool_growth = bytes(high["rollout_vllm_bytes"]) - bytes(low["rollout_vllm_bytes"]);
  REQUIRE(pool_growth > 0);
  CHECK(bytes(high["per_gpu"]["peak"]) - bytes(low["per_gpu"]["peak"]) == Approx(pool_growth).margin(2));
  CHECK(bytes(high["per_gpu"]["peak_range"]["high"]) - bytes(low["per_gpu"]["peak_range"]["high"]) == Approx(pool_growth).margin(2));
  CHECK(bytes(high["per_gpu"]["peak_range"]["low"]) - bytes(low["per_gpu"]["peak_range"]["low"]) == Approx(pool_growth).margin(2));
  // The engine's error is 17.5 % of the allocated peak without the pool, carried to the device
  // peak at that part's reserved / allocated: 17.5 % of the reserved peak without the pool.
  const json* t = term(low, "estimator_error");
  REQUIRE(t);
  CHECK(bytes((*t)["above_bytes"]) == Approx(0.175 * (bytes(low["per_gpu"]["peak_reserved"]) - bytes(low["rollout_vllm_bytes"]))).margin(2));
}

TEST_CASE("compared_quantity names the field the verdict compares with the GPU", "[uncertainty]") {
  // The RTX 6000 Ada's catalog entry gives a usable figure (the context outside it): peak_reserved;
  // an A100 gives its memory alone: the whole peak; without a GPU nothing is compared.
  const std::string base = R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora")";
  const json usable = estimate_doc(base + R"(, "gpu": "rtx-6000-ada-48gb"})");
  CHECK(usable["compared_quantity"] == "peak_reserved");
  CHECK(bytes(usable["margin_bytes"]) == Approx(bytes(usable["gpu_capacity_bytes"]) - bytes(usable["per_gpu"]["peak_reserved"])).margin(1));
  CHECK(bytes(usable["margin_range"]["low"]) == Approx(bytes(usable["gpu_capacity_bytes"]) - bytes(usable["per_gpu"]["peak_reserved_range"]["high"])).margin(1));
  const json whole = estimate_doc(base + R"(, "gpu": "a100-80gb"})");
  CHECK(whole["compared_quantity"] == "peak");
  CHECK(bytes(whole["margin_range"]["low"]) == Approx(bytes(whole["gpu_capacity_bytes"]) - bytes(whole["per_gpu"]["peak_range"]["high"])).margin(1));
  CHECK(estimate_doc(base + "}")["compared_quantity"].is_null());
}

TEST_CASE("widens_compared_band marks the terms that make up the compared band's width", "[uncertainty]") {
  // A GPU with a usable figure and no context figure (a custom one): the reserved band is compared,
  // which the context's term (a device-peak term) does not widen; every other term does, and those
  // add up to the reserved band's two halves. Against a whole memory (an A100) the device peak is
  // compared: every term widens it.
  const std::string tiny = R"({"model": {"hf_config": )" + kTinyGqaLlama + R"(}, "batch": {"seq_length": 32}, "gpu": )";
  const json usable = estimate_doc(tiny + R"({"memory_bytes": 85899345920, "usable_bytes": 80000000000}})");
  REQUIRE(usable["compared_quantity"] == "peak_reserved");
  const json* context = term(usable, "cuda_context");
  REQUIRE(context);
  CHECK((*context)["widens_compared_band"] == false);
  double above = 0, below = 0;
  for (const auto& t : usable["uncertainty"]) {
    CHECK(t["widens_compared_band"] == (t["level"] != "peak"));
    if (t["widens_compared_band"] == true) above += bytes(t["above_bytes"]), below += bytes(t["below_bytes"]);
  }
  const json& range = usable["per_gpu"]["peak_reserved_range"];
  CHECK(above == Approx(bytes(range["high"]) - bytes(range["expected"])).margin(8));
  CHECK(below == Approx(bytes(range["expected"]) - bytes(range["low"])).margin(8));
  const json whole = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora", "gpu": "a100-80gb"})");
  for (const auto& t : whole["uncertainty"]) CHECK(t["widens_compared_band"] == true);
}

TEST_CASE("deciding_term: the term that moves the compared band across the GPU most", "[uncertainty]") {
  // Llama-3.1-8B LoRA at 2,048 tokens on one 40 GB A100 fits at its point estimate, and only the
  // band's high end does not: the answer turns on the largest raise, never on unstated
  // checkpointing (the widest term here, which only lowers the peak).
  const json fits_point = estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora", "batch": {"seq_length": 2048}, "gpu": "a100-40gb"})");
  REQUIRE(fits_point["verdict"] == "borderline");
  REQUIRE(bytes(fits_point["margin_bytes"]) >= 0);
  double most_raise = 0;
  std::string raiser;
  for (const auto& t : fits_point["uncertainty"])
    if (bytes(t["above_bytes"]) > most_raise) most_raise = bytes(t["above_bytes"]), raiser = t["source"];
  CHECK(fits_point["deciding_term"] == raiser);
  CHECK(fits_point["deciding_term"] != "unstated_activation_checkpointing");
  // Qwen2.5-7B LoRA at 2 x 8,192 tokens on an 80 GB A100 is over at its point estimate: the largest
  // lowering, here the unstated checkpointing.
  const json over = estimate_doc(R"({"model": {"preset": "qwen2.5-7b"}, "method": "lora", "batch": {"micro_batch_size": 2, "seq_length": 8192}, "gpu": "a100-80gb"})");
  REQUIRE(over["verdict"] == "borderline");
  REQUIRE(bytes(over["margin_bytes"]) < 0);
  CHECK(over["deciding_term"] == "unstated_activation_checkpointing");
  // Against a usable figure the reserved band is compared, which the context does not move. A tiny
  // model on a custom GPU without a context figure, its usable memory 1 B above the expected reserved
  // peak: the context's term (129,761,280 B above) is the widest raise of the device peak, but the
  // answer turns on the largest raise of the reserved band.
  const std::string tiny = R"({"model": {"hf_config": )" + kTinyGqaLlama + R"(}, "batch": {"seq_length": 32}, "gpu": )";
  const double reserved = bytes(estimate_doc(tiny + R"({"memory_bytes": 85899345920, "usable_bytes": 80000000000}})")["per_gpu"]["peak_reserved"]);
  const json usable = estimate_doc(tiny + R"({"memory_bytes": 85899345920, "usable_bytes": )" + std::to_string(static_cast<long long>(reserved) + 1) + "}}");
  REQUIRE(usable["compared_quantity"] == "peak_reserved");
  REQUIRE(usable["verdict"] == "borderline");
  const json* context = term(usable, "cuda_context");
  REQUIRE(context);
  for (const auto& t : usable["uncertainty"]) REQUIRE(bytes(t["above_bytes"]) <= bytes((*context)["above_bytes"]));
  std::string reserved_raiser;
  double most = 0;
  for (const auto& t : usable["uncertainty"])
    if (t["level"] != "peak" && bytes(t["above_bytes"]) > most) most = bytes(t["above_bytes"]), reserved_raiser = t["source"];
  CHECK(usable["deciding_term"] == reserved_raiser);
  // Not borderline: none.
  CHECK(estimate_doc(R"({"model": {"preset": "llama-3.1-8b"}, "method": "qlora", "gpu": "h200-141gb"})")["deciding_term"].is_null());
}
