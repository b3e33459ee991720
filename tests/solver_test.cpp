// Inverse queries, calibration and the strategy search.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

#include "trainmem/calibration.hpp"
#include "trainmem/catalog.hpp"
#include "trainmem/framework_parallelism.hpp"
#include "trainmem/message_codes.hpp"
#include "trainmem/solver.hpp"
#include "trainmem/step_time.hpp"
#include "trainmem/strategy_search.hpp"

using namespace trainmem;
using trainmem::test::setup_from;

namespace {
std::optional<double> peak_at(TrainingSetup s, std::int64_t mbs, std::int64_t seq) {
  s.batch.micro_batch_size = mbs;
  s.batch.seq_length = seq;
  return compared_peak(s, estimate(s));
}
}  // namespace

TEST_CASE("the largest micro-batch fits and one more does not", "[solver]") {
  const char* docs[] = {
      R"({"model": {"preset": "llama-3-8b"}, "gpu": "h100-sxm-80gb", "parallel": {"world_size": 8, "zero_stage": 3}, "batch": {"seq_length": 4096}})",
      R"({"model": {"preset": "qwen2.5-7b"}, "gpu": "a100-40gb", "method": "lora", "batch": {"seq_length": 2048}, "activation_checkpointing": "full"})",
      R"({"model": {"preset": "gpt2"}, "gpu": "rtx-4090-24gb", "batch": {"seq_length": 1024}, "attention": "eager"})",
      R"({"model": {"preset": "mixtral-8x7b"}, "gpu": "h200-141gb", "method": "qlora", "batch": {"seq_length": 4096}})",
  };
  for (const char* doc : docs) {
    CAPTURE(doc);
    const TrainingSetup s = setup_from(doc);
    SolveOptions o;
    const SolveResult r = solve(s, o, builtin_catalog());
    REQUIRE(r.max_micro_batch_size);
    const std::int64_t m = r.max_micro_batch_size->value;
    const std::int64_t seq = *s.batch.seq_length;
    CHECK(*peak_at(s, m, seq) <= r.budget_bytes);
    CHECK(*peak_at(s, m + 1, seq) > r.budget_bytes);
    REQUIRE(r.max_seq_length);
    CHECK(*peak_at(s, s.batch.micro_batch_size, r.max_seq_length->value) <= r.budget_bytes);
    const Architecture& a = *s.model.architecture;
    if (a.learned_positions && r.max_seq_length->value == a.max_position_embeddings) continue;  // capped by the table
    CHECK(*peak_at(s, s.batch.micro_batch_size, r.max_seq_length->value + 1) > r.budget_bytes);
  }
}

TEST_CASE("the longest sequence is found where a shorter one does not fit", "[solver]") {
  // Llama-3.1-8B under FSDP on 8 x RTX 4090 with full checkpointing: the caching allocator's blocks
  // that no later request fits (allocator_cache) shrink as the activations grow, so 256 tokens peak
  // above the budget and 1,024 below it; the search must not stop at the short end.
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3.1-8b"}, "gpu": "rtx-4090-24gb", "framework": "fsdp",
    "parallel": {"world_size": 8, "zero_stage": 3}, "batch": {"seq_length": 4096}, "activation_checkpointing": "full"})");
  const SolveResult r = solve(s, SolveOptions{}, builtin_catalog());
  REQUIRE(*peak_at(s, 1, 256) > r.budget_bytes);  // the premise: a short sequence does not fit
  REQUIRE(*peak_at(s, 1, 1024) <= r.budget_bytes);
  REQUIRE(r.max_seq_length);
  const std::int64_t k = r.max_seq_length->value;
  CHECK(k >= 1024);
  CHECK(*peak_at(s, 1, k) <= r.budget_bytes);
  CHECK(*peak_at(s, 1, k + 1) > r.budget_bytes);
  for (const auto& w : r.reasons) CHECK(w.code != std::string(reason_code::model_states_exceed_budget));
}

TEST_CASE("no sequence fits although the model states do: said so, not blamed on the states", "[solver]") {
  // A custom 4 MiB device without a CUDA context: a 2-layer, 64-wide model's states (16 B x about
  // 0.1 M parameters, under 2 MB) fit its budget, but PyTorch's cuBLAS workspaces alone (8 MiB and
  // more) do not, at any sequence length.
  const TrainingSetup s = setup_from(R"({"model": {"hf_config": )" + trainmem::test::kTinyGqaLlama +
                                     R"(}, "gpu": {"memory_bytes": 4194304, "cuda_context_bytes": 0}, "batch": {"seq_length": 128}})");
  const SolveResult r = solve(s, SolveOptions{}, builtin_catalog());
  CHECK_FALSE(r.max_seq_length);
  const auto reason = std::find_if(r.reasons.begin(), r.reasons.end(),
                                   [](const Warning& w) { return w.code == std::string(reason_code::no_sequence_length_fits); });
  REQUIRE(reason != r.reasons.end());
  CHECK_THAT(reason->message, Catch::StartsWith("no sequence length fits at micro-batch 1: the model states fit the budget, but at 1 token the peak is already "));
}

TEST_CASE("micro-batch 1 not fitting names only the changes not already made, and none that cannot make room", "[solver]") {
  // Llama-3.1-405B at ZeRO-3 with full checkpointing on eight 24 GB cards: 16 B x 405e9 / 8 = 810 GB
  // of states per GPU, past the 24 GB alone: a shorter sequence cannot make room until they come
  // down (checkpointing and ZeRO-3 are on already). Offload and adapters lower them but not under
  // the budget (24 GiB less the default 5 % margin, 24.5 GB): the optimizer offloaded leaves the
  // bf16 weights, 2 B x 405e9 / 8 = 101 GB; QLoRA's 4-bit base, about 0.52 B x 405e9 / 8 = 26 GB. More
  // GPUs do not make room: whatever the count, the 126 layers' checkpointed inputs at 8,192 tokens
  // are 126 x 8,192 x 16,384 x 2 B = 33.8 GB on each GPU. What is left is a larger GPU.
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3.1-405b"}, "gpu": "rtx-4090-24gb", "framework": "fsdp",
    "parallel": {"world_size": 8, "zero_stage": 3}, "activation_checkpointing": "full", "batch": {"seq_length": 8192}})");
  const SolveResult r = solve(s, SolveOptions{}, builtin_catalog());
  const auto reason = std::find_if(r.reasons.begin(), r.reasons.end(),
                                   [](const Warning& w) { return w.code == std::string(reason_code::micro_batch_one_does_not_fit); });
  REQUIRE(reason != r.reasons.end());
  CHECK(reason->message == "micro-batch 1 does not fit at seq_length 8192: use a GPU with more memory");
  // Llama-3-70B at ZeRO-3 with full checkpointing on eight A100 80GB: 16 B x 70.6e9 / 8 = 141 GB of
  // states per GPU; over 64 GPUs they are 17.6 GB, and the 80 layers' checkpointed inputs at 4,096
  // tokens 80 x 4,096 x 8,192 x 2 B = 5.4 GB: more GPUs make room, and are named.
  const SolveResult seventy = solve(setup_from(R"({"model": {"preset": "llama-3-70b"}, "gpu": "a100-80gb", "framework": "fsdp",
    "parallel": {"world_size": 8, "zero_stage": 3}, "activation_checkpointing": "full", "batch": {"seq_length": 4096}})"),
                                    SolveOptions{}, builtin_catalog());
  const auto on_8 = std::find_if(seventy.reasons.begin(), seventy.reasons.end(),
                                 [](const Warning& w) { return w.code == std::string(reason_code::micro_batch_one_does_not_fit); });
  REQUIRE(on_8 != seventy.reasons.end());
  CHECK(on_8->message == "micro-batch 1 does not fit at seq_length 4096: add GPUs, offload the optimizer to the CPU or train LoRA/QLoRA adapters");
  // Llama-3.1-8B fully fine-tuned on one RTX 4090: 16 B x 8.03e9 = 128 GB of states on one GPU,
  // where ZeRO-3 has no second rank to shard over, and the HF Trainer without DeepSpeed or FSDP
  // has no optimizer offload (a change of engine the suggestions offer, not this reason).
  const TrainingSetup one = setup_from(R"({"model": {"preset": "llama-3.1-8b"}, "gpu": "rtx-4090-24gb", "framework": "hf_trainer",
    "batch": {"seq_length": 8192}})");
  const SolveResult r1 = solve(one, SolveOptions{}, builtin_catalog());
  const auto on_one = std::find_if(r1.reasons.begin(), r1.reasons.end(),
                                   [](const Warning& w) { return w.code == std::string(reason_code::micro_batch_one_does_not_fit); });
  REQUIRE(on_one != r1.reasons.end());
  CHECK(on_one->message == "micro-batch 1 does not fit at seq_length 8192: train LoRA/QLoRA adapters");
  // States that fit, activations that do not (Llama-3-8B at ZeRO-3 over 64 A100 40GB, 1 GB of
  // states each, at 131,072 tokens without checkpointing): a shorter sequence and checkpointing;
  // not more GPUs, which shrink the states but not one sequence's activations (32 layers' inputs
  // alone, 32 x 131,072 x 4,096 x 2 B = 34.4 GB, before everything else a layer saves).
  const TrainingSetup longer = setup_from(R"({"model": {"preset": "llama-3-8b"}, "gpu": "a100-40gb", "framework": "fsdp",
    "parallel": {"world_size": 64, "zero_stage": 3}, "batch": {"seq_length": 131072}})");
  const SolveResult r2 = solve(longer, SolveOptions{}, builtin_catalog());
  const auto activations = std::find_if(r2.reasons.begin(), r2.reasons.end(),
                                        [](const Warning& w) { return w.code == std::string(reason_code::micro_batch_one_does_not_fit); });
  REQUIRE(activations != r2.reasons.end());
  CHECK(activations->message == "micro-batch 1 does not fit at seq_length 131072: shorten the sequence or checkpoint activations");
}

TEST_CASE("micro-batch 1 not fitting names the highest ZeRO stage the framework and the setup accept where it makes room", "[solver]") {
  const auto mb1_reason = [](const SolveResult& r) {
    const auto it = std::find_if(r.reasons.begin(), r.reasons.end(),
                                 [](const Warning& w) { return w.code == std::string(reason_code::micro_batch_one_does_not_fit); });
    REQUIRE(it != r.reasons.end());
    return *it;
  };
  const auto actions = [](const Warning& w) {
    for (const auto& [name, value] : w.params.values)
      if (name == "actions") return std::get<std::string>(value);
    return std::string();
  };
  // Megatron-LM's sharding is its distributed optimizer (--use-distributed-optimizer, ZeRO-1):
  // Llama-3.1-8B at stage 0 over 8 A100 40GB holds 16 B x 8.03e9 = 128 GB of states per GPU; ZeRO-1
  // is the stage Megatron offers (framework_parallelism.cpp: 0 and 1), not ZeRO-3, and it brings
  // them to 2 B (bf16 weights) + 4 B (fp32 main gradients) + 12 B / 8 (fp32 master weights and two
  // moments, sharded) = 7.5 B x 8.03e9 = 60.2 GB, still past 40 GB: nothing named makes room (not
  // "add GPUs": nothing is sharded at stage 0; not its CPU optimizer, which needs the distributed
  // optimizer), so a larger GPU. On 80 GB A100s ZeRO-1's 60.2 GB are under the budget (80 GiB less
  // the 5 % margin): ZeRO-1 is named.
  const auto megatron_on = [](const char* gpu) {
    return solve(setup_from(R"({"model": {"preset": "llama-3.1-8b"}, "gpu": ")" + std::string(gpu) + R"(",
      "framework": "megatron", "parallel": {"world_size": 8, "zero_stage": 0}, "batch": {"seq_length": 4096}})"),
                 SolveOptions{}, builtin_catalog());
  };
  const Warning m40 = mb1_reason(megatron_on("a100-40gb"));
  CHECK(m40.message == "micro-batch 1 does not fit at seq_length 4096: use a GPU with more memory");
  CHECK(actions(m40) == "larger_gpu");
  const Warning m80 = mb1_reason(megatron_on("a100-80gb"));
  CHECK(m80.message == "micro-batch 1 does not fit at seq_length 4096: shard the optimizer states (ZeRO-1)");
  CHECK(actions(m80) == "zero_1");
  // An LLM.int8() base cannot be sharded by ZeRO-3 (validate: int8_not_sharded): Llama-3.1-70B's
  // int8 weights, about 70 GB replicated on each of two 24 GB cards at ZeRO-1, stay there at ZeRO-2
  // too, so ZeRO-2 is not named; no GPU count makes room for a base every GPU holds whole, so more
  // GPUs are not named, nor the optimizer's offload, which moves the adapters' few states and
  // leaves the 70 GB: a larger GPU.
  const SolveResult int8 = solve(setup_from(R"({"model": {"preset": "llama-3.1-70b"}, "gpu": "rtx-4090-24gb",
    "framework": "deepspeed", "method": "qlora", "qlora": {"quant_type": "int8"}, "parallel": {"world_size": 2, "zero_stage": 1},
    "batch": {"seq_length": 2048}})"),
                                 SolveOptions{}, builtin_catalog());
  const Warning i = mb1_reason(int8);
  CHECK(i.message == "micro-batch 1 does not fit at seq_length 2048: use a GPU with more memory");
  CHECK(actions(i) == "larger_gpu");
}

TEST_CASE("fewest GPUs: the answer fits and one data-parallel replica fewer does not", "[solver]") {
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3-8b"}, "gpu": "a100-40gb",
    "parallel": {"world_size": 8, "zero_stage": 3}, "batch": {"seq_length": 2048}, "activation_checkpointing": "full"})");
  const SolveResult r = solve(s, SolveOptions{}, builtin_catalog());
  REQUIRE(r.min_gpus);
  const std::int64_t n = r.min_gpus->value;
  auto fits_on = [&](std::int64_t gpus) {
    TrainingSetup t = s;
    t.parallel.world_size = gpus;
    t.parallel.data_parallel_size = gpus;
    return *compared_peak(t, estimate(t)) <= r.budget_bytes;
  };
  CHECK(fits_on(n));
  CHECK_FALSE(fits_on(n - 1));
}

TEST_CASE("fewest GPUs: each answer carries its own verdict, and the whole band clears from the second answer on", "[solver][verdict]") {
  // On 24 GiB GPUs this setup's fewest fitting count is borderline: the point peak is inside the
  // 95 % budget while the band (allocator fragmentation, CUDA context) reaches past the GPU. The
  // page shows that count beside the estimate's verdict at it, so the two must agree; and the
  // whole-band answer must be the first count whose band fits, judged by the same rule.
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3-8b"}, "gpu": "rtx-4090-24gb",
    "parallel": {"world_size": 8, "zero_stage": 3}, "batch": {"seq_length": 2048}, "activation_checkpointing": "full"})");
  const SolveResult r = solve(s, SolveOptions{}, builtin_catalog());
  auto verdict_on = [&](std::int64_t gpus) {
    TrainingSetup t = s;
    t.parallel.world_size = gpus;
    t.parallel.data_parallel_size = gpus;
    const Estimate e = estimate(t);
    return judge_verdict(t, e, uncertainty_band(t, e));
  };
  REQUIRE(r.min_gpus);
  REQUIRE(r.min_gpus->verdict);
  CHECK(r.min_gpus->verdict == verdict_on(r.min_gpus->value));
  CHECK(r.min_gpus->verdict == Verdict::borderline);
  REQUIRE(r.min_gpus_whole_band);
  const std::int64_t clear = r.min_gpus_whole_band->value;
  CHECK(clear > r.min_gpus->value);
  CHECK(verdict_on(clear) == Verdict::fits);
  CHECK(r.min_gpus_whole_band->verdict == Verdict::fits);
  CHECK(verdict_on(clear - 1) != Verdict::fits);
  // The same two answers for the catalog's own row of that GPU.
  for (const auto& o : r.gpu_options) {
    if (o.id != "rtx-4090-24gb") continue;
    REQUIRE(o.min_gpus);
    REQUIRE(o.min_gpus_whole_band);
    CHECK(o.min_gpus->value == r.min_gpus->value);
    CHECK(o.min_gpus_whole_band->value == clear);
  }
}

TEST_CASE("fewest GPUs: a borderline answer that no count clears says why", "[solver][verdict]") {
  // Under ZeRO-2 the bf16 parameters (2 B x 8.03e9 = 16 GB) stay whole on every GPU of a 24 GiB
  // card, so more GPUs shrink only the sharded states: the band's high end stays past the GPU at
  // any count, while the point estimate does fit the budget from some count on.
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3-8b"}, "gpu": "rtx-4090-24gb",
    "parallel": {"world_size": 8, "zero_stage": 2}, "batch": {"seq_length": 2048}, "activation_checkpointing": "full"})");
  const SolveResult r = solve(s, SolveOptions{}, builtin_catalog());
  REQUIRE(r.min_gpus);
  CHECK(r.min_gpus->verdict == Verdict::borderline);
  CHECK_FALSE(r.min_gpus_whole_band);
  bool said = false;
  for (const auto& reason : r.reasons)
    said = said || (reason.message.find("no count up to 4096 fits with the whole band") != std::string::npos &&
                     reason.message.find("below ZeRO-3") != std::string::npos);
  CHECK(said);
}

TEST_CASE("the cheapest option is the lowest GPUs x price among fitting catalog GPUs", "[solver]") {
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3-8b"}, "gpu": "h100-sxm-80gb",
    "parallel": {"world_size": 8, "zero_stage": 3}, "batch": {"seq_length": 2048}})");
  SolveOptions o;
  o.prices = {{"a100-80gb", 1.0}, {"h100-sxm-80gb", 2.0}};
  const SolveResult r = solve(s, o, builtin_catalog());
  REQUIRE(r.cheapest);
  for (const auto& g : r.gpu_options)
    if (g.cost_per_hour) CHECK(*r.cheapest->cost_per_hour <= *g.cost_per_hour);
}

TEST_CASE("the cheapest per trained token: the hourly cost over the tokens the modelled step trains in an hour", "[solver][time]") {
  // Llama-3.1-8B LoRA fits one GPU of most catalog sizes. Each priced, runnable option's cost per
  // million tokens is its cost per hour over (tokens/s per GPU x GPUs x 3,600 s) x 1e6, from the
  // step time of the setup at that count; the cheapest per token is the lowest of them.
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3.1-8b"}, "gpu": "h100-sxm-80gb", "method": "lora",
    "batch": {"micro_batch_size": 2, "seq_length": 4096}, "activation_checkpointing": "full"})");
  const SolveResult r = solve(s, SolveOptions{}, builtin_catalog());
  REQUIRE(r.cheapest_per_token);
  int priced = 0;
  for (const auto& o : r.gpu_options) {
    if (!o.usd_per_million_tokens) continue;
    ++priced;
    CHECK(o.cannot_run.empty());
    CHECK(*r.cheapest_per_token->usd_per_million_tokens <= *o.usd_per_million_tokens);
    TrainingSetup at = s;
    at.gpu = builtin_catalog().find_gpu(o.id)->spec;
    at.parallel.world_size = at.parallel.data_parallel_size = o.min_gpus->value;
    const auto t = step_time(at, estimate(at));
    REQUIRE(t);
    CHECK(*o.usd_per_million_tokens == Approx(*o.cost_per_hour / (t->tokens_per_second_per_gpu * o.min_gpus->value * 3600.0) * 1e6));
  }
  CHECK(priced >= 3);  // A100 40/80 GB, H100 SXM/NVL, H200, L40S carry prices and speeds in the catalog
}

TEST_CASE("a target global batch: micro-batch x D x GA equals it with the largest fitting divisor", "[solver]") {
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3.2-1b"}, "gpu": "h100-sxm-80gb",
    "parallel": {"world_size": 8, "zero_stage": 2}, "batch": {"seq_length": 2048}})");
  SolveOptions o;
  o.target_global_batch_size = 1024;
  const SolveResult r = solve(s, o, builtin_catalog());
  REQUIRE(r.global_batch);
  CHECK(r.global_batch->exact);
  CHECK(r.global_batch->micro_batch_size * 8 * r.global_batch->gradient_accumulation_steps == 1024);
  CHECK(r.global_batch->micro_batch_size <= r.max_micro_batch_size->value);
  // No larger divisor of 1024 / 8 = 128 fits (divisors are powers of two here).
  CHECK(r.global_batch->micro_batch_size * 2 > r.max_micro_batch_size->value);
}

TEST_CASE("a target global batch D does not divide: the nearest above it that D ranks reach", "[solver]") {
  // 8 ranks: a target of 7 is reached first at 8 = 1 x 8 x 1 (not 7 x 8 = 56), a target of 100 at
  // 13 x 8 = 104 (13 is prime: micro-batch 13 if it fits, else 1 with 13 accumulation steps).
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3.2-1b"}, "gpu": "h100-sxm-80gb",
    "parallel": {"world_size": 8, "zero_stage": 2}, "batch": {"seq_length": 2048}})");
  SolveOptions o;
  o.target_global_batch_size = 7;
  SolveResult r = solve(s, o, builtin_catalog());
  REQUIRE(r.global_batch);
  CHECK_FALSE(r.global_batch->exact);
  CHECK(r.global_batch->global_batch_size == 8);
  CHECK(r.global_batch->micro_batch_size == 1);
  CHECK(r.global_batch->gradient_accumulation_steps == 1);
  o.target_global_batch_size = 100;
  r = solve(s, o, builtin_catalog());
  REQUIRE(r.global_batch);
  CHECK(r.global_batch->global_batch_size == 104);
  const std::int64_t m = r.max_micro_batch_size->value >= 13 ? 13 : 1;
  CHECK(r.global_batch->micro_batch_size == m);
  CHECK(r.global_batch->gradient_accumulation_steps == 13 / m);
}

TEST_CASE("impossible requests say what is missing", "[solver]") {
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3.1-405b"}, "gpu": "rtx-4090-24gb",
    "parallel": {"world_size": 1}})");
  SolveOptions o;
  o.max_gpus = 8;
  const SolveResult r = solve(s, o, builtin_catalog());
  CHECK_FALSE(r.max_micro_batch_size);
  CHECK_FALSE(r.min_gpus);
  REQUIRE(r.reasons.size() >= 2);
  const JsonResult j = solve_json(R"({"model": {"preset": "llama-3.1-405b"}, "gpu": "rtx-4090-24gb",
    "solve": {"max_gpus": 8, "strategies": {"world_size": 8}}})");
  REQUIRE(j.ok);
  CHECK_THAT(j.json, Catch::Contains("no strategy on 8 GPUs fits"));
}

TEST_CASE("calibration: one point keeps the analytic slope, two points fit both parts", "[solver][calibration]") {
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3-8b"}, "gpu": "h100-sxm-80gb",
    "parallel": {"world_size": 8, "zero_stage": 3}, "batch": {"seq_length": 2048}})");
  Measurement one{30e9, 1, 2048, Measurement::Measure::allocated};
  const auto c1 = calibrate(s, {one}, 80e9);
  REQUIRE(c1);
  REQUIRE(c1->bytes_per_token);
  REQUIRE(c1->fixed_bytes);
  CHECK(*c1->bytes_per_token == c1->analytic_bytes_per_token);
  CHECK(*c1->fixed_bytes + *c1->bytes_per_token * 2048 == Approx(30e9));
  // Two points 10 GB apart over 2048 extra tokens: 10e9 / 2048 bytes per token.
  Measurement two{40e9, 2, 2048, Measurement::Measure::allocated};
  const auto c2 = calibrate(s, {one, two}, 80e9);
  REQUIRE(c2);
  CHECK(*c2->bytes_per_token == Approx(10e9 / 2048));
  CHECK(*c2->fixed_bytes == Approx(20e9));
}

TEST_CASE("calibration: a measured peak below the model states gives no fit and no answer", "[solver][calibration]") {
  // Llama-3-8B over 8 GPUs with ZeRO-3: about 8.03e9 x 16 bytes / 8 = 16 GB of model states per
  // GPU, far above a 1-byte measurement; nothing is fitted to it (a negative fixed part and
  // answers from it were printed before).
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3-8b"}, "gpu": "h100-sxm-80gb",
    "parallel": {"world_size": 8, "zero_stage": 3}, "batch": {"seq_length": 4096}})");
  const auto c = calibrate(s, {Measurement{1, 1, 4096, Measurement::Measure::allocated}}, 80e9);
  REQUIRE(c);
  CHECK_FALSE(c->fixed_bytes);
  CHECK_FALSE(c->bytes_per_token);
  CHECK_FALSE(c->max_micro_batch_size);
  CHECK_FALSE(c->max_seq_length);
  REQUIRE(c->reasons.size() == 1);
  CHECK(c->reasons[0].code == std::string("calibration_below_model_states"));
}

TEST_CASE("the strategy search returns only feasible strategies, each re-estimated identically", "[solver][strategy]") {
  // torchtitan offers tensor, pipeline and context parallelism (framework_parallelism.hpp).
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3-8b"}, "framework": "torchtitan", "gpu": "a100-80gb",
    "batch": {"seq_length": 4096}})");
  StrategySearchOptions o;
  o.world_size = 8;
  o.limit = 50;
  const double budget = gpu_capacity(*s.gpu) * 0.95;
  const auto r = search_strategies(s, o, budget);
  REQUIRE_FALSE(r.ranked.empty());
  for (const auto& c : r.ranked) {
    CHECK(c.peak <= budget);
    const std::string doc = R"({"model": {"preset": "llama-3-8b"}, "framework": "torchtitan", "gpu": "a100-80gb", "batch": {"seq_length": 4096,
      "micro_batch_size": )" + std::to_string(c.micro_batch_size) + R"(}, "parallel": {"world_size": 8, "tensor_parallel_size": )" +
                            std::to_string(c.tensor_parallel_size) + R"(, "pipeline_parallel_size": )" + std::to_string(c.pipeline_parallel_size) +
                            R"(, "context_parallel_size": )" + std::to_string(c.context_parallel_size) + R"(, "zero_stage": )" +
                            std::to_string(c.zero_stage) + R"(, "sequence_parallel": )" + (c.tensor_parallel_size > 1 ? "true" : "false") +
                            R"(, "offload_optimizer": ")" + (c.offload_optimizer == OffloadTarget::none ? "none" : "cpu") +
                            R"("}, "activation_checkpointing": ")" +
                            (c.activation_checkpointing == Checkpointing::none ? "none"
                             : c.activation_checkpointing == Checkpointing::selective ? "selective" : "full") + "\"}";
    const TrainingSetup t = setup_from(doc);
    CHECK(*compared_peak(t, estimate(t)) == c.peak);
  }
}

TEST_CASE("the strategy search proposes only the parallelism the framework offers", "[solver][strategy]") {
  // Llama-3-8B (32 heads, 8 kv heads, 32 layers) at 8,192 tokens on 16 GPUs: the model allows
  // TP 1-8, PP 1-16 and CP 1-16; each framework keeps to what its own code runs
  // (framework_parallelism.hpp).
  auto search = [](const std::string& framework, const std::string& method = "full") {
    const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3-8b"}, "framework": ")" + framework + R"(", "method": ")" +
                                       method + R"(", "gpu": "h100-sxm-80gb", "batch": {"seq_length": 8192}})");
    StrategySearchOptions o;
    o.world_size = 16;
    o.limit = 1000;
    return search_strategies(s, o, gpu_capacity(*s.gpu) * 0.95).ranked;
  };
  auto any = [](const std::vector<StrategyCandidate>& r, auto pred) { return std::any_of(r.begin(), r.end(), pred); };
  // DeepSpeed around a transformers model: ZeRO 0-3 and Ulysses sequence parallelism only.
  const auto deepspeed = search("deepspeed");
  REQUIRE_FALSE(deepspeed.empty());
  CHECK_FALSE(any(deepspeed, [](const auto& c) { return c.tensor_parallel_size > 1 || c.pipeline_parallel_size > 1; }));
  CHECK(any(deepspeed, [](const auto& c) { return c.context_parallel_size > 1; }));
  CHECK_FALSE(any(deepspeed, [](const auto& c) { return c.context_parallel_size > 1 && c.context_parallel_kind != ContextParallelKind::ulysses; }));
  // Ulysses splits whole heads: the context-parallel size divides the 8 key/value heads, so 16 is out.
  CHECK_FALSE(any(deepspeed, [](const auto& c) { return c.context_parallel_size > 8; }));
  CHECK(any(deepspeed, [](const auto& c) { return c.zero_stage == 1; }));
  // The HF Trainer (FSDP as the sharding engine) and accelerate's FSDP loop: data parallel, no ZeRO-1.
  for (const char* framework : {"hf_trainer", "fsdp"}) {
    CAPTURE(framework);
    const auto r = search(framework);
    REQUIRE_FALSE(r.empty());
    CHECK_FALSE(any(r, [](const auto& c) { return c.tensor_parallel_size * c.pipeline_parallel_size * c.context_parallel_size > 1; }));
    CHECK_FALSE(any(r, [](const auto& c) { return c.zero_stage == 1; }));
  }
  // Selective recompute only where the framework's configuration has it: not the HF Trainer,
  // accelerate's FSDP or DeepSpeed around a transformers model (whole-layer checkpointing).
  const auto selective = [](const auto& c) { return c.activation_checkpointing == Checkpointing::selective; };
  for (const char* framework : {"hf_trainer", "fsdp", "deepspeed"}) {
    CAPTURE(framework);
    CHECK_FALSE(any(search(framework), selective));
  }
  CHECK(any(search("torchtitan"), selective));
  // Megatron: every split, but only the distributed optimizer's ZeRO-1 or none.
  const auto megatron = search("megatron");
  CHECK(any(megatron, [](const auto& c) { return c.tensor_parallel_size > 1; }));
  CHECK(any(megatron, [](const auto& c) { return c.pipeline_parallel_size > 1; }));
  CHECK_FALSE(any(megatron, [](const auto& c) { return c.zero_stage > 1; }));
  // Nothing fits Llama-3.1-405B on 8 GPUs under Megatron: the reason names Megatron's highest stage, ZeRO-1.
  const TrainingSetup big = setup_from(R"({"model": {"preset": "llama-3.1-405b"}, "framework": "megatron", "gpu": "h100-sxm-80gb",
    "batch": {"seq_length": 8192}})");
  StrategySearchOptions eight;
  eight.world_size = 8;
  const auto none = search_strategies(big, eight, gpu_capacity(*big.gpu) * 0.95);
  CHECK(none.ranked.empty());
  REQUIRE(none.reasons.size() == 1);
  CHECK(none.reasons[0].code == std::string("no_strategy_fits"));
  CHECK_THAT(none.reasons[0].message, Catch::Contains("ZeRO-1, full checkpointing and optimizer offload"));
  // torchtune: no pipeline parallel; tensor parallel for full fine-tuning only.
  CHECK(any(search("torchtune"), [](const auto& c) { return c.tensor_parallel_size > 1; }));
  const auto lora = search("torchtune", "lora");
  REQUIRE_FALSE(lora.empty());
  CHECK_FALSE(any(lora, [](const auto& c) { return c.tensor_parallel_size > 1 || c.pipeline_parallel_size > 1; }));
}

TEST_CASE("with a global batch every ranked strategy keeps it", "[solver][strategy]") {
  // 24 sequences per step on 16 GPUs: data parallel must divide 24, so DP 16 (TP = PP = CP = 1)
  // is out; DP 8 leaves 3 sequences per replica: micro-batch 1 (accumulation 3) or 3 (accumulation 1).
  const std::string base = R"({"model": {"preset": "llama-3-8b"}, "framework": "torchtitan", "gpu": "h100-sxm-80gb",
    "batch": {"seq_length": 4096}, "parallel": {"world_size": 16}, "solve": {"target_global_batch_size": 24,
    "strategies": {"world_size": 16, "limit": 1000}}})";
  const JsonResult j = solve_json(base);
  REQUIRE(j.ok);
  const auto out = nlohmann::json::parse(j.json);
  const auto& ranked = out["strategies"]["ranked"];
  REQUIRE(ranked.size() > 10);
  for (const auto& c : ranked) {
    const std::int64_t dp = c["data_parallel_size"], mbs = c["micro_batch_size"], ga = c["gradient_accumulation_steps"];
    CHECK(mbs * ga * dp == 24);
    CHECK(dp != 16);
    if (dp == 8) CHECK((mbs == 1 || mbs == 3));
  }
  // 3 GPUs cannot keep 4 sequences under Megatron: 3 divides neither Llama-3-8B's heads, its 32
  // layers (nor 32 + 2) nor the sequence, and data parallel 3 does not divide 4. (torchtitan would
  // pipeline 3 stages of 11, 11, 10 layers, its own split.)
  const JsonResult none = solve_json(R"({"model": {"preset": "llama-3-8b"}, "framework": "megatron", "gpu": "h100-sxm-80gb",
    "batch": {"seq_length": 4096}, "solve": {"target_global_batch_size": 4, "strategies": {"world_size": 3}}})");
  REQUIRE(none.ok);
  const auto reasons = nlohmann::json::parse(none.json)["strategies"]["reason_messages"];
  REQUIRE(reasons.size() == 1);
  CHECK(reasons[0]["code"] == "no_factorization_keeping_global_batch");
  CHECK(reasons[0]["params"]["global_batch_size"] == 4);
  // The reason names the rules of the dimensions Megatron offers (framework_parallelism.hpp)...
  CHECK(reasons[0]["params"]["constraints"] == "data tensor pipeline context");
  CHECK(reasons[0]["message"].get<std::string>().find("(data parallel must divide it, tensor parallel must divide the heads, "
                                                      "pipeline parallel must split the layers as the framework does (Megatron: "
                                                      "the layers or the layers + 2 divide; torchtitan: every stage keeps a layer) "
                                                      "and context parallel must divide the sequence)") != std::string::npos);
  // ... and under a data-parallel-only trainer, the data-parallel rule alone.
  const JsonResult fsdp = solve_json(R"({"model": {"preset": "llama-3-8b"}, "framework": "fsdp", "gpu": "h100-sxm-80gb",
    "batch": {"seq_length": 4096}, "solve": {"target_global_batch_size": 4, "strategies": {"world_size": 3}}})");
  REQUIRE(fsdp.ok);
  const auto only_data = nlohmann::json::parse(fsdp.json)["strategies"]["reason_messages"];
  REQUIRE(only_data.size() == 1);
  CHECK(only_data[0]["params"]["constraints"] == "data");
  const std::string text = only_data[0]["message"];
  CHECK(text.find("(data parallel must divide it)") != std::string::npos);
  CHECK(text.find("tensor") == std::string::npos);
}

TEST_CASE("the document's tp_comm_overlap goes with the strategies that have tensor parallelism only", "[solver][strategy]") {
  // Megatron refuses --tp-comm-overlap without tensor (and sequence) parallelism: the search keeps the
  // user's choice where TP > 1 and leaves it off elsewhere, so no layout without TP is lost.
  const std::string doc = R"({"model": {"preset": "llama-3.2-1b"}, "framework": "megatron", "gpu": "h100-sxm-80gb",
    "batch": {"seq_length": 2048}, "parallel": {"world_size": 2, "tensor_parallel_size": 2, "sequence_parallel": true, "tp_comm_overlap": )";
  const auto ranked_of = [&](const std::string& overlap, int world) {
    const JsonResult j = solve_json(doc + overlap + R"(}, "solve": {"strategies": {"world_size": )" + std::to_string(world) + R"(, "limit": 1000}}})");
    REQUIRE(j.ok);
    return nlohmann::json::parse(j.json)["strategies"]["ranked"];
  };
  for (int world : {1, 2}) {
    const auto with = ranked_of("true", world), without = ranked_of("false", world);
    CAPTURE(world);
    CHECK(with.size() == without.size());
    REQUIRE(!with.empty());
    for (const auto& c : with) CHECK(c["tp_comm_overlap"] == (c["tensor_parallel_size"].get<int>() > 1));
  }
}

TEST_CASE("Megatron: layers that do not divide over the stages split with the embedding and the loss counted", "[solver][strategy]") {
  // 30 layers on 4 stages: 30 % 4 != 0, but (30 + 2) / 4 = 8 units per stage, the first giving one
  // to the embedding and the last one to the loss: 7, 8, 8, 7 (megatron/core/transformer/
  // transformer_block.py get_num_layers_to_build, --account-for-embedding/loss-in-pipeline-split).
  const std::string body = R"("model": {"hf_config": {"model_type": "llama", "hidden_size": 1024, "intermediate_size": 2816,
    "num_attention_heads": 8, "num_hidden_layers": 30, "vocab_size": 32000}}, "gpu": "h100-sxm-80gb", "batch": {"seq_length": 2048},
    "solve": {"strategies": {"world_size": 4, "limit": 1000}})";
  const auto ranked_of = [&](const std::string& framework) {
    const JsonResult j = solve_json("{\"framework\": \"" + framework + "\", " + body + "}");
    REQUIRE(j.ok);
    return nlohmann::json::parse(j.json)["strategies"]["ranked"];
  };
  int four_stages = 0;
  for (const auto& c : ranked_of("megatron")) {
    if (c["pipeline_parallel_size"] == 4) {
      ++four_stages;
      CHECK(c["pipeline_layers"] == nlohmann::json::array({7, 8, 8, 7}));
    } else {
      CHECK(c["pipeline_layers"].is_null());
    }
  }
  CHECK(four_stages > 0);
  // The strategy's own estimate takes that split (a document with it is valid under Megatron).
  const auto loaded = trainmem::test::estimate_doc(R"({"framework": "megatron", "model": {"hf_config": {"model_type": "llama",
    "hidden_size": 1024, "intermediate_size": 2816, "num_attention_heads": 8, "num_hidden_layers": 30, "vocab_size": 32000}},
    "parallel": {"world_size": 4, "pipeline_parallel_size": 4, "pipeline_layers": [7, 8, 8, 7]}})");
  CHECK(loaded["pipeline_layers"] == nlohmann::json::array({7, 8, 8, 7}));
  CHECK(loaded["resolved"]["parallel.pipeline_layers"]["origin"] == "input");
  // Left to the framework's rule, the resolved block shows its split: torchtitan counts the
  // embedding and the output as one layer each too (pipeline_split.hpp): 7, 8, 8, 7.
  const auto titan = trainmem::test::estimate_doc(R"({"framework": "torchtitan", "model": {"hf_config": {"model_type": "llama",
    "hidden_size": 1024, "intermediate_size": 2816, "num_attention_heads": 8, "num_hidden_layers": 30, "vocab_size": 32000}},
    "parallel": {"world_size": 4, "pipeline_parallel_size": 4}})");
  CHECK(titan["resolved"]["parallel.pipeline_layers"]["value"] == nlohmann::json::array({7, 8, 8, 7}));
  CHECK(titan["resolved"]["parallel.pipeline_layers"]["origin"].get<std::string>().rfind("engine default", 0) == 0);
  // torchtitan offers 4 stages too, split by its own rule (the same 7, 8, 8, 7, in the resolved
  // block below): no pipeline_layers of the search's.
  int titan_four = 0;
  for (const auto& c : ranked_of("torchtitan")) {
    titan_four += c["pipeline_parallel_size"] == 4 ? 1 : 0;
    CHECK(c["pipeline_layers"].is_null());
  }
  CHECK(titan_four > 0);
}

TEST_CASE("a small case the search must find: Llama-3-8B full on 8 x 80 GB needs sharding", "[solver][strategy]") {
  // 16 B/param x 8.03e9 = 128 GB of model states: replicated (ZeRO-0, dp 8) cannot fit 80 GB, so
  // every feasible strategy either shards (ZeRO >= 1 over dp x cp > 1) or splits the model (tp, pp).
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3-8b"}, "gpu": "a100-80gb", "batch": {"seq_length": 2048}})");
  StrategySearchOptions o;
  o.world_size = 8;
  o.limit = 1000;
  const auto r = search_strategies(s, o, gpu_capacity(*s.gpu) * 0.95);
  REQUIRE_FALSE(r.ranked.empty());
  for (const auto& c : r.ranked) {
    const bool split = c.tensor_parallel_size * c.pipeline_parallel_size >= 2;
    CHECK((c.zero_stage >= 1 || split));
  }
}

TEST_CASE("property: the peak never falls as micro-batch or sequence length grow; activations rise", "[solver][property]") {
  for (const char* attention : {"flash", "eager"})
    for (const char* ckpt : {"none", "selective", "full"}) {
      const TrainingSetup s = setup_from(std::string(R"({"model": {"preset": "qwen2.5-0.5b"}, "gpu": "a100-80gb", "attention": ")") +
                                         attention + R"(", "activation_checkpointing": ")" + ckpt + "\"}");
      // The peak can sit in the optimizer step (flat in batch), so it never falls; activations rise.
      double previous = 0, previous_acts = 0;
      for (std::int64_t m = 1; m <= 64; m *= 2) {
        TrainingSetup t = s;
        t.batch.micro_batch_size = m;
        t.batch.seq_length = 1024;
        const Estimate e = estimate(t);
        CHECK(*compared_peak(t, e) >= previous);
        CHECK(*e.per_gpu.activations > previous_acts);
        previous = *compared_peak(t, e);
        previous_acts = *e.per_gpu.activations;
      }
      previous = 0;
      for (std::int64_t q = 128; q <= 32768; q *= 2) {
        const double p = *peak_at(s, 1, q);
        CHECK(p >= previous);
        previous = p;
      }
    }
}

TEST_CASE("fewest GPUs respects expert parallelism and max_gpus (QA regressions)", "[solver]") {
  // Mixtral LoRA, ZeRO-3, EP 4: D must be a multiple of 4; 4 GPUs fit on H100.
  const TrainingSetup moe = setup_from(R"({"model": {"preset": "mixtral-8x7b"}, "method": "lora", "gpu": "h100-sxm-80gb",
    "parallel": {"world_size": 8, "zero_stage": 3, "expert_parallel_size": 4}, "batch": {"seq_length": 2048}})");
  for (std::int64_t max_gpus : {12, 999, 1000}) {
    SolveOptions o;
    o.max_gpus = max_gpus;
    const SolveResult r = solve(moe, o, builtin_catalog());
    REQUIRE(r.min_gpus);
    CHECK(r.min_gpus->value == 4);
  }
  // Model parallelism alone exceeds max_gpus: no answer, and a reason.
  const TrainingSetup tp_pp = setup_from(R"({"model": {"preset": "llama-3-8b"}, "gpu": "h100-sxm-80gb",
    "parallel": {"world_size": 8, "zero_stage": 1, "tensor_parallel_size": 2, "pipeline_parallel_size": 2}})");
  SolveOptions small;
  small.max_gpus = 2;
  const SolveResult r = solve(tp_pp, small, builtin_catalog());
  CHECK_FALSE(r.min_gpus);
  CHECK_FALSE(r.cheapest);
}

TEST_CASE("ranked strategies re-estimate even when the base offloads parameters", "[solver][strategy]") {
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3-8b"}, "gpu": "h100-sxm-80gb", "batch": {"seq_length": 4096},
    "parallel": {"world_size": 8, "zero_stage": 3, "offload_param": "cpu", "offload_optimizer": "cpu"}})");
  StrategySearchOptions o;
  o.world_size = 8;
  o.limit = 1000;
  for (const auto& c : search_strategies(s, o, gpu_capacity(*s.gpu) * 0.95).ranked) {
    TrainingSetup t = s;
    t.parallel.offload_param = OffloadTarget::none;
    t.parallel.zero_stage = c.zero_stage;
    CHECK(validate(t).empty());
    if (c.activation_checkpointing != Checkpointing::none) CHECK_THAT(c.explanation.message, !Catch::Contains("-"));
  }
}

TEST_CASE("ranked strategies carry the verdict their own band gives", "[solver][strategy][verdict]") {
  // On eight 24 GiB GPUs the best strategies fill the 95 % budget, so their bands (allocator
  // fragmentation, CUDA context) reach past the GPU: borderline, re-judged here strategy by strategy.
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3-8b"}, "gpu": "rtx-4090-24gb", "batch": {"seq_length": 2048},
    "parallel": {"world_size": 8, "zero_stage": 3}})");
  StrategySearchOptions o;
  o.world_size = 8;
  const auto ranked = search_strategies(s, o, gpu_capacity(*s.gpu) * 0.95).ranked;
  REQUIRE_FALSE(ranked.empty());
  int judged = 0, borderline = 0;
  for (const auto& c : ranked) {
    REQUIRE(c.verdict);
    if (c.tensor_parallel_size * c.pipeline_parallel_size * c.context_parallel_size != 1) continue;
    TrainingSetup t = s;
    t.parallel.zero_stage = c.zero_stage;
    t.parallel.offload_optimizer = c.offload_optimizer;
    t.activation_checkpointing = c.activation_checkpointing;
    t.batch.micro_batch_size = c.micro_batch_size;
    const Estimate e = estimate(t);
    CHECK(*compared_peak(t, e) == Approx(c.peak));
    CHECK(c.verdict == judge_verdict(t, e, uncertainty_band(t, e)));
    ++judged;
    borderline += c.verdict == Verdict::borderline;
  }
  CHECK(judged > 0);
  CHECK(borderline > 0);
}

TEST_CASE("one GPU: ZeRO-Offload is searched", "[solver][strategy]") {
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3-8b"}, "framework": "deepspeed", "gpu": "h100-sxm-80gb",
    "batch": {"seq_length": 4096}})");
  StrategySearchOptions o;
  o.world_size = 1;
  const auto r = search_strategies(s, o, gpu_capacity(*s.gpu) * 0.95);
  REQUIRE_FALSE(r.ranked.empty());
  CHECK(r.ranked.front().offload_optimizer == OffloadTarget::cpu);
}

TEST_CASE("calibration answers at the document's sequence; bad point pairs are refused", "[solver][calibration]") {
  const std::string base = R"({"model": {"preset": "llama-3-8b"}, "gpu": "h100-sxm-80gb", "parallel": {"world_size": 8, "zero_stage": 3},
    "batch": {"seq_length": 4096}, "solve": {"calibration": )";
  const JsonResult one = solve_json(base + R"([{"measured_bytes": 4.5e10, "micro_batch_size": 1, "seq_length": 64}]}})");
  REQUIRE(one.ok);
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3-8b"}, "gpu": "h100-sxm-80gb",
    "parallel": {"world_size": 8, "zero_stage": 3}, "batch": {"seq_length": 4096}})");
  const auto c = calibrate(s, {Measurement{4.5e10, 1, 64, Measurement::Measure::allocated}}, 80e9);
  REQUIRE(c);
  REQUIRE(c->max_micro_batch_size);
  // tokens that fit / the document's 4096, not the measurement's 64
  CHECK(*c->max_micro_batch_size < 8);
  const JsonResult same = solve_json(base + R"([{"measured_bytes": 4e10, "micro_batch_size": 1, "seq_length": 64},
    {"measured_bytes": 5e10, "micro_batch_size": 2, "seq_length": 32}]}})");
  CHECK_FALSE(same.ok);
  CHECK_THAT(same.json, Catch::Contains("different token counts"));
  // Three points: too many, said with the count and the limit (not "must be a list").
  const JsonResult three = solve_json(base + R"([{"measured_bytes": 4e10}, {"measured_bytes": 5e10}, {"measured_bytes": 6e10}]}})");
  CHECK_FALSE(three.ok);
  CHECK_THAT(three.json, Catch::Contains("solve.calibration has 3 measured points; the limit is 2"));
  CHECK_THAT(three.json, Catch::Contains("\"code\": \"out_of_range\""));
}

TEST_CASE("a calibrated answer at the 2^24 cap says so, as the analytic answers do", "[solver][calibration]") {
  // Two points 0.1 B apart for 4,096 more tokens: a per-token part of about 2.4e-5 B, so room for
  // far more than 2^24 (16,777,216) tokens; both answers stop at the cap and each says so.
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3.1-8b"}, "gpu": "h100-sxm-80gb",
    "parallel": {"world_size": 8, "zero_stage": 3}})");
  const auto c = calibrate(s, {Measurement{2e10, 1, 4096, Measurement::Measure::allocated}, Measurement{2.0000001e10, 2, 4096, Measurement::Measure::allocated}}, 80e9);
  REQUIRE(c);
  CHECK(*c->max_micro_batch_size == 16777216);
  CHECK(*c->max_seq_length == 16777216);
  std::vector<std::string> answers;
  for (const auto& reason : c->reasons)
    if (reason.code == std::string(reason_code::answer_at_search_cap)) answers.push_back(std::get<std::string>(reason.params.values.front().second));
  CHECK(answers == std::vector<std::string>{"calibrated.max_micro_batch_size", "calibrated.max_seq_length"});
}

TEST_CASE("calibration: two points that shrink as tokens grow give no fit, never a negative byte count", "[solver][calibration]") {
  // 40e9 at 4,096 tokens, 30e9 at 8,192: -10e9 / 4096 bytes per token is no fit.
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3-8b"}, "gpu": "h100-sxm-80gb",
    "parallel": {"world_size": 8, "zero_stage": 3}, "batch": {"seq_length": 4096}})");
  const auto c = calibrate(s, {Measurement{40e9, 1, 4096, Measurement::Measure::allocated},
                               Measurement{30e9, 1, 8192, Measurement::Measure::allocated}}, 80e9);
  REQUIRE(c);
  CHECK_FALSE(c->bytes_per_token);
  CHECK_FALSE(c->fixed_bytes);
  REQUIRE(c->reasons.size() == 1);
  CHECK(c->reasons[0].code == std::string("calibration_per_token_not_positive"));
}

TEST_CASE("calibration: a fit whose fixed part would be negative is no fit", "[solver][calibration]") {
  // Llama-3-8B at ZeRO-3 on 8 GPUs. One point, 20e9 B at 4,096 tokens, with the engine's slope
  // (its activations alone, 32 layers of a few hundred kB per token each, are over 20e9 B at
  // 4,096 tokens) crosses zero before zero tokens: no fit, no negative byte count, no answers.
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3-8b"}, "gpu": "h100-sxm-80gb",
    "parallel": {"world_size": 8, "zero_stage": 3}, "batch": {"seq_length": 4096}})");
  const auto c = calibrate(s, {Measurement{20e9, 1, 4096, Measurement::Measure::allocated}}, 80e9);
  REQUIRE(c);
  CHECK(20e9 - c->analytic_bytes_per_token * 4096 < 0);
  CHECK_FALSE(c->bytes_per_token);
  CHECK_FALSE(c->fixed_bytes);
  CHECK_FALSE(c->max_micro_batch_size);
  REQUIRE(c->reasons.size() == 1);
  CHECK(c->reasons[0].code == std::string(reason_code::calibration_fixed_part_negative));
  // Two points, 20e9 B at 1,024 tokens and 60e9 B at 2,048: 40e9 / 1,024 B per token leaves
  // 20e9 - 40e9 = -20e9 B at zero tokens: no fit either.
  const auto steep = calibrate(s, {Measurement{20e9, 1, 1024, Measurement::Measure::allocated},
                                   Measurement{60e9, 2, 1024, Measurement::Measure::allocated}}, 80e9);
  REQUIRE(steep);
  CHECK_FALSE(steep->fixed_bytes);
  REQUIRE(steep->reasons.size() == 1);
  CHECK(steep->reasons[0].code == std::string(reason_code::calibration_fixed_part_negative));
}

TEST_CASE("calibration: a measurement equal to the engine's estimate is always a fit", "[solver][calibration]") {
  // Qwen2.5-0.5B with eager attention and no checkpointing: the scores (heads x seq^2 per layer)
  // make the peak grow faster than the tokens, so the engine's own line through the measured shape
  // and the document's crosses zero before zero tokens. A measurement equal to the estimate agrees
  // with the engine: the fit stands (no calibration_fixed_part_negative), its fixed part null.
  const TrainingSetup s = setup_from(R"({"model": {"preset": "qwen2.5-0.5b"}, "gpu": "h100-sxm-80gb", "attention": "eager",
    "activation_checkpointing": "none", "batch": {"seq_length": 4096}})");
  TrainingSetup at_2048 = s;
  at_2048.batch.seq_length = 2048;
  const double p0 = *estimate(at_2048).per_gpu.peak_allocated;
  const auto c = calibrate(s, {Measurement{p0, 1, 2048, Measurement::Measure::allocated}}, 80e9);
  REQUIRE(c);
  CHECK(c->analytic_fixed_bytes < 0);
  REQUIRE(c->bytes_per_token);
  CHECK_FALSE(c->fixed_bytes);
  for (const auto& reason : c->reasons) CHECK(reason.code != std::string(reason_code::calibration_fixed_part_negative));
}

TEST_CASE("an answer that stops at the search's cap says so", "[solver]") {
  // SmolLM-135M on a 1e15-byte device: every sequence up to the 2^24 = 16,777,216-token cap fits.
  const JsonResult j = solve_json(R"({"model": {"preset": "smollm-135m"}, "gpu": {"memory_bytes": 1e15}, "solve": {}})");
  REQUIRE(j.ok);
  const nlohmann::json out = nlohmann::json::parse(j.json);
  CHECK(out["max_seq_length"]["value"] == 16777216);
  bool said = false;
  for (const auto& r : out["reason_messages"])
    said = said || (r["code"] == "answer_at_search_cap" && r["params"]["answer"] == "max_seq_length" && r["params"]["cap"] == 16777216);
  CHECK(said);
}

TEST_CASE("the cheapest GPU is one the setup runs on as written", "[solver]") {
  // A bf16 QLoRA run of an 8B model fits one 16 GB card; a T4 ($0.978/h on AWS, the cheapest
  // priced) has no bf16 arithmetic (compute capability 7.5) and a TPU v5e runs XLA, not CUDA: each
  // is listed with why, and neither is the cheapest.
  const TrainingSetup s = setup_from(R"({"model": {"preset": "llama-3.1-8b"}, "gpu": "rtx-4090-24gb", "method": "qlora",
    "batch": {"seq_length": 1024}, "activation_checkpointing": "full"})");
  const SolveResult r = solve(s, SolveOptions{}, builtin_catalog());
  auto option = [&](const std::string& id) {
    const auto it = std::find_if(r.gpu_options.begin(), r.gpu_options.end(), [&](const GpuOption& o) { return o.id == id; });
    REQUIRE(it != r.gpu_options.end());
    return *it;
  };
  const GpuOption t4 = option("t4-16gb");
  CHECK(std::count(t4.cannot_run.begin(), t4.cannot_run.end(), "bf16_unsupported") == 1);
  // On the TPU, bitsandbytes' 4-bit base has no back end either (bitsandbytes installation guide).
  CHECK(option("tpu-v5e-16gb").cannot_run == std::vector<std::string>{"tpu_unsupported_software", "other_accelerator_kind"});
  CHECK(option("l4-24gb").cannot_run.empty());
  REQUIRE(r.cheapest);
  CHECK(r.cheapest->cannot_run.empty());
  CHECK(r.cheapest->id != "t4-16gb");
  for (const auto& o : r.gpu_options)
    if (o.cost_per_hour && o.cannot_run.empty()) CHECK(*r.cheapest->cost_per_hour <= *o.cost_per_hour);
}

TEST_CASE("solve given as null is not given: the answer equals the one without it", "[solver][json]") {
  // docs/api.md: a field given as null counts as not given.
  const JsonResult with_null = solve_json(R"({"model": {"preset": "llama-3-8b"}, "gpu": "h100-sxm-80gb", "solve": null})");
  const JsonResult without = solve_json(R"({"model": {"preset": "llama-3-8b"}, "gpu": "h100-sxm-80gb"})");
  REQUIRE(with_null.ok);
  CHECK(json::parse(with_null.json) == json::parse(without.json));
  CHECK_FALSE(solve_json(R"({"model": {"preset": "llama-3-8b"}, "gpu": "h100-sxm-80gb", "solve": 3})").ok);
}

TEST_CASE("An RLHF job is solved with every model it loads; PPO and GRPO strategies rank by headroom and say so", "[solver][rlhf]") {
  // DPO at micro-batch m trains 2 m sequences (chosen and rejected) beside a frozen reference's
  // weights: it fits at most half the micro-batch the same supervised run fits.
  const std::string base = R"({"model": {"preset": "llama-3.2-1b"}, "gpu": "a100-40gb", "batch": {"seq_length": 2048},
    "activation_checkpointing": "none")";
  const json sft = json::parse(solve_json(base + "}").json);
  const json dpo = json::parse(solve_json(base + R"(, "rlhf": {"algorithm": "dpo"}})").json);
  REQUIRE(sft.at("max_micro_batch_size").is_object());
  REQUIRE(dpo.at("max_micro_batch_size").is_object());
  const auto sft_max = sft.at("max_micro_batch_size").at("value").get<std::int64_t>();
  const auto dpo_max = dpo.at("max_micro_batch_size").at("value").get<std::int64_t>();
  CHECK(dpo_max >= 1);
  CHECK(dpo_max <= sft_max / 2);
  // GRPO's rollout is not timed: its strategies are ranked by headroom, with the reason.
  const json grpo = json::parse(solve_json(base + R"(, "rlhf": {"algorithm": "grpo"}, "solve": {"strategies": {}}})").json);
  REQUIRE(grpo.at("strategies").at("ranked").size() > 0);
  CHECK(grpo.at("strategies").at("ranked").at(0).at("step_time_s").is_null());
  const json& why = grpo.at("strategies").at("reason_messages");
  REQUIRE(why.size() == 1);
  CHECK(why.at(0).at("code") == reason_code::strategies_untimed);
  CHECK(why.at(0).at("params").at("reason") == "rlhf");
  // DPO's are timed: no such reason.
  const json dpo_search = json::parse(solve_json(base + R"(, "rlhf": {"algorithm": "dpo"}, "solve": {"strategies": {}}})").json);
  CHECK(dpo_search.at("strategies").at("ranked").at(0).at("step_time_s").is_number());
  CHECK(dpo_search.at("strategies").at("reason_messages").empty());
}

TEST_CASE("No strategy fitting a QLoRA run does not advise LoRA/QLoRA", "[solver]") {
  // Llama-3.1-70B QLoRA at 65,536 tokens on 2 RTX 4090s: nothing fits; the run already trains
  // adapters, so the advice is GPUs and a shorter sequence only (a full run keeps the LoRA advice).
  const std::string base = R"({"model": {"preset": "llama-3.1-70b"}, "gpu": "rtx-4090-24gb", "batch": {"seq_length": 65536},
    "parallel": {"world_size": 2, "zero_stage": 3}, "solve": {"strategies": {}}, "method": )";
  for (const auto& [method, lora] : {std::pair{"qlora", false}, std::pair{"full", true}}) {
    const json r = json::parse(solve_json(base + "\"" + method + "\"}").json);
    const json& why = r.at("strategies").at("reason_messages");
    const auto none = std::find_if(why.begin(), why.end(), [](const json& m) { return m.at("code") == reason_code::no_strategy_fits; });
    REQUIRE(none != why.end());
    CHECK((none->at("message").get<std::string>().find("LoRA/QLoRA") != std::string::npos) == lora);
    CHECK(none->at("params").at("adapters") == (lora ? "true" : "false"));
  }
}

TEST_CASE("accepted_zero_stages: the framework's sharding stages its rules accept for the setup", "[solver][strategy]") {
  // framework_parallelism.hpp: DeepSpeed offers ZeRO 0-3, FSDP engines 0, 2 and 3, Megatron-LM 0 and 1.
  // An LLM.int8() base cannot be sharded by ZeRO-3 nor by FSDP at any stage (validate: int8_not_sharded);
  // each setup is stated at stage 0, which every rule accepts.
  const std::string model = R"("model": {"preset": "llama-2-7b"}, "parallel": {"world_size": 8, "zero_stage": 0})";
  using Stages = std::vector<int>;
  CHECK(accepted_zero_stages(setup_from("{" + model + R"(, "framework": "deepspeed"})")) == Stages{0, 1, 2, 3});
  CHECK(accepted_zero_stages(setup_from("{" + model + R"(, "framework": "megatron"})")) == Stages{0, 1});
  CHECK(accepted_zero_stages(setup_from("{" + model + R"(, "framework": "fsdp"})")) == Stages{0, 2, 3});
  const std::string int8 = R"(, "method": "qlora", "qlora": {"quant_type": "int8"})";
  CHECK(accepted_zero_stages(setup_from("{" + model + R"(, "framework": "deepspeed")" + int8 + "}")) == Stages{0, 1, 2});
  CHECK(accepted_zero_stages(setup_from("{" + model + R"(, "framework": "fsdp")" + int8 + "}")) == Stages{0});
}
