// Published config.json files of families outside issue 12's list, pasted as a new user would
// (docs/new-configs-trial.md). Each is stored verbatim under tests/fixtures/hf_configs/trial/ with
// its repository, path and commit (tests/fixtures/hf_configs/SOURCES.md). Every case checks the
// count against the published total, or that the warning or error names what differs; the expected
// counts are derived by hand from each model's modeling file, quoted in the comments.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "test_support.hpp"
#include "trainmem/explain.hpp"

using namespace trainmem;
using trainmem::test::total_of;
using trainmem::test::estimate_from;

namespace {

std::string trial(const std::string& name) {
  std::ifstream in(std::string(TRAINMEM_SOURCE_DIR) + "/tests/fixtures/hf_configs/trial/" + name + ".json");
  REQUIRE(in.good());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string document(const std::string& hf_config) { return R"({"model": {"hf_config": )" + hf_config + "}}"; }

std::string generic_warning(const std::string& hf_config) {
  const std::string doc = document(hf_config);
  for (const auto& w : estimate_warnings(trainmem::test::setup_from(doc), estimate_from(doc)))
    if (w.code == "generic_layout") return w.message;
  return "";
}

bool within(double count, double published, double fraction) {
  return std::fabs(count - published) <= fraction * published;
}

}  // namespace

TEST_CASE("trial: MPT-7B has its own layout and the index total", "[parameters][trial]") {
  // transformers modeling_mpt.py: Wqkv 4096 x 12288 and out_proj 4096^2 without bias, up/down
  // 2 x 4096*16384, norm_1 and norm_2 without bias 2 x 4096 -> 201,334,784 x 32 = 6,442,713,088;
  // wte 50432*4096 = 206,569,472 (tied head, ALiBi: no position table); norm_f 4,096
  // -> 6,649,286,656. pytorch_model.bin.index.json: total_size 13,298,573,312 bytes of bfloat16.
  const std::string cfg = trial("mpt-7b");
  CHECK(total_of(cfg) == 6649286656);
  CHECK(total_of(cfg) * 2 == 13298573312);
  CHECK(generic_warning(cfg).empty());
  // PEFT's default target for "mpt" is Wqkv: r = 8 -> 32 x 8 x (4096 + 12288) = 4,194,304.
  CHECK(estimate_from(R"({"model": {"hf_config": )" + cfg + R"(}, "method": "lora", "lora": {"r": 8}})").parameters.trainable ==
        4194304);
}

TEST_CASE("trial: Falcon as first published (model_type RefinedWeb, RefinedWebModel) is read by the Falcon layout", "[parameters][trial]") {
  // n_head_kv present -> new_decoder_architecture (transformers' convert_custom_code_checkpoint.py):
  // query_key_value 8192 x (128 + 2 x 8) x 64 = 75,497,472; dense 8192^2 = 67,108,864; MLP
  // 2 x 8192*32768 = 536,870,912; ln_attn + ln_mlp 4 x 8192 -> 679,510,016 x 60 = 40,770,600,960;
  // word_embeddings 65024*8192 = 532,676,608 (the head is tied); ln_f 16,384 -> 41,303,293,952.
  // Its pytorch_model.bin.index.json lists lm_head.weight too, so total_size 83,671,941,120 bytes of
  // bfloat16 counts the tied matrix twice.
  const std::string cfg = trial("falcon-40b-refinedweb");
  CHECK(total_of(cfg) == 41303293952);
  CHECK((total_of(cfg) + 65024LL * 8192) * 2 == 83671941120);
  CHECK(generic_warning(cfg).empty());
  // tiiuae/falcon-7b as first published (RefinedWebModel, no n_head_kv: multi_query, one
  // input_layernorm for parallel attention): query_key_value 4544 x (4544 + 2 x 64) = 21,229,568;
  // dense 4544^2 = 20,647,936; MLP 2 x 4544*18176 = 165,183,488; input_layernorm 9,088
  // -> 207,070,080 x 32 = 6,626,242,560; word_embeddings 65024*4544 = 295,469,056 (tied); ln_f 9,088
  // -> 6,921,720,704. Its pytorch_model.bin.index.json (fixture's source) lists lm_head.weight too:
  // total_size 14,434,379,520 bytes of bfloat16.
  std::ifstream in(std::string(TRAINMEM_SOURCE_DIR) + "/tests/fixtures/hf_configs/falcon-7b-refinedwebmodel.json");
  std::stringstream seven;
  seven << in.rdbuf();
  CHECK(total_of(seven.str()) == 6921720704);
  CHECK((total_of(seven.str()) + 65024LL * 4544) * 2 == 14434379520);
}

TEST_CASE("trial: generic decoders that match their index totals", "[parameters][trial][generic]") {
  // internlm/internlm-20b as first published (model_type internlm, bias false): Llama's layout,
  // 4 x 5120^2 + 3 x 5120*13824 + 10,240 = 317,204,480 x 60 + 2 x 103168*5120 + 5,120
  // = 20,088,714,240; pytorch_model.bin.index.json total_size 40,177,428,480 bytes of bfloat16.
  CHECK(total_of(trial("internlm-20b")) * 2 == 40177428480);
  // ibm-granite/granite-3.1-1b-a400m-instruct (granitemoe): q,o 2 x 1024^2, k,v 2 x 1024*512, 32
  // experts of input_linear 1024 x 1024 and output_linear 512 x 1024, router 1024*32, norms 2,048
  // -> 53,512,192 x 24 + 49155*1024 (tied) + 1,024 = 1,334,628,352; model.safetensors.index.json
  // total_size 5,338,513,408 bytes of float32.
  CHECK(total_of(trial("granite-3.1-1b-a400m-instruct")) * 4 == 5338513408);
}

TEST_CASE("trial: MiMo's multi-token-prediction layer is counted and named", "[parameters][trial][generic]") {
  // XiaomiMiMo/MiMo-7B-Base (model_type mimo: Qwen2 layers plus MiMoMTPLayers). Qwen2Attention biases
  // q/k/v only: layer 4096^2 + 4096 + 2 x (4096*1024 + 1024) + 4096^2 + 3 x 4096*11008 + 8,192
  // = 177,223,680 x 36 = 6,380,052,480; embed + head 2 x 151680*4096 = 1,242,562,560; norm 4,096;
  // one MTP layer 177,223,680 + input_proj 8192*4096 + 3 norms = 210,790,400 -> 7,833,409,536,
  // which is model.safetensors.index.json's total_size 15,666,819,072 bytes of bfloat16 / 2. The
  // generic layout reads attention_bias as LlamaAttention does (o_proj biased too): 37 x 4096 more.
  const std::string cfg = trial("mimo-7b-base");
  CHECK(total_of(cfg) == 15666819072 / 2 + 37 * 4096);
  const std::string w = generic_warning(cfg);
  CHECK_THAT(w, Catch::Contains("num_nextn_predict_layers 1"));
  CHECK_THAT(w, Catch::Contains("210,794,496 parameters"));  // the MTP layer with its o_proj bias
  CHECK_THAT(w, Catch::Contains("attention_bias true"));
}

TEST_CASE("trial: a plain MLP without a width is 4 x hidden; the warning names what the card differs by", "[parameters][trial][generic]") {
  // EleutherAI/gpt-neo-1.3B (modeling_gpt_neo.py): q,k,v 3 x 2048^2, out_proj 2048^2 + 2048, c_fc
  // 2048*8192 + 8192, c_proj 8192*2048 + 2048, ln_1, ln_2 4 x 2048 -> 50,352,128 x 24; wte
  // 50257*2048 = 102,926,336 (tied); wpe 2048*2048 = 4,194,304; ln_f 4,096 -> 1,315,575,808 (the
  // card's "1.3B"). Read generically: an untied head (+102,926,336), no position table
  // (-4,194,304) and no biases (-24 x 12,288), each named in the warning.
  const std::string neo = trial("gpt-neo-1.3b");
  CHECK(total_of(neo) == 1315575808 + 102926336 - 4194304 - 24 * 12288);
  const std::string w = generic_warning(neo);
  CHECK_THAT(w, Catch::Contains("4 x hidden_size = 8192"));
  CHECK_THAT(w, Catch::Contains("tie_word_embeddings absent"));
  CHECK_THAT(w, Catch::Contains("no position-embedding parameters"));
  // fnlp/moss-moon-003 (modeling_moss.py, CodeGen's layout): qkv_proj 6144 x 18432 and out_proj
  // 6144^2 without bias, fc_in/fc_out with bias, one ln_1 -> 453,027,840 x 34 = 15,402,946,560;
  // wte + lm_head 2 x 107008*6144 + head bias 107,008; ln_f 12,288 -> 16,717,980,160 (the card's
  // "16B"). Generically: no MLP or head biases, two norms per layer: 733,696 fewer (0.004 %).
  const std::string moss = trial("moss-moon-003-sft-int8");
  CHECK(total_of(moss) == 16717980160 - 733696);
  CHECK(within(static_cast<double>(total_of(moss)), 16717980160.0, 0.01));
}

TEST_CASE("trial: Megatron's num_query_groups is read as the kv heads", "[parameters][trial][generic]") {
  // WisdomShell/CodeShell-7B (modeling_codeshell.py, GPT-BigCode's modules with 8 query groups):
  // c_attn 4096 x (4096 + 2 x 1024) + bias, c_proj, c_fc 4096*16384, mlp c_proj, all with bias, ln_1
  // and ln_2 with bias -> 176,207,872 x 42 = 7,400,730,624; wte 70144*4096 = 287,309,824 (the head
  // is tied: PretrainedConfig's tie_word_embeddings default); ln_f 8,192 -> 7,688,048,640 (the card:
  // "7 billion"). Generically: an untied head (+287,309,824) and no biases (-42 x 30,720), named.
  const std::string cfg = trial("codeshell-7b-chat-int4");
  CHECK(total_of(cfg) == 7688048640 + 287309824 - 42 * 30720);
  const std::string w = generic_warning(cfg);
  CHECK(w.find("num_key_value_heads absent") == std::string::npos);
  CHECK_THAT(w, Catch::Contains("tie_word_embeddings absent"));
  CHECK_THAT(w, Catch::Contains("attention_bias absent"));
}

TEST_CASE("trial: an encoder read as a decoder names the head it adds", "[parameters][trial][generic]") {
  // microsoft/deberta-v3-base (a question-answering fine-tune's copy): the card states 86M backbone
  // parameters and 98M in the embeddings (128100 x 768 = 98,380,800). Read as a generic decoder it
  // gains an untied 98,380,800 head, which the warning names; without it the count is within 0.5 %
  // of the card's 184M.
  const std::string cfg = trial("deberta-v3-base-qa");
  const std::int64_t total = total_of(cfg);
  CHECK(within(static_cast<double>(total - 128100LL * 768), 184e6, 0.005));
  CHECK_THAT(generic_warning(cfg), Catch::Contains("tie_word_embeddings absent: an untied lm_head"));
}

TEST_CASE("trial: OpenELM's per-layer head counts are refused, naming the fields", "[parameters][trial][errors]") {
  // apple/OpenELM-270M gives model_dim, num_transformer_layers and per-layer num_query_heads /
  // num_kv_heads lists: no single layer shape, so the generic decoder names what it lacks.
  const auto parsed = parse_estimate_document(document(trial("openelm-270m")));
  std::vector<std::string> fields;
  for (const auto& e : parsed.errors) fields.push_back(e.field);
  for (const char* f : {"model.hf_config.hidden_size", "model.hf_config.num_hidden_layers",
                        "model.hf_config.num_attention_heads", "model.hf_config.model_type"})
    CHECK(std::find(fields.begin(), fields.end(), f) != fields.end());
}
