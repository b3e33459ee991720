// The built-in catalogs: every preset's count against its published figure, and load validation.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "trainmem/catalog.hpp"
#include "trainmem/json_api.hpp"

using namespace trainmem;

TEST_CASE("the built-in catalog loads without errors", "[catalog]") {
  const Catalog& c = builtin_catalog();
  for (const auto& e : c.errors) FAIL_CHECK(e.message);
  CHECK(c.models.size() >= 100);
  CHECK(c.gpus.size() >= 25);
}

TEST_CASE("a preset read alone is the whole catalog's entry", "[catalog]") {
  // builtin_model(id) parses catalog/models/<id>.json only: each entry must be the one the whole
  // catalog's parse holds, field for field where it matters to an estimate (the imported
  // architecture, counted here, and the stored config and figures). The GPUs: gpu_table_test.cpp.
  const Catalog& all = builtin_catalog();
  for (const auto& m : all.models) {
    CAPTURE(m.id);
    const ModelPreset* alone = builtin_model(m.id);
    REQUIRE(alone != nullptr);
    CHECK(alone->hf_config_json == m.hf_config_json);
    CHECK(alone->architecture.total_params() == m.architecture.total_params());
    CHECK(alone->architecture.active_params() == m.architecture.active_params());
    CHECK(alone->published_total == m.published_total);
    CHECK(alone->seq_length == m.seq_length);
    CHECK(alone->param_dtype == m.param_dtype);
    CHECK(builtin_model(m.id) == alone);  // parsed once
  }
  CHECK(builtin_model("no-such-model") == nullptr);
  CHECK(builtin_model("../gpus/h100-sxm-80gb") == nullptr);
}

TEST_CASE("every preset reproduces its published parameter count", "[catalog]") {
  for (const auto& m : builtin_catalog().models) {
    CAPTURE(m.id, m.published_source, m.published_scope);
    const auto counted = m.architecture.total_params();
    if (m.published_exact) {
      CHECK(counted == m.published_total);
    } else {
      // A rounded headline figure ("6.7B", "175B"): within 0.5%, or within the rounding of the
      // figure itself (half a unit of its last stated digit) when that is wider.
      const double published = static_cast<double>(m.published_total);
      double unit = 1;
      while (std::fmod(published, unit * 10) == 0) unit *= 10;
      const double tolerance = std::max(0.005 * published, unit / 2);
      CHECK(std::fabs(static_cast<double>(counted) - published) <= tolerance);
    }
  }
}

TEST_CASE("multimodal presets keep the published text-only figure beside the whole checkpoint", "[catalog]") {
  int multimodal = 0;
  for (const auto& m : builtin_catalog().models) {
    if (!m.architecture.vision) continue;
    ++multimodal;
    CAPTURE(m.id);
    // The whole checkpoint is published_parameters.total (above); the language model alone is the
    // text_model figure, and the vision tower and projector make up the difference.
    REQUIRE(m.published_text_total);
    CHECK(m.architecture.text_params() == *m.published_text_total);
    CHECK(m.architecture.total_params() - m.architecture.text_params() == m.architecture.vision->total_params());
  }
  CHECK(multimodal >= 3);
}

TEST_CASE("malformed catalog entries name the file and the field", "[catalog][errors]") {
  const Catalog c = parse_catalog({
      {"models/bad.json", R"({"id": "bad", "hf_config": {"model_type": "llama"}, "published_parameters": {"total": 5}})"},
      {"gpus/neg.json", R"({"id": "neg", "memory": {"value": 80, "unit": "GB", "bytes": -5}})"},
      {"gpus/broken.json", "{"},
  });
  CHECK(c.models.empty());
  CHECK(c.gpus.empty());
  bool model_field = false, gpu_field = false, broken = false;
  for (const auto& e : c.errors) {
    CHECK(e.code == "invalid_catalog");
    model_field = model_field || e.field == "models/bad.json: hf_config.hidden_size";
    gpu_field = gpu_field || e.field == "gpus/neg.json: memory.bytes";
    broken = broken || e.field == "gpus/broken.json";
  }
  CHECK(model_field);
  CHECK(gpu_field);
  CHECK(broken);
}

TEST_CASE("a preset's hf_aliases must be a list of ids, and an alias finds its preset like its hf_id", "[catalog][errors]") {
  const std::string config = R"("hf_config": {"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 128}, "published_parameters": {"total": 5})";
  const Catalog bad = parse_catalog({{"models/a.json", R"({"id": "a", "hf_aliases": "org/old-name", )" + config + "}"}});
  bool named = false;
  for (const auto& e : bad.errors) named = named || e.field == "models/a.json: hf_aliases";
  CHECK(named);
  const Catalog good = parse_catalog({{"models/a.json", R"({"id": "a", "hf_id": "org/new-name", "hf_aliases": ["org/old-name"], )" + config + "}"}});
  REQUIRE(good.models.size() == 1);
  CHECK(good.models[0].hf_aliases == std::vector<std::string>{"org/old-name"});
  // The built-in Llama 3.1 presets carry their names from before Meta's rename.
  const auto* l8 = builtin_catalog().find_model("llama-3.1-8b");
  REQUIRE(l8);
  CHECK(l8->hf_aliases == std::vector<std::string>{"meta-llama/Meta-Llama-3.1-8B"});
}

TEST_CASE("a GPU's default price is one of its hyperscaler on-demand offers", "[catalog][errors]") {
  // The default is what the cheapest-GPU answer, a run's cost and tokens per dollar compare: a
  // specialist cloud's or a reserved price as the default would set one GPU's hyperscaler rate
  // against another's discount. Prices per GPU-hour, USD.
  const auto gpu = [](const std::string& id, const std::string& price, const std::string& offer) {
    return R"({"id": ")" + id + R"(", "memory": {"value": 80, "unit": "GB", "bytes": 80000000000},
               "price_per_gpu_hour_usd": )" + price + R"(, "prices": [)" + offer + "]}";
  };
  const std::string aws = R"({"usd_per_gpu_hour": 6.88, "kind": "on_demand", "provider_type": "hyperscaler",
                              "provider": "AWS", "read_on": "2026-11-09", "source": "https://example.org/aws"})";
  const std::string runpod = R"({"usd_per_gpu_hour": 2.89, "kind": "on_demand", "provider_type": "specialist",
                                 "provider": "RunPod", "read_on": "2026-11-09", "source": "https://example.org/runpod"})";
  const std::string reserved = R"({"usd_per_gpu_hour": 1.85, "kind": "reserved", "provider_type": "hyperscaler",
                                   "provider": "AWS", "read_on": "2026-11-09", "source": "https://example.org/aws"})";
  const Catalog c = parse_catalog({
      {"gpus/hyperscaler.json", gpu("hyperscaler", "6.88", aws + ", " + runpod)},
      {"gpus/specialist.json", gpu("specialist", "2.89", aws + ", " + runpod)},
      {"gpus/reserved.json", gpu("reserved", "1.85", reserved)},
      {"gpus/unlisted.json", gpu("unlisted", "5.0", aws)},
      {"gpus/unpriced.json", gpu("unpriced", "null", runpod)},
  });
  std::set<std::string> refused;
  for (const auto& e : c.errors) {
    CHECK(e.code == "invalid_catalog");
    refused.insert(e.field);
  }
  CHECK(refused == std::set<std::string>{"gpus/specialist.json: price_per_gpu_hour_usd", "gpus/reserved.json: price_per_gpu_hour_usd",
                                         "gpus/unlisted.json: price_per_gpu_hour_usd"});
  REQUIRE(c.find_gpu("hyperscaler"));
  CHECK(*c.find_gpu("hyperscaler")->price_per_gpu_hour_usd == 6.88);
  REQUIRE(c.find_gpu("unpriced"));
  CHECK_FALSE(c.find_gpu("unpriced")->price_per_gpu_hour_usd);
  CHECK(c.find_gpu("unpriced")->prices.size() == 1);
}

TEST_CASE("a catalog file that is not JSON says where, and a mistyped required field is not also called missing", "[catalog][errors]") {
  const Catalog c = parse_catalog({
      // The comma before '}' is the 11th character, so the parser stops at column 12.
      {"gpus/comma.json", R"({"id": "x",})"},
      // A double cannot hold 1e400: JSON's grammar allows it, the reader cannot.
      {"gpus/huge.json", R"({"id": "huge", "bf16_dense_tflops": 1e400})"},
      {"gpus/text.json", R"({"id": "text", "memory": {"value": 80, "unit": "GB", "bytes": "85899345920"}})"},
      {"models/half.json", R"({"id": "half", "hf_config": {}, "published_parameters": {"total": 2.5}})"},
  });
  CHECK(c.gpus.empty());
  std::vector<std::string> messages;
  for (const auto& e : c.errors) messages.push_back(e.message);
  CAPTURE(messages);
  const auto has = [&](const std::string& text) {
    return std::any_of(messages.begin(), messages.end(), [&](const std::string& m) { return m.find(text) != std::string::npos; });
  };
  CHECK(has("gpus/comma.json: not valid JSON: parse error at line 1, column 12"));
  CHECK(has("gpus/huge.json: not valid JSON: number overflow parsing '1e400'"));
  CHECK(has("gpus/text.json: memory.bytes must be an integer"));
  CHECK_FALSE(has("gpus/text.json: memory.bytes is missing"));
  CHECK_FALSE(has("gpus/text.json: memory.bytes (a positive integer) is missing"));
  CHECK(has("models/half.json: published_parameters.total"));
  CHECK_FALSE(has("models/half.json: published_parameters.total is missing"));
}

TEST_CASE("pasting a preset's config.json gives the preset's count", "[catalog]") {
  for (const auto& m : builtin_catalog().models) {
    CAPTURE(m.id);
    const ParsedSetup pasted = parse_estimate_document(R"({"model": {"hf_config": )" + m.hf_config_json + "}}");
    REQUIRE(pasted.errors.empty());
    CHECK(pasted.setup.model.num_parameters == m.architecture.total_params());
  }
}

TEST_CASE("unknown preset and GPU ids suggest the closest", "[catalog][errors]") {
  const auto model = parse_estimate_document(R"({"model": {"preset": "llama-3.1-8"}})").errors;
  REQUIRE(model.size() == 1);
  CHECK(model[0].code == "unknown_preset");
  CHECK_THAT(model[0].message, Catch::Contains("did you mean \"llama-3.1-8b\""));
  const auto gpu = parse_estimate_document(R"({"model": {"num_parameters": 1e9}, "gpu": "h100-sxm-80"})").errors;
  REQUIRE(gpu.size() == 1);
  CHECK(gpu[0].code == "unknown_gpu");
  CHECK_THAT(gpu[0].message, Catch::Contains("did you mean \"h100-sxm-80gb\""));
}

TEST_CASE("unknown ids suggest the entry a user meant, never a different model or GPU", "[catalog][errors]") {
  // Each pair: what a new user typed, and the catalog entry they meant.
  auto suggested = [](const std::string& doc) {
    const auto errors = parse_estimate_document(doc).errors;
    REQUIRE(errors.size() == 1);
    for (const auto& [key, value] : errors[0].params.values)
      if (key == "suggestion") return std::get<std::string>(value);
    return std::string();
  };
  auto preset = [&](const std::string& id) { return suggested(R"({"model": {"preset": ")" + id + R"("}})"); };
  auto gpu = [&](const std::string& id) { return suggested(R"({"model": {"num_parameters": 1e9}, "gpu": ")" + id + R"("})"); };
  CHECK(preset("meta-llama/Llama-3.1-8B") == "llama-3.1-8b");  // its Hugging Face id
  CHECK(preset("llama-3.1-8b-instruct") == "llama-3.1-8b");    // the base of an instruct model
  CHECK(gpu("h200") == "h200-141gb");
  CHECK(gpu("rtx4090") == "rtx-4090-24gb");
  CHECK(gpu("quantum-9000").empty());
}

TEST_CASE("an id that names several catalog entries lists them all and picks none", "[catalog][errors]") {
  // "h100" is four GPUs in the catalog (NVL 94 GB, PCIe 80 GB, SXM 80 GB, SXM 96 GB): memory from
  // 80 to 96 GB and different speeds, so a pick would decide the verdict for the user.
  auto error = [](const std::string& gpu) {
    const auto errors = parse_estimate_document(R"({"model": {"num_parameters": 1e9}, "gpu": ")" + gpu + R"("})").errors;
    REQUIRE(errors.size() == 1);
    return errors[0];
  };
  auto param = [](const FieldError& e, const std::string& key) {
    for (const auto& [k, v] : e.params.values)
      if (k == key) return std::get<std::string>(v);
    return std::string();
  };
  const FieldError h100 = error("h100");
  CHECK(param(h100, "candidates") == R"("h100-nvl-94gb", "h100-sxm-80gb", "h100-sxm-96gb", "h100-pcie-80gb")");
  CHECK(param(h100, "suggestion").empty());
  CHECK_THAT(h100.message, Catch::Contains(R"(it names several: "h100-nvl-94gb", "h100-sxm-80gb")"));
  CHECK(param(error("h100-80gb"), "candidates") == R"("h100-sxm-80gb", "h100-pcie-80gb")");  // not a100-80gb
  CHECK(param(error("H100-SXM"), "candidates") == R"("h100-sxm-80gb", "h100-sxm-96gb")");
  // Both Mistral 7B releases (vocabulary 32,000 and 32,768), not mixtral-8x7b, a 46.7 B MoE.
  const auto mistral = parse_estimate_document(R"({"model": {"preset": "mistral-7b"}})").errors;
  REQUIRE(mistral.size() == 1);
  CHECK(param(mistral[0], "candidates") == R"("mistral-7b-v0.1", "mistral-7b-v0.3")");
  // More than eight are cut: "llama" is every Llama preset, of three generations.
  const auto llama = parse_estimate_document(R"({"model": {"preset": "llama"}})").errors;
  REQUIRE(llama.size() == 1);
  CHECK(llama[0].code == "unknown_preset");
  CHECK_THAT(param(llama[0], "candidates"), Catch::Matches(R"(("llama-[^"]*", ){7}"llama-[^"]*" and [0-9]+ more)"));
}

TEST_CASE("every family layout has a preset in the catalog", "[catalog]") {
  // One model_type per family file of engine/src/architectures/ (aliases such as mistral or mt5 share
  // a file with one listed here).
  std::set<std::string> types;
  for (const auto& m : builtin_catalog().models) types.insert(m.architecture.model_type);
  for (const char* t : {"llama", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2", "gemma3_text", "phi3",
                        "phi", "olmo", "olmo2", "deepseek_v2", "deepseek_v3", "gpt2", "gpt_bigcode", "gptj", "gpt_neox", "RefinedWebModel",
                        "bloom", "baichuan", "internlm2", "chatglm", "stablelm", "cohere", "gpt_oss", "granite", "Yi", "bert", "qwen", "opt", "starcoder2", "minicpm",
                        "roberta", "xlm-roberta", "t5", "mpt"}) {
    CAPTURE(t);
    CHECK(types.count(t) == 1);
  }
}

TEST_CASE("a module exposed as several devices is priced per device, as one process sees it", "[catalog]") {
  // AMD MI250X: the 128 GB module is two GCDs, each its own ROCm device; rocminfo reports a pool of
  // 67,092,480 KB per GCD = 67,092,480 x 1024 = 68,702,699,520 bytes (ROCm/ROCm issue 4208). One rank
  // runs on one GCD, so the engine compares a process's peak with 64 GiB, not 128, and a node of 4
  // modules holds 8 ranks. Peak bf16 383 TFLOP/s per module = 191.5 per GCD.
  const GpuEntry* g = builtin_catalog().find_gpu("mi250x-128gb");
  REQUIRE(g != nullptr);
  CHECK(g->spec.memory_bytes == 68719476736);  // 64 GiB as labelled; the measured pool below is compared
  CHECK(g->spec.device_total_bytes == 68702699520);
  CHECK(g->spec.gpus_per_node == 8);
  CHECK(g->bf16_dense_tflops == 191.5);
  // Model states between 64 and 128 GiB do not fit on one GCD: 5e9 parameters of full fine-tuning
  // with Adam and fp32 masters hold 16 bytes each = 80e9 bytes (the 16-byte rule of ZeRO, Rajbhandari
  // et al. 2020, section 3.1), above 68.7e9 and below the module's 137.4e9.
  const auto out = estimate_json(R"({"model": {"num_parameters": 5e9}, "gpu": "mi250x-128gb"})");
  const auto doc = nlohmann::json::parse(out.json);
  CHECK(doc["per_gpu"]["model_states"].get<double>() == 80e9);
  CHECK(doc["gpu_capacity_bytes"].get<double>() == 68702699520.0);
  CHECK(doc["fits"] == false);
}

TEST_CASE("every GPU's memory bytes are its labelled value in its unit", "[catalog]") {
  // memory.value x (2^30 for GiB, 10^9 for GB) == memory.bytes; a measured figure that differs
  // (rocminfo's pool, nvidia-smi's total) belongs in device_total_bytes with its source.
  for (const auto& g : builtin_catalog().gpus) {
    CAPTURE(g.spec.id);
    const auto raw = nlohmann::json::parse(g.raw_json);
    const double unit = raw["memory"]["unit"] == "GiB" ? 1073741824.0 : 1e9;
    CHECK(raw["memory"]["value"].get<double>() * unit == static_cast<double>(g.spec.memory_bytes));
  }
}
