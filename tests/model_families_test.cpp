// The families added for issue 12, each against a published total, and the generic decoder for a
// model_type without a layout. Counts are derived by hand from the modeling file each family cites
// (engine/src/architectures/); the published figures are quoted with their source.
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "trainmem/explain.hpp"

using namespace trainmem;
using trainmem::test::hf_config_fixture;
using trainmem::test::total_of;
using trainmem::test::estimate_from;

namespace {

Estimate of(const std::string& hf_config, const std::string& rest = "") {
  return estimate_from(R"({"model": {"hf_config": )" + hf_config + "}" + rest + "}");
}

// A rounded headline figure holds the count within half a unit of its last stated digit.
bool within_rounding(std::int64_t count, double published, double unit) {
  return std::fabs(static_cast<double>(count) - published) <= unit / 2;
}

std::string warning_text(const std::string& hf_config, const std::string& code) {
  const std::string doc = R"({"model": {"hf_config": )" + hf_config + "}}";
  for (const auto& w : estimate_warnings(trainmem::test::setup_from(doc), estimate_from(doc)))
    if (w.code == code) return w.message;
  return "";
}

}  // namespace

TEST_CASE("Phi-2: parallel attention and MLP, dense biases, lm_head bias: the index total", "[parameters][families]") {
  // layer: q,k,v,dense 4 x (2560^2 + 2560) = 26,224,640; fc1 2560*10240 + 10240 = 26,224,640;
  // fc2 10240*2560 + 2560 = 26,216,960; one input_layernorm 2*2560 -> 78,671,360 x 32 = 2,517,483,520;
  // embed 51200*2560 = 131,072,000; final_layernorm 5,120; lm_head 131,072,000 + bias 51,200
  // -> 2,779,683,840. microsoft/phi-2 model.safetensors.index.json: total_size 5,559,367,680 bytes
  // of float16 = 2,779,683,840.
  CHECK(total_of(hf_config_fixture("phi-2.json")) == 2779683840);
  CHECK(total_of(hf_config_fixture("phi-2.json")) * 2 == 5559367680);
  // The earlier remote-code config (model_type "phi-msft": n_embd, Wqkv, out_proj) is the same model.
  CHECK(total_of(hf_config_fixture("phi-2-msft.json")) == 2779683840);
}

TEST_CASE("Phi-1.5: Phi-2's layout at 2048 wide and 24 layers: the Hub's safetensors total", "[parameters][families]") {
  // microsoft/phi-1_5 config.json (transformers layout, architecture keys): hidden 2048, 24 layers,
  // 32 heads, MLP 8192, vocab 51200, partial_rotary_factor 0.5 (no parameters), untied head.
  // layer: q,k,v,dense 4 x (2048^2 + 2048) = 16,785,408; fc1 2048*8192 + 8192 = 16,785,408; fc2
  // 8192*2048 + 2048 = 16,779,264; input_layernorm 4,096 -> 50,354,176 x 24 = 1,208,500,224; embed
  // 51200*2048 = 104,857,600; final_layernorm 4,096; lm_head 104,857,600 + bias 51,200
  // -> 1,418,270,720, the safetensors parameter total the Hub states for microsoft/phi-1_5
  // (https://huggingface.co/microsoft/phi-1_5, "1.42B params").
  CHECK(total_of(R"({"model_type": "phi", "hidden_size": 2048, "intermediate_size": 8192, "num_attention_heads": 32,
    "num_key_value_heads": 32, "num_hidden_layers": 24, "vocab_size": 51200, "partial_rotary_factor": 0.5,
    "hidden_act": "gelu_new", "qk_layernorm": false, "tie_word_embeddings": false})") == 1418270720);
}

TEST_CASE("gpt-oss-20b and -120b: experts as parameters with biases, attention sinks", "[parameters][families]") {
  // per layer: q 2880*4096 + 4096 = 11,800,576; k, v 2 x (2880*512 + 512) = 2,950,144; o 4096*2880 +
  // 2880 = 11,799,360; sinks 64; router 2880*32 + 32 = 92,192; experts gate_up 32 x (2880*5760 + 5760)
  // = 531,025,920 and down 32 x (2880*2880 + 2880) = 265,512,960; norms 5,760 -> 823,186,976 x 24
  // = 19,756,487,424; embed and untied head 2 x 201088*2880 = 1,158,266,880; final 2,880
  // -> 20,914,757,184 = keras-hub gpt_oss_presets.py gpt_oss_20b_en "params".
  const std::string cfg = hf_config_fixture("gpt-oss-20b.json");
  CHECK(total_of(cfg) == 20914757184);
  // 120b: 36 layers of 128 experts (router 2880*128 + 128): 3,213,080,192 x 36 + 1,158,269,760
  // = 116,829,156,672 = keras-hub gpt_oss_120b_en "params".
  // Its layer_types lists 36 layers, alternating as the 20b's 24 do.
  nlohmann::json big = nlohmann::json::parse(cfg);
  big["num_hidden_layers"] = 36;
  big["num_local_experts"] = 128;
  big["layer_types"] = nlohmann::json::array();
  for (int i = 0; i < 36; ++i) big["layer_types"].push_back(i % 2 == 0 ? "sliding_attention" : "full_attention");
  CHECK(total_of(big.dump()) == 116829156672);
}

TEST_CASE("sliding-window layers: layer_types, or the family's pattern, decides which layers slide", "[families][attention]") {
  auto groups = [](const std::string& hf_config) {
    std::vector<std::pair<std::int64_t, std::int64_t>> out;  // (layers, window)
    const TrainingSetup s = trainmem::test::setup_from(R"({"model": {"hf_config": )" + hf_config + "}}");
    for (const auto& g : s.model.architecture->layers) out.emplace_back(g.count, g.attention.sliding_window);
    return out;
  };
  using Groups = std::vector<std::pair<std::int64_t, std::int64_t>>;
  // gpt-oss-20b's layer_types: 12 "sliding_attention" (window 128) and 12 "full_attention" of 24.
  CHECK(groups(hf_config_fixture("gpt-oss-20b.json")) == Groups{{12, 128}, {12, 0}});
  // Gemma 2 without layer_types: layer i attends fully when (i + 1) % 2 == 0: 13 of 26 slide
  // (configuration_gemma2.py); Gemma 3: every sixth attends fully, 26 / 6 -> 4 full, 22 slide.
  const std::string gemma = R"({"hidden_size": 2304, "num_hidden_layers": 26, "num_attention_heads": 8, "num_key_value_heads": 4,
    "head_dim": 256, "intermediate_size": 9216, "vocab_size": 256000, "sliding_window": 4096, "model_type": ")";
  CHECK(groups(gemma + R"(gemma2"})") == Groups{{13, 4096}, {13, 0}});
  CHECK(groups(gemma + R"(gemma3_text"})") == Groups{{22, 4096}, {4, 0}});
  // Mistral-7B-v0.1 (model_type mistral, sliding_window 4096): every layer slides.
  CHECK(groups(R"({"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
    "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "sliding_window": 4096})") == Groups{{32, 4096}});
  // A layer_types entry that is neither kind, or a list that does not cover every layer, is refused.
  nlohmann::json bad = nlohmann::json::parse(hf_config_fixture("gpt-oss-20b.json"));
  bad["layer_types"][3] = "bogus";
  auto errors = parse_estimate_document(R"({"model": {"hf_config": )" + bad.dump() + "}}").errors;
  REQUIRE(errors.size() == 1);
  CHECK(errors.front().field == "model.hf_config.layer_types[3]");
  CHECK(errors.front().code == std::string("unknown_value"));
  bad["layer_types"] = {"sliding_attention", "full_attention", "sliding_attention"};
  errors = parse_estimate_document(R"({"model": {"hf_config": )" + bad.dump() + "}}").errors;
  REQUIRE(errors.size() == 1);
  CHECK(errors.front().field == "model.hf_config.layer_types");
}

TEST_CASE("gpt-oss experts and router are parameters: LoRA target_modules cannot wrap them", "[lora][families]") {
  // GptOssTopKRouter and GptOssExperts hold raw nn.Parameters (modular_gpt_oss.py), so all-linear
  // wraps q/k/v/o only: r = 8, per layer 8 x ((2880+4096) + 2 x (2880+512) + (4096+2880)) =
  // 8 x 20,736 = 165,888 x 24 = 3,981,312.
  const auto e = of(hf_config_fixture("gpt-oss-20b.json"), R"(, "method": "lora", "lora": {"r": 8, "target_modules": "all-linear"})");
  CHECK(e.parameters.trainable == 3981312);
}

TEST_CASE("Yi as first published (model_type \"Yi\"): Llama's layout", "[parameters][families]") {
  // 01-ai/Yi-34B: q,o 2 x 7168^2; k,v 2 x 7168*1024; MLP 3 x 7168*20480; norms 2 x 7168
  // -> 557,856,768 x 60 = 33,471,406,080; embed + head 2 x 64000*7168 = 917,504,000; final 7,168.
  const std::string yi34 = R"({"architectures": ["YiForCausalLM"], "model_type": "Yi", "hidden_size": 7168,
    "intermediate_size": 20480, "num_attention_heads": 56, "num_key_value_heads": 8, "num_hidden_layers": 60,
    "vocab_size": 64000, "rms_norm_eps": 1e-05, "tie_word_embeddings": false})";
  CHECK(total_of(yi34) == 34388917248);
  CHECK(within_rounding(total_of(yi34), 34e9, 1e9));  // model card: "Yi-34B" (rounded)
  // The published file itself (01-ai/Yi-34B at revision 47da718; the catalog's yi-34b preset).
  CHECK(total_of(hf_config_fixture("yi-34b.json")) == 34388917248);
  // 01-ai/Yi-6B: q,o 2 x 4096^2; k,v 2 x 4096*512 (4 KV heads); MLP 3 x 4096*11008; norms 2 x 4096
  // -> 173,023,232 x 32 = 5,536,743,424; embed + head 2 x 64000*4096 = 524,288,000; final 4,096.
  const std::string yi6 = R"({"architectures": ["YiForCausalLM"], "model_type": "Yi", "hidden_size": 4096,
    "intermediate_size": 11008, "num_attention_heads": 32, "num_key_value_heads": 4, "num_hidden_layers": 32,
    "vocab_size": 64000, "rms_norm_eps": 1e-05, "tie_word_embeddings": false})";
  CHECK(total_of(yi6) == 6061035520);
  // The Open LLM Leaderboard's request file for 01-ai/Yi-6B (datasets/open-llm-leaderboard/requests at
  // e16040594c24f024da772d61f05df32432bd7fd0): "params": 6.061 (safetensors count, billions to 3 decimals).
  CHECK(within_rounding(total_of(yi6), 6.061e9, 1e6));
  CHECK(warning_text(yi34, "generic_layout").empty());
}

TEST_CASE("Baichuan: one fused W_pack (3h), every head with its own k and v", "[parameters][families]") {
  // baichuan-inc/Baichuan-7B: W_pack 4096*12288, o_proj 4096^2, MLP 3 x 4096*11008, norms 8192
  // -> 202,383,360 x 32 = 6,476,267,520; embed + head 2 x 64000*4096 = 524,288,000; final 4,096.
  const std::string cfg = R"({"architectures": ["BaiChuanForCausalLM"], "model_type": "baichuan", "hidden_size": 4096,
    "intermediate_size": 11008, "num_attention_heads": 32, "num_hidden_layers": 32, "vocab_size": 64000,
    "rms_norm_eps": 1e-06, "tie_word_embeddings": false})";
  CHECK(total_of(cfg) == 7000559616);
  CHECK(within_rounding(total_of(cfg), 7e9, 1e9));  // model card: "Baichuan-7B" (rounded)
  // PEFT LoRA r = 8 on W_pack (its real 4096 -> 12288 shape): 32 x 8 x (4096 + 12288) = 4,194,304.
  CHECK(of(cfg, R"(, "method": "lora", "lora": {"r": 8, "target_modules": ["W_pack"]})").parameters.trainable == 4194304);
  // Baichuan 2 (ALiBi at 13B: no position parameters): 125,696-token vocabulary, the same modules.
  const auto b2 = total_of(hf_config_fixture("baichuan2-7b-chat.json"));
  CHECK(b2 == 7000559616 + 2 * (125696 - 64000) * 4096);
}

TEST_CASE("StableLM: both layouts", "[parameters][families]") {
  // stabilityai/stable-code-3b (stablelm_epoch, sequential; the shapes of stablelm-3b-4e1t): layer
  // 4 x 2560^2 + 3 x 2560*6912 + 2 LayerNorms 4 x 2560 = 79,308,800 x 32 = 2,537,881,600; embed +
  // head 2 x 50304*2560 = 257,556,480; final 5,120 -> 2,795,443,200. Its model.safetensors.index.json
  // (the same mirror as the fixture): total_size 5,590,886,400 bytes of bfloat16.
  CHECK(total_of(hf_config_fixture("stable-code-3b.json")) == 2795443200);
  CHECK(total_of(hf_config_fixture("stable-code-3b.json")) * 2 == 5590886400);
  // StableLM 2 12B (use_parallel_residual, qk_layernorm): q,o 2 x 5120^2; k,v 2 x 5120*1280; MLP
  // 3 x 5120*13824; one LayerNorm 10,240; per-head q/k norms (32 + 8) x 160 -> 277,889,280 x 40
  // = 11,115,571,200; embed + head 2 x 100352*5120 = 1,027,604,480; final 10,240.
  const std::string twelve = R"({"model_type": "stablelm", "hidden_size": 5120, "intermediate_size": 13824,
    "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 40, "vocab_size": 100352,
    "use_qkv_bias": false, "use_parallel_residual": true, "qk_layernorm": true, "tie_word_embeddings": false})";
  CHECK(total_of(twelve) == 12143185920);
  CHECK(within_rounding(total_of(twelve), 12.1e9, 0.1e9));  // model card: "12.1 billion"
  // StableLM 2 1.6B: q/k/v biases (use_qkv_bias) on the sequential layout.
  CHECK(total_of(hf_config_fixture("stablelm-2-zephyr-1_6b.json")) == 1644515328);
  CHECK(within_rounding(1644515328, 1.6e9, 0.1e9));  // model card: "1.6 billion"
}

TEST_CASE("GPT-BigCode: multi-query c_attn, learned positions, tied head", "[parameters][families]") {
  // bigcode/starcoder: c_attn 6144 x (6144 + 2*128) + 6400 = 39,327,744; c_proj 6144^2 + 6144;
  // c_fc 6144*24576 + 24576; mlp c_proj 24576*6144 + 6144; ln_1, ln_2 4 x 6144 -> x 40; wte
  // 49152*6144; wpe 8192*6144; ln_f 12,288.
  const std::string cfg = R"({"model_type": "gpt_bigcode", "n_embd": 6144, "n_head": 48, "n_inner": 24576,
    "n_layer": 40, "n_positions": 8192, "vocab_size": 49152, "multi_query": true})";
  CHECK(total_of(cfg) == 15517456384);
  CHECK(within_rounding(total_of(cfg), 15.5e9, 0.1e9));  // model card: "15.5B parameter models"
  // SantaCoder as ported to transformers: 24 layers of 2048, MQA.
  CHECK(total_of(hf_config_fixture("gpt_bigcode-santacoder.json")) == 1124886528);
}

TEST_CASE("GPT-J: parallel block, biased MLP and head", "[parameters][families]") {
  // layer: q,k,v,out 4 x 4096^2 = 67,108,864; fc_in 4096*16384 + 16384; fc_out 16384*4096 + 4096;
  // ln_1 8,192 -> 201,355,264 x 28 = 5,637,947,392; wte 50400*4096 = 206,438,400; ln_f 8,192;
  // lm_head 206,438,400 + 50,400 -> 6,050,882,784. The model card's n_parameters 6,053,381,344
  // (counted on the Mesh Transformer JAX checkpoint) is 0.04 % larger.
  const auto n = total_of(hf_config_fixture("gpt-j-6b.json"));
  CHECK(n == 6050882784);
  CHECK(std::fabs(static_cast<double>(n) - 6053381344.0) <= 0.005 * 6053381344.0);
}

TEST_CASE("InternLM2: fused wqkv with GQA", "[parameters][families]") {
  // 7B: wqkv 4096 x (4096 + 2*1024); wo 4096^2; w1, w3, w2 3 x 4096*14336; norms 8192
  // -> 218,112,000 x 32 = 6,979,584,000; embed + output 2 x 92544*4096 = 758,120,448; final 4,096.
  const auto seven = total_of(hf_config_fixture("internlm2-chat-7b.json"));
  CHECK(seven == 7737708544);
  // internlm/internlm2-chat-7b model.safetensors.index.json (the fixture's mirror): total_size
  // 15,475,417,088 bytes of bfloat16.
  CHECK(seven * 2 == 15475417088);
  // internlm/internlm2-20b: 48 layers of 6144, 48 heads, 8 kv heads, 16384 wide:
  // (75,497,472 + 12,582,912 + 301,989,888 + 12,288) x 48 + 2 x 92544*6144 + 6144.
  const std::string twenty = R"({"model_type": "internlm2", "hidden_size": 6144, "intermediate_size": 16384,
    "num_attention_heads": 48, "num_key_value_heads": 8, "num_hidden_layers": 48, "vocab_size": 92544, "bias": false})";
  CHECK(total_of(twenty) == 19861149696);
  CHECK(within_rounding(total_of(twenty), 20e9, 1e9));  // model card: "InternLM2-20B" (rounded)
  // PEFT LoRA r = 8 on wqkv (4096 -> 6144): 32 x 8 x 10240 = 2,621,440.
  CHECK(of(hf_config_fixture("internlm2-chat-7b.json"), R"(, "method": "lora", "lora": {"r": 8})").parameters.trainable == 2621440);
}

TEST_CASE("ChatGLM and GLM-4: multi-query groups, fused SwiGLU, two layouts agree", "[parameters][families]") {
  // chatglm3-6b: query_key_value 4096 x (4096 + 2*2*128) + bias 4608; dense 4096^2; dense_h_to_4h
  // 4096 x 27392; dense_4h_to_h 13696 x 4096; norms 8192 -> 203,960,832 x 28 = 5,710,903,296;
  // embedding and output_layer 2 x 65024*4096 = 532,676,608; final 4,096.
  const auto six = total_of(hf_config_fixture("chatglm3-6b.json"));
  CHECK(six == 6243584000);
  // THUDM/chatglm3-6b pytorch_model.bin.index.json (the fixture's mirror): total_size 12,487,168,064
  // bytes of float16, which also holds the buffer transformer.rotary_pos_emb.inv_freq: RotaryEmbedding
  // over kv_channels / 2 = 64 dimensions keeps 64 / 2 = 32 frequencies (modeling_chatglm.py).
  CHECK(six * 2 + 32 * 2 == 12487168064);
  CHECK(within_rounding(six, 6e9, 1e9));  // model card: "ChatGLM3-6B" (rounded)
  // GLM-4-9B as first published (chatglm) and as ported to transformers (glm): 40 layers, 151552 rows.
  const std::string remote = R"({"model_type": "chatglm", "hidden_size": 4096, "num_layers": 40, "num_attention_heads": 32,
    "kv_channels": 128, "multi_query_attention": true, "multi_query_group_num": 2, "ffn_hidden_size": 13696,
    "padded_vocab_size": 151552, "add_bias_linear": false, "add_qkv_bias": true, "rmsnorm": true, "post_layer_norm": true})";
  const std::string ported = R"({"model_type": "glm", "hidden_size": 4096, "num_hidden_layers": 40, "num_attention_heads": 32,
    "num_key_value_heads": 2, "head_dim": 128, "intermediate_size": 13696, "vocab_size": 151552, "attention_bias": true,
    "tie_word_embeddings": false})";
  CHECK(total_of(remote) == 9399951360);
  CHECK(total_of(ported) == 9399951360);
  CHECK(within_rounding(total_of(remote), 9e9, 1e9));  // model card: "GLM-4-9B" (rounded)
  // THUDM/glm-4-9b-chat's published config.json (the catalog's glm-4-9b-chat preset).
  CHECK(total_of(hf_config_fixture("glm-4-9b-chat.json")) == 9399951360);
}

TEST_CASE("Granite: Llama's modules, tied head", "[parameters][families]") {
  // ibm-granite/granite-3.0-8b-base: q,o 2 x 4096^2; k,v 2 x 4096*1024; MLP 3 x 4096*12800; norms 8192
  // -> 199,237,632 x 40 = 7,969,505,280; tied embedding 49155*4096 = 201,338,880; final 4,096.
  const std::string cfg = R"({"model_type": "granite", "hidden_size": 4096, "intermediate_size": 12800,
    "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 40, "vocab_size": 49155,
    "attention_bias": false, "mlp_bias": false, "tie_word_embeddings": true, "embedding_multiplier": 12.0})";
  CHECK(total_of(cfg) == 8170848256);
  CHECK(within_rounding(total_of(cfg), 8e9, 1e9));  // model card: "granite-3.0-8b" (rounded)
}

TEST_CASE("OLMo v1: LayerNorms without parameters, both config layouts", "[parameters][families]") {
  // allenai/OLMo-7B-hf: layer 4 x 4096^2 + 3 x 4096*11008 (no norm parameters) = 202,375,168 x 32
  // = 6,476,005,376; embed + head 2 x 50304*4096 = 412,090,368.
  const std::string hf = R"({"model_type": "olmo", "hidden_size": 4096, "intermediate_size": 11008,
    "num_attention_heads": 32, "num_key_value_heads": 32, "num_hidden_layers": 32, "vocab_size": 50304,
    "clip_qkv": null, "tie_word_embeddings": false})";
  CHECK(total_of(hf) == 6888095744);
  CHECK(within_rounding(total_of(hf), 7e9, 1e9));  // model card: "OLMo 7B" (rounded)
  // allenai/OLMo-7B as first released (hf_olmo keys): fused att_proj and ff_proj (22016 = 2 x 11008).
  const std::string first = R"({"model_type": "olmo", "d_model": 4096, "n_heads": 32, "n_layers": 32,
    "mlp_hidden_size": 22016, "vocab_size": 50280, "embedding_size": 50304, "weight_tying": false,
    "layer_norm_with_affine": false})";
  CHECK(total_of(first) == 6888095744);
}

TEST_CASE("Cohere: one LayerNorm without bias per layer, tied head, optional per-head q/k norms", "[parameters][families]") {
  // CohereForAI/c4ai-command-r-v01: 4 x 8192^2 + 3 x 8192*22528 + 8192 = 822,091,776 x 40
  // = 32,883,671,040; tied embedding 256000*8192 = 2,097,152,000; final 8,192.
  const std::string r = R"({"model_type": "cohere", "hidden_size": 8192, "intermediate_size": 22528,
    "num_attention_heads": 64, "num_key_value_heads": 64, "num_hidden_layers": 40, "vocab_size": 256000,
    "use_qk_norm": false, "logit_scale": 0.0625})";
  CHECK(total_of(r) == 34980831232);
  CHECK(within_rounding(total_of(r), 35e9, 1e9));  // model card: "35 billion"
  // The Open Arabic LLM Leaderboard's request file for CohereForAI/c4ai-command-r-v01 (datasets/OALL/
  // requests at 7a7f1a8d8c81bd6b0ee88913d2a2f276e9fd176b): "params": 34.981, the checkpoint's
  // safetensors count in billions to three decimals.
  CHECK(within_rounding(total_of(r), 34.981e9, 1e6));
  // Command R+ (use_qk_norm): q,o 2 x 12288^2; k,v 2 x 12288*1024; MLP 3 x 12288*33792; norm 12288;
  // q_norm 96 x 128; k_norm 8 x 128 -> 1,572,889,600 x 64 + 256000*12288 + 12288.
  const std::string plus = R"({"model_type": "cohere", "hidden_size": 12288, "intermediate_size": 33792,
    "num_attention_heads": 96, "num_key_value_heads": 8, "num_hidden_layers": 64, "vocab_size": 256000,
    "use_qk_norm": true})";
  CHECK(total_of(plus) == 103810674688);
  CHECK(within_rounding(total_of(plus), 104e9, 1e9));  // model card: "104 billion"
  // Aya 23 8B (cohere layout, GQA).
  CHECK(total_of(hf_config_fixture("aya-23-8b.json")) == 8028033024);
}

TEST_CASE("RoBERTa and XLM-R: BERT's encoder with their position offset and one token type", "[parameters][families]") {
  // FacebookAI/roberta-base as RobertaModel with its pooler: keras-hub's roberta_base_en "params"
  // 124,052,736 counts 512 positions, no token-type row and no pooler; add 2 x 768 (514 positions),
  // 768 (type_vocab_size 1) and the pooler 768^2 + 768 = 590,592 -> 124,645,632.
  // The fixture is roberta-base's configuration as RobertaModel.save_pretrained writes it.
  CHECK(total_of(hf_config_fixture("roberta-base.json")) == 124052736 + 2 * 768 + 768 + 590592);
  // FacebookAI/xlm-roberta-base: keras-hub xlm_roberta_base_multi 277,450,752, the same three additions.
  const std::string xlmr = R"({"model_type": "xlm-roberta", "hidden_size": 768, "intermediate_size": 3072,
    "num_attention_heads": 12, "num_hidden_layers": 12, "vocab_size": 250002, "max_position_embeddings": 514,
    "type_vocab_size": 1})";
  CHECK(total_of(xlmr) == 277450752 + 2 * 768 + 768 + 590592);
  // Position ids count from pad_token_id + 1 = 2 (modeling_roberta.py
  // create_position_ids_from_input_ids): the 514-row table holds 512 tokens, the model's documented
  // maximum; 513 is refused, as torch's index error would.
  const auto seq = [&](const std::string& config, int n) {
    return estimate_json(R"({"model": {"hf_config": )" + config + R"(}, "batch": {"seq_length": )" + std::to_string(n) + "}}");
  };
  CHECK(seq(xlmr, 512).ok);
  const auto refused = seq(xlmr, 513);
  CHECK_FALSE(refused.ok);
  CHECK_THAT(refused.json, Catch::Contains("\"field\": \"batch.seq_length\""));
  CHECK(seq(hf_config_fixture("roberta-base.json"), 512).ok);
  CHECK_FALSE(seq(hf_config_fixture("roberta-base.json"), 513).ok);
}

TEST_CASE("generic decoder: DeepSeekMoE 16B within 1 % of its card, the warning names every assumption", "[parameters][generic]") {
  // model_type "deepseek" has no layout here. Read generically: attention 4 x 2048^2; the first
  // layer dense (first_k_dense_replace 1) 3 x 2048*10944; 27 MoE layers of a router 2048*64, 64
  // experts 3 x 2048*1408 and 2 shared experts 3 x 2048*2816; norms 4096 -> 15,956,295,680 + 2 x
  // 102400*2048 + 2048 = 16,375,728,128. Model card: "16.4B parameters".
  const std::string cfg = hf_config_fixture("deepseek-moe-16b.json");
  const auto e = of(cfg);
  CHECK(e.parameters.total == 16375728128);
  CHECK(std::fabs(static_cast<double>(e.parameters.total) - 16.4e9) <= 0.01 * 16.4e9);
  const std::string w = warning_text(cfg, "generic_layout");
  CHECK_THAT(w, Catch::Contains("model_type \"deepseek\" has no family layout here"));
  CHECK_THAT(w, Catch::Contains("64 routed experts"));
  CHECK_THAT(w, Catch::Contains("16,375,728,128 parameters"));
}

TEST_CASE("generic decoder: the warning carries the layout's parameter count, for every language to word", "[parameters][generic]") {
  // A made-up model_type with 2 layers: q,k,v,o 4 x 4096^2 = 67,108,864 (no num_key_value_heads:
  // multi-head); a gated MLP (no hidden_act) 3 x 4096 x 100 = 1,228,800; two RMSNorms 2 x 4096
  // -> 68,345,856 per layer, 136,691,712 for 2; embedding and untied head 2 x 1000 x 4096 =
  // 8,192,000; final norm 4,096: 144,887,808.
  const std::string cfg = R"({"model_type": "weird_thing", "hidden_size": 4096, "num_hidden_layers": 2,
    "num_attention_heads": 32, "vocab_size": 1000, "intermediate_size": 100})";
  const std::string doc = R"({"model": {"hf_config": )" + cfg + "}}";
  double parameters = 0;
  for (const auto& w : estimate_warnings(trainmem::test::setup_from(doc), estimate_from(doc)))
    if (w.code == std::string("generic_layout"))
      for (const auto& [name, value] : w.params.values)
        if (name == "parameters") parameters = std::get<double>(value);
  CHECK(parameters == 144887808.0);
  CHECK_THAT(warning_text(cfg, "generic_layout"), Catch::Contains("144,887,808 parameters"));
}

TEST_CASE("generic decoder: InternLM (v1) 7B; the bias key is read as biases on every projection", "[parameters][generic]") {
  // model_type "internlm" has no layout here. Keys as published for internlm/internlm-7b (mlc-llm's
  // copy, model_preset.py key "internlm"). Read generically: q,k,v,o 4 x (4096^2 + 4096) =
  // 67,125,248 ("bias": true); gated MLP 3 x 4096*11008 = 135,266,304 with biases 2 x 11008 + 4096
  // = 26,112; norms 8,192 -> 202,425,856 x 32 = 6,477,627,392; embed + head 2 x 103168*4096 =
  // 845,152,256; final 4,096 -> 7,322,783,744. InternLM's own modeling_internlm.py gives the MLP no
  // bias (32 x 26,112 = 835,584 fewer, 0.01 %), which the warning lets the user see: it names the
  // bias reading. Model card: "InternLM-7B" (rounded).
  const std::string cfg = R"({"architectures": ["InternLMForCausalLM"], "bias": true, "bos_token_id": 1,
    "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
    "intermediate_size": 11008, "max_position_embeddings": 2048, "model_type": "internlm",
    "num_attention_heads": 32, "num_hidden_layers": 32, "pad_token_id": 2, "rms_norm_eps": 1e-06,
    "tie_word_embeddings": false, "torch_dtype": "float16", "transformers_version": "4.33.2",
    "use_cache": true, "vocab_size": 103168})";
  CHECK(total_of(cfg) == 7322783744);
  CHECK(within_rounding(total_of(cfg), 7e9, 1e9));
  const std::string w = warning_text(cfg, "generic_layout");
  CHECK_THAT(w, Catch::Contains("model_type \"internlm\" has no family layout here"));
  CHECK_THAT(w, Catch::Contains("bias true: q/k/v/o and the MLP projections with bias"));
  CHECK_THAT(w, Catch::Contains("7,322,783,744 parameters"));
}

TEST_CASE("generic decoder: Orion-14B; its LayerNorms are read as RMSNorm, the difference is named", "[parameters][generic]") {
  // model_type "orion" (remote code) has no layout here. Keys as published for OrionStarAI/Orion-14B
  // (mlc-llm's copy, model_preset.py key "orion"). Read generically: 4 x 5120^2 + 3 x 5120*15360 +
  // 2 x 5120 = 340,797,440 x 40 = 13,631,897,600; embed + head 2 x 84608*5120 = 866,385,920; final
  // 5,120 -> 14,498,288,640. The config gives rms_norm_eps, so the norms are read as RMSNorm (weight
  // only); Orion's modeling file uses nn.LayerNorm with bias: 81 x 5120 = 414,720 more (0.003 %).
  // Model card: "Orion-14B" (rounded).
  const std::string cfg = R"({"architectures": ["OrionForCausalLM"], "bos_token_id": 1, "eos_token_id": 2,
    "hidden_act": "silu", "hidden_size": 5120, "model_type": "orion", "initializer_range": 0.02,
    "intermediate_size": 15360, "max_position_embeddings": 4096, "max_sequence_length": 4096,
    "num_attention_heads": 40, "num_hidden_layers": 40, "num_key_value_heads": 40, "pad_token_id": 0,
    "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": null, "rope_theta": 10000.0,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.34.0",
    "use_cache": true, "vocab_size": 84608})";
  CHECK(total_of(cfg) == 14498288640);
  CHECK(within_rounding(total_of(cfg), 14e9, 1e9));
  const std::string w = warning_text(cfg, "generic_layout");
  CHECK_THAT(w, Catch::Contains("rms_norm_eps given: RMSNorm (weight only)"));
  CHECK_THAT(w, Catch::Contains("14,498,288,640 parameters"));
}

TEST_CASE("generic decoder: a missing field is named; a near miss of a known type is pointed out", "[parameters][generic][errors]") {
  const auto parsed = parse_estimate_document(R"({"model": {"hf_config": {"model_type": "lama", "hidden_size": 64,
    "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 100}}})");
  std::vector<std::string> fields;
  for (const auto& err : parsed.errors) fields.push_back(err.field);
  CHECK(std::find(fields.begin(), fields.end(), "model.hf_config.intermediate_size") != fields.end());
  bool named_near = false;
  for (const auto& err : parsed.errors)
    named_near = named_near || (err.code == "unsupported_model_type" && err.message.find("closest: \"llama\"") != std::string::npos);
  CHECK(named_near);
}

TEST_CASE("Qwen (v1): fused c_attn with bias, MLP matrices half of intermediate_size, untied head", "[parameters][families]") {
  // Qwen/Qwen-7B config.json (fixture qwen-7b, verbatim). modeling_qwen.py: c_attn 4096 x 3*(32*128)
  // + bias 12288 = 50,343,936; c_proj 4096^2 = 16,777,216 (no_bias); w1, w2 2 x 4096*(22016/2) =
  // 90,177,536; mlp c_proj 11008*4096 = 45,088,768; ln_1, ln_2 8,192 -> 202,395,648 x 32 =
  // 6,476,660,736; wte + lm_head 2 x 151936*4096 = 1,244,659,712; ln_f 4,096 -> 7,721,324,544, the
  // count calflops prints for Qwen-7B (MrYxJ/calculate-flops.pytorch README, "Qwen-7B ... 7721324544").
  CHECK(total_of(hf_config_fixture("qwen-7b.json")) == 7721324544);
  // Qwen-1.8B-Chat (2048 wide, 16 heads of 128, intermediate_size 11008, 24 layers): c_attn 2048*6144
  // + 6144 = 12,589,056; c_proj 4,194,304; w1, w2 2 x 2048*5504 = 22,544,384; mlp c_proj 5504*2048 =
  // 11,272,192; norms 4,096 -> 50,604,032 x 24 = 1,214,496,768; embed + head 2 x 151936*2048 =
  // 622,329,856; final 2,048 -> 1,836,828,672. Model card: "Qwen-1.8B" (rounded). Read as a generic
  // gated decoder it was 2.65 B (three full 11008-wide matrices per layer).
  const auto small = total_of(hf_config_fixture("qwen-1_8b-chat.json"));
  CHECK(small == 1836828672);
  CHECK(within_rounding(small, 1.8e9, 0.1e9));
  CHECK(warning_text(hf_config_fixture("qwen-1_8b-chat.json"), "generic_layout").empty());
  // LoRA r = 8 on c_attn (2048 -> 6144): 24 x 8 x (2048 + 6144) = 1,572,864.
  CHECK(of(hf_config_fixture("qwen-1_8b-chat.json"), R"(, "method": "lora", "lora": {"r": 8, "target_modules": ["c_attn"]})").parameters.trainable == 1572864);
}

TEST_CASE("OPT: learned positions with offset 2, biased LayerNorms and projections, tied head", "[parameters][families]") {
  // facebook/opt-125m: layer q,k,v,out_proj 4 x (768^2 + 768) = 2,362,368; fc1 768*3072 + 3072 =
  // 2,362,368; fc2 3072*768 + 768 = 2,360,064; two LayerNorms 4 x 768 -> 7,087,872 x 12 =
  // 85,054,464; embed_tokens 50272*768 = 38,608,896; embed_positions (2048 + 2) x 768 = 1,574,400;
  // final_layer_norm 1,536; head tied -> 125,239,296. keras-hub opt_presets.py opt_125m_en "params"
  // 125,237,760 counts 2048 position rows: add the offset's 2 x 768.
  const std::string cfg = hf_config_fixture("opt-125m.json");
  CHECK(total_of(cfg) == 125237760 + 2 * 768);
  CHECK(warning_text(cfg, "generic_layout").empty());
  // OPT-1.3B (2048 wide, 24 layers, ffn_dim 8192): keras-hub opt_1.3b_en "params" 1,315,753,984 with
  // 2048 position rows; 2 x 2048 more here.
  const std::string big = R"({"model_type": "opt", "hidden_size": 2048, "num_hidden_layers": 24, "num_attention_heads": 32,
    "ffn_dim": 8192, "vocab_size": 50272, "max_position_embeddings": 2048, "word_embed_proj_dim": 2048,
    "do_layer_norm_before": true})";
  CHECK(total_of(big) == 1315753984 + 2 * 2048);
  // facebook/opt-350m: 1024 wide, word_embed_proj_dim 512, do_layer_norm_before false (no final
  // LayerNorm). Layer 4 x (1024^2 + 1024) + 1024*4096 + 4096 + 4096*1024 + 1024 + 4 x 1024 =
  // 12,596,224 x 24 = 302,309,376; embed_tokens 50272*512 = 25,739,264; positions 2050*1024 =
  // 2,099,200; project_in and project_out 2 x 512*1024 = 1,048,576 -> 331,196,416.
  const std::string mid = R"({"model_type": "opt", "hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
    "ffn_dim": 4096, "vocab_size": 50272, "max_position_embeddings": 2048, "word_embed_proj_dim": 512,
    "do_layer_norm_before": false})";
  CHECK(total_of(mid) == 331196416);
  // PEFT's default for "opt" (q_proj, v_proj), r = 8: 12 x 2 x 8 x (768 + 768) = 294,912.
  CHECK(of(cfg, R"(, "method": "lora", "lora": {"r": 8})").parameters.trainable == 294912);
}

TEST_CASE("StarCoder2: biased projections and LayerNorms, plain MLP, tied head", "[parameters][families]") {
  // bigcode/starcoder2-7b (no tie_word_embeddings key: Starcoder2Config ties). Layer: q,o 2 x
  // (4608^2 + 4608); k,v 2 x (4608*512 + 512); c_fc 4608*18432 + 18432; c_proj 18432*4608 + 4608;
  // two LayerNorms 4 x 4608 -> 217,106,944 x 32 = 6,947,422,208; tied embedding 49152*4608 =
  // 226,492,416; final LayerNorm 9,216 -> 7,173,923,840. Model card: "7B" (rounded). The generic
  // reading had assumed an untied head (7,400,416,256).
  const std::string cfg = hf_config_fixture("starcoder2-7b.json");
  CHECK(total_of(cfg) == 7173923840);
  CHECK(within_rounding(total_of(cfg), 7e9, 1e9));
  CHECK(warning_text(cfg, "generic_layout").empty());
}

TEST_CASE("MiniCPM: Llama's modules, tied head by default, a Mixtral-style MoE variant", "[parameters][families]") {
  // openbmb/MiniCPM-2B-sft-bf16 (keys as mlc-llm's copy, model_preset.py key "minicpm_2b_sft_bf16";
  // "tie_word_embeddings": true): layer 4 x 2304^2 + 3 x 2304*5760 + 2 x 2304 = 61,051,392 x 40 =
  // 2,442,055,680 (the card's "2.4B parameters excluding embeddings"); tied embedding 122753*2304 =
  // 282,822,912; final 2,304 -> 2,724,880,896 (the card's "2.7B" in total).
  const std::string two_b = R"({"architectures": ["MiniCPMForCausalLM"], "hidden_act": "silu", "hidden_size": 2304,
    "intermediate_size": 5760, "max_position_embeddings": 4096, "model_type": "minicpm", "num_attention_heads": 36,
    "num_hidden_layers": 40, "num_key_value_heads": 36, "rms_norm_eps": 1e-05, "tie_word_embeddings": true,
    "vocab_size": 122753, "scale_emb": 12, "dim_model_base": 256, "scale_depth": 1.4})";
  CHECK(total_of(two_b) == 2724880896);
  CHECK(within_rounding(total_of(two_b) - 282822912 - 2304, 2.4e9, 0.1e9));
  CHECK(within_rounding(total_of(two_b), 2.7e9, 0.1e9));
  // Without the key the head is still tied (MiniCPMConfig: tie_word_embeddings = True).
  std::string absent = two_b;
  absent.erase(absent.find("\"tie_word_embeddings\": true,"), 28);
  CHECK(total_of(absent) == 2724880896);
  // The MoE variant (num_experts 8, 2 per token): router 2304*8 = 18,432 and 8 experts of w1, w3, w2
  // 8 x 3 x 2304*5760 = 318,504,960 in place of the MLP -> 339,761,664 x 40 = 13,590,466,560 +
  // 282,822,912 + 2,304 = 13,873,291,776.
  std::string moe = two_b;
  moe.insert(moe.size() - 1, R"(, "num_experts": 8, "num_experts_per_tok": 2)");
  CHECK(total_of(moe) == 13873291776);
}

TEST_CASE("more experts per token than experts: the value and the count of experts in params", "[families][errors]") {
  ParsedSetup parsed = parse_estimate_document(R"({"model": {"hf_config": {"model_type": "mixtral", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
    "vocab_size": 32000, "num_local_experts": 8, "num_experts_per_tok": 9}}})");
  REQUIRE(parsed.errors.size() == 1);
  const FieldError& e = parsed.errors[0];
  CHECK(e.code == "out_of_range");
  CHECK(e.field == "model.hf_config.num_experts_per_tok");
  std::map<std::string, std::string> shown;
  for (const auto& [key, value] : e.params.values)
    shown[key] = std::holds_alternative<std::string>(value) ? std::get<std::string>(value) : std::to_string(static_cast<long long>(std::get<double>(value)));
  CHECK(shown["value"] == "9");
  CHECK(shown["max"] == "8");
}

TEST_CASE("LoRA on a model_type without PEFT default targets: the targets assumed are named in a warning", "[lora][families][warnings]") {
  // PEFT's TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING (utils/constants.py) has no entry for
  // internlm2 (remote code): a LoraConfig without target_modules is refused there. The estimate
  // assumes the fused wqkv, as the InternLM2 test above counts it, and says so.
  const auto warning = [](const std::string& extra) {
    const std::string doc = R"({"model": {"hf_config": )" + hf_config_fixture("internlm2-chat-7b.json") + R"(}, "method": "lora")" + extra + "}";
    for (const auto& w : estimate_warnings(trainmem::test::setup_from(doc), estimate_from(doc)))
      if (w.code == "lora_targets_assumed") return w;
    return Warning{};
  };
  const Warning assumed = warning("");
  CHECK(assumed.code == "lora_targets_assumed");
  CHECK(assumed.message.find("\"internlm2\"") != std::string::npos);
  CHECK(assumed.message.find("[wqkv]") != std::string::npos);
  // Targets given: nothing is assumed.
  CHECK(warning(R"(, "lora": {"target_modules": ["wqkv", "wo"]})").code.empty());
  // Llama has PEFT defaults (q_proj, v_proj): no warning.
  const std::string llama = R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora"})";
  for (const auto& w : estimate_warnings(trainmem::test::setup_from(llama), estimate_from(llama)))
    CHECK(w.code != "lora_targets_assumed");
}
