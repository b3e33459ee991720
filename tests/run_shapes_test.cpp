// Uneven pipeline splits by each framework's rule, context parallelism's two kinds, and expert
// tensor parallelism's expert-data-parallel group.
#include "test_support.hpp"
#include "trainmem/parameter_layout.hpp"
#include "trainmem/pipeline_split.hpp"

using namespace trainmem;
using trainmem::test::error_fields;
using trainmem::test::estimate_from;
using trainmem::test::setup_from;

namespace {
// Llama-3.1-405B: 126 layers (meta-llama/Llama-3.1-405B config.json architecture keys).
const std::string k405b = R"({"model_type": "llama", "hidden_size": 16384, "intermediate_size": 53248,
  "num_attention_heads": 128, "num_key_value_heads": 8, "num_hidden_layers": 126, "vocab_size": 128256})";
// One layer: q,o 2 x 16384^2; k,v 2 x 16384*1024; MLP 3 x 16384*53248; norms 2 x 16384.
constexpr std::int64_t kLayer405b = 3187703808;
constexpr std::int64_t kEmbedding405b = 128256LL * 16384;

std::string on_8_stages(const std::string& framework, const std::string& extra = "") {
  return R"({"model": {"hf_config": )" + k405b + R"(}, "framework": ")" + framework +
         R"(", "batch": {"micro_batch_size": 1, "seq_length": 16}, "activation_checkpointing": "full",
         "parallel": {"world_size": 8, "pipeline_parallel_size": 8, "zero_stage": 0)" + extra + "}}";
}
std::vector<std::int64_t> split_of(const std::string& doc) {
  const TrainingSetup s = setup_from(doc);
  return pipeline_split(s, 126).chunk_layers;
}
}  // namespace

TEST_CASE("126 layers on 8 stages: torchtitan splits them, counting embedding and output as a layer each", "[pipeline]") {
  // (126 + 2) / 8 = 16 effective layers per stage; the first and last give one back to the embedding
  // and the output (torchtitan _generate_llm_fqn_per_model_part).
  CHECK(split_of(on_8_stages("torchtitan")) == std::vector<std::int64_t>{15, 16, 16, 16, 16, 16, 16, 15});
  // The most loaded stage: a 16-layer one (51.0 B parameters) outweighs 15 layers + the embedding
  // (49.9 B); with activations negligible (16 tokens, full recompute) it has the peak.
  const Estimate e = estimate_from(on_8_stages("torchtitan"));
  CHECK(e.per_gpu.pipeline_stage == 1);
  CHECK(e.per_gpu.parameters == Approx(16.0 * kLayer405b * 2).epsilon(1e-12));  // bf16 bytes
}

TEST_CASE("126 layers on 8 stages: Megatron refuses without the uneven-split options, as it does", "[pipeline][errors]") {
  CHECK(error_fields(on_8_stages("megatron")) == std::vector<std::string>{"parallel.pipeline_layers"});
  // parallel.pipeline_layers stands for --decoder-first/last-pipeline-num-layers.
  const std::string given = on_8_stages("megatron", R"(, "pipeline_layers": [15, 16, 16, 16, 16, 16, 16, 15])");
  CHECK(split_of(given) == std::vector<std::int64_t>{15, 16, 16, 16, 16, 16, 16, 15});
  CHECK(estimate_from(given).per_gpu.pipeline_stage == 1);
}

TEST_CASE("126 layers on 8 stages: DeepSpeed's uniform partition puts the extra layers first", "[pipeline]") {
  // partition_uniform: 126 = 8 x 15 + 6; the first six parts take 16.
  CHECK(split_of(on_8_stages("deepspeed")) == std::vector<std::int64_t>{16, 16, 16, 16, 16, 16, 15, 15});
  // Stage 0: 16 layers and the embedding, the most loaded.
  const Estimate e = estimate_from(on_8_stages("deepspeed"));
  CHECK(e.per_gpu.pipeline_stage == 0);
  CHECK(e.per_gpu.parameters == Approx((16.0 * kLayer405b + kEmbedding405b) * 2).epsilon(1e-12));
}

TEST_CASE("parallel.pipeline_layers must list every chunk and add up to the layers", "[pipeline][errors]") {
  CHECK(error_fields(on_8_stages("torchtitan", R"(, "pipeline_layers": [16, 16, 16, 16, 16, 16, 16, 16])")) ==
        std::vector<std::string>{"parallel.pipeline_layers"});
  CHECK(error_fields(on_8_stages("torchtitan", R"(, "pipeline_layers": [63, 63])")) ==
        std::vector<std::string>{"parallel.pipeline_layers"});
}

TEST_CASE("more pipeline chunks than layers leave a stage with no layer: refused, not priced", "[pipeline][errors]") {
  // A 4-layer model: 4 stages hold one layer each; a fifth stage would hold none (DeepSpeed's
  // PipelineModule and PyTorch's pipelining build no empty stage).
  auto on_stages = [](int stages) {
    return R"({"model": {"hf_config": {"model_type": "llama", "hidden_size": 256, "intermediate_size": 512,
      "num_attention_heads": 4, "num_hidden_layers": 4, "vocab_size": 1000}}, "framework": "deepspeed",
      "parallel": {"world_size": )" + std::to_string(stages) + R"(, "pipeline_parallel_size": )" + std::to_string(stages) + "}}";
  };
  CHECK(pipeline_split(setup_from(on_stages(4)), 4).chunk_layers == std::vector<std::int64_t>{1, 1, 1, 1});
  CHECK(error_fields(on_stages(4)).empty());
  CHECK(error_fields(on_stages(5)) == std::vector<std::string>{"parallel.pipeline_parallel_size"});
  CHECK(error_fields(on_stages(64)) == std::vector<std::string>{"parallel.pipeline_parallel_size"});
}

TEST_CASE("interleaved chunks: chunk k runs on stage k mod p", "[pipeline]") {
  // torchtitan, 32 layers, 2 stages x 2 virtual: (32 + 2) / 4 = 8 r 2 -> 9, 9, 8, 8, less one at
  // each end: 8, 9, 8, 7. Stage 0 holds chunks 0 and 2 (16 layers), stage 1 chunks 1 and 3 (16).
  const std::string doc = R"({"model": {"hf_config": )" + trainmem::test::kLlama2_7b + R"(}, "framework": "torchtitan",
    "parallel": {"world_size": 2, "pipeline_parallel_size": 2, "virtual_pipeline_stages": 2,
    "pipeline_schedule": "interleaved_1f1b"}})";
  const TrainingSetup s = setup_from(doc);
  CHECK(pipeline_split(s, 32).chunk_layers == std::vector<std::int64_t>{8, 9, 8, 7});
  const auto counts = stage_layer_counts(*s.model.architecture, s);
  CHECK(counts[0][0] == 16);
  CHECK(counts[1][0] == 16);
}

TEST_CASE("context parallelism: ring passes key/value blocks, Ulysses all-to-alls q, k and v", "[context_parallel]") {
  // Llama-3-8B's layers (a 1000-token vocabulary, so the logits do not hide the backward buffers),
  // micro-batch 1, 8192 tokens, cp = 2: 4096 tokens per rank, bf16.
  // Ring forward buffer: send + receive of k and v, 2 x 4096 x 8 x (128 + 128) x 2 B = 33,554,432.
  // Ulysses forward buffer: the all-to-all outputs of q, k, v: 4096 x (4096 + 2048) x 2 B = 50,331,648.
  auto doc = [](const char* kind) {
    std::string cfg = trainmem::test::kLlama3_8b;
    cfg.replace(cfg.find("128256"), 6, "1000");
    return R"({"model": {"hf_config": )" + cfg + R"(}, "batch": {"micro_batch_size": 1, "seq_length": 8192},
           "parallel": {"world_size": 2, "context_parallel_size": 2, "context_parallel_kind": ")" + std::string(kind) + "\"}}";
  };
  const Estimate ring = estimate_from(doc("ring")), ulysses = estimate_from(doc("ulysses"));
  REQUIRE(ring.per_gpu.phases);
  REQUIRE(ulysses.per_gpu.phases);
  CHECK(ulysses.per_gpu.phases->forward - ring.per_gpu.phases->forward == Approx(50331648.0 - 33554432.0));
  // Backward: ring adds the key/value gradient blocks in fp32 (2 x 4096 x 2048 x 4 B).
  CHECK(ring.per_gpu.phases->backward - ulysses.per_gpu.phases->backward ==
        Approx(33554432.0 + 67108864.0 - 50331648.0));
}

TEST_CASE("Ulysses needs whole heads per rank; eager scores cover the whole sequence", "[context_parallel]") {
  // Llama-3-8B has 8 key/value heads: Ulysses over 16 ranks cannot split them.
  CHECK(error_fields(R"({"model": {"hf_config": )" + trainmem::test::kLlama3_8b + R"(}, "batch": {"seq_length": 8192},
    "parallel": {"world_size": 16, "context_parallel_size": 16, "context_parallel_kind": "ulysses"}})") ==
        std::vector<std::string>{"parallel.context_parallel_kind"});
  // Eager attention under Ulysses keeps heads / cp score matrices of the whole sequence. Against
  // SDPA on the same split, per layer (4,096 local tokens, 32 heads of 128, 8 key/value heads):
  //   eager's k and v repeated to every head: 2 x 4096 x (32 - 8) x 128 x 2 B =    50,331,648
  //   its scores, fp32 softmax (4 B) + bf16 probabilities (2 B): 16 x 8192^2 x 6 B = 6,442,450,944
  //   less SDPA's fp32 log-sum-exp: 4096 x 32 x 4 B =                                  524,288
  // 6,492,258,304 B per layer, x 32 layers.
  const std::string doc = R"({"model": {"hf_config": )" + trainmem::test::kLlama3_8b +
                          R"(}, "batch": {"micro_batch_size": 1, "seq_length": 8192},
    "parallel": {"world_size": 2, "context_parallel_size": 2, "context_parallel_kind": "ulysses"}, "attention": )";
  const double eager = estimate_from(doc + R"("eager"})").per_gpu.activations.value_or(0);
  const double sdpa = estimate_from(doc + R"("sdpa"})").per_gpu.activations.value_or(0);
  CHECK(eager - sdpa == Approx(6492258304.0 * 32));
  // Ring attention exchanges key/value blocks inside a fused kernel: eager attention cannot run it.
  CHECK(error_fields(R"({"model": {"hf_config": )" + trainmem::test::kLlama3_8b + R"(}, "batch": {"seq_length": 8192},
    "attention": "eager", "parallel": {"world_size": 2, "context_parallel_size": 2}})") == std::vector<std::string>{"attention"});
}

TEST_CASE("expert tensor parallelism splits experts apart from TP and sets the expert-data-parallel group", "[moe]") {
  // Mixtral-8x7B, TP 2, EP 2, 8 GPUs: experts 32 x 8 x 3 x 4096*14336 = 45,097,156,608 parameters.
  const std::string mixtral = R"({"model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336,
    "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32, "vocab_size": 32000,
    "num_local_experts": 8, "num_experts_per_tok": 2})";
  auto setup = [&](const std::string& etp) {
    return setup_from(R"({"model": {"hf_config": )" + mixtral + R"(}, "parallel": {"world_size": 8, "zero_stage": 1,
      "tensor_parallel_size": 2, "expert_parallel_size": 2)" + etp + "}}");
  };
  // Default ETP = TP: each expert matrix on 2 x 2 ranks.
  CHECK(stage_parameters(setup("")).front().expert_trainable == Approx(45097156608.0 / 4));
  // ETP 1: experts whole on each of the EP ranks.
  const TrainingSetup etp1 = setup(R"(, "expert_tensor_parallel_size": 1)");
  CHECK(stage_parameters(etp1).front().expert_trainable == Approx(45097156608.0 / 2));
  // Expert data parallel = world / (PP x EP x ETP): 8 / (1 x 2 x 1) = 4, vs 8 / (2 x 2) = 2.
  CHECK(expert_sharding_degree(etp1.parallel, 4) == 4);
  CHECK(expert_sharding_degree(setup("").parallel, 4) == 2);
  CHECK(error_fields(R"({"model": {"hf_config": )" + mixtral + R"(}, "parallel": {"world_size": 8,
    "tensor_parallel_size": 2, "expert_parallel_size": 2, "expert_tensor_parallel_size": 3}})") ==
        std::vector<std::string>{"parallel.expert_tensor_parallel_size"});
}
