// Exact parameter counts from published config.json values, against published totals.
#include "test_support.hpp"

using namespace trainmem;
using trainmem::test::total_of;
using trainmem::test::estimate_from;

namespace {
std::int64_t active_of(const std::string& hf_config) {
  return estimate_from(R"({"model": {"hf_config": )" + hf_config + "}}").active_parameters;
}

// meta-llama/Llama-2-7b-hf config.json (architecture keys).
const std::string kLlama2_7bConfig = R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008,
  "num_attention_heads": 32, "num_key_value_heads": 32, "num_hidden_layers": 32, "vocab_size": 32000,
  "tie_word_embeddings": false, "rms_norm_eps": 1e-05, "max_position_embeddings": 4096})";
// meta-llama/Meta-Llama-3-8B
const std::string kLlama3_8bConfig = R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
  "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32, "vocab_size": 128256,
  "tie_word_embeddings": false})";
// meta-llama/Llama-2-70b-hf
const std::string kLlama2_70b = R"({"model_type": "llama", "hidden_size": 8192, "intermediate_size": 28672,
  "num_attention_heads": 64, "num_key_value_heads": 8, "num_hidden_layers": 80, "vocab_size": 32000,
  "tie_word_embeddings": false})";
}  // namespace

TEST_CASE("Llama-2-7B: 6,738,415,616 parameters", "[parameters]") {
  // embed 32000*4096 = 131,072,000; head the same (untied);
  // layer: 4 * 4096^2 (q,k,v,o) = 67,108,864 + 3 * 4096*11008 = 135,266,304 + 2*4096 norms = 202,383,360
  // 32 layers = 6,476,267,520; + final norm 4096 + 2 * 131,072,000 = 6,738,415,616
  CHECK(total_of(kLlama2_7bConfig) == 6738415616);
}

TEST_CASE("Meta-Llama-3-8B: GQA k/v projections are 1024 wide", "[parameters]") {
  // layer: q,o 2*4096^2 = 33,554,432; k,v 2*4096*1024 = 8,388,608; MLP 3*4096*14336 = 176,160,768;
  // norms 8192 -> 218,112,000 * 32 = 6,979,584,000; embed + head 2*128256*4096 = 1,050,673,152; final 4096
  CHECK(total_of(kLlama3_8bConfig) == 8030261248);
}

TEST_CASE("Llama-2-70B counts num_key_value_heads (RahulSChand/gpu_poor#7)", "[parameters][faults]") {
  CHECK(total_of(kLlama2_70b) == 68976648192);
  // gpu_poor's 2Vh + 4Lh^2 + 3LhI ignores GQA and gets 78,370,570,240 (+13.6%).
  CHECK(total_of(kLlama2_70b) != 78370570240);
}

TEST_CASE("Mistral-7B-v0.1", "[parameters]") {
  const std::string cfg = R"({"model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336,
    "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32, "vocab_size": 32000,
    "sliding_window": 4096, "tie_word_embeddings": false})";
  // Llama-3-8B's layers (6,979,584,000) + 2 * 32000*4096 + 4096
  CHECK(total_of(cfg) == 7241732096);
}

TEST_CASE("Mixtral-8x7B: all experts resident, two active (AlexsJones/llmfit#230)", "[parameters][faults]") {
  const std::string cfg = R"({"model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336,
    "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32, "vocab_size": 32000,
    "num_local_experts": 8, "num_experts_per_tok": 2, "tie_word_embeddings": false})";
  // layer: attention 41,943,040 + router 4096*8 = 32,768 + 8 experts * 176,160,768 + norms 8192
  //   = 1,451,270,144; * 32 = 46,440,644,608; + 262,144,000 embed/head + 4096 = 46,702,792,704
  CHECK(total_of(cfg) == 46702792704);
  // active: 2 experts -> layer 41,943,040 + 32,768 + 352,321,536 + 8192 = 394,305,536 * 32
  //   = 12,617,777,152 + 262,148,096 = 12,879,925,248
  CHECK(active_of(cfg) == 12879925248);
}

TEST_CASE("GPT-2: learned positions, LayerNorm with bias, tied head", "[parameters]") {
  const std::string cfg = R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12,
    "n_positions": 1024, "vocab_size": 50257})";
  // wte 50257*768 = 38,597,376; wpe 1024*768 = 786,432;
  // layer: c_attn 768*2304+2304 = 1,771,776; c_proj 589,824+768 = 590,592; c_fc 768*3072+3072 = 2,362,368;
  //   mlp c_proj 3072*768+768 = 2,360,064; ln_1, ln_2 4*768 = 3,072 -> 7,087,872 * 12 = 85,054,464
  // ln_f 1,536 -> 124,439,808
  CHECK(total_of(cfg) == 124439808);
}

TEST_CASE("Gemma-7B: head_dim 256 differs from hidden/heads, tied embeddings", "[parameters]") {
  const std::string cfg = R"({"model_type": "gemma", "hidden_size": 3072, "intermediate_size": 24576,
    "num_attention_heads": 16, "num_key_value_heads": 16, "head_dim": 256, "num_hidden_layers": 28,
    "vocab_size": 256000})";
  // q,k,v 3*3072*4096 + o 4096*3072 = 50,331,648; MLP 3*3072*24576 = 226,492,416; norms 6,144
  // -> 276,830,208 * 28 = 7,751,245,824; + embed 786,432,000 + final 3,072 = 8,537,680,896
  CHECK(total_of(cfg) == 8537680896);
}

TEST_CASE("an untied head adds vocab x hidden (microsoft/DeepSpeed#1883)", "[parameters][faults]") {
  const std::string tied = R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 1000, "tie_word_embeddings": true})";
  const std::string untied = R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 1000, "tie_word_embeddings": false})";
  CHECK(total_of(untied) - total_of(tied) == 1000 * 64);
}

TEST_CASE("RMSNorm weights: (2L + 1) h, replicated on TP ranks (cli99/llm-analysis#19)", "[parameters][faults]") {
  // Llama-2-7B: 65 * 4096 = 266,240 norm parameters. Removing them from a TP=2 rank's share would
  // show up as a drop of 133,120 parameters; TP splits only the matrices.
  const std::string doc = R"({"model": {"hf_config": )" + kLlama2_7bConfig + R"(}, "parallel": {"tensor_parallel_size": 2}})";
  const auto stages = stage_parameters(trainmem::test::setup_from(doc));
  const double matrices = 6738415616.0 - 266240.0;
  CHECK(stages.front().total() == Approx(matrices / 2 + 266240.0).epsilon(0));
}

TEST_CASE("an unknown model_type without the decoder fields names them and the closest known type", "[parameters][errors]") {
  // Read as a generic decoder (model_families_test.cpp), {"hidden_size": 8} lacks the other sizes.
  const auto parsed = parse_estimate_document(R"({"model": {"hf_config": {"model_type": "lama", "hidden_size": 8}}})");
  std::vector<std::string> fields;
  bool closest = false;
  for (const auto& e : parsed.errors) {
    fields.push_back(e.field);
    if (e.code == "unsupported_model_type") {
      CHECK(e.field == "model.hf_config.model_type");
      closest = e.message.find("closest: \"llama\"") != std::string::npos;
    }
  }
  CHECK(closest);
  for (const char* f : {"model.hf_config.num_hidden_layers", "model.hf_config.num_attention_heads",
                        "model.hf_config.intermediate_size", "model.hf_config.vocab_size"})
    CHECK(std::find(fields.begin(), fields.end(), f) != fields.end());
}

TEST_CASE("a missing required config field is named", "[parameters][errors]") {
  const auto parsed = parse_estimate_document(R"({"model": {"hf_config": {"model_type": "llama", "hidden_size": 64,
    "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 100}}})");
  REQUIRE(parsed.errors.size() == 1);
  CHECK(parsed.errors[0].code == "missing_field");
  CHECK(parsed.errors[0].field == "model.hf_config.intermediate_size");
}

TEST_CASE("kv heads must divide attention heads", "[parameters][errors]") {
  const auto parsed = parse_estimate_document(R"({"model": {"hf_config": {"model_type": "llama", "hidden_size": 64,
    "num_attention_heads": 4, "num_key_value_heads": 3, "intermediate_size": 128, "num_hidden_layers": 2, "vocab_size": 100}}})");
  REQUIRE(parsed.errors.size() == 1);
  CHECK(parsed.errors[0].code == "not_divisible");
  CHECK(parsed.errors[0].field == "model.hf_config.num_key_value_heads");
}
