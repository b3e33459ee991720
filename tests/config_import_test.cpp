// trainmem import: every fixture under tests/fixtures/configs/<format>/ (real example configs from
// the frameworks' repositories, stored verbatim) against the estimate document written by hand in
// that folder's expected.json from the framework's documentation and source; then the edges
// (YAML 1.1 scalars, command lines, malformed files, conflicts) one by one.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "config_files.hpp"
#include "trainmem/config_import.hpp"
#include "trainmem/json_api.hpp"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using trainmem::ConfigValue;

const fs::path kConfigs = fs::path(TRAINMEM_SOURCE_DIR) / "tests" / "fixtures" / "configs";

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

json as_json(const ConfigValue& v) { return json::parse(trainmem::config_value_json(v)); }

// Loads files by path, named by their file names (as provenance cites them).
std::vector<trainmem::ConfigFile> load(const fs::path& folder, const std::vector<std::string>& names) {
  std::vector<trainmem::ConfigFile> files;
  for (const auto& n : names) {
    const fs::path p = folder / n;
    trainmem::Errors errors;
    auto f = trainmem::cli::load_config_file(p.filename().string(), read_text(p), errors);
    INFO(trainmem::error_document(errors));
    REQUIRE(f);
    files.push_back(*f);
  }
  return files;
}

bool has_key(const std::vector<trainmem::ImportNote>& notes, const std::string& key) {
  for (const auto& n : notes) if (n.key == key) return true;
  return false;
}

std::string origin_of(const trainmem::ImportResult& r, const std::string& field) {
  for (const auto& o : r.provenance) if (o.field == field) return o.origin;
  return "";
}

// Every top-level key of every structured file is accounted for: mapped (named in a provenance
// origin), ignored, unmodelled or unresolved. Nothing the user wrote disappears.
void check_every_key_reported(const std::vector<trainmem::ConfigFile>& files, const trainmem::ImportResult& r) {
  for (const auto& f : files) {
    if (f.text || !f.content.is_object() || f.content.find("model_type")) continue;
    for (const auto& [key, value] : f.content.as_object()) {
      const std::string k = f.name + ":" + key;
      bool found = false;
      auto starts = [&](const std::string& s) { return s == k || s.rfind(k + ".", 0) == 0; };
      for (const auto* list : {&r.ignored, &r.unmodelled, &r.unresolved})
        for (const auto& n : *list) found = found || starts(n.key);
      for (const auto& o : r.provenance) {
        const std::string& origin = o.origin;
        found = found || origin.find(k + " ") != std::string::npos || origin.find(k + ".") != std::string::npos ||
                (origin.size() >= k.size() && origin.compare(origin.size() - k.size(), k.size(), k) == 0) ||
                origin.find(k + ";") != std::string::npos;
      }
      INFO("key " << k << " is neither mapped, ignored, unmodelled nor unresolved");
      CHECK(found);
    }
  }
}

}  // namespace

TEST_CASE("every trainer-config fixture maps to its hand-written document", "[import]") {
  std::size_t cases = 0;
  for (const auto& entry : fs::directory_iterator(kConfigs)) {
    if (!entry.is_directory() || !fs::exists(entry.path() / "expected.json")) continue;
    const json manifest = json::parse(read_text(entry.path() / "expected.json"));
    for (const auto& c : manifest.at("cases")) {
      ++cases;
      DYNAMIC_SECTION(entry.path().filename().string() << ": " << c.at("name").get<std::string>()) {
        REQUIRE(c.contains("source"));
        for (const auto& s : c.at("source")) {
          CHECK(s.contains("repository"));
          CHECK(s.at("commit").get<std::string>().size() == 40);
        }
        const auto files = load(entry.path(), c.at("files").get<std::vector<std::string>>());
        trainmem::ImportOptions options;
        if (c.contains("model")) options.model_preset = c.at("model").get<std::string>();
        const auto r = trainmem::import_configs(files, trainmem::builtin_catalog(), options);
        if (c.contains("error")) {
          const json& e = c.at("error");
          bool matched = false;
          for (const auto& err : r.errors) {
            if (err.code != e.at("code") || err.field != e.at("field")) continue;
            matched = true;
            for (const auto& m : e.at("mentions")) CHECK(err.message.find(m.get<std::string>()) != std::string::npos);
          }
          INFO(trainmem::error_document(r.errors));
          CHECK(matched);
          continue;
        }
        INFO(trainmem::error_document(r.errors));
        REQUIRE(r.errors.empty());
        // Field by field: the same fields, the same values (2 and 2.0 are equal).
        const json got = as_json(r.document);
        const json want = c.at("document");
        const json got_flat = got.flatten(), want_flat = want.flatten();
        for (const auto& [path, value] : want_flat.items()) {
          INFO("field " << path);
          REQUIRE(got_flat.contains(path));
          CHECK(got_flat.at(path) == value);
        }
        for (const auto& [path, value] : got_flat.items()) {
          INFO("field " << path << " = " << value.dump() << " is not in the hand-written document");
          CHECK(want_flat.contains(path));
        }
        if (c.contains("provenance"))
          for (const auto& [field, origin] : c.at("provenance").items()) CHECK(origin_of(r, field) == origin.get<std::string>());
        for (const char* list : {"ignored", "unmodelled", "unresolved"}) {
          if (!c.contains(list)) continue;
          const auto& notes = std::string(list) == "ignored" ? r.ignored : std::string(list) == "unmodelled" ? r.unmodelled : r.unresolved;
          for (const auto& k : c.at(list)) {
            INFO(list << " should hold " << k);
            CHECK(has_key(notes, k.get<std::string>()));
          }
        }
        if (c.contains("not_unresolved"))
          for (const auto& k : c.at("not_unresolved")) CHECK_FALSE(has_key(r.unresolved, k.get<std::string>()));
        check_every_key_reported(files, r);
        // A document with a model is a valid estimate document.
        if (got.contains("model")) {
          const auto estimate = trainmem::estimate_json(got.dump());
          INFO(estimate.json);
          CHECK(estimate.ok);
        }
      }
    }
  }
  CHECK(cases >= 20);
}

TEST_CASE("a full fine-tune under the HF Trainer with a bitsandbytes optimizer keeps no fp32 master copy", "[import]") {
  // axolotl examples/llama-3/fft-8b.yaml: bf16 weights, optimizer paged_adamw_8bit. bitsandbytes'
  // optimizer updates the bf16 weights in place, like torch's: no master copy. Llama-3.1-8B,
  // P = 8,030,261,248 parameters, every tensor a multiple of 256 elements and none under
  // bitsandbytes' min_8bit_size (4,096), so two 1-byte moments and one fp32 absmax per 256-element
  // block each: 2 (1 + 4/256) = 2.03125 B/param, 16,311,468,160 B; weights and gradients 2P each
  // (16,060,522,496 B); model states 48,432,513,152 B (an fp32 master would add 4P = 32,121,044,992).
  const auto dir = fs::path(kConfigs) / "axolotl";
  trainmem::ImportOptions options;
  options.model_preset = "llama-3.1-8b";
  const auto r = trainmem::import_configs(load(dir, {"llama3_fft_8b.yaml"}), trainmem::builtin_catalog(), options);
  REQUIRE(r.errors.empty());
  const json out = json::parse(trainmem::estimate_json(as_json(r.document).dump()).json);
  CHECK(out.at("bytes_per_param").at("optimizer").get<double>() == 2.03125);
  CHECK(out.at("per_gpu").at("optimizer_states").get<std::int64_t>() == 16311468160);
  CHECK(out.at("per_gpu").at("parameters").get<std::int64_t>() == 16060522496);
  CHECK(out.at("per_gpu").at("gradients").get<std::int64_t>() == 16060522496);
  CHECK(out.at("per_gpu").at("model_states").get<std::int64_t>() == 48432513152);
}

TEST_CASE("YAML scalars follow PyYAML's YAML 1.1 rules", "[import][yaml]") {
  using trainmem::cli::yaml11_plain_scalar;
  // PyYAML 6.0 yaml.safe_load, checked by hand against yaml/resolver.py's regular expressions.
  CHECK(yaml11_plain_scalar("yes") == ConfigValue(true));
  CHECK(yaml11_plain_scalar("Off") == ConfigValue(false));
  CHECK(yaml11_plain_scalar("on") == ConfigValue(true));
  CHECK(yaml11_plain_scalar("y") == ConfigValue("y"));            // YAML 1.1 spec has y/n; PyYAML does not
  CHECK(yaml11_plain_scalar("5e-5") == ConfigValue("5e-5"));      // no dot: a string, the classic trap
  CHECK(yaml11_plain_scalar("1.0e5") == ConfigValue("1.0e5"));    // exponent without a sign: a string
  CHECK(yaml11_plain_scalar("2.0e-5") == ConfigValue(2.0e-5));
  CHECK(yaml11_plain_scalar("1_000") == ConfigValue(std::int64_t{1000}));
  CHECK(yaml11_plain_scalar("010") == ConfigValue(std::int64_t{8}));   // leading zero: octal
  CHECK(yaml11_plain_scalar("0x1F") == ConfigValue(std::int64_t{31}));
  // 0x1 then 16 hex zeros is 16^16 = 2^64: beyond 2^53, a number as a JSON reader keeps it.
  CHECK(yaml11_plain_scalar("0x1_0000_0000_0000_0000") == ConfigValue(18446744073709551616.0));
  // No digits: PyYAML raises (int('', 16)); read as 0, as "0b_" is, and never an abort.
  CHECK(yaml11_plain_scalar("0x_") == ConfigValue(std::int64_t{0}));
  CHECK(yaml11_plain_scalar("1:30") == ConfigValue(std::int64_t{90}));  // base 60
  CHECK(yaml11_plain_scalar("08") == ConfigValue("08"));
  CHECK(yaml11_plain_scalar("~").is_null());
  CHECK(yaml11_plain_scalar("").is_null());
  CHECK(yaml11_plain_scalar(".5") == ConfigValue(0.5));
  // Beyond a double's range: PyYAML's float("2.0e-320") is the subnormal 2.0e-320, float("1.0e-400")
  // 0.0 and float("1.0e+400") inf (kept as written, as .inf is); std::stod threw and aborted the CLI.
  CHECK(yaml11_plain_scalar("2.0e-320") == ConfigValue(2.0e-320));
  CHECK(yaml11_plain_scalar("-1.0e-400") == ConfigValue(-0.0));
  CHECK(yaml11_plain_scalar("1_0.0_1e-400") == ConfigValue(0.0));
  CHECK(yaml11_plain_scalar("1.0e+400") == ConfigValue("1.0e+400"));
  CHECK(yaml11_plain_scalar("2026-01-02") == ConfigValue("2026-01-02"));

  trainmem::Errors errors;
  auto v = trainmem::cli::parse_yaml("a: 'yes'\nb: yes\nc: \"5\"\nd: 5\nbase: &b {x: 1}\ne:\n  <<: *b\n  y: 2\n", "t.yaml", errors);
  REQUIRE(v);
  CHECK(*v->find("a") == ConfigValue("yes"));  // quoted: always a string
  CHECK(*v->find("b") == ConfigValue(true));
  CHECK(*v->find("c") == ConfigValue("5"));
  CHECK(*v->find("d") == ConfigValue(std::int64_t{5}));
  CHECK(*v->at_path("e.x") == ConfigValue(std::int64_t{1}));  // merge key
}

TEST_CASE("malformed files name the file, line and column", "[import][errors]") {
  trainmem::Errors errors;
  CHECK_FALSE(trainmem::cli::load_config_file("bad.yaml", "a: 1\nb: [1, 2\nc: 3\n", errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].code == "invalid_yaml");
  CHECK(errors[0].message.rfind("bad.yaml:", 0) == 0);
  // The line and column are JSON integers in the params ("line": 3, not 3.0: docs/api.md, Errors).
  const json yaml_params = json::parse(trainmem::error_document(errors))["error"]["params"];
  CHECK(yaml_params.at("line").is_number_integer());
  CHECK(yaml_params.at("column").is_number_integer());
  errors.clear();
  CHECK_FALSE(trainmem::cli::load_config_file("bad.json", "{\n  \"a\": 1,\n  \"b\" 2\n}", errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].code == "invalid_json");
  CHECK(errors[0].message.find("line 3, column") != std::string::npos);
  errors.clear();
  CHECK_FALSE(trainmem::cli::load_config_file("bad.toml", "[job]\nname = \n", errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].code == "invalid_toml");
  CHECK(errors[0].message.rfind("bad.toml:2:", 0) == 0);
  // Nesting past yaml-cpp's own recursion guard (which calls it "bad file"): named as nesting, with
  // the line and column where the parser stopped. 600 nested flow sequences on line 1.
  errors.clear();
  CHECK_FALSE(trainmem::cli::load_config_file("deep.yaml", "a: " + std::string(600, '[') + std::string(600, ']') + "\n", errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].code == "invalid_yaml");
  CHECK(errors[0].message.rfind("deep.yaml:1:", 0) == 0);
  CHECK(errors[0].message.find("nests deeper than 64 levels") != std::string::npos);
  errors.clear();
  // Aliases that would expand without bound are refused.
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'h'; ++c)
    bomb += std::string(1, c) + ": &" + c + " [*" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) +
            ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + "]\n";
  CHECK_FALSE(trainmem::cli::load_config_file("bomb.yaml", bomb, errors));
  REQUIRE(errors.total() == 1);
  CHECK(errors[0].code == "invalid_yaml");
  // A second document is refused, as PyYAML's safe_load and the page refuse it, not dropped: its
  // content starts on line 5.
  errors.clear();
  CHECK_FALSE(trainmem::cli::load_config_file("two.yaml", "base_model: x\nmicro_batch_size: 2\nsequence_len: 2048\n---\nmicro_batch_size: 99\n", errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].code == "invalid_yaml");
  CHECK(errors[0].message.rfind("two.yaml:5:1: the stream holds a second YAML document", 0) == 0);
  // One document that opens with "---" is one document.
  errors.clear();
  CHECK(trainmem::cli::load_config_file("one.yaml", "---\na: 1\n", errors));
  CHECK(errors.empty());
  // A comma where no value can start stalls yaml-cpp 0.7's document loop (each call reports one
  // more empty document at the same place): it is refused at its line, and the call returns.
  for (const std::string text : {",", "\"\",", "[1],"}) {
    errors.clear();
    CHECK_FALSE(trainmem::cli::load_config_file("comma.yaml", text, errors));
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].code == "invalid_yaml");
  }
  errors.clear();
  CHECK_FALSE(trainmem::cli::load_config_file("comma.yaml", "[1],", errors));
  CHECK(errors[0].message.rfind("comma.yaml:1:1: no YAML value can start here", 0) == 0);
}

TEST_CASE("two files that disagree are reported with both sources", "[import][conflict]") {
  trainmem::Errors errors;
  auto ds = trainmem::cli::load_config_file("ds.json", R"({"train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 2}})", errors);
  auto args = trainmem::cli::load_config_file("args.yaml", "model_name_or_path: meta-llama/Llama-3.1-8B\nper_device_train_batch_size: 2\n", errors);
  REQUIRE(ds);
  REQUIRE(args);
  const auto r = trainmem::import_configs({*ds, *args}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].code == "conflicting_values");
  CHECK(r.errors[0].field == "batch.micro_batch_size");
  CHECK(r.errors[0].message.find("ds.json:train_micro_batch_size_per_gpu says 4") != std::string::npos);
  CHECK(r.errors[0].message.find("args.yaml:per_device_train_batch_size says 2") != std::string::npos);
}

TEST_CASE("a config of no framework the import reads is refused as such, not guessed", "[import][errors]") {
  trainmem::Errors errors;
  auto other = trainmem::cli::load_config_file("x.yaml", "foo: 1\n", errors);
  REQUIRE(other);
  auto r = trainmem::import_configs({*other}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].code == "unknown_config_format");
}

TEST_CASE("launch scripts: variables, arrays and continuations resolve; unknown variables are reported", "[import][shell]") {
  trainmem::ConfigFile f;
  f.name = "run.sh";
  f.text = R"(#!/bin/bash
GPUS=4
ARGS=(
  --per_device_train_batch_size 2   # two sequences per GPU
  --gradient_accumulation_steps "$STEPS"
)
MODEL="meta-llama/Llama-3.1-8B"
torchrun --nproc_per_node $GPUS --nnodes=${NNODES:-1} train_sft.py \
  --model_name_or_path ${MODEL} "${ARGS[@]}" --bf16 --max_length=4096
)";
  const auto r = trainmem::import_configs({f}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  const json doc = as_json(r.document);
  CHECK(doc.at("model").at("preset") == "llama-3.1-8b");
  CHECK(doc.at("parallel").at("world_size") == 4);  // --nproc_per_node 4 x --nnodes ${NNODES:-1}
  CHECK(doc.at("batch").at("micro_batch_size") == 2);
  CHECK(doc.at("batch").at("seq_length") == 4096);
  CHECK(doc.at("precision").at("compute_dtype") == "bf16");
  CHECK(origin_of(r, "batch.micro_batch_size") == "read from run.sh:--per_device_train_batch_size");
  // $STEPS is never set: the field it would set is unresolved (absent, no default in its place).
  CHECK(has_key(r.unresolved, "batch.gradient_accumulation_steps"));
  CHECK(origin_of(r, "batch.gradient_accumulation_steps") == "unresolved: run.sh:--gradient_accumulation_steps $STEPS");
  CHECK_FALSE(doc.at("batch").contains("gradient_accumulation_steps"));
}

TEST_CASE("the WASM request gives the CLI's answer", "[import][wasm]") {
  const fs::path folder = kConfigs / "accelerate";
  const auto files = load(folder, {"accelerate_deepspeed.yaml"});
  json request;
  request["files"] = json::array({{{"name", "accelerate_deepspeed.yaml"}, {"content", as_json(files[0].content)}},
                                  {{"name", "zero_stage1_config.json"}, {"text", read_text(kConfigs / "deepspeed" / "zero_stage1_config.json")}}});
  const auto wasm = trainmem::import_json(request.dump());
  const auto cli_files = [&] {
    auto f = files;
    auto ds = load(kConfigs / "deepspeed", {"zero_stage1_config.json"});
    f.push_back(ds[0]);
    return f;
  }();
  const auto cli = trainmem::import_files_json(cli_files, {}, false);
  REQUIRE(wasm.ok);
  CHECK(json::parse(wasm.json) == json::parse(cli.json));
  // document_only: both refuse these files alone (the JSON's micro-batch is "auto" and no trainer's
  // file fills it), with the same errors.
  request["document_only"] = true;
  const auto wasm_only = trainmem::import_json(request.dump());
  CHECK_FALSE(wasm_only.ok);
  CHECK(json::parse(wasm_only.json) == json::parse(trainmem::import_files_json(cli_files, {}, true).json));
  // Files that leave no field open (an accelerate config and the TRL command line it launches,
  // which sets the sequence length): the document alone is the full answer's document.
  auto run = load(folder, {"trl_deepspeed_zero3.yaml"});
  run.push_back(load(kConfigs / "trl", {"trl_sft_lora.sh"})[0]);
  json alone;
  alone["files"] = json::array({{{"name", "trl_deepspeed_zero3.yaml"}, {"content", as_json(run[0].content)}},
                                {{"name", "trl_sft_lora.sh"}, {"text", read_text(kConfigs / "trl" / "trl_sft_lora.sh")}}});
  alone["document_only"] = true;
  const auto wasm_document = trainmem::import_json(alone.dump());
  REQUIRE(wasm_document.ok);
  CHECK(json::parse(wasm_document.json) == json::parse(trainmem::import_files_json(run, {}, false).json).at("document"));
}

TEST_CASE("a file that is not UTF-8 is refused where its first bad byte is", "[import][errors]") {
  // Well-formed UTF-8 (Unicode 15, Table 3-7): two-, three- and four-byte sequences pass.
  trainmem::Errors errors;
  CHECK(trainmem::cli::load_config_file("ok.yaml", "run_name: \"caf\xC3\xA9 \xE4\xB8\xAD \xF0\x9F\x98\x80\"\n", errors));
  CHECK(errors.empty());
  // Each ill-formed kind, at line 2, column 6 (after "b: \"x"), with its first byte named.
  const std::pair<const char*, const char*> kBad[] = {
      {"\xC6\"", "0xC6"},              // a lead byte without its continuation
      {"\xC0\xAF\"", "0xC0"},          // overlong form of '/'
      {"\xED\xA0\x80\"", "0xED"},      // a UTF-16 surrogate (U+D800)
      {"\xF4\x90\x80\x80\"", "0xF4"},  // above U+10FFFF
      {"\xFF\"", "0xFF"},              // never in UTF-8
  };
  for (const auto& [bad, shown] : kBad) {
    for (const std::string name : {"f.json", "f.yaml", "f.toml", "f.sh"}) {
      errors.clear();
      const std::string text = std::string("a: 1\nb: \"x") + bad + "\n";
      CHECK_FALSE(trainmem::cli::load_config_file(name, text, errors));
      REQUIRE(errors.size() == 1);
      CHECK(errors[0].code == "invalid_encoding");
      CHECK(errors[0].message == name + ":2:6: byte " + shown + " is not UTF-8; save the file as UTF-8");
    }
  }
  // A sequence cut off by the end of the file.
  errors.clear();
  CHECK_FALSE(trainmem::cli::load_config_file("cut.yaml", "a: \xE4\xB8", errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message == "cut.yaml:1:4: byte 0xE4 is not UTF-8; save the file as UTF-8");
  // An error message that quotes such bytes is still written: U+FFFD (EF BF BD) in their place.
  const std::string doc = trainmem::error_document({{"invalid_json", "x.json", "x.json: near \"\xC6\""}});
  CHECK(doc.find("near \\\"\xEF\xBF\xBD\\\"") != std::string::npos);
}

TEST_CASE("DeepSpeed bf16.enabled \"auto\": the trainer's flag fills it, and DeepSpeed then casts the model", "[import][deepspeed]") {
  trainmem::Errors errors;
  auto ds = trainmem::cli::load_config_file(
      "ds.json", R"({"bf16": {"enabled": "auto"}, "zero_optimization": {"stage": 2}, "train_micro_batch_size_per_gpu": "auto"})", errors);
  REQUIRE(ds);
  auto command = [](const std::string& flags) {
    trainmem::ConfigFile f;
    f.name = "run.sh";
    f.text = "torchrun --nproc_per_node 8 train.py --model_name_or_path meta-llama/Llama-3.1-8B --deepspeed ds.json " + flags + "\n";
    return f;
  };
  // --bf16: transformers fills bf16.enabled = args.bf16 = true; DeepSpeed's bf16 section then casts
  // the weights to bf16 (an explicit true reads the same way).
  auto r = trainmem::import_configs({*ds, command("--bf16")}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  json doc = as_json(r.document);
  CHECK(doc.at("precision").at("param_dtype") == "bf16");
  CHECK(doc.at("precision").at("compute_dtype") == "bf16");
  CHECK(origin_of(r, "precision.param_dtype").rfind("read from ds.json:bf16.enabled (\"auto\" filled from run.sh:--bf16", 0) == 0);
  CHECK_FALSE(has_key(r.unresolved, "ds.json:bf16.enabled"));
  // --bf16 false fills bf16.enabled = false: no cast, the weights stay as loaded.
  r = trainmem::import_configs({*ds, command("--bf16 false")}, trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  doc = as_json(r.document);
  CHECK(doc.at("precision").value("param_dtype", "") != "bf16");
  // The DeepSpeed file alone: nothing fills it.
  r = trainmem::import_configs({*ds}, trainmem::builtin_catalog());
  CHECK(has_key(r.unresolved, "ds.json:bf16.enabled"));
}

TEST_CASE("DeepSpeed's deprecated boolean zero_optimization: true is stage 1, false stage 0", "[import][deepspeed]") {
  // deepspeed/runtime/zero/config.py at edaa722, read_zero_config_deprecated: stage = 1 if the
  // value is true else 0 (DeepSpeed's docs/_tutorials/getting-started.md still shows the form).
  for (const auto& [value, stage] : {std::pair{"true", 1}, std::pair{"false", 0}}) {
    trainmem::Errors errors;
    auto ds = trainmem::cli::load_config_file(
        "ds.json", std::string(R"({"train_micro_batch_size_per_gpu": 2, "bf16": {"enabled": true}, "zero_optimization": )") + value + "}", errors);
    REQUIRE(ds);
    const auto r = trainmem::import_configs({*ds}, trainmem::builtin_catalog());
    INFO(trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    CHECK(as_json(r.document).at("parallel").at("zero_stage") == stage);
  }
}

TEST_CASE("A DeepSpeed section with enabled false, or without enabled, leaves the model in fp32", "[import][deepspeed]") {
  // deepspeed/runtime/precision_config.py: fp16 and bf16 "enabled" default to False, and
  // engine.py keeps torch.float32 unless one is on (DeepSpeed's tests/model/BingBertSquad
  // deepspeed_bsz24_fp32_config.json states "fp16": {"enabled": false}).
  for (const char* text : {R"({"train_micro_batch_size_per_gpu": 3, "fp16": {"enabled": false}})",
                           R"({"train_micro_batch_size_per_gpu": 3, "fp16": {"loss_scale": 0}, "bf16": {"enabled": false}})"}) {
    CAPTURE(text);
    trainmem::Errors errors;
    auto ds = trainmem::cli::load_config_file("ds.json", text, errors);
    REQUIRE(ds);
    const auto r = trainmem::import_configs({*ds}, trainmem::builtin_catalog());
    REQUIRE(r.errors.empty());
    CHECK(as_json(r.document).at("precision").at("param_dtype") == "fp32");
  }
}

TEST_CASE("the HF Trainer's bf16/fp16 in front of DeepSpeed: a missing section is added, a stated one must agree", "[import][deepspeed]") {
  // transformers training_args.py __post_init__ turns --bf16 / --fp16 into accelerate's mixed
  // precision (ACCELERATE_MIXED_PRECISION); accelerate 16cb6eb utils/dataclasses.py
  // DeepSpeedPlugin.set_mixed_precision adds {"bf16": {"enabled": true}} (fp16: {"enabled": true,
  // "auto_cast": true}) to a DeepSpeed config without that section, and DeepSpeed v0.19.5
  // runtime/engine.py _configure_distributed_model casts the parameters to it, the optimizer
  // keeping fp32 masters. transformers integrations/deepspeed.py trainer_config_process
  // fill_match("bf16.enabled", args.bf16) fills only "auto" and collects a stated value that
  // differs, which trainer_config_finalize raises.
  trainmem::Errors errors;
  auto ds_file = [&](const std::string& text) {
    auto f = trainmem::cli::load_config_file("ds.json", text, errors);
    REQUIRE(f);
    return *f;
  };
  const auto no_section = ds_file(R"({"zero_optimization": {"stage": 2}, "train_micro_batch_size_per_gpu": "auto"})");
  const auto bf16_on = ds_file(R"({"bf16": {"enabled": true}, "zero_optimization": {"stage": 2}, "train_micro_batch_size_per_gpu": "auto"})");
  auto command = [](const std::string& flags, const std::string& script = "sft.py") {
    trainmem::ConfigFile f;
    f.name = "run.sh";
    f.text = "torchrun --nproc_per_node 8 " + script + " --model_name_or_path meta-llama/Llama-3.1-8B --deepspeed ds.json " + flags + "\n";
    return f;
  };
  auto resolved = [](const json& doc) {
    const json e = json::parse(trainmem::estimate_json(doc.dump()).json);
    return e.at("resolved");
  };
  // --bf16 with no bf16 section: bf16 weights (not fp32 under autocast), fp32 masters and states.
  auto r = trainmem::import_configs({no_section, command("--bf16")}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  json doc = as_json(r.document);
  CHECK(doc.at("precision").at("param_dtype") == "bf16");
  CHECK(doc.at("precision").at("compute_dtype") == "bf16");
  CHECK(origin_of(r, "precision.param_dtype").find("DeepSpeedPlugin.set_mixed_precision") != std::string::npos);
  CHECK(origin_of(r, "precision.param_dtype").rfind("read from run.sh:--bf16 with ds.json", 0) == 0);
  json res = resolved(doc);
  CHECK(res.at("precision.master_weights").at("value") == true);
  CHECK(res.at("precision.optimizer_state_dtype").at("value") == "fp32");
  // --fp16 likewise, in fp16.
  r = trainmem::import_configs({no_section, command("--fp16")}, trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(as_json(r.document).at("precision").at("param_dtype") == "fp16");
  // Neither flag on (--bf16 false; the script is read as TRL's, whose bf16 defaults to not fp16):
  // accelerate's mixed precision is "no", nothing is added, and DeepSpeed trains in fp32.
  r = trainmem::import_configs({no_section, command("--bf16 false")}, trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(as_json(r.document).at("precision").value("param_dtype", "fp32") == "fp32");
  // A stated bf16.enabled: true with the trainer's bf16 off is refused by the HF Trainer: an error
  // naming the DeepSpeed key, never a silent pick of either.
  r = trainmem::import_configs({bf16_on, command("--bf16 false")}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].code == std::string("inconsistent"));
  CHECK(r.errors[0].field == "ds.json:bf16.enabled");
  // ... and agrees with --bf16, or with TRL's default bf16 (sft.py), not with a plain Trainer's
  // default bf16 = False (a script of its own, train.py).
  r = trainmem::import_configs({bf16_on, command("")}, trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  r = trainmem::import_configs({bf16_on, command("", "train.py")}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].field == "ds.json:bf16.enabled");
  r = trainmem::import_configs({bf16_on, command("--bf16")}, trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(as_json(r.document).at("precision").at("param_dtype") == "bf16");
  // DeepSpeed alone (its own loop, no trainer flag): no section means fp32 training.
  r = trainmem::import_configs({no_section}, trainmem::builtin_catalog());
  CHECK(as_json(r.document).at("precision").value("param_dtype", "") == "fp32");
  // An axolotl YAML that reads its own bf16: false already disagrees with bf16.enabled: true on the
  // compute dtype: one error, not two.
  auto axolotl = trainmem::cli::load_config_file("axolotl.yaml", "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nsequence_len: 2048\nbf16: false\ndeepspeed: ds.json\n", errors);
  REQUIRE(axolotl);
  r = trainmem::import_configs({*axolotl, bf16_on}, trainmem::builtin_catalog());
  CHECK(r.errors.size() == 1);
  // axolotl's bf16 "auto" (on for bf16 GPUs) with no bf16 section: bf16 weights.
  axolotl = trainmem::cli::load_config_file("axolotl.yaml", "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nsequence_len: 2048\ndeepspeed: ds.json\n", errors);
  REQUIRE(axolotl);
  r = trainmem::import_configs({*axolotl, no_section}, trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(as_json(r.document).at("precision").at("param_dtype") == "bf16");
}

TEST_CASE("a named file given under another path: the only other file of its kind is read in its place, and said so", "[import]") {
  // An axolotl YAML names deepspeed_configs/zero2.json; the user gives the JSON they saved as z3.json.
  // Every given file is read as a file of its own, so the note must not say its settings are not
  // read (it did); with two unnamed JSON files beside it, which one the YAML meant is not known.
  trainmem::Errors errors;
  auto yaml = trainmem::cli::load_config_file("ax.yaml", "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nsequence_len: 2048\n"
                                                         "deepspeed: deepspeed_configs/zero2.json\n", errors);
  auto z3 = trainmem::cli::load_config_file("z3.json", R"({"zero_optimization": {"stage": 3}})", errors);
  auto z2 = trainmem::cli::load_config_file("z2.json", R"({"zero_optimization": {"stage": 2}})", errors);
  REQUIRE((yaml && z3 && z2));
  auto r = trainmem::import_configs({*yaml, *z3}, trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(as_json(r.document).at("parallel").at("zero_stage") == 3);
  CHECK_FALSE(has_key(r.unresolved, "ax.yaml:deepspeed"));
  REQUIRE(has_key(r.ignored, "ax.yaml:deepspeed"));
  for (const auto& n : r.ignored)
    if (n.key == "ax.yaml:deepspeed") CHECK(n.reason.find("z3.json, the only other such file given, is read in its place") != std::string::npos);
  r = trainmem::import_configs({*yaml, *z3, *z2}, trainmem::builtin_catalog());
  CHECK(has_key(r.unresolved, "ax.yaml:deepspeed"));
}

TEST_CASE("a DeepSpeed train_batch_size that the GPUs and accumulation do not divide is an error, never rounded", "[import][deepspeed][errors]") {
  // deepspeed/runtime/config.py _batch_assertion: train_batch_size = micro-batch x accumulation x
  // GPUs. 64 over 4 accumulation steps x 6 GPUs (24 per micro-batch row) leaves 64 / 24 = 2.67:
  // no whole micro-batch; 48 gives micro-batch 2.
  trainmem::Errors errors;
  auto command = [] {
    trainmem::ConfigFile f;
    f.name = "run.sh";
    f.text = "torchrun --nproc_per_node 6 train.py --model_name_or_path meta-llama/Llama-3.1-8B --deepspeed ds.json\n";
    return f;
  };
  auto ds = trainmem::cli::load_config_file("ds.json", R"({"train_batch_size": 64, "gradient_accumulation_steps": 4, "zero_optimization": {"stage": 2}})", errors);
  REQUIRE(ds);
  auto r = trainmem::import_configs({*ds, command()}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].code == "inconsistent");
  CHECK(r.errors[0].message.find("ds.json:train_batch_size = 64 is not a multiple of accumulation 4 x 6 GPUs = 24") != std::string::npos);
  ds = trainmem::cli::load_config_file("ds.json", R"({"train_batch_size": 48, "gradient_accumulation_steps": 4, "zero_optimization": {"stage": 2}})", errors);
  REQUIRE(ds);
  r = trainmem::import_configs({*ds, command()}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(as_json(r.document).at("batch").at("micro_batch_size") == 2);
  // Without a GPU count: 7 is no multiple of micro-batch 2 x accumulation 4 = 8, whatever the count.
  ds = trainmem::cli::load_config_file("ds.json", R"({"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4,
    "train_batch_size": 7, "zero_optimization": {"stage": 3}})", errors);
  REQUIRE(ds);
  r = trainmem::import_configs({*ds}, trainmem::builtin_catalog());
  REQUIRE_FALSE(r.errors.empty());
  CHECK(r.errors[0].code == "inconsistent");
  CHECK(r.errors[0].message.find("ds.json:train_batch_size = 7 is not a multiple of micro-batch 2 x accumulation 4 = 8") != std::string::npos);
}

TEST_CASE("a ZeRO-3 config with no GPU count lists the GPU count as unresolved", "[import][deepspeed]") {
  // ZeRO-3 divides the model states by the data-parallel GPUs; a DeepSpeed JSON names no GPU count.
  const auto files = load(kConfigs / "deepspeed", {"zero_stage3_config.json"});
  trainmem::ImportOptions options;
  options.model_preset = "qwen2.5-0.5b";
  const auto r = trainmem::import_configs(files, trainmem::builtin_catalog(), options);
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(has_key(r.unresolved, "parallel.world_size"));
}

TEST_CASE("DeepSpeed refuses a key its ZeRO config does not define; so does the import", "[import][deepspeed][errors]") {
  trainmem::Errors errors;
  auto typo = trainmem::cli::load_config_file("ds.json", R"({"zero_optimization": {"stgae": 3}})", errors);
  REQUIRE(typo);
  auto r = trainmem::import_configs({*typo}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].code == "unknown_field");
  CHECK(r.errors[0].field == "ds.json:zero_optimization.stgae");
  CHECK(r.errors[0].message.find("did you mean \"stage\"?") != std::string::npos);
  // A field name accepted beside its stage3_ alias (zero/config.py: populate_by_name).
  auto alias = trainmem::cli::load_config_file("ds.json", R"({"zero_optimization": {"stage": 3, "max_live_parameters": 3e8}})", errors);
  REQUIRE(alias);
  r = trainmem::import_configs({*alias}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(as_json(r.document).at("parallel").at("zero3_max_live_parameters") == 3e8);
}

TEST_CASE("Megatron-LM's other entry points and a script with its own flags are named, never read as TrainingArguments", "[import][errors]") {
  // pretrain_bert.py builds BERT, not the GPT decoder whose arguments are read.
  trainmem::ConfigFile bert;
  bert.name = "train_bert.sh";
  bert.text = "torchrun --nproc_per_node 8 pretrain_bert.py --tensor-model-parallel-size 2 --micro-batch-size 4\n";
  auto r = trainmem::import_configs({bert}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].code == "unknown_config_format");
  CHECK(r.errors[0].message == "train_bert.sh:1: a Megatron-LM pretrain_bert.py command line; this import reads pretrain_gpt.py's arguments");

  trainmem::ConfigFile custom;
  custom.name = "run.sh";
  custom.text = "python my_train.py --batch_size 16 --seq_len 8192 --lora_rank 64\n";
  r = trainmem::import_configs({custom}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].code == "unknown_config_format");
  CHECK(r.errors[0].message.find("my_train.py is given no flag this import reads") != std::string::npos);
}

namespace {

trainmem::ImportResult import_text(const std::string& name, const std::string& text) {
  trainmem::ConfigFile f;
  f.name = name;
  f.text = text;
  return trainmem::import_configs({f}, trainmem::builtin_catalog());
}

// A YAML or JSON file's text parsed as the CLI parses it (cli/config_files.cpp), then imported.
trainmem::ImportResult import_file_text(const std::string& name, const std::string& text) {
  trainmem::Errors errors;
  auto f = trainmem::cli::load_config_file(name, text, errors);
  REQUIRE(f);
  return trainmem::import_configs({*f}, trainmem::builtin_catalog());
}

// parameters.total of the estimate of an imported document.
double estimated_parameters(const trainmem::ImportResult& r) {
  const auto estimate = trainmem::estimate_json(as_json(r.document).dump());
  INFO(estimate.json);
  REQUIRE(estimate.ok);
  return json::parse(estimate.json).at("parameters").at("total").get<double>();
}

}  // namespace

TEST_CASE("Megatron-LM flags under any script name are read as Megatron-LM's, never as TrainingArguments", "[import][megatron]") {
  // --tensor-model-parallel-size, --micro-batch-size, --seq-length read as TrainingArguments would
  // all be ignored and the HF defaults (micro-batch 8, no checkpointing) would stand in silently.
  const auto r = import_text("train_gpt.sh", "torchrun --nproc_per_node 8 my_pretrain.py --tensor-model-parallel-size 2 "
                                             "--micro-batch-size 4 --global-batch-size 64 --seq-length 4096 --recompute-activations --bf16\n");
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  const json doc = as_json(r.document);
  CHECK(doc.at("framework") == "megatron");
  CHECK(doc.at("parallel").at("tensor_parallel_size") == 2);
  CHECK(doc.at("batch").at("micro_batch_size") == 4);
  // 8 GPUs / TP 2 = 4 data-parallel ranks; 64 / (4 x 4) = 4 micro-batches per step.
  CHECK(doc.at("batch").at("gradient_accumulation_steps") == 4);
  CHECK(doc.at("activation_checkpointing") == "selective");  // arguments.py: --recompute-activations
  CHECK(doc.at("precision").at("grad_dtype") == "fp32");     // bf16 reduces gradients in fp32
  // No architecture arguments: the model cannot be built, and says why.
  CHECK_FALSE(doc.contains("model"));
  CHECK(has_key(r.unresolved, "train_gpt.sh:(architecture)"));
}

TEST_CASE("a bare Megatron-LM argument line: variables from the environment are unresolved, never guessed", "[import][megatron][shell]") {
  auto r = import_text("args.txt", "--num-layers ${NUM_LAYERS} --hidden-size 4096 --num-attention-heads 32 --seq-length 4096 "
                                   "--max-position-embeddings 4096 --swiglu --normalization RMSNorm --position-embedding-type rope "
                                   "--disable-bias-linear --vocab-size 32000 --tokenizer-type NullTokenizer --micro-batch-size 2 "
                                   "--global-batch-size 256 --save $CHECKPOINT_PATH\n");
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(has_key(r.unresolved, "args.txt:--num-layers"));
  CHECK(has_key(r.unresolved, "args.txt:--save"));
  // No launcher: the GPU count is unknown, so the accumulation count is too.
  CHECK(has_key(r.unresolved, "args.txt:--global-batch-size"));
  CHECK_FALSE(as_json(r.document).contains("model"));

  // The same line with the layers given builds Llama's layout. --ffn-hidden-size is absent: with
  // --swiglu Megatron takes int(4 x 4096 x 2/3 / 64) x 64 = int(170.67) x 64 = 10880
  // (arguments.py); --kv-channels absent: 4096 / 32 = 128.
  r = import_text("args.txt", "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 4096 "
                              "--max-position-embeddings 4096 --swiglu --normalization RMSNorm --position-embedding-type rope "
                              "--disable-bias-linear --vocab-size 32000 --tokenizer-type NullTokenizer --hidden-dropout 0 "
                              "--micro-batch-size 2\n");
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  const json config = as_json(r.document).at("model").at("hf_config");
  CHECK(config.at("model_type") == "llama");
  CHECK(config.at("intermediate_size") == 10880);
  CHECK(config.at("head_dim") == 128);
  CHECK(config.at("num_key_value_heads") == 32);  // no --group-query-attention: one group per head
  CHECK(config.at("attention_bias") == false);
  CHECK(config.at("tie_word_embeddings") == true);
  CHECK_FALSE(has_key(r.unmodelled, "args.txt:--hidden-dropout"));
  // Without --hidden-dropout 0, Megatron's residual dropout (0.1) has no place in Llama's layout:
  // listed, not dropped in silence.
  r = import_text("args.txt", "--num-layers 2 --hidden-size 256 --num-attention-heads 4 --seq-length 64 --max-position-embeddings 64 "
                              "--swiglu --normalization RMSNorm --position-embedding-type rope --vocab-size 1000 --tokenizer-type NullTokenizer\n");
  REQUIRE(r.errors.empty());
  CHECK(has_key(r.unmodelled, "args.txt:--hidden-dropout"));
  // Megatron's default biases (no --disable-bias-linear): Llama's attention_bias and mlp_bias.
  CHECK(as_json(r.document).at("model").at("hf_config").at("mlp_bias") == true);
}

TEST_CASE("Megatron-LM: a global batch the micro-batches and data-parallel ranks do not divide is an error naming both", "[import][megatron][errors]") {
  // 16 GPUs / (TP 2 x PP 2) = 4 data-parallel ranks; micro-batch 3 x 4 = 12 does not divide 100.
  const auto r = import_text("run.sh", "torchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py --tensor-model-parallel-size 2 "
                                       "--pipeline-model-parallel-size 2 --micro-batch-size 3 --global-batch-size 100\n");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].code == "not_divisible");
  CHECK(r.errors[0].message.find("--global-batch-size 100") != std::string::npos);
  CHECK(r.errors[0].message.find("--micro-batch-size 3") != std::string::npos);
  CHECK(r.errors[0].message.find("data parallel 4") != std::string::npos);
}

TEST_CASE("Megatron-LM uneven pipeline stages and virtual stages become pipeline_layers", "[import][megatron]") {
  // 30 layers over 4 stages: first 6, last 6, the 2 middle stages 18 / 2 = 9 each
  // (transformer_block.py get_num_layers_to_build).
  auto r = import_text("run.sh", "torchrun --nproc_per_node 8 pretrain_gpt.py --pipeline-model-parallel-size 4 --num-layers 30 "
                                 "--decoder-first-pipeline-num-layers 6 --decoder-last-pipeline-num-layers 6\n");
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(as_json(r.document).at("parallel").at("pipeline_layers") == json::array({6, 9, 9, 6}));
  // 32 layers, 4 stages, 2 layers per virtual stage: 8 per stage, 4 virtual stages of 2.
  r = import_text("run.sh", "torchrun --nproc_per_node 8 pretrain_gpt.py --pipeline-model-parallel-size 4 --num-layers 32 "
                            "--num-layers-per-virtual-pipeline-stage 2 --recompute-granularity full --recompute-method block "
                            "--recompute-num-layers 1\n");
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  const json doc = as_json(r.document);
  CHECK(doc.at("parallel").at("virtual_pipeline_stages") == 4);
  CHECK(doc.at("parallel").at("pipeline_schedule") == "interleaved_1f1b");
  // block: the first layer of each of the 4 x 4 = 16 model chunks is recomputed.
  CHECK(doc.at("checkpointed_layers") == 16);
}

TEST_CASE("Megatron-LM's embedding and loss counted in the pipeline split become pipeline_layers", "[import][megatron]") {
  // 30 layers + embedding + loss = 32 units over 4 stages, 8 each; the first stage builds 8 - 1
  // layers (embedding), the last 8 - 1 (loss): 7, 8, 8, 7 (transformer_block.py get_num_layers_to_build).
  const std::string line = "torchrun --nproc_per_node 8 pretrain_gpt.py --pipeline-model-parallel-size 4 --num-layers 30 ";
  auto r = import_text("run.sh", line + "--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split\n");
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(as_json(r.document).at("parallel").at("pipeline_layers") == json::array({7, 8, 8, 7}));
  CHECK(origin_of(r, "parallel.pipeline_layers").find("account-for-embedding-in-pipeline-split") != std::string::npos);
  // The embedding alone: 31 units do not divide over 4 stages, as Megatron-LM asserts.
  r = import_text("run.sh", line + "--account-for-embedding-in-pipeline-split\n");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].code == "not_divisible");
  // 34 layers + loss = 35 over 5 stages: 7 each, the last 6.
  r = import_text("run.sh", "torchrun --nproc_per_node 5 pretrain_gpt.py --pipeline-model-parallel-size 5 --num-layers 34 "
                            "--account-for-loss-in-pipeline-split\n");
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(as_json(r.document).at("parallel").at("pipeline_layers") == json::array({7, 7, 7, 7, 6}));
  // Not with the first/last stage counts (transformer_block.py asserts).
  r = import_text("run.sh", line + "--decoder-first-pipeline-num-layers 6 --decoder-last-pipeline-num-layers 6 "
                                   "--account-for-embedding-in-pipeline-split\n");
  REQUIRE_FALSE(r.errors.empty());
  CHECK(r.errors[r.errors.size() - 1].code == "inconsistent");
}

TEST_CASE("Megatron-LM --tp-comm-overlap becomes parallel.tp_comm_overlap", "[import][megatron]") {
  const auto r = import_text("run.sh", "torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 4 "
                                       "--sequence-parallel --tp-comm-overlap\n");
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  const json doc = as_json(r.document);
  CHECK(doc.at("parallel").at("tp_comm_overlap") == true);
  CHECK(doc.at("parallel").at("sequence_parallel") == true);
}

TEST_CASE("Megatron-LM GPT-3 175B: the model Megatron builds, counted by hand", "[import][megatron]") {
  // examples/gpt3/train_gpt3_175b_distributed.sh as stored starts 8 GPUs (NUM_NODES=1) for
  // TP 8 x PP 16 = 128: Megatron-LM asserts the world size is a multiple (the fixture's case).
  // Given its 16 nodes, the import reads the run.
  std::string text = read_text(kConfigs / "megatron" / "train_gpt3_175b_distributed.sh");
  const auto at = text.find("NUM_NODES=1\n");
  REQUIRE(at != std::string::npos);
  text.replace(at, 12, "NUM_NODES=16\n");
  const auto r = import_text("train_gpt3_175b_distributed.sh", text);
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  const json doc = as_json(r.document);
  CHECK(doc.at("parallel").at("world_size") == 128);
  // Data parallel 128 / (8 x 16) = 1: 1536 / (1 x 1) = 1536 micro-batches per step.
  CHECK(doc.at("batch").at("gradient_accumulation_steps") == 1536);
  CHECK(doc.at("model").at("hf_config").at("model_type") == "gpt2");
  // Megatron's GPT (LayerNorm with bias, learned positions, biases, MLP 4h, tied output layer):
  // per layer qkv 3h^2 + 3h, proj h^2 + h, fc1 4h^2 + 4h, fc2 4h^2 + h, two LayerNorms 4h
  // = 12h^2 + 13h; h = 12288: 12 x 150994944 + 159744 = 1812099072; x 96 = 173961510912.
  // Vocabulary 50257 (GPT2BPETokenizer) padded to a multiple of 128 x TP 8 = 1024: 51200 rows;
  // embedding 51200 x 12288 = 629145600; positions 2048 x 12288 = 25165824; final LayerNorm 2h.
  // 173961510912 + 629145600 + 25165824 + 24576 = 174615846912.
  CHECK(estimated_parameters(r) == 174615846912.0);
}

TEST_CASE("Megatron-LM Mixtral on 4 nodes: accumulation, experts, and a vocabulary the tokenizer file holds", "[import][megatron]") {
  std::string text = read_text(kConfigs / "megatron" / "train_mixtral_8x7b_distributed.sh");
  const std::string nodes = "NNODES=${SLURM_NNODES:-\"1\"}";
  REQUIRE(text.find(nodes) != std::string::npos);
  text.replace(text.find(nodes), nodes.size(), "NNODES=4");
  auto r = import_text("train_mixtral_8x7b_distributed.sh", text);
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  json doc = as_json(r.document);
  // 8 x 4 = 32 GPUs; data parallel 32 / (TP 1 x PP 4) = 8; 256 / (1 x 8) = 32 micro-batches.
  // The expert grid, expert TP 1 x EP 8 x PP 4 = 32, fills the 32 GPUs.
  CHECK(doc.at("parallel").at("world_size") == 32);
  CHECK(doc.at("parallel").at("expert_parallel_size") == 8);
  CHECK(doc.at("batch").at("gradient_accumulation_steps") == 32);
  // Llama2Tokenizer reads its vocabulary from --tokenizer-model $2: asked for, never guessed.
  CHECK_FALSE(doc.contains("model"));
  CHECK(has_key(r.unresolved, "train_mixtral_8x7b_distributed.sh:--tokenizer-type"));
  CHECK(has_key(r.unmodelled, "train_mixtral_8x7b_distributed.sh:--moe-token-dispatcher-type"));

  // With the vocabulary stated (Mixtral's tokenizer has 32000 tokens), the model is Mixtral's
  // layout: per layer 8 experts x 3 x 4096 x 14336 = 1409286144, router 8 x 4096 = 32768,
  // attention 2 x 4096^2 + 2 x 4096 x 1024 = 41943040, two RMSNorms 8192: 1451270144; x 32 =
  // 46440644608. Vocabulary 32000 (a multiple of 128 x TP 1): embedding and output layer
  // 2 x 32000 x 4096 = 262144000; final norm 4096. Total 46702792704, Mixtral-8x7B's count.
  const std::string tokenizer = "--tokenizer-model ${TOKENIZER_MODEL}";
  REQUIRE(text.find(tokenizer) != std::string::npos);
  text.replace(text.find(tokenizer), tokenizer.size(), tokenizer + " --vocab-size 32000");
  r = import_text("train_mixtral_8x7b_distributed.sh", text);
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  doc = as_json(r.document);
  CHECK(doc.at("model").at("hf_config").at("model_type") == "mixtral");
  CHECK(doc.at("model").at("hf_config").at("num_experts_per_tok") == 2);  // --moe-router-topk 2
  CHECK(estimated_parameters(r) == 46702792704.0);
}

TEST_CASE("Megatron-LM 345M with TP 2 and Llama-3 8B: parameter counts by hand", "[import][megatron]") {
  // pretrain_gpt_distributed_with_mp.sh: 24 layers, h = 1024, 16 heads, MLP 4h, 1024 positions.
  // Per layer 12h^2 + 13h = 12582912 + 13312 = 12596224; x 24 = 302309376. Vocabulary 50257
  // padded to a multiple of 128 x TP 2 = 256: 197 x 256 = 50432 rows x 1024 = 51642368;
  // positions 1024 x 1024 = 1048576; final LayerNorm 2048. Total 355002368.
  auto files = load(kConfigs / "megatron", {"pretrain_gpt_distributed_with_mp.sh"});
  auto r = trainmem::import_configs(files, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(estimated_parameters(r) == 355002368.0);
  // The script names no --tokenizer-type: pretrain_gpt.py (Megatron-LM d98e8a6, line 527) passes
  // args_defaults={'tokenizer_type': 'GPT2BPETokenizer'} and arguments.py validate_args sets it
  // when the argument is None, so the vocabulary is GPT-2's, with that line cited.
  CHECK(origin_of(r, "model").find("pretrain_gpt.py:527 args_defaults") != std::string::npos);
  // train_llama3_8b_h100_fp8.sh: 32 layers, h = 4096, 32 heads in 8 groups of 128 channels,
  // SwiGLU 14336, RMSNorm, no biases, untied. Per layer q 4096^2 = 16777216, k and v
  // 2 x 4096 x 1024 = 8388608, o 16777216, MLP 3 x 4096 x 14336 = 176160768, two norms 8192:
  // 218112000; x 32 = 6979584000. Vocabulary 128256 (already a multiple of 128 x TP 1):
  // embedding and output layer 2 x 128256 x 4096 = 1050673152; final norm 4096.
  // Total 8030261248 (Llama-3-8B's published count).
  files = load(kConfigs / "megatron", {"train_llama3_8b_h100_fp8.sh"});
  r = trainmem::import_configs(files, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(estimated_parameters(r) == 8030261248.0);
}

TEST_CASE("a config.json beside a file that names a model: the config.json is used and the name is listed", "[import]") {
  // The command line names Qwen/Qwen2.5-0.5B (a catalog model); the OPT-125m config.json given
  // beside it describes the model, and the name it replaces must not vanish.
  trainmem::ConfigFile run;
  run.name = "sft.sh";
  run.text = "python trl/scripts/sft.py --model_name_or_path Qwen/Qwen2.5-0.5B --per_device_train_batch_size 2\n";
  trainmem::Errors errors;
  auto config = trainmem::cli::load_config_file(
      "config.json", read_text(fs::path(TRAINMEM_SOURCE_DIR) / "tests" / "fixtures" / "hf_configs" / "opt-125m.json"), errors);
  REQUIRE(config);
  trainmem::ImportOptions options;
  options.model_preset = "llama-3-8b";
  const auto r = trainmem::import_configs({run, *config}, trainmem::builtin_catalog(), options);
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(origin_of(r, "model") == "read from config.json");
  const std::string instead = "the model's config.json config.json is used instead";
  bool named = false, given = false;
  for (const auto& n : r.ignored) {
    named = named || (n.key == "sft.sh:--model_name_or_path" && n.reason == instead);
    given = given || (n.key == "--model" && n.reason == instead);
  }
  CHECK(named);
  CHECK(given);
}

TEST_CASE("torchrun --nproc-per-node=gpu: the GPUs per node are unresolved, not an error", "[import][shell]") {
  // torch/distributed/run.py accepts auto, cpu, gpu or xpu for --nproc-per-node: one process per
  // device of the machine, which the file does not state.
  trainmem::ConfigFile f;
  f.name = "launch.sh";
  f.text = "torchrun --nproc-per-node=gpu train.py --model_name_or_path meta-llama/Llama-3.1-8B --per_device_train_batch_size 1\n";
  const auto r = trainmem::import_configs({f}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(has_key(r.unresolved, "launch.sh:--nproc-per-node"));
  CHECK(origin_of(r, "parallel.world_size").rfind("read from", 0) != 0);
}

TEST_CASE("a model the catalog lacks suggests the catalog model of the same family and size", "[import][errors]") {
  // An instruct or chat release shares its base's architecture; a one-letter edit away is often
  // another size (Qwen2.5-7B-Instruct vs Qwen2.5-72B-Instruct), never suggested.
  const std::pair<const char*, const char*> cases[] = {
      {"Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B"},
      {"meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B"},
      {"google/gemma-2-9b-it", "google/gemma-2-9b"},
      // The version is a word of its own: 3.1, not the Meta-Llama-3-8B a letter-count prefers.
      {"NousResearch/Meta-Llama-3.1-8B", "meta-llama/Llama-3.1-8B"},
  };
  for (const auto& [id, nearest] : cases) {
    trainmem::ConfigFile f;
    f.name = "run.sh";
    f.text = std::string("python train.py --model_name_or_path ") + id + "\n";
    const auto r = trainmem::import_configs({f}, trainmem::builtin_catalog());
    INFO(id);
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].code == "model_config_needed");
    CHECK(r.errors[0].message.find(std::string("(nearest: \"") + nearest + "\")") != std::string::npos);
  }
}

TEST_CASE("--no_X sets the boolean X to False, as HfArgumentParser defines it", "[import][shell]") {
  // transformers hf_argparser.py: a bool field whose default is True also gets --no_X
  // (action store_false, dest X). TRL's configs default gradient_checkpointing to True, so
  // --no_gradient_checkpointing turns recompute off.
  trainmem::ConfigFile f;
  f.name = "sft.sh";
  f.text = "python trl/scripts/sft.py --model_name_or_path Qwen/Qwen2.5-0.5B --no_gradient_checkpointing\n";
  const auto r = trainmem::import_configs({f}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(as_json(r.document)["activation_checkpointing"] == "none");
  CHECK(origin_of(r, "activation_checkpointing") == "read from sft.sh:--no_gradient_checkpointing");
}

TEST_CASE("a command line's \"--\" ends its options, as argparse reads it", "[import][shell]") {
  trainmem::ConfigFile f;
  f.name = "run.sh";
  // argparse: every word after "--" is positional, so --per_device_train_batch_size is not an option
  // there; a word of dashes alone names no option.
  f.text = "python train.py --model_name_or_path meta-llama/Llama-3.1-8B --gradient_accumulation_steps 4 --- -- "
           "--per_device_train_batch_size 2\n";
  const auto r = trainmem::import_configs({f}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(origin_of(r, "batch.gradient_accumulation_steps") == "read from run.sh:--gradient_accumulation_steps");
  CHECK(origin_of(r, "batch.micro_batch_size").rfind("framework default", 0) == 0);
}

TEST_CASE("an axolotl YAML and the DeepSpeed JSON it names must agree", "[import][axolotl][conflict]") {
  trainmem::Errors errors;
  auto yaml = trainmem::cli::load_config_file(
      "run.yml", "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 2\nsequence_len: 4096\ndeepspeed: ds.json\n", errors);
  auto ds = trainmem::cli::load_config_file("ds.json", R"({"train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 2}})", errors);
  REQUIRE(yaml);
  REQUIRE(ds);
  // transformers' HF integration refuses a DeepSpeed micro-batch that differs from the trainer's
  // (integrations/deepspeed.py fill_match): both sources are named, neither is picked.
  auto r = trainmem::import_configs({*yaml, *ds}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].code == "conflicting_values");
  CHECK(r.errors[0].message.find("run.yml:micro_batch_size says 2") != std::string::npos);
  CHECK(r.errors[0].message.find("ds.json:train_micro_batch_size_per_gpu says 4") != std::string::npos);
  // The YAML alone: the DeepSpeed file it names is reported as not given, and DeepSpeed is not assumed.
  r = trainmem::import_configs({*yaml}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(has_key(r.unresolved, "run.yml:deepspeed"));
  CHECK_FALSE(as_json(r.document).contains("parallel"));
}

TEST_CASE("axolotl and LLaMA-Factory pairs through the WASM request give the CLI's answer", "[import][axolotl][llamafactory][wasm]") {
  const fs::path folder = kConfigs / GENERATE(as<std::string>{}, "axolotl", "llamafactory");
  const bool axolotl = folder.filename() == "axolotl";
  const std::string yaml = axolotl ? "alst_llama3_8b_deepspeed.yaml" : "qwen3_full_sft.yaml";
  const std::string ds = axolotl ? "zero3_bf16_cpuoffload_all.json" : "ds_z3_config.json";
  const auto files = load(folder, {yaml, ds});
  json request;
  request["files"] = json::array({{{"name", files[0].name}, {"content", as_json(files[0].content)}},
                                  {{"name", files[1].name}, {"text", read_text(folder / files[1].name)}}});
  trainmem::ImportOptions options;
  if (!axolotl) {
    request["model"] = "qwen3-4b";
    options.model_preset = "qwen3-4b";
  }
  const auto wasm = trainmem::import_json(request.dump());
  const auto cli = trainmem::import_files_json(files, options, false);
  REQUIRE(wasm.ok);
  // The request's JSON object holds the YAML's keys in name order, the CLI's reader in file order:
  // the answers are the same, notes in the same order (by key) included.
  const json page = json::parse(wasm.json), command_line = json::parse(cli.json);
  CHECK(page == command_line);
  for (const char* list : {"ignored", "unmodelled", "unresolved"})
    CHECK(std::is_sorted(page[list].begin(), page[list].end(), [](const json& a, const json& b) {
      return a.at("key").get<std::string>() < b.at("key").get<std::string>();
    }));
}

TEST_CASE("a LLaMA-Factory YAML and its DeepSpeed JSON must agree", "[import][llamafactory][conflict]") {
  trainmem::Errors errors;
  auto yaml = trainmem::cli::load_config_file(
      "sft.yaml", "model_name_or_path: Qwen/Qwen3-8B\nstage: sft\nfinetuning_type: full\ngradient_accumulation_steps: 8\n"
                  "deepspeed: ds.json\n", errors);
  auto ds = trainmem::cli::load_config_file("ds.json", R"({"gradient_accumulation_steps": 4, "zero_optimization": {"stage": 2}})", errors);
  REQUIRE(yaml);
  REQUIRE(ds);
  auto r = trainmem::import_configs({*yaml, *ds}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].code == "conflicting_values");
  CHECK(r.errors[0].message.find("sft.yaml:gradient_accumulation_steps says 8") != std::string::npos);
  CHECK(r.errors[0].message.find("ds.json:gradient_accumulation_steps says 4") != std::string::npos);
  // Alone, the defaults LLaMA-Factory documents: per_device_train_batch_size 8 (transformers),
  // cutoff_len 2048 (data_args.py), checkpointing on (checkpointing.py), and the full run's
  // trainable parameters cast to fp32 (adapter.py).
  r = trainmem::import_configs({*yaml}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  const json doc = as_json(r.document);
  CHECK(doc.at("model").at("preset") == "qwen3-8b");
  CHECK(doc.at("method") == "full");
  CHECK(doc.at("batch").at("micro_batch_size") == 8);
  CHECK(doc.at("batch").at("seq_length") == 2048);
  CHECK(doc.at("activation_checkpointing") == "full");
  CHECK(doc.at("precision").at("param_dtype") == "fp32");
  CHECK(doc.at("precision").at("compute_dtype") == "fp32");  // neither bf16 nor fp16 given
  CHECK(has_key(r.unresolved, "sft.yaml:deepspeed"));
}

TEST_CASE("axolotl's dtypes follow resolve_dtype", "[import][axolotl]") {
  // axolotl 0.18.0 utils/config/__init__.py resolve_dtype: bf16 "auto" (the default) is bf16 unless
  // fp16 is set; the weights load in bf16 (bf16 or bfloat16), else fp16 (load_in_8bit, fp16 or
  // float16), else fp32; core/builders/base.py sets TrainingArguments bf16 = bf16 or bfloat16,
  // fp16 = fp16 and not bf16: without either the weights' own dtype computes.
  struct Case {
    const char* yaml;
    const char* param;
    const char* compute;
  };
  const Case cases[] = {
      {"", "bf16", "bf16"},
      {"bf16: auto\n", "bf16", "bf16"},
      {"fp16: true\n", "fp16", "fp16"},
      {"bf16: true\nfp16: true\n", "bf16", "bf16"},
      {"bf16: false\n", "fp32", "fp32"},
      {"bf16: false\nbfloat16: true\n", "bf16", "bf16"},
      {"bf16: false\nfloat16: true\n", "fp16", "fp16"},
      // An 8-bit base loads in fp16 and computes in it; prepare_model_for_kbit_training then casts
      // the weights left unquantized to fp32 (loaders/model.py, no FSDP or DeepSpeed here).
      {"bf16: false\nadapter: lora\nload_in_8bit: true\n", "fp32", "fp16"},
      {"bf16: full\n", "bf16", "bf16"},
  };
  for (const auto& c : cases) {
    trainmem::Errors errors;
    auto f = trainmem::cli::load_config_file("a.yml", std::string("base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\n") + c.yaml, errors);
    REQUIRE(f);
    const auto r = trainmem::import_configs({*f}, trainmem::builtin_catalog());
    INFO(c.yaml << trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    const json doc = as_json(r.document);
    CHECK(doc.at("precision").at("param_dtype") == c.param);
    CHECK(doc.at("precision").at("compute_dtype") == c.compute);
  }
}

TEST_CASE("axolotl GRPO with vLLM colocated: vllm.gpu_memory_utilization and the sleep mode reach TRL", "[import][axolotl][trl]") {
  // axolotl core/trainers/grpo/__init__.py @067b021: with trl.vllm_mode colocate it passes
  // vllm.gpu_memory_utilization (VllmConfig default 0.9) and trl.vllm_enable_sleep_mode to TRL;
  // in server mode the vllm section configures the server, not the training GPUs.
  auto import_yaml = [](const std::string& rest) {
    trainmem::Errors errors;
    auto f = trainmem::cli::load_config_file("a.yml", "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nrl: grpo\n" + rest, errors);
    REQUIRE(f);
    return trainmem::import_configs({*f}, trainmem::builtin_catalog());
  };
  const auto stated = import_yaml("trl:\n  use_vllm: true\n  vllm_mode: colocate\n  vllm_enable_sleep_mode: true\nvllm:\n  gpu_memory_utilization: 0.4\n");
  INFO(trainmem::error_document(stated.errors));
  REQUIRE(stated.errors.empty());
  const json rollout = as_json(stated.document).at("rlhf").at("rollout");
  CHECK(rollout.at("use_vllm") == true);
  CHECK(rollout.at("colocated") == true);
  CHECK(rollout.at("vllm_gpu_memory_utilization") == 0.4);
  CHECK(rollout.at("vllm_enable_sleep_mode") == true);
  CHECK(origin_of(stated, "rlhf.rollout.vllm_gpu_memory_utilization") == "read from a.yml:vllm.gpu_memory_utilization");
  const auto unstated = import_yaml("trl:\n  use_vllm: true\n  vllm_mode: colocate\n");
  REQUIRE(unstated.errors.empty());
  CHECK(as_json(unstated.document).at("rlhf").at("rollout").at("vllm_gpu_memory_utilization") == 0.9);
  const auto server = import_yaml("trl:\n  use_vllm: true\n  vllm_mode: server\nvllm:\n  gpu_memory_utilization: 0.4\n");
  REQUIRE(server.errors.empty());
  CHECK(as_json(server.document).at("rlhf").at("rollout").at("colocated") == false);
  CHECK_FALSE(as_json(server.document).at("rlhf").at("rollout").contains("vllm_gpu_memory_utilization"));
  // No vllm_mode: axolotl passes none, so TRL's default decides: "colocate" in TRL 1.8.0 (axolotl's
  // pin, pyproject.toml @067b021), with TRL's own share 0.3 and sleep mode off, since axolotl passes
  // vllm.gpu_memory_utilization and trl.vllm_enable_sleep_mode only with vllm_mode colocate.
  const auto modeless = import_yaml("trl:\n  use_vllm: true\n  vllm_enable_sleep_mode: true\nvllm:\n  gpu_memory_utilization: 0.6\n");
  REQUIRE(modeless.errors.empty());
  const json modeless_rollout = as_json(modeless.document).at("rlhf").at("rollout");
  CHECK(modeless_rollout.at("use_vllm") == true);
  CHECK(modeless_rollout.at("colocated") == true);
  CHECK(modeless_rollout.at("vllm_gpu_memory_utilization") == 0.3);
  CHECK_FALSE(modeless_rollout.contains("vllm_enable_sleep_mode"));
  CHECK(origin_of(modeless, "rlhf.rollout.colocated").find("TRL 1.8.0") != std::string::npos);
  CHECK(origin_of(modeless, "rlhf.rollout.vllm_gpu_memory_utilization").find("TRL 1.8.0") != std::string::npos);
  for (const char* key : {"a.yml:trl.vllm_enable_sleep_mode", "a.yml:vllm.gpu_memory_utilization"})
    CHECK(std::any_of(modeless.ignored.begin(), modeless.ignored.end(), [&](const auto& i) { return i.key == key; }));
  const auto typo = import_yaml("trl:\n  use_vllm: true\n  vllm_mode: colocated\n");
  REQUIRE(typo.errors.size() == 1);
  CHECK(typo.errors[0].code == "unknown_value");
  // vllm_mode decides where vLLM runs: read, not listed as a key without memory effect.
  CHECK(std::none_of(stated.ignored.begin(), stated.ignored.end(), [](const auto& i) { return i.key.find("vllm_mode") != std::string::npos; }));
}

TEST_CASE("axolotl GRPO: TRL's beta 0.0 loads no reference; with trl.beta > 0 an adapter shares the frozen base", "[import][axolotl][trl]") {
  // TRL grpo_config.py beta = 0.0 and grpo_trainer.py: no ref_model at beta 0; above it a PEFT model
  // scores the reference with its adapters disabled, a full fine-tune keeps the engine's frozen copy.
  for (const bool lora : {true, false}) {
    for (const char* beta : {"", "trl:\n  beta: 0.0\n", "trl:\n  beta: 0.04\n"}) {
      trainmem::Errors errors;
      const std::string yaml = std::string("base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nrl: grpo\n") +
                               (lora ? "adapter: lora\nlora_r: 16\n" : "") + beta;
      INFO(yaml);
      auto f = trainmem::cli::load_config_file("a.yml", yaml, errors);
      REQUIRE(f);
      const auto r = trainmem::import_configs({*f}, trainmem::builtin_catalog());
      INFO(trainmem::error_document(r.errors));
      REQUIRE(r.errors.empty());
      const json doc = as_json(r.document);
      CHECK(doc.at("rlhf").at("algorithm") == "grpo");
      if (std::string(beta).find("0.04") == std::string::npos) CHECK(doc.at("rlhf").at("reference").at("method") == "none");
      else CHECK(doc.at("rlhf").at("reference").at("method") == (lora ? "shared_base" : "frozen"));
      // beta decides the reference: read from it, not listed as a key without memory effect.
      if (*beta) CHECK(origin_of(r, "rlhf.reference.method") == "read from a.yml:trl.beta");
      if (*beta) CHECK(std::none_of(r.ignored.begin(), r.ignored.end(), [](const auto& i) { return i.key.find("beta") != std::string::npos; }));
    }
  }
}

TEST_CASE("axolotl's activation offloading keeps recompute, for adapters too", "[import][axolotl]") {
  // axolotl 0.18.0 (067b021): builders/base.py turns the Trainer's checkpointing off under
  // activation_offloading and loaders/model.py _apply_activation_checkpointing re-wraps a full run,
  // but _configure_embedding_dtypes calls model.gradient_checkpointing_enable() for a lora/qlora
  // adapter whenever gradient_checkpointing is set, which activation_offloading requires
  // (validation.py): recompute stays on either way. gradient_checkpointing: offload is
  // gradient_checkpointing + activation_offloading (validation.py).
  const std::pair<const char*, const char*> cases[] = {
      {"gradient_checkpointing: true\nactivation_offloading: true\n", "full"},
      {"adapter: lora\ngradient_checkpointing: true\nactivation_offloading: legacy\n", "full"},
      {"adapter: lora\ngradient_checkpointing: offload\n", "full"},
      {"gradient_checkpointing: offload\n", "full"},
  };
  for (const auto& [yaml, checkpointing] : cases) {
    trainmem::Errors errors;
    auto f = trainmem::cli::load_config_file("a.yml", std::string("base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\n") + yaml, errors);
    REQUIRE(f);
    const auto r = trainmem::import_configs({*f}, trainmem::builtin_catalog());
    INFO(yaml << trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    const json doc = as_json(r.document);
    CHECK(doc.at("activation_checkpointing") == checkpointing);
    CHECK(doc.at("activation_offload") == true);
  }
}

// A launch line's key=value overrides apply over the recipe config, as torchtune's config parser
// applies them (torchtune config/_utils.py _merge_yaml_and_cli_args: "~key" removes, a component's
// key names its _component_, the line wins), and are cited from the line's file.
TEST_CASE("tune run: overrides on the launch line apply over the recipe config", "[import][torchtune]") {
  auto files = load(kConfigs / "torchtune", {"1.5B_lora.yaml"});
  trainmem::ConfigFile line;
  line.name = "run.sh";
  line.text = "NGPU=8\ntune run --nproc_per_node $NGPU lora_finetune_distributed --config qwen2_5/1.5B_lora \\\n"
              "  batch_size=4 tokenizer.max_seq_len=2048 enable_activation_checkpointing=True model.lora_rank=64 \\\n"
              "  'model.lora_attn_modules=[q_proj,k_proj,v_proj]' ~model.apply_lora_to_mlp \\\n"
              "  optimizer=bitsandbytes.optim.PagedAdamW8bit ~optimizer.fused\n";
  files.push_back(line);
  const auto r = trainmem::import_configs(files, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  const json doc = as_json(r.document);
  // 1.5B_lora.yaml says batch_size 2, max_seq_len null, checkpointing False, rank 32, attention
  // [q_proj, v_proj, output_proj] with the MLP, fused AdamW; the line replaces each.
  CHECK(doc.at("batch").at("micro_batch_size") == 4);
  CHECK(doc.at("batch").at("seq_length") == 2048);
  CHECK(doc.at("activation_checkpointing") == "full");
  CHECK(doc.at("lora").at("r") == 64);
  // ~model.apply_lora_to_mlp: the builder's default False applies, so no MLP adapters.
  CHECK(doc.at("lora").at("target_modules") == json::array({"q_proj", "k_proj", "v_proj"}));
  CHECK(doc.at("precision").at("optimizer") == "paged_adamw_8bit");
  CHECK_FALSE(doc.at("precision").contains("optimizer_implementation"));
  // --nproc_per_node $NGPU = 8 on one node; lora_finetune_distributed shards with FSDP2.
  CHECK(doc.at("parallel").at("world_size") == 8);
  CHECK(doc.at("parallel").at("sharding_engine") == "fsdp2");
  // Unchanged keys still come from the config.
  CHECK(doc.at("batch").at("gradient_accumulation_steps") == 8);
  CHECK(origin_of(r, "lora.r") == "read from run.sh:model.lora_rank");
  CHECK(origin_of(r, "batch.gradient_accumulation_steps") == "read from 1.5B_lora.yaml:gradient_accumulation_steps");
  CHECK(origin_of(r, "parallel.world_size") == "read from run.sh:--nproc_per_node");
  CHECK_FALSE(has_key(r.unresolved, "1.5B_lora.yaml:tokenizer.max_seq_len"));
}

TEST_CASE("tune run: a count written as a float is refused, as the recipe refuses it", "[import][torchtune][errors]") {
  // OmegaConf's YAML float resolver reads 2e3 and 2048.0 as floats (2000.0); the recipes slice the
  // tokens at max_seq_len and hand batch_size to DataLoader, which need ints; torchrun's int()
  // refuses 2.0 for --nproc_per_node. Each is wrong_type, never read as 2000 or 2.
  for (const char* words : {"tokenizer.max_seq_len=2e3", "batch_size=2.0", "model.lora_rank=8.0"}) {
    auto files = load(kConfigs / "torchtune", {"1.5B_lora.yaml"});
    trainmem::ConfigFile line;
    line.name = "run.sh";
    line.text = std::string("tune run --nproc_per_node 2 lora_finetune_distributed --config qwen2_5/1.5B_lora ") + words + "\n";
    files.push_back(line);
    const auto r = trainmem::import_configs(files, trainmem::builtin_catalog());
    INFO(words << trainmem::error_document(r.errors));
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].code == std::string("wrong_type"));
  }
  // The launch line's own counts are torchrun's, read as every launcher's are (process_count).
  auto files = load(kConfigs / "torchtune", {"1.5B_lora.yaml"});
  trainmem::ConfigFile line;
  line.name = "run.sh";
  line.text = "tune run --nproc_per_node 2.0 lora_finetune_distributed --config qwen2_5/1.5B_lora\n";
  files.push_back(line);
  const auto r = trainmem::import_configs(files, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].code == std::string("wrong_type"));
  CHECK(r.errors[0].message.find("torchrun reads it with int()") != std::string::npos);
  // int("-8") is a whole number, below the one process a launch needs: out_of_range, as
  // --gradient_accumulation_steps -1 is.
  auto negative = load(kConfigs / "torchtune", {"1.5B_lora.yaml"});
  line.text = "tune run --nproc_per_node -8 lora_finetune_distributed --config qwen2_5/1.5B_lora\n";
  negative.push_back(line);
  const auto below = trainmem::import_configs(negative, trainmem::builtin_catalog());
  REQUIRE(below.errors.size() == 1);
  CHECK(below.errors[0].code == std::string("out_of_range"));
  CHECK(below.errors[0].message == "run.sh:--nproc_per_node: must be at least 1, got -8");
  // What else int() reads: surrounding spaces and underscores between digits ("1_6" is 16); a count
  // beyond 15 digits is out of range, not a type error.
  for (const auto& [count, expected] : std::vector<std::pair<std::string, std::string>>{
           {"' 2'", ""}, {"1_6", ""}, {"99999999999999999999", "out_of_range"}, {"1__6", "wrong_type"}, {"_16", "wrong_type"}}) {
    auto files = load(kConfigs / "torchtune", {"1.5B_lora.yaml"});
    line.text = "tune run --nproc_per_node " + count + " lora_finetune_distributed --config qwen2_5/1.5B_lora\n";
    files.push_back(line);
    const auto read = trainmem::import_configs(files, trainmem::builtin_catalog());
    INFO(count << trainmem::error_document(read.errors));
    if (expected.empty()) {
      CHECK(read.errors.empty());
    } else {
      REQUIRE(read.errors.size() == 1);
      CHECK(read.errors[0].code == expected);
    }
  }
}

// Packed or padded: each trainer's collator pads an unpacked batch to its longest sample
// (batch.padding longest, an upper bound at seq_length); packing, or padding to the maximum, gives
// every batch seq_length tokens (the engine's default, max_length). Sources in the readers:
// torchtune data/_collate.py padded_collate_sft; axolotl core/builders/causal.py and
// utils/schemas/validation.py; LLaMA-Factory hparams/parser.py; TRL sft_trainer.py.
TEST_CASE("packed or padded: batch.padding follows each trainer's collator", "[import]") {
  const std::string axolotl = "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nsequence_len: 2048\n";
  const std::string factory = "model_name_or_path: meta-llama/Llama-3.1-8B\nfinetuning_type: lora\ncutoff_len: 1024\n";
  const std::string trl = "model_name_or_path: meta-llama/Llama-3.1-8B\nmax_length: 1024\n";
  const std::vector<std::pair<std::string, bool>> cases = {
      {axolotl, true},
      {axolotl + "sample_packing: true\n", false},
      {axolotl + "pad_to_sequence_len: true\n", false},
      {axolotl + "sample_packing: false\npad_to_sequence_len: false\n", true},
      {factory + "stage: sft\n", true},
      {factory + "stage: sft\npacking: true\n", false},
      {factory + "stage: sft\nneat_packing: true\n", false},
      {factory + "stage: pt\n", false},
      {factory + "stage: pt\npacking: false\n", true},
      {trl, true},
      {trl + "packing: true\n", false},
      {trl + "padding_free: true\n", false},
  };
  for (const auto& [text, longest] : cases) {
    const auto r = import_file_text("a.yaml", text);
    INFO(text << trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    const json batch = as_json(r.document).at("batch");
    CHECK(batch.value("padding", "max_length") == (longest ? "longest" : "max_length"));
  }
  // TRL's packing is read as max_length, so the launch line that runs the same config (and reads
  // no packing of its own) does not bring back the unpacked collator's padding.
  {
    trainmem::Errors errors;
    auto yaml = trainmem::cli::load_config_file("sft.yaml", trl + "packing: true\n", errors);
    auto line = trainmem::cli::load_config_file("run.sh", "accelerate launch --num_processes 8 trl/scripts/sft.py --config sft.yaml\n", errors);
    REQUIRE(yaml);
    REQUIRE(line);
    const auto r = trainmem::import_configs({*yaml, *line}, trainmem::builtin_catalog());
    INFO(trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    CHECK(as_json(r.document).at("batch").at("padding") == "max_length");
    const auto padding = std::find_if(r.provenance.begin(), r.provenance.end(), [](const auto& p) { return p.field == "batch.padding"; });
    REQUIRE(padding != r.provenance.end());
    CHECK(padding->origin == "read from sft.yaml:packing");
    CHECK(padding->source == "sft.yaml:packing");
  }
  // A packing flag that is not a boolean is refused, as the trainers' configs refuse it.
  for (const std::string& text : {axolotl + "sample_packing: maybe\n", factory + "packing: maybe\n", trl + "packing: maybe\n"}) {
    const auto r = import_file_text("a.yaml", text);
    INFO(text);
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].code == std::string("wrong_type"));
  }
  // torchtune: the config's unpacked dataset, then packed by the launch line, then a collate_fn of
  // the user's own, whose padding the import cannot know.
  for (const auto& [overrides, longest] : std::vector<std::pair<std::string, bool>>{
           {"", true}, {" dataset.packed=True tokenizer.max_seq_len=2048", false}, {" collate_fn=my.collate", false}}) {
    auto files = load(kConfigs / "torchtune", {"1.5B_lora.yaml"});
    trainmem::ConfigFile line;
    line.name = "run.sh";
    line.text = "tune run --nproc_per_node 2 lora_finetune_distributed --config qwen2_5/1.5B_lora" + overrides + "\n";
    files.push_back(line);
    const auto r = trainmem::import_configs(files, trainmem::builtin_catalog());
    INFO(overrides << trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    const json batch = as_json(r.document).at("batch");
    if (longest) CHECK(batch.value("padding", "") == "longest");
    else CHECK_FALSE(batch.contains("padding"));
  }
}

// "--" ends the options before the recipe (argparse, which tune run's torchrun options go through:
// torchtune _cli/run.py); a word of dashes alone ("--=x") names no option. Both once threw out of
// the reader (a fuzz finding: fuzz/regressions/import_files/tune_run_double_dash.txt).
TEST_CASE("tune run: \"--\" ends the torchrun options, a word of dashes alone is no option", "[import][torchtune][errors]") {
  auto files = load(kConfigs / "torchtune", {"1.5B_lora.yaml"});
  trainmem::ConfigFile line;
  line.name = "run.sh";
  for (const std::string options : {"--nproc_per_node 2 --", "--nproc_per_node 2 --=x"}) {
    line.text = "tune run " + options + " lora_finetune_distributed --config qwen2_5/1.5B_lora\n";
    files.resize(1);
    files.push_back(line);
    const auto r = trainmem::import_configs(files, trainmem::builtin_catalog());
    INFO(options << ": " << trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    CHECK(as_json(r.document).at("parallel").at("world_size") == 2);
  }
  // Nothing after "--": no recipe, an error document rather than an exception.
  line.text = "tune run --\n";
  const auto r = trainmem::import_configs({line}, trainmem::builtin_catalog());
  CHECK_FALSE(r.errors.empty());
}

TEST_CASE("tune run: a line without its config, a GPU count on a single-device recipe, and unset variables", "[import][torchtune][errors]") {
  trainmem::ConfigFile line;
  line.name = "run.sh";
  // The config is named but not given: asked for, never guessed.
  line.text = "tune run --nproc_per_node 4 full_finetune_distributed --config llama3_1/8B_full\n";
  auto r = trainmem::import_configs({line}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].message.find("llama3_1/8B_full") != std::string::npos);
  // torchtune/_cli/run.py refuses torchrun options for a recipe without distributed support.
  auto files = load(kConfigs / "torchtune", {"8B_lora_single_device.yaml"});
  line.text = "tune run --nproc_per_node 2 lora_finetune_single_device --config llama3_1/8B_lora_single_device\n";
  files.push_back(line);
  r = trainmem::import_configs(files, trainmem::builtin_catalog());
  REQUIRE_FALSE(r.errors.empty());
  CHECK(r.errors[0].field == "run.sh:--nproc_per_node");
  // $GPUS unset: the GPU count is unresolved, not taken as 1.
  files.back().text = "tune run --nproc_per_node $GPUS lora_finetune_distributed --config llama3_1/8B_lora_single_device\n";
  r = trainmem::import_configs(files, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK_FALSE(as_json(r.document).at("parallel").contains("world_size"));
  CHECK(has_key(r.unresolved, "parallel.world_size"));
  CHECK(origin_of(r, "parallel.world_size") == "unresolved: run.sh:--nproc_per_node $GPUS");
}

namespace {

trainmem::ConfigFile command_line(const std::string& name, const std::string& text) {
  trainmem::ConfigFile f;
  f.name = name;
  f.text = text;
  return f;
}

std::optional<trainmem::ConfigFile> toml_file(const std::string& name, const std::string& text) {
  trainmem::Errors errors;
  return trainmem::cli::load_config_file(name, text, errors);
}

json document_value(const trainmem::ImportResult& r, const std::string& pointer) {
  const json doc = as_json(r.document);
  return doc.contains(json::json_pointer(pointer)) ? doc.at(json::json_pointer(pointer)) : json();
}

}  // namespace

TEST_CASE("a launch script saved with Windows line ends continues its lines after a backslash", "[import][shell]") {
  // The same command over three lines ending in a backslash and CR LF reads as on one line: 8 GPUs, micro-batch 4.
  const auto r = trainmem::import_configs(
      {command_line("run.sh", "torchrun --nproc_per_node 8 train.py \\\r\n  --model_name_or_path Qwen/Qwen2.5-7B \\\r\n"
                              "  --per_device_train_batch_size 4 --max_seq_length 2048\r\n")},
      trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  const json doc = as_json(r.document);
  CHECK(doc.at("parallel").at("world_size") == 8);
  CHECK(doc.at("batch").at("micro_batch_size") == 4);
  CHECK(doc.at("batch").at("seq_length") == 2048);
}

TEST_CASE("a script of its own is a plain transformers.Trainer: no TRL default, its model_max_length read", "[import]") {
  // tatsu-lab/stanford_alpaca README.md, "Fine-tuning": torchrun over train.py (c8ea92b), which parses
  // (ModelArguments, DataArguments, TrainingArguments) with HfArgumentParser and trains with
  // transformers.Trainer; its TrainingArguments subclass adds model_max_length (default 512, the
  // tokenizer's truncation length, batches padded to their longest). The checkpoint path is the
  // catalog's Llama-2-7B here. The HF Trainer defaults gradient_checkpointing to False
  // (training_args.py); TRL's SFT would have given checkpointing on and max_length 1024.
  const std::string line = "torchrun --nproc_per_node=4 --master_port=29500 train.py --model_name_or_path meta-llama/Llama-2-7b-hf "
                           "--data_path ./alpaca_data.json --bf16 True --output_dir out --num_train_epochs 3 "
                           "--per_device_train_batch_size 4 --per_device_eval_batch_size 4 --gradient_accumulation_steps 8 "
                           "--evaluation_strategy \"no\" --save_strategy \"steps\" --save_steps 2000 --save_total_limit 1 "
                           "--learning_rate 2e-5 --weight_decay 0. --warmup_ratio 0.03 --lr_scheduler_type \"cosine\" "
                           "--logging_steps 1 --fsdp \"full_shard auto_wrap\" --fsdp_transformer_layer_cls_to_wrap 'LlamaDecoderLayer' "
                           "--tf32 True";
  auto r = trainmem::import_configs({command_line("train.sh", line + "\n")}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  json doc = as_json(r.document);
  CHECK(doc.at("activation_checkpointing") == "none");
  CHECK_FALSE(doc.at("batch").contains("seq_length"));
  CHECK(has_key(r.unresolved, "train.sh:(sequence length)"));
  CHECK(doc.at("batch").at("micro_batch_size") == 4);
  CHECK(doc.at("parallel").at("zero_stage") == 3);
  // With --model_max_length 2048, the length every batch is padded up to at most.
  r = trainmem::import_configs({command_line("train.sh", line + " --model_max_length 2048\n")}, trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(as_json(r.document).at("batch").at("seq_length") == 2048);
  CHECK(origin_of(r, "batch.seq_length") == "read from train.sh:--model_max_length");
  CHECK_FALSE(has_key(r.unresolved, "train.sh:(sequence length)"));
  // train.py's DataCollatorForSupervisedDataset pads each batch with pad_sequence: to its longest.
  CHECK(as_json(r.document).at("batch").at("padding") == "longest");
}

TEST_CASE("TRL GRPO: the prompt is the sequence length, the completion the rollout's new tokens", "[import][trl]") {
  // trl/trainer/grpo_config.py: per_device_train_batch_size counts completions, each a prompt of at
  // most max_prompt_length tokens and a completion of at most max_completion_length.
  const std::string line = "accelerate launch grpo.py --model_name_or_path Qwen/Qwen2.5-7B --per_device_train_batch_size 8 "
                           "--num_generations 8 --max_prompt_length 512 --max_completion_length 1024 --bf16 "
                           "--gradient_checkpointing --use_peft --lora_r 16";
  const auto r = trainmem::import_configs({command_line("run.sh", line + "\n")}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  const json doc = as_json(r.document);
  CHECK(doc.at("batch").at("seq_length") == 512);
  CHECK(origin_of(r, "batch.seq_length") == "read from run.sh:--max_prompt_length");
  CHECK(doc.at("batch").at("micro_batch_size") == 8);
  CHECK(doc.at("rlhf").at("rollout").at("max_new_tokens") == 1024);
  CHECK(doc.at("rlhf").at("rollout").at("num_generations") == 8);
  // No --beta: TRL's 0.0 loads no reference model.
  CHECK(doc.at("rlhf").at("reference").at("method") == "none");
  // --beta above 0 with --use_peft: TRL scores the reference with the policy's adapters disabled.
  const auto kl = trainmem::import_configs({command_line("run.sh", line + " --beta 0.04\n")}, trainmem::builtin_catalog());
  REQUIRE(kl.errors.empty());
  CHECK(as_json(kl.document).at("rlhf").at("reference").at("method") == "shared_base");
  CHECK(origin_of(kl, "rlhf.reference.method") == "read from run.sh:--beta");
  CHECK(std::none_of(kl.ignored.begin(), kl.ignored.end(), [](const auto& i) { return i.key.find("beta") != std::string::npos; }));
  // steps_per_generation sets how many completions a GPU generates at once: not without effect.
  const auto steps = trainmem::import_configs({command_line("run.sh", line + " --steps_per_generation 4\n")}, trainmem::builtin_catalog());
  REQUIRE(steps.errors.empty());
  CHECK(has_key(steps.unmodelled, "run.sh:--steps_per_generation"));
  CHECK_FALSE(has_key(steps.ignored, "run.sh:--steps_per_generation"));
}

TEST_CASE("TRL GRPO with colocated vLLM: its share of the GPU and sleep mode are read", "[import][trl]") {
  // grpo_config.py @f2cd577: vllm_mode defaults to colocate, vllm_gpu_memory_utilization to 0.3,
  // vllm_enable_sleep_mode to False.
  const std::string line = "accelerate launch grpo.py --model_name_or_path Qwen/Qwen2.5-7B --per_device_train_batch_size 8 "
                           "--max_prompt_length 512 --bf16 --use_vllm";
  const auto stated = trainmem::import_configs(
      {command_line("run.sh", line + " --vllm_gpu_memory_utilization 0.5 --vllm_enable_sleep_mode\n")}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(stated.errors));
  REQUIRE(stated.errors.empty());
  const json rollout = as_json(stated.document).at("rlhf").at("rollout");
  CHECK(rollout.at("use_vllm") == true);
  CHECK(rollout.at("vllm_gpu_memory_utilization") == 0.5);
  CHECK(rollout.at("vllm_enable_sleep_mode") == true);
  CHECK(origin_of(stated, "rlhf.rollout.vllm_gpu_memory_utilization") == "read from run.sh:--vllm_gpu_memory_utilization");
  const auto unstated = trainmem::import_configs({command_line("run.sh", line + "\n")}, trainmem::builtin_catalog());
  REQUIRE(unstated.errors.empty());
  CHECK(as_json(unstated.document).at("rlhf").at("rollout").at("vllm_gpu_memory_utilization") == 0.3);
  // A vLLM server runs on other GPUs: its share is not the training GPUs'.
  const auto server = trainmem::import_configs(
      {command_line("run.sh", line + " --vllm_mode server --vllm_gpu_memory_utilization 0.5\n")}, trainmem::builtin_catalog());
  REQUIRE(server.errors.empty());
  CHECK_FALSE(as_json(server.document).at("rlhf").at("rollout").contains("vllm_gpu_memory_utilization"));
  CHECK(as_json(server.document).at("rlhf").at("rollout").at("colocated") == false);
  // GRPOConfig accepts server or colocate only: another word is an error, never a silent server.
  const auto typo = trainmem::import_configs({command_line("run.sh", line + " --vllm_mode colocated\n")}, trainmem::builtin_catalog());
  REQUIRE(typo.errors.size() == 1);
  CHECK(typo.errors[0].code == "unknown_value");
}

TEST_CASE("torchtitan llama3 flavors built as config.json count the published parameters", "[import][torchtitan]") {
  const fs::path folder = kConfigs / "torchtitan";
  // Parameters of a flavor, by hand from models/llama3/model/model.py: embedding and untied output
  // vocab x dim each; per layer wq dim x dim, wk and wv dim x (n_kv_heads x head_dim), wo dim x dim,
  // w1, w2, w3 dim x hidden, two RMSNorm weights of dim; a final norm of dim.
  struct Case {
    const char* toml;
    std::int64_t total;
  } cases[] = {
      // debugmodel: 2 x 2048 x 256 = 1,048,576; layer 4 x 256^2 + 3 x 256 x 768 + 512 = 852,480 x 6 =
      // 5,114,880; + 256 -> 6,163,712.
      {"debug_model.toml", 6163712},
      // 8B: 2 x 128256 x 4096 = 1,050,673,152; layer 2 x 4096^2 + 2 x 4096 x 1024 + 3 x 4096 x 14336 + 8192
      // = 218,112,000 x 32 = 6,979,584,000; + 4096 -> 8,030,261,248 (Meta's published Llama-3-8B count).
      {"llama3_8b.toml", 8030261248},
      // 70B: 2 x 128256 x 8192 = 2,101,346,304; layer 2 x 8192^2 + 2 x 8192 x 1024 + 3 x 8192 x 28672 + 16384
      // = 855,654,400 x 80 = 68,452,352,000; + 8192 -> 70,553,706,496.
      {"llama3_70b.toml", 70553706496},
      // 405B: 2 x 128256 x 16384 = 4,202,692,608; layer 2 x 16384^2 + 2 x 16384 x 1024 + 3 x 16384 x 53248
      // + 32768 = 3,187,703,808 x 126 = 401,650,679,808; + 16384 -> 405,853,388,800.
      {"llama3_405b.toml", 405853388800},
  };
  for (const auto& c : cases) {
    INFO(c.toml);
    const auto r = trainmem::import_configs(load(folder, {c.toml}), trainmem::builtin_catalog());
    INFO(trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    const auto e = trainmem::estimate_json(as_json(r.document).dump());
    INFO(e.json);
    REQUIRE(e.ok);
    CHECK(json::parse(e.json).at("parameters").at("total").get<std::int64_t>() == c.total);
  }
}

TEST_CASE("torchtitan: a torchrun line's --section.key arguments apply over the TOML", "[import][torchtitan][shell]") {
  const fs::path folder = kConfigs / "torchtitan";
  auto files = load(folder, {"llama3_8b.toml"});
  files.push_back(command_line("launch.sh",
                               "torchrun --nproc_per_node 8 --nnodes 2 -m torchtitan.train --job.config_file ./train_configs/llama3_8b.toml "
                               "--training.local_batch_size 2 --parallelism.tensor_parallel_degree 2 --training.global_batch_size 64\n"));
  const auto r = trainmem::import_configs(files, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  // 8 x 2 = 16 GPUs; shard degree -1 -> 16 / 2 (TP) = 8; global 64 / (local 2 x 8) = 4 accumulation steps.
  CHECK(document_value(r, "/parallel/world_size") == 16);
  CHECK(document_value(r, "/parallel/gpus_per_node") == 8);
  CHECK(document_value(r, "/parallel/tensor_parallel_size") == 2);
  CHECK(document_value(r, "/parallel/sequence_parallel") == true);
  CHECK(document_value(r, "/batch/micro_batch_size") == 2);
  CHECK(document_value(r, "/batch/gradient_accumulation_steps") == 4);
  CHECK(origin_of(r, "batch.micro_batch_size") == "read from launch.sh:--training.local_batch_size");
  CHECK(origin_of(r, "parallel.world_size") == "read from launch.sh:--nnodes");
  CHECK(has_key(r.ignored, "llama3_8b.toml:training.local_batch_size"));
  CHECK(has_key(r.ignored, "llama3_8b.toml:parallelism.tensor_parallel_degree"));
  CHECK(has_key(r.ignored, "launch.sh:--job.config_file"));
}

TEST_CASE("torchtitan pipelining: microbatches, schedule and reshard policy", "[import][torchtitan]") {
  auto toml = toml_file("pp.toml",
                        "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nlocal_batch_size = 8\nglobal_batch_size = 64\nseq_len = 4096\n"
                        "[parallelism]\npipeline_parallel_degree = 2\npipeline_parallel_schedule = \"Interleaved1F1B\"\n"
                        "pipeline_parallel_microbatch_size = 2\n[activation_checkpoint]\nmode = \"none\"\n");
  REQUIRE(toml);
  const auto r = trainmem::import_configs({*toml, command_line("run.sh", "NGPU=8 ./run_train.sh\n")}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  // 8 GPUs / PP 2 -> shard 4; global 64 / (local 8 x 4) = 2 steps, each of 8 / 2 = 4 pipeline
  // microbatches of 2 samples: 8 microbatches per optimizer step (pipeline_parallel.py).
  CHECK(document_value(r, "/batch/micro_batch_size") == 2);
  CHECK(document_value(r, "/batch/gradient_accumulation_steps") == 8);
  CHECK(document_value(r, "/parallel/pipeline_schedule") == "interleaved_1f1b");
  CHECK(document_value(r, "/parallel/virtual_pipeline_stages") == 2);
  // "default": no resharding after forward with pipelining (parallelize.py apply_fsdp).
  CHECK(document_value(r, "/parallel/reshard_after_forward") == false);
  CHECK(document_value(r, "/activation_checkpointing") == "none");
  CHECK(document_value(r, "/parallel/world_size") == 8);
  CHECK(origin_of(r, "parallel.world_size") == "read from run.sh:NGPU");
  const auto e = trainmem::estimate_json(as_json(r.document).dump());
  INFO(e.json);
  CHECK(e.ok);
}

TEST_CASE("torchtitan: degrees the GPUs do not divide, and a launch without its TOML, are errors", "[import][torchtitan][errors]") {
  auto toml = toml_file("tp3.toml", "[job]\ndescription = \"x\"\n[training]\nlocal_batch_size = 1\n[parallelism]\ntensor_parallel_degree = 3\n");
  REQUIRE(toml);
  auto r = trainmem::import_configs({*toml, command_line("run.sh", "NGPU=8 ./run_train.sh\n")}, trainmem::builtin_catalog());
  REQUIRE(!r.errors.empty());
  CHECK(r.errors[0].code == "inconsistent");
  CHECK(r.errors[0].message.find("8 GPUs") != std::string::npos);
  r = trainmem::import_configs({command_line("run.sh", "NGPU=8 CONFIG_FILE=llama3_8b.toml ./run_train.sh\n")}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].message.find("give its job config TOML") != std::string::npos);
  // [[training]]: an array of tables, where JobConfig's sections are tables; its micro-batch is not
  // silently replaced by the default 8.
  toml = toml_file("aot.toml", "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\ndata_parallel_shard_degree = -1\n"
                               "[[training]]\nlocal_batch_size = 2\n");
  REQUIRE(toml);
  r = trainmem::import_configs({*toml}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].code == "wrong_type");
  CHECK(r.errors[0].field == "aot.toml:training");
}

TEST_CASE("torchtitan: the NGPU a script exports reaches run_train.sh; one it does not set is the script's default", "[import][torchtitan][shell]") {
  const fs::path folder = kConfigs / "torchtitan";
  auto files = load(folder, {"llama3_8b.toml"});
  files.push_back(command_line("job.sh", "export NGPU=4\nCONFIG_FILE=llama3_8b.toml ./run_train.sh\n"));
  auto r = trainmem::import_configs(files, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/world_size") == 4);
  // Not exported: bash does not pass it to the script, whose NGPU=${NGPU:-"8"} then applies.
  files.back() = command_line("job.sh", "NGPU=4\n./run_train.sh\n");
  r = trainmem::import_configs(files, trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/world_size") == 8);
}

TEST_CASE("a flag given a variable the script does not set leaves its field unresolved, in every reader", "[import][shell][unresolved]") {
  // Each case: a launch line whose value is an unset $VARIABLE. The field that flag sets is absent
  // from the document, its provenance names the flag and the variable, and it is listed under
  // `unresolved` by its field path, as parallel.world_size is; no framework default stands in.
  struct Case {
    const char* what;
    std::vector<trainmem::ConfigFile> files;
    const char* field;
    const char* origin;
  };
  std::vector<Case> cases;
  cases.push_back({"TRL flags", {command_line("run.sh", "accelerate launch --num_processes 8 trl/scripts/sft.py --model_name_or_path Qwen/Qwen2.5-7B "
                                                        "--max_length $SEQ --per_device_train_batch_size ${BS} --bf16\n")},
                   "batch.seq_length", "unresolved: run.sh:--max_length $SEQ"});
  cases.push_back({"HF TrainingArguments, braces", cases.back().files, "batch.micro_batch_size",
                   "unresolved: run.sh:--per_device_train_batch_size ${BS}"});
  cases.push_back({"torchrun's GPU count", {command_line("run.sh", "torchrun --nproc_per_node $GPUS --nnodes 2 train.py "
                                                                   "--model_name_or_path Qwen/Qwen2.5-7B --max_length 2048\n")},
                   "parallel.world_size", "unresolved: run.sh:--nproc_per_node $GPUS"});
  cases.push_back({"Megatron-LM", {command_line("run.sh", "torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 2 "
                                                          "--num-layers 24 --hidden-size 1024 --num-attention-heads 16 --seq-length $SEQ_LEN "
                                                          "--max-position-embeddings 2048 --micro-batch-size 4 --global-batch-size 64 "
                                                          "--vocab-size 50257 --bf16\n")},
                   "batch.seq_length", "unresolved: run.sh:--seq-length $SEQ_LEN"});
  auto tune = load(kConfigs / "torchtune", {"8B_full.yaml"});
  tune.push_back(command_line("run.sh", "tune run --nproc_per_node $NGPU full_finetune_distributed --config 8B_full batch_size=$BS\n"));
  cases.push_back({"torchtune key=$VAR", tune, "batch.micro_batch_size", "unresolved: run.sh:batch_size=$BS"});
  cases.push_back({"tune run's GPU count", tune, "parallel.world_size", "unresolved: run.sh:--nproc_per_node $NGPU"});
  auto titan = load(kConfigs / "torchtitan", {"llama3_8b.toml"});
  titan.push_back(command_line("run.sh", "torchrun --nproc_per_node 8 -m torchtitan.train --job.config_file llama3_8b.toml --training.seq_len $X\n"));
  // The TOML says seq_len = 8192, but the command line overrides it (torchtitan/config/manager.py).
  cases.push_back({"torchtitan --section.key", titan, "batch.seq_length", "unresolved: run.sh:--training.seq_len $X"});
  for (const auto& c : cases) {
    INFO(c.what);
    const auto r = trainmem::import_configs(c.files, trainmem::builtin_catalog());
    INFO(trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    CHECK(origin_of(r, c.field) == c.origin);
    CHECK(has_key(r.unresolved, c.field));
    std::string pointer = std::string("/") + c.field;
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    CHECK(document_value(r, pointer).is_null());
  }
  // What the line does state is still read: 8 processes of accelerate launch, --bf16.
  const auto r = trainmem::import_configs(cases[0].files, trainmem::builtin_catalog());
  CHECK(document_value(r, "/parallel/world_size") == 8);
  CHECK(document_value(r, "/precision/compute_dtype") == "bf16");
}

TEST_CASE("an unset variable yields to a value another file states, not to one its command line overrides", "[import][shell][unresolved]") {
  trainmem::ConfigFile ds;
  ds.name = "ds.json";
  trainmem::Errors parse_errors;
  ds.content = trainmem::parse_json_config(R"({"train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 2}})", "ds.json", parse_errors).value();
  auto r = trainmem::import_configs({ds, command_line("run.sh", "deepspeed train.py --deepspeed ds.json --model_name_or_path Qwen/Qwen2.5-7B "
                                                                "--per_device_train_batch_size $BS\n")},
                                    trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  // The DeepSpeed JSON states 4 (transformers asserts the two agree): used, and the note says so.
  CHECK(document_value(r, "/batch/micro_batch_size") == 4);
  CHECK(origin_of(r, "batch.micro_batch_size") == "read from ds.json:train_micro_batch_size_per_gpu");
  REQUIRE(has_key(r.unresolved, "batch.micro_batch_size"));
  // TRL's --config file: the command line overrides it, so its max_length does not stand in.
  auto yaml = toml_file("sft.yaml", "model_name_or_path: Qwen/Qwen2.5-7B\nmax_length: 2048\n");
  REQUIRE(yaml);
  r = trainmem::import_configs({*yaml, command_line("run.sh", "trl sft --config sft.yaml --max_length $SEQ\n")}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(origin_of(r, "batch.seq_length") == "unresolved: run.sh:--max_length $SEQ");
  CHECK(document_value(r, "/batch/seq_length").is_null());
}

TEST_CASE("--document-only refuses a document with unresolved fields instead of letting an estimate default them", "[import][unresolved]") {
  const auto full = trainmem::import_files_json({command_line("run.sh", "python train.py --model_name_or_path Qwen/Qwen2.5-7B --max_length $SEQ\n")}, {}, false);
  CHECK(full.ok);  // the full answer lists it
  const auto only = trainmem::import_files_json({command_line("run.sh", "python train.py --model_name_or_path Qwen/Qwen2.5-7B --max_length $SEQ\n")}, {}, true);
  CHECK_FALSE(only.ok);
  const json e = json::parse(only.json);
  CHECK(e.at("error").at("code") == "unresolved_value");
  CHECK(e.at("error").at("field") == "batch.seq_length");
  CHECK(e.at("error").at("params").at("origin") == "run.sh:--max_length $SEQ");
}

TEST_CASE("--document-only refuses every field an unresolved note leaves out: the GPU count, an \"auto\" nothing fills", "[import][unresolved]") {
  // Each answer lists, per field the document lacks, one unresolved_value error; fields named by hand:
  auto refused_fields = [](const std::vector<trainmem::ConfigFile>& files) {
    const auto only = trainmem::import_files_json(files, {}, true);
    std::set<std::string> fields;
    if (only.ok) return fields;
    const json e = json::parse(only.json);
    for (const auto& err : e.at("errors")) {
      CHECK(err.at("code") == "unresolved_value");
      fields.insert(err.at("field").get<std::string>());
    }
    return fields;
  };
  // torchtitan llama3_8b.toml alone: data_parallel_shard_degree = -1 (the GPUs the other degrees
  // leave) with FSDP sharding, and no launch line: the GPU count is in no file.
  CHECK(refused_fields(load(kConfigs / "torchtitan", {"llama3_8b.toml"})) == std::set<std::string>{"parallel.world_size"});
  // DeepSpeed's zero_stage1_config.json alone: ZeRO stage 1 without a GPU count, and
  // train_micro_batch_size_per_gpu "auto" with no trainer to fill it. No model either, which is
  // not refused here: `trainmem estimate` refuses a document without one (missing_field).
  // Nor does it set a sequence length (no DeepSpeed or accelerate file does: the training script's
  // data code sets it).
  CHECK(refused_fields(load(kConfigs / "deepspeed", {"zero_stage1_config.json"})) ==
        std::set<std::string>{"parallel.world_size", "batch.micro_batch_size", "batch.seq_length"});
  // An accelerate config alone likewise: TRL's launch line (its max_length default) would set it.
  CHECK(refused_fields(load(kConfigs / "accelerate", {"trl_deepspeed_zero3.yaml"})) == std::set<std::string>{"batch.seq_length"});
  // torchtune llama3_1/8B_full.yaml with its launch line: tokenizer.max_seq_len null leaves the
  // sequence length to the data (the longest sample, which no file says); a max_seq_len on the line
  // closes it.
  CHECK(refused_fields(load(kConfigs / "torchtune", {"8B_full.yaml", "8B_full.sh"})) == std::set<std::string>{"batch.seq_length"});
  CHECK(refused_fields({load(kConfigs / "torchtune", {"8B_full.yaml"}).front(),
                        command_line("run.sh", "tune run --nproc_per_node 4 full_finetune_distributed --config llama3_1/8B_full "
                                               "tokenizer.max_seq_len=4096\n")})
            .empty());
  // With the launch line the TOML's GPU count is known (8 x 2 nodes) and the document stands alone.
  CHECK(refused_fields({load(kConfigs / "torchtitan", {"llama3_8b.toml"}).front(),
                        command_line("run.sh", "torchrun --nproc_per_node 8 --nnodes 2 -m torchtitan.train --job.config_file ./llama3_8b.toml\n")})
            .empty());
  // A variable in a flag that sets no document field (Megatron's --data-path) leaves nothing out.
  CHECK(refused_fields(load(kConfigs / "megatron", {"pretrain_gpt.sh"})).empty());
  const auto megatron = trainmem::import_configs(load(kConfigs / "megatron", {"pretrain_gpt.sh"}), trainmem::builtin_catalog());
  CHECK_FALSE(megatron.unresolved.empty());  // the notes are still listed by the full answer
}

TEST_CASE("configs and launch lines of frameworks this import does not read are named", "[import][errors][frameworks]") {
  // One realistic snippet per framework, modelled on the framework's own examples (cited in
  // engine/src/import/other_frameworks.cpp). Each stops the import with unknown_config_format
  // naming the framework, never read as another trainer's file at its defaults.
  struct Case {
    const char* framework;
    trainmem::ConfigFile file;
  };
  auto parsed = [](const std::string& name, const std::string& text) {
    auto f = toml_file(name, text);
    REQUIRE(f);
    return *f;
  };
  const std::vector<Case> cases = {
      {"NeMo", parsed("megatron_gpt_config.yaml", "name: megatron_gpt\ntrainer:\n  devices: 8\n  num_nodes: 1\n  precision: bf16\n"
                                                  "exp_manager:\n  explicit_log_dir: null\nmodel:\n  micro_batch_size: 4\n  global_batch_size: 8\n"
                                                  "  tensor_model_parallel_size: 1\n  encoder_seq_length: 2048\n")},
      {"NeMo", parsed("asr.yaml", "model:\n  preprocessor:\n    _target_: nemo.collections.asr.modules.AudioToMelSpectrogramPreprocessor\n")},
      {"NeMo", command_line("run.sh", "python /opt/NeMo/examples/nlp/language_modeling/megatron_gpt_pretraining.py --config-path conf "
                                      "trainer.devices=8 model.micro_batch_size=4\n")},
      {"PyTorch Lightning", parsed("config.yaml", "seed_everything: 42\ntrainer:\n  accelerator: gpu\n  devices: 4\n  precision: bf16-mixed\n"
                                                  "model:\n  class_path: my.Model\n  init_args:\n    lr: 0.001\ndata:\n  batch_size: 8\n")},
      {"MaxText", parsed("base.yml", "run_name: x\nper_device_batch_size: 12.0\nbase_emb_dim: 2048\nbase_num_query_heads: 16\n"
                                     "ici_fsdp_parallelism: -1\ngradient_accumulation_steps: 1\nmax_target_length: 2048\n")},
      {"MaxText", command_line("run.sh", "python3 -m MaxText.train MaxText/configs/base.yml run_name=x per_device_batch_size=2 remat_policy=full\n")},
      {"ms-swift", command_line("run.sh", "CUDA_VISIBLE_DEVICES=0 \\\nswift sft --model Qwen/Qwen2.5-7B-Instruct --train_type lora "
                                          "--per_device_train_batch_size 1 --max_length 2048\n")},
      {"ms-swift", parsed("sft.yaml", "model: Qwen/Qwen2.5-7B-Instruct\ntrain_type: lora\nper_device_train_batch_size: 1\nlearning_rate: 1.0e-4\n")},
      // ms-swift 3602360 examples/yaml/deepspeed/sft.yaml (tuner_type, its later name for train_type) and an RLHF one.
      {"ms-swift", parsed("sft.yaml", "model: Qwen/Qwen2.5-7B-Instruct\ntorch_dtype: bfloat16\n\ntuner_type: lora\nlora_rank: 8\n"
                                      "dataset:\n  - 'AI-ModelScope/alpaca-gpt4-data-zh#500'\nmax_length: 2048\nper_device_train_batch_size: 1\n")},
      {"ms-swift", parsed("grpo.yaml", "rlhf_type: grpo\nmodel: Qwen/Qwen2.5-7B-Instruct\nper_device_train_batch_size: 4\n")},
      // NVIDIA-NeMo/Megatron-Bridge 067f987 examples/models/qwen/qwen3_vl/sft.sh: the recipe runner and its overrides.
      {"NeMo Megatron-Bridge", command_line("sft.sh", "uv run python -m torch.distributed.run --nproc_per_node=8 scripts/training/run_recipe.py \\\n"
                                                      "  --recipe qwen3_vl_8b_sft_config model.seq_length=4096 train.micro_batch_size=2\n")},
      // ms-swift's entry script run directly (ms-swift 3602360 examples/train/multi-node/deepspeed/train.sh).
      {"ms-swift", command_line("run.sh", "deepspeed --hostfile=./host.txt \\\n    swift/cli/sft.py --model Qwen/Qwen2.5-7B-Instruct --tuner_type lora "
                                          "--lora_rank 8 --gradient_accumulation_steps 16\n")},
      // LLaMA-Factory's v1 trainer (hiyouga/LLaMA-Factory ff6d4d1 examples/v1/train_lora/train_lora_sft.yaml).
      {"LLaMA-Factory v1", parsed("train_lora_sft.yaml", "model: Qwen/Qwen3-4B\nmodel_class: llm\npeft_config:\n  name: lora\n  r: 16\n"
                                                         "dist_config:\n  name: fsdp2\nmicro_batch_size: 1\ncutoff_len: 2048\n")},
      {"LitGPT", command_line("run.sh", "litgpt finetune_lora meta-llama/Llama-2-7b-hf --train.micro_batch_size 2 --lora_r 8\n")},
      {"LitGPT", parsed("lora.yaml", "checkpoint_dir: checkpoints/meta-llama/Llama-2-7b-hf\nprecision: bf16-true\nlora_r: 8\n"
                                     "train:\n  global_batch_size: 8\n  micro_batch_size: 2\n  max_seq_length: 512\n")},
      {"OpenRLHF", command_line("run.sh", "deepspeed --module openrlhf.cli.train_sft --max_len 2048 --train_batch_size 256 "
                                          "--micro_train_batch_size 2 --pretrain meta-llama/Meta-Llama-3-8B --bf16 --zero_stage 2 --gradient_checkpointing\n")},
      {"Nanotron", parsed("config_tiny_llama.yaml", "general:\n  project: debug\nparallelism:\n  dp: 2\n  tp: 2\n  pp: 1\n"
                                                    "tokens:\n  micro_batch_size: 2\n  sequence_length: 256\n  batch_accumulation_per_replica: 1\n")},
      {"Colossal-AI", command_line("run.sh", "env OMP_NUM_THREADS=12 colossalai run --nproc_per_node 4 train.py --plugin gemini --batch_size 8\n")},
      // DeepSpeed-Chat's step-1 script (DeepSpeedExamples applications/DeepSpeed-Chat/training/step1_supervised_finetuning/
      // training_scripts/llama2/run_llama2_7b_lora.sh): its --deepspeed is DeepSpeed's own store-true flag.
      {"DeepSpeed-Chat", command_line("run.sh", "deepspeed main.py --model_name_or_path meta-llama/Llama-2-7b-hf --per_device_train_batch_size 4 "
                                                "--max_seq_len 512 --gradient_checkpointing --zero_stage 3 --deepspeed --lora_dim 128 "
                                                "--lora_module_name \"layers.\" --output_dir out\n")},
      {"DeepSpeed-Chat", command_line("run.sh", "deepspeed main.py --data_path Dahoas/rm-static --data_split 2,4,4 --model_name_or_path "
                                                "facebook/opt-1.3b --zero_stage 2 --deepspeed --output_dir out\n")},
      // Step 3 (training/step3_rlhf_finetuning/main.py): --actor_zero_stage beside a bare --deepspeed.
      {"DeepSpeed-Chat", command_line("run.sh", "deepspeed --master_port 12346 main.py --actor_model_name_or_path a --critic_model_name_or_path c "
                                                "--actor_zero_stage 3 --critic_zero_stage 3 --deepspeed --output_dir out\n")},
  };
  for (const auto& c : cases) {
    INFO(c.framework << " " << c.file.name);
    const auto r = trainmem::import_configs({c.file}, trainmem::builtin_catalog());
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].code == "unknown_config_format");
    CHECK(r.errors[0].message.find(std::string("this is a ") + c.framework) != std::string::npos);
    CHECK(r.errors[0].message.find("enter the setup in the form") != std::string::npos);
    REQUIRE_FALSE(r.errors[0].params.values.empty());
    CHECK(std::get<std::string>(r.errors[0].params.values[0].second).rfind(c.framework, 0) == 0);
  }
  // A path under /nemo/ in another flag names no framework: a TRL line stays a TRL line.
  const auto r = trainmem::import_configs({command_line("run.sh", "python train.py --model_name_or_path Qwen/Qwen2.5-7B --output_dir /data/nemo/out\n")},
                                          trainmem::builtin_catalog());
  CHECK(r.errors.empty());
}

TEST_CASE("a GPU count no file gives is worded with the least the degrees need, never as 1 GPU against them", "[import][unresolved]") {
  auto note = [](const trainmem::ImportResult& r, const std::string& key) {
    for (const auto& n : r.unresolved) if (n.key == key) return n.reason;
    return std::string();
  };
  // torchtitan: every degree given -> the world size is their product (parallel_dims.py asserts
  // dp_replicate x dp_shard x cp x tp x pp == world_size): 1 x 4 x 2 x 1 x 1 = 8.
  auto toml = toml_file("cp.toml", "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nlocal_batch_size = 1\nseq_len = 8192\n"
                                   "[parallelism]\ndata_parallel_shard_degree = 4\ncontext_parallel_degree = 2\n");
  REQUIRE(toml);
  auto r = trainmem::import_configs({*toml}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/world_size") == 8);
  CHECK_FALSE(has_key(r.unresolved, "parallel.world_size"));
  // llama3_70b.toml: shard -1, tensor 8, no launch line: at least 8 GPUs (one data-parallel rank).
  r = trainmem::import_configs(load(kConfigs / "torchtitan", {"llama3_70b.toml"}), trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(note(r, "parallel.world_size").find("at least 8 GPUs (tensor 8)") != std::string::npos);
  CHECK(note(r, "parallel.world_size").find("the page keeps the GPU count its form holds") != std::string::npos);
  CHECK(note(r, "parallel.world_size").find("1 GPU") == std::string::npos);
  // Megatron-LM: TP 2 x PP 2 and a global batch, no launcher: at least 4 GPUs.
  r = trainmem::import_configs({command_line("args.sh", "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --num-layers 24 "
                                                         "--hidden-size 1024 --num-attention-heads 16 --seq-length 2048 --max-position-embeddings 2048 "
                                                         "--micro-batch-size 4 --global-batch-size 64 --vocab-size 50257\n")},
                               trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(note(r, "args.sh:--global-batch-size").find("at least 4 GPUs (tensor 2 x pipeline 2)") != std::string::npos);
  // A DeepSpeed ZeRO-3 JSON alone: one GPU is the least, and the page's own count is kept.
  r = trainmem::import_configs(load(kConfigs / "deepspeed", {"zero_stage3_config.json"}), trainmem::builtin_catalog());
  CHECK(note(r, "parallel.world_size").find("at least 1 GPU;") != std::string::npos);
  CHECK(note(r, "parallel.world_size").find("the page keeps the GPU count its form holds") != std::string::npos);
}

TEST_CASE("a whole number beyond 2^53 is out of range, not 'not a whole number'", "[import][errors]") {
  // 12345678901234567890123 (23 digits) is whole; JSON and YAML parsers hold it as a double, which
  // is exact only up to 2^53 = 9007199254740992.
  trainmem::ConfigFile ds;
  ds.name = "ds.json";
  trainmem::Errors parse_errors;
  ds.content = trainmem::parse_json_config(R"({"train_micro_batch_size_per_gpu": 12345678901234567890123})", "ds.json", parse_errors).value();
  for (const auto& files : {std::vector<trainmem::ConfigFile>{ds},
                            std::vector<trainmem::ConfigFile>{command_line("run.sh", "python train.py --per_device_train_batch_size 12345678901234567890123\n")}}) {
    const auto r = trainmem::import_configs(files, trainmem::builtin_catalog());
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].code == "out_of_range");
    CHECK(r.errors[0].message.find("beyond 9007199254740992 (2^53)") != std::string::npos);
    // The params name the value and the bound, so that a page can word them in its language.
    const json params = json::parse(trainmem::error_document(r.errors))["error"]["params"];
    CHECK(params.at("max") == 9007199254740992.0);
    // As written on the command line; as the double a JSON reader holds.
    const std::string value = params.at("value");
    CHECK((value == "12345678901234567890123" || value == "1.2345678901234568e+22"));
  }
  // A JSON integer the reader holds exactly as 64 bits, 2^53 + 1, is beyond it too: the document
  // (and the page, whose numbers are doubles) would hold 2^53. 2^53 itself is read.
  const auto micro = [](const std::string& number) {
    trainmem::ConfigFile f;
    f.name = "ds.json";
    trainmem::Errors errs;
    f.content = trainmem::parse_json_config(R"({"train_micro_batch_size_per_gpu": )" + number + "}", "ds.json", errs).value();
    return trainmem::import_configs({f}, trainmem::builtin_catalog());
  };
  const auto over = micro("9007199254740993");
  REQUIRE(over.errors.size() == 1);
  CHECK(over.errors[0].code == "out_of_range");
  CHECK(json::parse(trainmem::error_document(over.errors))["error"]["params"].at("value") == "9007199254740993");
  CHECK(micro("9007199254740992").errors.empty());
}

TEST_CASE("NaN in a trainer's JSON file is an error at FILE:key with its params", "[import][errors]") {
  trainmem::Errors errors;
  CHECK_FALSE(trainmem::parse_json_config(R"({"gradient_accumulation_steps": NaN})", "ds.json", errors));
  const json e = json::parse(trainmem::error_document(errors))["error"];
  CHECK(e.at("code") == "wrong_type");
  CHECK(e.at("field") == "ds.json:gradient_accumulation_steps");
  CHECK(e.at("params") == json{{"expected", "number"}, {"got", "NaN or Infinity"}});
}

namespace {
std::string reason_of(const std::vector<trainmem::ImportNote>& notes, const std::string& key) {
  for (const auto& n : notes) if (n.key == key) return n.reason;
  return "";
}
}  // namespace

TEST_CASE("a null batch size or sequence length is what HfArgumentParser passes: None, never the default", "[import][trl]") {
  // transformers hf_argparser.py parse_dict builds TrainingArguments from the keys as given:
  // per_device_train_batch_size None fails in train_batch_size (None * n_gpu), and TRL's max_length
  // None truncates nothing (the longest sample sets the length).
  auto yaml = toml_file("sft.yaml", "model_name_or_path: Qwen/Qwen2.5-7B\nper_device_train_batch_size: null\nmax_length: 2048\n");
  REQUIRE(yaml);
  auto r = trainmem::import_configs({*yaml}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors.front().code == std::string("wrong_type"));
  CHECK(r.errors.front().field == "sft.yaml:per_device_train_batch_size");
  yaml = toml_file("sft.yaml", "model_name_or_path: Qwen/Qwen2.5-7B\nper_device_train_batch_size: 2\nmax_length: null\n");
  REQUIRE(yaml);
  r = trainmem::import_configs({*yaml}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(has_key(r.unresolved, "sft.yaml:max_length"));
  CHECK(document_value(r, "/batch/seq_length").is_null());  // not TRL's 1024 default, not a guess
  CHECK(origin_of(r, "batch.seq_length") == "unresolved: sft.yaml:max_length");
  // Through `trl sft --config`: the line's own reading of SFTConfig's defaults (max_length = 1024)
  // does not fill what the file's null left open; a --max_length on the line does.
  r = trainmem::import_configs({command_line("run.sh", "trl sft --config sft.yaml --num_processes 2\n"), *yaml}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/batch/seq_length").is_null());
  r = trainmem::import_configs({command_line("run.sh", "trl sft --config sft.yaml --max_length 2048\n"), *yaml}, trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/batch/seq_length") == 2048);
}

TEST_CASE("a key no HfArgumentParser dataclass defines is named with the nearest field, never ignored", "[import][trl]") {
  // transformers hf_argparser.py parse_dict (0024962) raises "Some keys are not used by the
  // HfArgumentParser" for a key no dataclass of the script defines. A file's reading script may add
  // dataclasses of its own, so the import warns (unmodelled) and names the nearest field; the
  // mistyped micro-batch keeps TrainingArguments' per_device_train_batch_size default, 8
  // (training_args.py, 00349ae: field(default=8)). per_device_train_batch_sise -> _size is one edit.
  auto yaml = toml_file("sft.yaml", "model_name_or_path: Qwen/Qwen2.5-7B\nper_device_train_batch_sise: 16\n"
                                    "enable_jit_checkpoint: true\n");
  REQUIRE(yaml);
  auto r = trainmem::import_configs({*yaml}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK_FALSE(has_key(r.ignored, "sft.yaml:per_device_train_batch_sise"));
  CHECK(reason_of(r.unmodelled, "sft.yaml:per_device_train_batch_sise").find("did you mean per_device_train_batch_size?") !=
        std::string::npos);
  CHECK(document_value(r, "/batch/micro_batch_size") == 8);
  // enable_jit_checkpoint is a TrainingArguments field at 00349ae (checkpointing on SIGTERM): known,
  // without memory effect, so ignored as such and not warned about.
  CHECK(reason_of(r.ignored, "sft.yaml:enable_jit_checkpoint").find("TrainingArguments field") != std::string::npos);
  CHECK_FALSE(has_key(r.unmodelled, "sft.yaml:enable_jit_checkpoint"));
  // evaluation_strategy, renamed eval_strategy and gone from TrainingArguments at 00349ae: still no
  // memory effect, but told apart from a field of the cited versions.
  yaml = toml_file("old.yaml", "model_name_or_path: Qwen/Qwen2.5-7B\nevaluation_strategy: steps\neval_strategy: steps\n");
  REQUIRE(yaml);
  r = trainmem::import_configs({*yaml}, trainmem::builtin_catalog());
  CHECK(reason_of(r.ignored, "old.yaml:evaluation_strategy").find("not a field of the dataclasses at the cited versions") !=
        std::string::npos);
  CHECK(reason_of(r.ignored, "old.yaml:eval_strategy") == "no memory effect");

  // A TRL script parses exactly ScriptArguments, its config, ModelConfig and DatasetMixtureConfig
  // (trl/scripts/sft.py, f2cd577); TRL's CLI hands what none defines to accelerate launch, which
  // refuses an argument it does not define either: a warning naming it and the field it leaves at
  // its default (older versions defined fields since removed).
  r = trainmem::import_configs({command_line("run.sh", "trl sft --model_name_or_path Qwen/Qwen2.5-7B "
                                                       "--per_device_train_batch_sise 16 --output_dir out\n")},
                               trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(reason_of(r.unmodelled, "run.sh:--per_device_train_batch_sise").find("did you mean per_device_train_batch_size?") != std::string::npos);
  CHECK(reason_of(r.unmodelled, "run.sh:--per_device_train_batch_sise").find("accelerate launch (trl/cli/commands/training.py, f2cd577), which refuses this argument") != std::string::npos);
  CHECK(as_json(r.document).at("batch").at("micro_batch_size") == 8);  // TrainingArguments' default stands: warned, not read

  // A user's own script may define more dataclasses (run_clm.py's block_size): a warning, no error.
  r = trainmem::import_configs({command_line("run.sh", "python run_clm.py --model_name_or_path Qwen/Qwen2.5-7B "
                                                       "--block_size 512 --output_dir out\n")},
                               trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(has_key(r.unmodelled, "run.sh:--block_size"));
}

TEST_CASE("TRL's CLI hands the arguments its dataclasses do not define to accelerate launch", "[import][trl][shell]") {
  // trl/cli/commands/training.py (huggingface/trl f2cd577): `trl sft|dpo|grpo|kto|reward|rloo` parses
  // the script's dataclasses and passes the remaining arguments to `accelerate launch`;
  // --accelerate_config NAME is trl/accelerate_configs/NAME.yaml (zero3.yaml: DEEPSPEED, zero_stage 3,
  // num_processes 8; fsdp2.yaml: FSDP, fsdp_version 2, num_processes 8), given as --config_file, so
  // the line's own flags override it (accelerate launch.py).
  auto yaml = toml_file("sft.yaml", "model_name_or_path: Qwen/Qwen2.5-7B\nmax_length: 2048\n");
  REQUIRE(yaml);
  auto r = trainmem::import_configs({*yaml, command_line("run.sh", "trl sft --config sft.yaml --num_processes 8\n")}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/world_size") == 8);
  CHECK(origin_of(r, "parallel.world_size") == "read from run.sh:--num_processes");
  CHECK_FALSE(has_key(r.unmodelled, "run.sh:--num_processes"));

  r = trainmem::import_configs({command_line("run.sh", "trl dpo --model_name_or_path Qwen/Qwen2.5-7B --accelerate_config zero3 "
                                                       "--num_processes 4 --max_length 1024\n")},
                               trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/zero_stage") == 3);
  CHECK(document_value(r, "/parallel/sharding_engine") == "deepspeed");
  CHECK(origin_of(r, "parallel.zero_stage") == "read from trl/accelerate_configs/zero3.yaml:deepspeed_config.zero_stage");
  CHECK(document_value(r, "/parallel/world_size") == 4);  // the line's --num_processes over the file's 8

  r = trainmem::import_configs({command_line("run.sh", "trl sft --model_name_or_path Qwen/Qwen2.5-7B --accelerate_config fsdp2 --max_length 1024\n")},
                               trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/sharding_engine") == "fsdp2");
  CHECK(document_value(r, "/parallel/world_size") == 8);
  CHECK(origin_of(r, "parallel.world_size") == "read from trl/accelerate_configs/fsdp2.yaml:num_processes");

  // The same keys written in the config file (TRL's CLI guide, docs/source/clis.md: `num_processes: 4`
  // in sft_config.yaml): TrlParser's set_defaults_with_config returns what no dataclass takes, and the
  // CLI passes it to accelerate launch before the line's own remaining arguments, so the line wins.
  yaml = toml_file("sft.yaml", "model_name_or_path: Qwen/Qwen2.5-7B\nmax_length: 2048\nnum_processes: 4\naccelerate_config: zero3\n");
  REQUIRE(yaml);
  r = trainmem::import_configs({*yaml}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/world_size") == 4);  // the file's 4 over zero3.yaml's 8
  CHECK(origin_of(r, "parallel.world_size") == "read from sft.yaml:num_processes");
  CHECK(document_value(r, "/parallel/zero_stage") == 3);
  CHECK(origin_of(r, "parallel.zero_stage") == "read from trl/accelerate_configs/zero3.yaml:deepspeed_config.zero_stage");
  CHECK_FALSE(has_key(r.unmodelled, "sft.yaml:num_processes"));
  // The file is shown as TRL's (the document's formats keep a file's last reading).
  const auto shown = std::find_if(r.formats.rbegin(), r.formats.rend(), [](const auto& f) { return f.first == "sft.yaml"; });
  REQUIRE(shown != r.formats.rend());
  CHECK(shown->second == "trl");
  r = trainmem::import_configs({*yaml, command_line("run.sh", "trl sft --config sft.yaml --num_processes 8\n")}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/world_size") == 8);
  CHECK(reason_of(r.ignored, "sft.yaml:num_processes").find("yields to run.sh:--num_processes") != std::string::npos);
  // Named by `trl sft --config` without a process count on the line: the file's answers it, and the
  // line's note that the count is open goes.
  r = trainmem::import_configs({*yaml, command_line("run.sh", "trl sft --config sft.yaml\n")}, trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/world_size") == 4);
  CHECK_FALSE(has_key(r.unresolved, "run.sh:1"));
  // The script run directly (accelerate launch with its own config) ignores the file's launch keys:
  // acc.yaml's 8 processes, no conflict with the file's 4.
  auto acc = toml_file("acc.yaml", "distributed_type: MULTI_GPU\nnum_processes: 8\n");
  REQUIRE(acc);
  r = trainmem::import_configs({*yaml, *acc, command_line("run.sh", "accelerate launch --config_file acc.yaml trl/scripts/sft.py --config sft.yaml\n")},
                               trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/world_size") == 8);
  CHECK(has_key(r.unmodelled, "sft.yaml:num_processes"));
  // TRL's single_gpu.yaml is distributed_type NO: accelerate launch runs simple_launcher, one
  // process, whatever num_processes says (launch.py _validate_launch_command, 16cb6eb).
  auto single = toml_file("sft.yaml", "model_name_or_path: Qwen/Qwen2.5-7B\nmax_length: 2048\naccelerate_config: single_gpu\nnum_processes: 4\n");
  REQUIRE(single);
  r = trainmem::import_configs({*single}, trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/world_size") == 1);
  CHECK(reason_of(r.ignored, "sft.yaml:num_processes").find("one process") != std::string::npos);
  // A count below 1 (other than -1, given at launch) is an error, not a note beside another file's count.
  auto zero = toml_file("sft.yaml", "model_name_or_path: Qwen/Qwen2.5-7B\nmax_length: 2048\naccelerate_config: zero3\nnum_processes: 0\n");
  REQUIRE(zero);
  r = trainmem::import_configs({*zero}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors.front().field == "sft.yaml:num_processes");
  // accelerate_config must name a file or one of TRL's configs.
  auto number = toml_file("sft.yaml", "model_name_or_path: Qwen/Qwen2.5-7B\nmax_length: 2048\naccelerate_config: 3\n");
  REQUIRE(number);
  r = trainmem::import_configs({*number}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors.front().field == "sft.yaml:accelerate_config");
  // A file of TrainingArguments keys alone, named by `trl sft --config`: the line's command reads it.
  auto plain = toml_file("args.yaml", "output_dir: out\nmodel_name_or_path: Qwen/Qwen2.5-7B\nper_device_train_batch_size: 4\nnum_processes: 4\n");
  REQUIRE(plain);
  r = trainmem::import_configs({*plain, command_line("run.sh", "trl sft --config args.yaml\n")}, trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/world_size") == 4);
  // A plain TrainingArguments file is read by HfArgumentParser, which refuses the key.
  yaml = toml_file("args.yaml", "output_dir: out\nper_device_train_batch_size: 4\nnum_processes: 4\n");
  REQUIRE(yaml);
  r = trainmem::import_configs({*yaml}, trainmem::builtin_catalog());
  CHECK(has_key(r.unmodelled, "args.yaml:num_processes"));

  // accelerate launch with neither --num_processes nor a config file: the machine's default config or
  // one process per visible GPU (launch.py _validate_launch_command): said, not assumed silently.
  r = trainmem::import_configs({command_line("run.sh", "trl sft --model_name_or_path Qwen/Qwen2.5-7B --max_length 1024\n")},
                               trainmem::builtin_catalog());
  CHECK(reason_of(r.unresolved, "run.sh:1").find("one per GPU it shows") != std::string::npos);
}

TEST_CASE("a launcher or DeepSpeed config named but not given leaves the sharding open, never DDP", "[import][shell]") {
  // TRL's usual DPO line names its accelerate config (ZeRO-3 by its name), not given here: the
  // sharding it decides is unresolved, so --document-only refuses the document; the line's own
  // --num_processes still gives the GPU count.
  const std::string line = "accelerate launch --config_file examples/accelerate_configs/deepspeed_zero3.yaml --num_processes 8 "
                           "trl/scripts/dpo.py --model_name_or_path Qwen/Qwen2.5-7B --max_length 2048 --bf16\n";
  auto r = trainmem::import_configs({command_line("run.sh", line)}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/world_size") == 8);
  const auto open = std::find_if(r.open_fields.begin(), r.open_fields.end(), [](const auto& f) { return f.first == "parallel.zero_stage"; });
  REQUIRE(open != r.open_fields.end());
  CHECK(open->second == "run.sh:--config_file");
  const auto only = trainmem::import_files_json({command_line("run.sh", line)}, {}, true);
  CHECK_FALSE(only.ok);
  CHECK(json::parse(only.json).at("error").at("field") == "parallel.zero_stage");
  // The HF Trainer's --deepspeed file likewise.
  r = trainmem::import_configs({command_line("run.sh", "torchrun --nproc_per_node 4 train.py --model_name_or_path Qwen/Qwen2.5-7B "
                                                       "--deepspeed ds_z3.json --max_length 1024\n")},
                               trainmem::builtin_catalog());
  CHECK(std::any_of(r.open_fields.begin(), r.open_fields.end(), [](const auto& f) { return f.first == "parallel.zero_stage"; }));
}

TEST_CASE("an imported value the estimate would refuse is an import error naming the key it was read from", "[import][errors]") {
  // parallel.world_size is at most 10,000,000 (docs/api.md, Limits): torchrun's --nproc_per_node
  // 99999999999 is named as written, not as a document field the user never typed.
  const auto r = trainmem::import_files_json({command_line("run.sh", "torchrun --nproc_per_node 99999999999 pretrain_gpt.py --num-layers 24 "
                                                                      "--hidden-size 1024 --num-attention-heads 16 --seq-length 1024 "
                                                                      "--micro-batch-size 4 --vocab-size 32000 --max-position-embeddings 4096\n")},
                                             {}, false);
  REQUIRE_FALSE(r.ok);
  const json e = json::parse(r.json).at("error");
  CHECK(e.at("code") == "out_of_range");
  CHECK(e.at("field") == "run.sh:--nproc_per_node");
}

TEST_CASE("an accelerate config of distributed_type NO starts one process whatever num_processes says", "[import][accelerate]") {
  // accelerate launch.py (16cb6eb) launch_command: without a distributed type from the file or a
  // flag it runs simple_launcher, one process; TRL's shipped single_gpu.yaml says num_processes 8.
  auto cfg = toml_file("acc.yaml", "distributed_type: \"NO\"\nnum_processes: 8\nmixed_precision: bf16\n");
  REQUIRE(cfg);
  const auto r = trainmem::import_configs({*cfg}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/world_size") == 1);
  CHECK(reason_of(r.ignored, "acc.yaml:num_processes").find("one process") != std::string::npos);
  // A line's --num_processes over that file: still simple_launcher, one process; with --multi_gpu
  // the flag picks the launcher, and its count stands.
  const std::string args = " train.py --model_name_or_path Qwen/Qwen2.5-7B --per_device_train_batch_size 2 --output_dir o\n";
  const auto line = trainmem::import_configs({*cfg, command_line("run.sh", "accelerate launch --config_file acc.yaml --num_processes 4" + args)},
                                             trainmem::builtin_catalog());
  REQUIRE(line.errors.empty());
  CHECK(document_value(line, "/parallel/world_size") == 1);
  CHECK(reason_of(line.ignored, "run.sh:--num_processes").find("one process") != std::string::npos);
  const auto multi = trainmem::import_configs({*cfg, command_line("run.sh", "accelerate launch --config_file acc.yaml --multi_gpu --num_processes 4" + args)},
                                              trainmem::builtin_catalog());
  REQUIRE(multi.errors.empty());
  CHECK(document_value(multi, "/parallel/world_size") == 4);
  // Unquoted, NO is YAML 1.1's false to accelerate's yaml.safe_load (config_args.py): no distributed
  // type matches it, so it launches one process too, and num_machines says nothing more.
  auto unquoted = toml_file("acc.yaml", "distributed_type: NO\nnum_processes: 8\nnum_machines: 1\n");
  REQUIRE(unquoted);
  const auto u = trainmem::import_configs({*unquoted}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(u.errors));
  REQUIRE(u.errors.empty());
  CHECK(document_value(u, "/parallel/world_size") == 1);
  CHECK(u.unmodelled.empty());
  CHECK(reason_of(u.ignored, "acc.yaml:num_machines").find("one process") != std::string::npos);
}

TEST_CASE("an accelerate launch line without a process count leaves the GPU count open, whatever the trainer file says", "[import][accelerate][unresolved]") {
  // accelerate launch.py _validate_launch_command (16cb6eb): without --num_processes or a config
  // file the machine's default config, else torch.cuda.device_count(), sets the process count.
  auto yaml = toml_file("sft.yaml", "model_name_or_path: Qwen/Qwen2.5-7B\nper_device_train_batch_size: 2\nmax_length: 2048\n");
  REQUIRE(yaml);
  const auto r = trainmem::import_configs({command_line("run.sh", "accelerate launch train.py --config sft.yaml\n"), *yaml},
                                          trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/world_size").is_null());
  CHECK(has_key(r.unresolved, "run.sh:1"));
  CHECK(std::any_of(r.open_fields.begin(), r.open_fields.end(), [](const auto& f) { return f.first == "parallel.world_size"; }));
}

TEST_CASE("an axolotl launch line runs axolotl with its config: the launcher's GPU count applies", "[import][axolotl][shell]") {
  // The usual axolotl launches (axolotl 0.18.0 README and src/axolotl/cli/utils/train.py): accelerate
  // launch, torchrun or python over -m axolotl.cli.train CONFIG, and `axolotl train CONFIG`, which runs
  // accelerate launch (its default launcher) or torchrun with the words after "--", and passes its own
  // --num-processes to accelerate. The config says LoRA r 16, micro-batch 2, sequence 4096; each line
  // with a GPU count says 4.
  trainmem::Errors errors;
  const auto config = trainmem::cli::load_config_file("cfg.yml", "base_model: meta-llama/Llama-3.1-8B\nadapter: lora\nlora_r: 16\n"
                                                                 "lora_target_linear: true\nmicro_batch_size: 2\nsequence_len: 4096\n", errors);
  REQUIRE(config);
  const std::pair<const char*, bool> lines[] = {
      {"accelerate launch --num_processes 4 -m axolotl.cli.train cfg.yml\n", true},
      {"torchrun --nproc_per_node 4 -m axolotl.cli.train cfg.yml\n", true},
      {"axolotl train cfg.yml -- --num_processes 4\n", true},
      {"axolotl train cfg.yml --num-processes 4\n", true},
      {"axolotl train cfg.yml --launcher torchrun -- --nproc_per_node 4\n", true},
      {"python -m axolotl.cli.train cfg.yml\n", false},
  };
  for (const auto& [line, four_gpus] : lines) {
    INFO(line);
    const auto r = trainmem::import_configs({*config, command_line("run.sh", line)}, trainmem::builtin_catalog());
    INFO(trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    if (four_gpus) CHECK(document_value(r, "/parallel/world_size") == 4);
    CHECK(document_value(r, "/method") == "lora");
    CHECK(document_value(r, "/lora/r") == 16);
    CHECK(document_value(r, "/batch/micro_batch_size") == 2);
    CHECK(document_value(r, "/batch/seq_length") == 4096);
  }
  // axolotl's own flags override the config's keys (cli/train.py do_cli **kwargs): listed as not
  // read, the config's micro-batch 2 stands.
  auto r = trainmem::import_configs({*config, command_line("run.sh", "accelerate launch --num_processes 4 -m axolotl.cli.train cfg.yml "
                                                                     "--micro_batch_size 8\n")},
                                    trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(has_key(r.unresolved, "run.sh:--micro_batch_size"));
  CHECK(document_value(r, "/batch/micro_batch_size") == 2);
  // The line without its config: the config is named as not given.
  r = trainmem::import_configs({command_line("run.sh", "accelerate launch --num_processes 4 -m axolotl.cli.train cfg.yml\n")},
                               trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(has_key(r.unresolved, "run.sh:1"));
  // A line that names no config is refused.
  r = trainmem::import_configs({command_line("run.sh", "axolotl train\n")}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors.front().message.find("no config file") != std::string::npos);
}

TEST_CASE("FlashAttention-3 as each trainer names it is attention flash3; FlashAttention-2 stays flash", "[import][attention]") {
  // transformers attn_implementation "flash_attention_3" (TRL's ModelConfig, axolotl's
  // attn_implementation), LLaMA-Factory's flash_attn "fa3" (model_args.py AttentionFunction).
  struct Case {
    const char* name;
    std::string text;
    const char* attention;
  };
  const std::string trl = "model_name_or_path: meta-llama/Llama-3.1-8B\ntorch_dtype: bfloat16\nbf16: true\nmax_length: 2048\n"
                          "per_device_train_batch_size: 1\nattn_implementation: ";
  const std::string axolotl = "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nattn_implementation: ";
  const std::string factory = "model_name_or_path: Qwen/Qwen3-8B\nstage: sft\nfinetuning_type: full\nflash_attn: ";
  const Case cases[] = {
      {"sft.yaml", trl + "flash_attention_3\n", "flash3"},
      {"sft.yaml", trl + "kernels-community/flash-attn3\n", "flash3"},
      {"sft.yaml", trl + "flash_attention_2\n", "flash"},
      {"a.yml", axolotl + "flash_attention_3\n", "flash3"},
      {"a.yml", axolotl + "flash_attention_2\n", "flash"},
      {"lf.yaml", factory + "fa3\n", "flash3"},
      {"lf.yaml", factory + "fa2\n", "flash"},
  };
  for (const auto& c : cases) {
    trainmem::Errors errors;
    auto f = trainmem::cli::load_config_file(c.name, c.text, errors);
    REQUIRE(f);
    const auto r = trainmem::import_configs({*f}, trainmem::builtin_catalog());
    INFO(c.text << trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    CHECK(as_json(r.document).at("attention") == c.attention);
  }
}

// LLaMA-Factory's launchers (src/llamafactory/cli.py, hiyouga/LLaMA-Factory@0f53217): `llamafactory-cli
// train CONFIG` runs torchrun over NNODES x NPROC_PER_NODE processes (by default 1 node and the GPUs
// the machine shows), and its README's `accelerate launch ... src/train.py CONFIG` gives the config as
// the script's first word. The config is read by the LLaMA-Factory reader, the GPU count from the line.
TEST_CASE("LLaMA-Factory launch lines name the config and give the GPU count from the environment", "[import][llamafactory]") {
  const auto dir = fs::path(kConfigs) / "llamafactory";
  trainmem::ImportOptions options;
  options.model_preset = "qwen3-4b";
  auto with_line = [&](const std::vector<std::string>& names, const std::string& line) {
    auto files = load(dir, names);
    files.push_back(command_line("run.sh", line));
    return trainmem::import_configs(files, trainmem::builtin_catalog(), options);
  };
  {
    // 2 nodes x 4 processes: 8 GPUs; the DeepSpeed JSON the config names shards over them.
    const auto r = with_line({"qwen3_full_sft.yaml", "ds_z3_config.json"},
                             "NNODES=2 NPROC_PER_NODE=4 FORCE_TORCHRUN=1 llamafactory-cli train examples/train_full/qwen3_full_sft.yaml\n");
    INFO(trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    CHECK(document_value(r, "/parallel/world_size") == 8);
    CHECK(document_value(r, "/parallel/gpus_per_node") == 4);
    CHECK(origin_of(r, "parallel.world_size") == "read from run.sh:NNODES");
    CHECK(document_value(r, "/parallel/zero_stage") == 3);
    CHECK(document_value(r, "/method") == "full");
    CHECK_FALSE(has_key(r.unresolved, "parallel.world_size"));
  }
  {
    // FORCE_TORCHRUN alone: as many processes as the machine has GPUs, which no file says.
    const auto r = with_line({"qwen3_full_sft.yaml", "ds_z3_config.json"},
                             "FORCE_TORCHRUN=1 llamafactory-cli train examples/train_full/qwen3_full_sft.yaml\n");
    REQUIRE(r.errors.empty());
    CHECK(document_value(r, "/parallel/world_size").is_null());
    CHECK(has_key(r.unresolved, "run.sh:1"));
    CHECK(has_key(r.unresolved, "parallel.world_size"));  // ZeRO-3 with no GPU count
  }
  {
    // Two visible GPUs: two processes.
    const auto r = with_line({"qwen3_lora_sft.yaml"}, "CUDA_VISIBLE_DEVICES=0,1 llamafactory-cli train qwen3_lora_sft.yaml\n");
    REQUIRE(r.errors.empty());
    CHECK(document_value(r, "/parallel/world_size") == 2);
    CHECK(origin_of(r, "parallel.world_size") == "read from run.sh:CUDA_VISIBLE_DEVICES");
    CHECK(document_value(r, "/method") == "lora");
  }
  // CUDA reads the list up to its first invalid entry, and a repeated index shows nothing (CUDA C
  // Programming Guide, "CUDA Environment Variables"): "0,,1" is one GPU; ",,", "all", "0,0" none.
  {
    const auto r = with_line({"qwen3_lora_sft.yaml"}, "CUDA_VISIBLE_DEVICES=0,,1 llamafactory-cli train qwen3_lora_sft.yaml\n");
    REQUIRE(r.errors.empty());
    CHECK(document_value(r, "/parallel/world_size") == 1);
  }
  for (const char* none : {",,", "all", "0,0"}) {
    const auto r = with_line({"qwen3_lora_sft.yaml"}, std::string("CUDA_VISIBLE_DEVICES=") + none + " llamafactory-cli train qwen3_lora_sft.yaml\n");
    INFO(none);
    REQUIRE(r.errors.empty());
    CHECK(document_value(r, "/parallel/world_size").is_null());
    CHECK(has_key(r.unresolved, "run.sh:CUDA_VISIBLE_DEVICES"));
  }
  // Each process takes the GPU of its local rank: 8 processes over the 2 GPUs CUDA_VISIBLE_DEVICES
  // shows leave 6 without one (refused); 2 processes over 4 visible GPUs use the first 2.
  {
    const auto r = with_line({"qwen3_lora_sft.yaml"}, "CUDA_VISIBLE_DEVICES=0,1 NPROC_PER_NODE=8 llamafactory-cli train qwen3_lora_sft.yaml\n");
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].code == std::string("inconsistent"));
    CHECK(r.errors[0].field == "run.sh:NPROC_PER_NODE");
    CHECK(r.errors[0].message.find("shows 2 GPUs") != std::string::npos);
  }
  {
    const auto r = with_line({"qwen3_lora_sft.yaml"}, "CUDA_VISIBLE_DEVICES=0,1,2,3 NPROC_PER_NODE=2 llamafactory-cli train qwen3_lora_sft.yaml\n");
    REQUIRE(r.errors.empty());
    CHECK(document_value(r, "/parallel/world_size") == 2);
  }
  // Counts as torchrun reads them (int()): 1e3 and 4.0 are refused, not read as 1000 and 4.
  for (const char* line : {"NPROC_PER_NODE=1e3 llamafactory-cli train qwen3_lora_sft.yaml\n", "NPROC_PER_NODE=4.0 llamafactory-cli train qwen3_lora_sft.yaml\n",
                           "torchrun --nproc_per_node 1e3 src/train.py qwen3_lora_sft.yaml\n"}) {
    const auto r = with_line({"qwen3_lora_sft.yaml"}, line);
    INFO(line);
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].code == std::string("wrong_type"));
  }
  {
    // key=value words after the config override it (OmegaConf.from_cli): not read, so refused.
    const auto r = with_line({"qwen3_lora_sft.yaml"}, "NPROC_PER_NODE=2 llamafactory-cli train qwen3_lora_sft.yaml cutoff_len=8192\n");
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].code == std::string("unsupported"));
    CHECK(std::get<std::string>(r.errors[0].params.values[0].second) == "config_overrides");
  }
  {
    // No config word: named, never a crash (a new user's trial found a bad_alloc here).
    const auto r = with_line({"qwen3_lora_sft.yaml"}, "llamafactory-cli train\n");
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].code == std::string("unknown_config_format"));
    CHECK(r.errors[0].message.find("names no config file") != std::string::npos);
  }
  {
    // The FSDP+QLoRA example's train.sh: accelerate's config gives 2 processes; src/train.py's
    // first word is the LLaMA-Factory config.
    options.model_preset = "llama-3-8b";
    const auto r = with_line({"llama3_lora_sft_fsdp_qlora.yaml", "fsdp_config.yaml"},
                             "CUDA_VISIBLE_DEVICES=0,1 accelerate launch \\\n    --config_file examples/accelerate/fsdp_config.yaml \\\n"
                             "    src/train.py examples/extras/fsdp_qlora/llama3_lora_sft_fsdp_qlora.yaml\n");
    INFO(trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    CHECK(document_value(r, "/method") == "qlora");
    CHECK(document_value(r, "/parallel/world_size") == 2);
    CHECK(document_value(r, "/parallel/sharding_engine") == "fsdp");
  }
}

// Megatron-LM's Megatron-FSDP example (examples/megatron_fsdp/train_llama3_8b_fsdp_h100_fp8.sh) runs
// `$VENV_PREFIX "${PROFILE_CMD[@]}" python -m torch.distributed.run ...` with VENV_PREFIX="uv run" and
// an empty PROFILE_CMD=(): bash expands the empty array to no word at all, and `uv run` runs the
// command in the project's environment. Megatron-FSDP's --data-parallel-sharding-strategy
// optim_grads_params shards like ZeRO-3 (megatron/core/distributed/fsdp/README.md).
TEST_CASE("a Megatron-FSDP launch behind uv run and an empty array is read, its sharding strategy as a ZeRO stage", "[import][megatron][shell]") {
  const std::string args = "--num-layers 2 --hidden-size 256 --num-attention-heads 4 --seq-length 512 --max-position-embeddings 512 "
                           "--micro-batch-size 1 --global-batch-size 8 --use-distributed-optimizer --use-megatron-fsdp ";
  auto run = [&](const std::string& strategy) {
    return import_text("train.sh", "VENV_PREFIX=\"uv run --with torch --python 3.12 --no-sync\"\nPROFILE_CMD=()\n$VENV_PREFIX \"${PROFILE_CMD[@]}\" python -m "
                                   "torch.distributed.run --nproc_per_node 8 pretrain_gpt.py " + args +
                                       "--data-parallel-sharding-strategy " + strategy + "\n");
  };
  for (const auto& [strategy, stage] : std::vector<std::pair<std::string, int>>{{"optim_grads_params", 3}, {"optim_grads", 2}, {"optim", 1}}) {
    const auto r = run(strategy);
    INFO(strategy << ": " << trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    const json doc = as_json(r.document);
    CHECK(doc.at("framework") == "megatron");
    CHECK(doc.at("parallel").at("world_size") == 8);
    CHECK(doc.at("parallel").at("zero_stage") == stage);
    CHECK(origin_of(r, "parallel.zero_stage") == "read from train.sh:--data-parallel-sharding-strategy");
  }
  // no_shard leaves the distributed optimizer's ZeRO-1; an unknown strategy is refused.
  CHECK(as_json(run("no_shard").document).at("parallel").at("zero_stage") == 1);
  const auto bad = run("everything");
  REQUIRE_FALSE(bad.errors.empty());
  CHECK(bad.errors.front().code == std::string("unknown_value"));
}

// An empty file (a YAML or TOML with no keys, which the page sends as "content": null, or a blank
// launch script) is named as empty, not as a missing "text" or a mapping that is null.
TEST_CASE("an empty file is named as empty", "[import][errors]") {
  for (const char* request : {R"({"files": [{"name": "empty.yaml", "content": null}]})", R"({"files": [{"name": "run.sh", "text": " \n\t\n"}]})",
                              R"({"files": [{"name": "ds.json", "text": ""}]})"}) {
    const json e = json::parse(trainmem::import_json(request).json);
    INFO(e.dump());
    REQUIRE(e.contains("error"));
    CHECK(e.at("error").at("code") == "unknown_config_format");
    CHECK(e.at("error").at("params").at("reason") == "empty_file");
    CHECK(e.at("error").at("message").get<std::string>().find("is empty") != std::string::npos);
  }
  // The CLI reads an empty file of any kind alike (a JSON or TOML file with nothing in it).
  for (const char* name : {"ds.json", "job.toml", "train.yaml", "run.sh"}) {
    trainmem::Errors errors;
    const auto f = trainmem::cli::load_config_file(name, "\n  \n", errors);
    REQUIRE(f);
    const auto r = trainmem::import_configs({*f}, trainmem::builtin_catalog());
    INFO(name);
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].message == std::string(name) + " is empty: there is nothing to import");
  }
}

// A launch line pairs with the TOML its CONFIG_FILE names, or with the only TOML given whatever its
// name (a download renamed "llama3_8b (1).toml"), as docs/import.md says; run_train.sh's NGPU
// defaults to 8.
TEST_CASE("a torchtitan launch pairs with the only TOML given, whatever its name", "[import][torchtitan]") {
  auto files = load(kConfigs / "torchtitan", {"llama3_8b.toml"});
  files.front().name = "llama3_8b (1).toml";
  files.push_back(command_line("run.sh", "CONFIG_FILE=\"./torchtitan/models/llama3/train_configs/llama3_8b.toml\" ./run_train.sh\n"));
  const auto r = trainmem::import_configs(files, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/world_size") == 8);
  CHECK(document_value(r, "/framework") == "torchtitan");
}

// "auto" in a DeepSpeed JSON is filled by the HF Trainer only where it has an argument for it
// (transformers integrations/deepspeed.py HfTrainerDeepSpeedConfig: batch sizes, gradient clipping,
// optimizer and scheduler parameters, fp16/bf16, ZeRO's reduce_bucket_size,
// stage3_prefetch_bucket_size and stage3_param_persistence_threshold); the ZeRO stage and
// stage3_max_live_parameters are never filled, and DeepSpeed refuses the word: an error, not an
// open value. stage3_max_live_parameters is a count of parameters, read as a whole number.
TEST_CASE("DeepSpeed \"auto\" where the HF Trainer fills nothing is an error; max live parameters is a count", "[import][deepspeed][errors]") {
  auto import = [](const std::string& zero) {
    trainmem::Errors parse_errors;
    trainmem::ConfigFile ds;
    ds.name = "ds.json";
    ds.content = trainmem::parse_json_config("{\"train_micro_batch_size_per_gpu\": 1, \"zero_optimization\": " + zero + "}", "ds.json",
                                             parse_errors).value();
    return trainmem::import_configs({ds}, trainmem::builtin_catalog());
  };
  for (const char* key : {"stage", "stage3_max_live_parameters"}) {
    const auto r = import(std::string("{") + (key == std::string("stage") ? "" : "\"stage\": 3, ") + "\"" + key + "\": \"auto\"}");
    INFO(trainmem::error_document(r.errors));
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].code == std::string("wrong_type"));
    CHECK(r.errors[0].field == std::string("ds.json:zero_optimization.") + key);
    CHECK(r.errors[0].message.find("is not filled here") != std::string::npos);
  }
  const auto r = import("{\"stage\": 3, \"stage3_max_live_parameters\": 1e9}");
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/zero3_max_live_parameters").is_number_integer());
  CHECK(document_value(r, "/parallel/zero3_max_live_parameters") == 1000000000);
}

// Keys whose effect depends on another: axolotl's torch_compile_mode means nothing without
// torch_compile, and its CUDA-graph modes (reduce-overhead, max-autotune) keep a private pool the
// estimate does not model; accelerate's FSDP prefetch flags are off by default (no unit ahead).
TEST_CASE("compile modes and FSDP prefetch flags are noted by what they do in the file", "[import]") {
  auto reason = [](const trainmem::ImportResult& r, const std::string& key) {
    for (const auto* list : {&r.ignored, &r.unmodelled})
      for (const auto& n : *list)
        if (n.key == key) return std::string(list == &r.ignored ? "ignored: " : "unmodelled: ") + n.reason;
    return std::string();
  };
  auto axolotl = [](const std::string& extra) {
    auto f = toml_file("ax.yml", "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nsequence_len: 2048\n" + extra);
    REQUIRE(f);
    trainmem::ImportOptions options;
    options.model_preset = "llama-3.1-8b";
    return trainmem::import_configs({*f}, trainmem::builtin_catalog(), options);
  };
  CHECK(reason(axolotl("torch_compile: false\ntorch_compile_mode: max-autotune\n"), "ax.yml:torch_compile_mode").rfind("ignored: ", 0) == 0);
  CHECK(reason(axolotl("torch_compile: true\ntorch_compile_mode: max-autotune\n"), "ax.yml:torch_compile_mode").rfind("unmodelled: ", 0) == 0);
  CHECK(reason(axolotl("torch_compile: true\ntorch_compile_mode: default\n"), "ax.yml:torch_compile_mode").rfind("ignored: ", 0) == 0);
  auto accelerate = [](const std::string& prefetch) {
    auto f = toml_file("fsdp.yaml", "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n  fsdp_sharding_strategy: FULL_SHARD\n" + prefetch);
    REQUIRE(f);
    return trainmem::import_configs({*f}, trainmem::builtin_catalog());
  };
  CHECK(reason(accelerate("  fsdp_forward_prefetch: false\n"), "fsdp.yaml:fsdp_config.fsdp_forward_prefetch").rfind("ignored: ", 0) == 0);
  CHECK(reason(accelerate("  fsdp_backward_prefetch: NO_PREFETCH\n"), "fsdp.yaml:fsdp_config.fsdp_backward_prefetch").rfind("ignored: ", 0) == 0);
  CHECK(reason(accelerate("  fsdp_forward_prefetch: true\n"), "fsdp.yaml:fsdp_config.fsdp_forward_prefetch").rfind("unmodelled: ", 0) == 0);
  CHECK(reason(accelerate("  fsdp_backward_prefetch: BACKWARD_PRE\n"), "fsdp.yaml:fsdp_config.fsdp_backward_prefetch").rfind("unmodelled: ", 0) == 0);
}

// --model takes what a file may name: a catalog id, or a Hugging Face id the catalog knows (the id
// a model_config_needed suggestion may give).
TEST_CASE("--model takes a catalog id or the Hugging Face id of a catalog model", "[import]") {
  auto files = load(kConfigs / "axolotl", {"llama3_fft_8b.yaml"});
  for (const char* id : {"llama-3.1-8b", "meta-llama/Llama-3.1-8B", "META-LLAMA/llama-3.1-8b"}) {
    trainmem::ImportOptions options;
    options.model_preset = id;
    const auto r = trainmem::import_configs(files, trainmem::builtin_catalog(), options);
    INFO(id << ": " << trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    CHECK(document_value(r, "/model/preset") == "llama-3.1-8b");
  }
  trainmem::ImportOptions unknown;
  unknown.model_preset = "someone/Llama-3.1-8B-finetune";
  CHECK_FALSE(trainmem::import_configs(files, trainmem::builtin_catalog(), unknown).errors.empty());
}

// A config naming a pre-quantized checkpoint (LLaMA-Factory examples/train_qlora/llama3_lora_sft_awq.yaml
// names TechxGenus/Meta-Llama-3-8B-Instruct-AWQ) priced as a catalog model given with --model: the
// 16-bit weights are not the checkpoint's, which is said, not passed over as a mere model name.
TEST_CASE("--model over a named AWQ or GPTQ checkpoint is noted as unmodelled", "[import]") {
  auto yaml = toml_file("awq.yaml", "model_name_or_path: TechxGenus/Meta-Llama-3-8B-Instruct-AWQ\nstage: sft\nfinetuning_type: lora\n"
                                    "per_device_train_batch_size: 1\ncutoff_len: 2048\n");
  REQUIRE(yaml);
  trainmem::ImportOptions options;
  options.model_preset = "llama-3-8b";
  const auto r = trainmem::import_configs({*yaml}, trainmem::builtin_catalog(), options);
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(has_key(r.unmodelled, "awq.yaml:model_name_or_path"));
  CHECK_FALSE(has_key(r.ignored, "awq.yaml:model_name_or_path"));
}

TEST_CASE("LLaMA-Factory's quantization_method hqq becomes qlora with quant_method hqq, nbits and axis 0", "[import]") {
  // hiyouga/LLaMA-Factory src/llamafactory/model/model_utils/quantization.py @13e73887:
  // quantization_method hqq builds HqqConfig(nbits=quantization_bit, ..., axis=0) for 1 to 6 or 8
  // bits, and raises for any other width.
  const std::string base = "model_name_or_path: meta-llama/Llama-3.1-8B\ncutoff_len: 1024\nquantization_method: hqq\n";
  const auto r = import_file_text("a.yaml", base + "quantization_bit: 2\nquantization_type: nf4\n");
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  const json doc = as_json(r.document);
  CHECK(doc.at("method") == "qlora");
  CHECK(doc.at("qlora") == json{{"quant_method", "hqq"}, {"nbits", 2}, {"axis", 0}});
  CHECK(r.unmodelled.empty());
  CHECK(has_key(r.ignored, "a.yaml:quantization_type"));  // bitsandbytes' setting
  auto refused = [&](const std::string& text) {
    const auto bad = import_file_text("a.yaml", text);
    return bad.errors.empty() ? std::string() : std::string(bad.errors.front().code) + " " + bad.errors.front().field;
  };
  CHECK(refused(base + "quantization_bit: 7\n") == "unknown_value a.yaml:quantization_bit");
  CHECK(refused(base + "quantization_bit: 16\n") == "unknown_value a.yaml:quantization_bit");
  // hparams/parser.py: "Quantization is only compatible with the LoRA or OFT method."
  CHECK(refused(base + "quantization_bit: 4\nfinetuning_type: full\n") == "inconsistent a.yaml:quantization_bit");
  // model/adapter.py: "DoRA is not compatible with PTQ-quantized models." (any method but bitsandbytes')
  CHECK(refused(base + "quantization_bit: 4\nuse_dora: true\n") == "inconsistent a.yaml:use_dora");
  // Without quantization_bit LLaMA-Factory quantizes nothing: the method is ignored, not unmodelled.
  const auto none = import_file_text("a.yaml", base);
  REQUIRE(none.errors.empty());
  CHECK(has_key(none.ignored, "a.yaml:quantization_method"));
  CHECK(as_json(none.document).value("method", "") == "lora");
}

TEST_CASE("an 8-bit base under a LoRA adapter becomes qlora with quant_type int8 in each trainer's reader", "[import]") {
  // TRL ModelConfig: use_peft + load_in_8bit (trl/trainer/utils.py get_quantization_config);
  // axolotl: adapter lora + load_in_8bit (loaders/model.py BitsAndBytesConfig(load_in_8bit=True));
  // LLaMA-Factory: finetuning_type lora (the default) + quantization_bit 8 (model_utils/quantization.py).
  const std::vector<std::string> texts = {
      "model_name_or_path: meta-llama/Llama-3.1-8B\nmax_length: 1024\nuse_peft: true\nload_in_8bit: true\n",
      "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nsequence_len: 2048\nadapter: lora\nload_in_8bit: true\n",
      "model_name_or_path: meta-llama/Llama-3.1-8B\ncutoff_len: 1024\nquantization_bit: 8\n",
  };
  for (const auto& text : texts) {
    const auto r = import_file_text("a.yaml", text);
    INFO(text << trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    const json doc = as_json(r.document);
    CHECK(doc.at("method") == "qlora");
    CHECK(doc.at("qlora").at("quant_type") == "int8");
    CHECK_FALSE(doc.at("qlora").contains("double_quant"));
  }
  // TRL's 4-bit settings beside an 8-bit base do not apply (get_quantization_config): ignored, and
  // LLaMA-Factory's finetuning_type lora is the method's, not an unmodelled type.
  for (const char* text : {"model_name_or_path: meta-llama/Llama-3.1-8B\nmax_length: 1024\nuse_peft: true\nload_in_8bit: true\n"
                                  "bnb_4bit_quant_type: nf4\nuse_bnb_nested_quant: true\n",
                                  "model_name_or_path: meta-llama/Llama-3.1-8B\ncutoff_len: 1024\nfinetuning_type: lora\nquantization_bit: 8\n"}) {
    const auto r = import_file_text("a.yaml", text);
    INFO(text << trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    const json doc = as_json(r.document);
    CHECK(doc.at("qlora") == json{{"quant_type", "int8"}});
    CHECK(r.unmodelled.empty());
  }
  // Without an adapter an 8-bit base cannot train: listed, not estimated as a quantized run.
  const auto r = import_file_text("a.yaml", "model_name_or_path: meta-llama/Llama-3.1-8B\nmax_length: 1024\nload_in_8bit: true\n");
  REQUIRE(r.errors.empty());
  CHECK(as_json(r.document).value("method", "") != "qlora");
  // axolotl's peft_autocast_adapter_dtype: false leaves adapters over a 4-bit base in its compute
  // dtype (bnb_4bit_compute_dtype, the loaded bf16) and over an 8-bit base in fp32: PEFT moves them
  // to a floating base dtype only, and int8 weights carry no compute dtype (huggingface/peft#2893).
  const std::string no_upcast = "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nsequence_len: 2048\nbf16: true\n"
                                "peft_autocast_adapter_dtype: false\n";
  CHECK(as_json(import_file_text("a.yaml", no_upcast + "adapter: lora\nload_in_8bit: true\n").document).at("lora").at("adapter_dtype") == "fp32");
  CHECK(as_json(import_file_text("a.yaml", no_upcast + "adapter: qlora\nload_in_4bit: true\n").document).at("lora").at("adapter_dtype") == "bf16");
  // axolotl refuses adapter qlora over an 8-bit load (utils/schemas/peft.py validate_qlora), 4-bit set or not.
  for (const char* four : {"", "load_in_4bit: true\n"}) {
    const auto qlora8 = import_file_text("a.yaml", std::string("base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nsequence_len: 2048\n"
                                                               "adapter: qlora\nload_in_8bit: true\n") + four);
    REQUIRE(qlora8.errors.size() >= 1);
    CHECK(trainmem::error_document(qlora8.errors).find("\"qlora_in_8bit\"") != std::string::npos);
  }
  // TRL's ModelConfig takes one of load_in_4bit and load_in_8bit.
  const auto refused = import_file_text("a.yaml", "model_name_or_path: meta-llama/Llama-3.1-8B\nuse_peft: true\nload_in_4bit: true\nload_in_8bit: true\n");
  REQUIRE(refused.errors.size() == 1);
  CHECK(refused.errors[0].code == std::string("inconsistent"));
}

TEST_CASE("DeepSpeed's offload_param below ZeRO stage 3 is listed as without effect, and the document estimates", "[import][deepspeed]") {
  // deepspeed/runtime/zero/config.py (edaa722): offload_param is "valid only with stage 3"; only
  // the stage-3 paths of runtime/engine.py pass it on. OpenRLHF-style helpers write it at stage 2.
  auto ds = toml_file("ds.json", R"({"zero_optimization": {"stage": 2, "offload_param": {"device": "cpu"}}, "train_micro_batch_size_per_gpu": 2})");
  REQUIRE(ds);
  const auto line = command_line("run.sh", "deepspeed --num_gpus 8 train.py --deepspeed ds.json --model_name_or_path meta-llama/Llama-3.1-8B "
                                           "--max_seq_length 2048 --bf16\n");
  const auto r = trainmem::import_configs({line, *ds}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/offload_param").is_null());
  CHECK(reason_of(r.ignored, "ds.json:zero_optimization.offload_param").find("stage 3") != std::string::npos);
  const auto only = trainmem::import_files_json({line, *ds}, {}, true);
  REQUIRE(only.ok);
  CHECK(trainmem::estimate_json(only.json).ok);
  // At stage 3 it is read.
  auto ds3 = toml_file("ds.json", R"({"zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"}}, "train_micro_batch_size_per_gpu": 2})");
  REQUIRE(ds3);
  CHECK(document_value(trainmem::import_configs({line, *ds3}, trainmem::builtin_catalog()), "/parallel/offload_param") == "cpu");
}

TEST_CASE("torchtitan: a launch naming another job config than the one given says which is read in its place", "[import][torchtitan][shell]") {
  // run_train.sh's CONFIG_FILE and --job.config_file name the TOML torchtitan reads
  // (torchtitan/config/manager.py); the only TOML given stands in for one not given, and says so.
  auto toml = toml_file("llama3_8b.toml", "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nlocal_batch_size = 1\nseq_len = 2048\n");
  REQUIRE(toml);
  auto r = trainmem::import_configs({*toml, command_line("l.sh", "NGPU=8 CONFIG_FILE=./llama3_70b.toml ./run_train.sh\n")}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(reason_of(r.ignored, "l.sh:CONFIG_FILE") ==
        "names ./llama3_70b.toml, which was not given; llama3_8b.toml, the only job config given, is read in its place");
  r = trainmem::import_configs({*toml, command_line("t.sh", "torchrun --nproc_per_node 4 -m torchtitan.train --job.config_file other.toml\n")},
                               trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(reason_of(r.ignored, "t.sh:--job.config_file").rfind("names other.toml, which was not given", 0) == 0);
  r = trainmem::import_configs({*toml, command_line("t.sh", "torchrun --nproc_per_node 4 -m torchtitan.train --job.config_file ./cfg/llama3_8b.toml\n")},
                               trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(reason_of(r.ignored, "t.sh:--job.config_file") == "names the job config, read as a file of its own");
}

TEST_CASE("LLaMA-Factory: a stage or fine-tuning type it does not take is an error; PPO and KTO leave the RLHF setting open", "[import][llamafactory]") {
  // hparams/finetuning_args.py (ff6d4d1): stage: Literal["pt", "sft", "rm", "ppo", "dpo", "kto"],
  // finetuning_type: Literal["lora", "oft", "freeze", "full"]; HfArgumentParser refuses others.
  auto typo = toml_file("lf.yaml", "model_name_or_path: meta-llama/Llama-3.1-8B\nstage: sft\nfinetuning_type: loar\n");
  REQUIRE(typo);
  auto r = trainmem::import_configs({*typo}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].code == std::string("unknown_value"));
  CHECK(r.errors[0].field == "lf.yaml:finetuning_type");
  CHECK(json::parse(trainmem::error_document(r.errors))["error"]["params"].at("suggestion") == "lora");
  auto stage = toml_file("lf.yaml", "model_name_or_path: meta-llama/Llama-3.1-8B\nstage: sfft\n");
  REQUIRE(stage);
  r = trainmem::import_configs({*stage}, trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].field == "lf.yaml:stage");
  // PPO keeps reward and reference models beside the policy: not priced as SFT in silence.
  auto ppo = toml_file("lf.yaml", "model_name_or_path: meta-llama/Llama-3.1-8B\nstage: ppo\nper_device_train_batch_size: 2\n");
  REQUIRE(ppo);
  r = trainmem::import_configs({*ppo}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(has_key(r.unresolved, "lf.yaml:stage"));
  CHECK(std::any_of(r.open_fields.begin(), r.open_fields.end(), [](const auto& f) { return f.first == "rlhf.algorithm"; }));
  CHECK_FALSE(trainmem::import_files_json({*ppo}, {}, true).ok);
}

TEST_CASE("a launch line's --config is noted once, as the file it names, never also as an unknown flag", "[import][trl]") {
  // TRL's TrlParser takes --config off the arguments before the dataclasses parse them
  // (trl/scripts/utils.py parse_args_and_config, f2cd577); a script of one's own is read alike.
  auto yaml = toml_file("sft.yaml", "model_name_or_path: Qwen/Qwen2.5-7B\nper_device_train_batch_size: 2\nmax_length: 2048\n");
  REQUIRE(yaml);
  for (const char* line : {"trl sft --config sft.yaml\n", "accelerate launch --num_processes 2 train_sft.py --config sft.yaml\n"}) {
    INFO(line);
    const auto r = trainmem::import_configs({command_line("run.sh", line), *yaml}, trainmem::builtin_catalog());
    INFO(trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    std::size_t notes = 0;
    for (const auto* list : {&r.ignored, &r.unmodelled, &r.unresolved})
      notes += std::count_if(list->begin(), list->end(), [](const trainmem::ImportNote& n) { return n.key == "run.sh:--config"; });
    CHECK(notes == 1);
    CHECK(reason_of(r.ignored, "run.sh:--config") == "names sft.yaml, which is read as a file of its own");
  }
}

TEST_CASE("axolotl: a near miss of a key that sets memory is a warning naming it, never silence", "[import][axolotl]") {
  // micro_batch_sіze (a Cyrillic і) and sequnce_len leave micro_batch_size and sequence_len at
  // their defaults in axolotl too; the import says which key was meant.
  auto yaml = toml_file("ax.yml", "base_model: meta-llama/Llama-3.1-8B\nadapter: lora\nlora_r: 16\nmicro_batch_s\xd1\x96ze: 2\nsequnce_len: 4096\nlearning_rate: 0.0002\n");
  REQUIRE(yaml);
  const auto r = trainmem::import_configs({*yaml}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(reason_of(r.unmodelled, "ax.yml:micro_batch_s\xd1\x96ze").find("did you mean micro_batch_size?") != std::string::npos);
  CHECK(reason_of(r.unmodelled, "ax.yml:sequnce_len").find("did you mean sequence_len?") != std::string::npos);
  CHECK(reason_of(r.unmodelled, "ax.yml:learning_rate").empty());
}

TEST_CASE("a whole number written on a command line is read as Python's int() reads it", "[import][errors]") {
  // argparse type=int (HfArgumentParser) calls int(): int("1e2") and int("8.0") raise, int("1_6")
  // is 16 (Python 3.6+, PEP 515).
  const auto read = [](const std::string& value) {
    return trainmem::import_configs({command_line("run.sh", "python train.py --model_name_or_path meta-llama/Llama-3.1-8B --max_length 2048 "
                                                            "--per_device_train_batch_size " + value + "\n")},
                                    trainmem::builtin_catalog());
  };
  for (const char* bad : {"1e2", "8.0"}) {
    INFO(bad);
    const auto r = read(bad);
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].code == std::string("wrong_type"));
    CHECK(r.errors[0].field == "run.sh:--per_device_train_batch_size");
  }
  const auto r = read("1_6");
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/batch/micro_batch_size") == 16);
}

TEST_CASE("axolotl: the fsdp option list beside fsdp_config's version, and checkpointing off beside FSDP's own, are one run, not a conflict", "[import][axolotl]") {
  // axolotl 067b021 utils/schemas/validation.py check_fsdp_version_in_fsdp_config: the list gives
  // the strategy, fsdp_config.fsdp_version the version (examples/llama-3/3b-qat-fsdp2.yaml).
  auto v2 = toml_file("ax.yml", "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nsequence_len: 2048\n"
                                "fsdp:\n  - full_shard\n  - auto_wrap\nfsdp_config:\n  fsdp_version: 2\n");
  REQUIRE(v2);
  auto r = trainmem::import_configs({*v2}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/parallel/sharding_engine") == "fsdp2");
  CHECK(document_value(r, "/parallel/zero_stage") == 3);
  // examples/archived/dbrx/16bit-lora.yaml: gradient_checkpointing false "don't use with
  // fsdp_activation_checkpointing", which accelerate's FSDP plugin applies itself.
  auto dbrx = toml_file("ax.yml", "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nsequence_len: 2048\ngradient_checkpointing: false\n"
                                  "fsdp:\n  - full_shard\n  - auto_wrap\nfsdp_config:\n  fsdp_activation_checkpointing: true\n");
  REQUIRE(dbrx);
  r = trainmem::import_configs({*dbrx}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/activation_checkpointing") == "full");
  // Off alone stays off, even beside a TRL line whose SFTConfig default would turn it on.
  auto yaml = toml_file("sft.yaml", "model_name_or_path: Qwen/Qwen2.5-7B\nper_device_train_batch_size: 2\nmax_length: 2048\ngradient_checkpointing: false\n");
  REQUIRE(yaml);
  r = trainmem::import_configs({command_line("run.sh", "trl sft --config sft.yaml\n"), *yaml}, trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/activation_checkpointing") == "none");
}

TEST_CASE("keys that change memory without a document field are warned about, never ignored as without effect", "[import]") {
  // LLaMA-Factory ff6d4d1: fp8 is FP8 mixed precision through accelerate (hparams/training_args.py
  // Fp8Arguments); examples/megatron/*.yaml set Megatron-Core's parallel layout.
  auto lf = toml_file("lf.yaml", "model_name_or_path: meta-llama/Llama-3.1-8B\nstage: sft\nfinetuning_type: full\ncutoff_len: 2048\n"
                                 "fp8: true\ntensor_model_parallel_size: 4\n");
  REQUIRE(lf);
  auto r = trainmem::import_configs({*lf}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/precision/fp8_compute") == true);
  CHECK(has_key(r.unmodelled, "lf.yaml:tensor_model_parallel_size"));
  // axolotl 067b021 examples/expert_parallel/qwen3_30ba3b_ep_fft_4gpu.yaml; a misspelt
  // context_parallel_size (examples/falcon-h1/falcon-h1-1b-qlora-cp.yaml).
  auto ax = toml_file("ax.yml", "base_model: meta-llama/Llama-3.1-8B\nadapter: lora\nlora_r: 16\nmicro_batch_size: 1\nsequence_len: 2048\n"
                                "expert_parallel_size: 4\ncontext_parapllel_size: 2\n");
  REQUIRE(ax);
  r = trainmem::import_configs({*ax}, trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(has_key(r.unmodelled, "ax.yml:expert_parallel_size"));
  CHECK(reason_of(r.unmodelled, "ax.yml:context_parapllel_size").find("did you mean context_parallel_size?") != std::string::npos);
}

TEST_CASE("GRPO without a prompt length leaves the sequence length open: GRPOConfig no longer truncates prompts", "[import][trl][unresolved]") {
  // TRL f2cd577 trl/trainer/grpo_config.py defines max_completion_length but no max_prompt_length.
  const auto r = trainmem::import_configs({command_line("run.sh", "trl grpo --model_name_or_path Qwen/Qwen2.5-7B --per_device_train_batch_size 2 "
                                                                  "--num_generations 8 --max_completion_length 512 --num_processes 8\n")},
                                          trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(reason_of(r.unresolved, "run.sh:(prompt length)").find("does not truncate prompts") != std::string::npos);
  CHECK(std::any_of(r.open_fields.begin(), r.open_fields.end(), [](const auto& f) { return f.first == "batch.seq_length"; }));
}

TEST_CASE("trl vllm-serve starts a server: the script's training line is the one read", "[import][trl]") {
  // huggingface/trl f2cd577 examples/scripts/harbor/data_agent.py's usage: vLLM served on GPU 0,
  // training on GPUs 1 and 2 (trl/cli/commands/vllm_serve.py is not a trainer).
  const auto r = trainmem::import_configs(
      {command_line("run.sh", "CUDA_VISIBLE_DEVICES=0 trl vllm-serve --model Qwen/Qwen3-4B &\n"
                              "CUDA_VISIBLE_DEVICES=1,2 accelerate launch --num_processes 2 train.py --model_name_or_path Qwen/Qwen3-4B "
                              "--per_device_train_batch_size 2 --bf16\n")},
      trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  const json doc = as_json(r.document);
  CHECK(doc.at("parallel").at("world_size") == 2);
  CHECK(doc.at("batch").at("micro_batch_size") == 2);
  for (const auto& n : r.unmodelled) CHECK(n.reason.find("vllm-serve") == std::string::npos);
}

TEST_CASE("A script's own --num_layers and --seq_length are not Megatron-LM's --num-layers and --seq-length", "[import][megatron]") {
  // deepspeedai/DeepSpeed edaa722 examples/sdma_allgather/run_qwen3_sdma_off.sh runs
  // train_qwen3_zero3.py, whose argparse defines --num_layers and --seq_length itself; Megatron-LM
  // declares them with dashes, which argparse does not match to underscores. Not read as Megatron:
  // refused as a script whose flags this import does not read.
  const auto r = trainmem::import_configs(
      {command_line("run.sh", "deepspeed --num_gpus 8 train_qwen3_zero3.py --deepspeed_config ds_z3.json --num_layers 64 "
                              "--seq_length 4096 --hidden_size 5120\n")},
      trainmem::builtin_catalog());
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].code == "unknown_config_format");
  CHECK(r.errors[0].message.find("train_qwen3_zero3.py is given no flag this import reads") != std::string::npos);
  // The same names with dashes are Megatron-LM's.
  const auto megatron = trainmem::import_configs(
      {command_line("run.sh", "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 32 --seq-length 4096 --hidden-size 4096 "
                              "--num-attention-heads 32 --micro-batch-size 1 --global-batch-size 8 --bf16\n")},
      trainmem::builtin_catalog());
  INFO(trainmem::error_document(megatron.errors));
  CHECK(as_json(megatron.document).value("framework", "") == "megatron");
}

TEST_CASE("A TRL script's teacher or reward model is named as a model the estimate leaves out, not as a misspelling", "[import][trl]") {
  // huggingface/trl f2cd577 docs/source/distillation_trainer.md: examples/scripts/distillation.py
  // parses DistillationConfig, whose teacher_model_name_or_path loads a second model.
  const auto r = trainmem::import_configs(
      {command_line("run.sh", "accelerate launch --num_processes 1 examples/scripts/distillation.py --model_name_or_path "
                              "Qwen/Qwen2.5-0.5B --teacher_model_name_or_path Qwen/Qwen2.5-1.5B --per_device_train_batch_size 2 "
                              "--max_length 1024 --bf16\n")},
      trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  const auto teacher = std::find_if(r.unmodelled.begin(), r.unmodelled.end(),
                                    [](const auto& n) { return n.key == "run.sh:--teacher_model_name_or_path"; });
  REQUIRE(teacher != r.unmodelled.end());
  CHECK(teacher->reason.find("a second model the script loads") != std::string::npos);
  CHECK(teacher->reason.find("did you mean") == std::string::npos);

  // TRL's PPO script trains the policy it loads from sft_model_path; model_name_or_path is the
  // tokenizer's (examples/scripts/ppo/ppo.py, f2cd577): the model is the 7B, not the 0.5B.
  const auto ppo = trainmem::import_configs(
      {command_line("run.sh", "python examples/scripts/ppo/ppo.py --model_name_or_path Qwen/Qwen2.5-0.5B --sft_model_path "
                              "Qwen/Qwen2.5-7B --reward_model_path Qwen/Qwen2.5-0.5B --per_device_train_batch_size 4 --output_dir o\n")},
      trainmem::builtin_catalog());
  INFO(trainmem::error_document(ppo.errors));
  REQUIRE(ppo.errors.empty());
  CHECK(as_json(ppo.document)["model"]["preset"] == "qwen2.5-7b");
  CHECK(reason_of(ppo.ignored, "run.sh:--model_name_or_path").find("sft_model_path") != std::string::npos);
  CHECK(has_key(ppo.unmodelled, "run.sh:--reward_model_path"));
}

TEST_CASE("torchtune model components that would not instantiate are refused at their key", "[import][torchtune]") {
  // pytorch/torchtune bd2a0fc: models/qwen3/_model_builders.py defines lora_qwen3_32b and no
  // qlora_ partials; lora_qwen3_0_6b_instruct's output is tied to the embedding, and
  // qwen3/_component_builders.py lora_qwen3 raises ValueError("apply_lora_to_output is incompatible
  // with tie_word_embeddings"); qwen3_32b() takes no arguments (config.instantiate passes them).
  // The rest of a recipe config: the keys its recipes require.
  const std::string rest = "batch_size: 2\ngradient_accumulation_steps: 1\noptimizer:\n  _component_: torch.optim.AdamW\n"
                           "loss:\n  _component_: torchtune.modules.loss.LinearCrossEntropyLoss\n";
  const auto refused = [&](const std::string& model) {
    auto yaml = toml_file("c.yaml", "model:\n" + model + rest);
    REQUIRE(yaml);
    const auto r = trainmem::import_configs({*yaml}, trainmem::builtin_catalog());
    INFO(trainmem::error_document(r.errors));
    REQUIRE(r.errors.size() == 1);
    return r.errors.front();
  };
  auto e = refused("  _component_: torchtune.models.qwen3.qlora_qwen3_32b\n  lora_attn_modules: [q_proj, v_proj]\n");
  CHECK(e.field == "c.yaml:model._component_");
  CHECK(e.message.find("QLoRA is lora_qwen3_32b with quantize_base: True") != std::string::npos);
  e = refused("  _component_: torchtune.models.qwen3.lora_qwen3_0_6b_instruct\n  lora_attn_modules: [q_proj, v_proj]\n  apply_lora_to_output: True\n");
  CHECK(e.field == "c.yaml:model.apply_lora_to_output");
  e = refused("  _component_: torchtune.models.qwen3.qwen3_32b\n  lora_rank: 8\n");
  CHECK(e.field == "c.yaml:model.lora_rank");
  // lora_gemma_2b has no apply_lora_to_output parameter (models/gemma/_model_builders.py).
  e = refused("  _component_: torchtune.models.gemma.lora_gemma_2b\n  lora_attn_modules: [q_proj]\n  apply_lora_to_output: False\n");
  CHECK(e.field == "c.yaml:model.apply_lora_to_output");
  // What torchtune takes is read: quantize_base on lora_qwen3_32b, the 8B's adaptable output.
  auto yaml = toml_file("c.yaml", "model:\n  _component_: torchtune.models.qwen3.lora_qwen3_32b\n  lora_attn_modules: [q_proj]\n  quantize_base: True\n" + rest);
  REQUIRE(yaml);
  auto r = trainmem::import_configs({*yaml}, trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/method") == "qlora");
  yaml = toml_file("c.yaml", "model:\n  _component_: torchtune.models.qwen3.lora_qwen3_8b_instruct\n  lora_attn_modules: [q_proj]\n  apply_lora_to_output: True\n" + rest);
  REQUIRE(yaml);
  r = trainmem::import_configs({*yaml}, trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(document_value(r, "/lora/target_modules") == json::array({"q_proj", "lm_head"}));
}

TEST_CASE("torchtune's PPO and GRPO recipe configs are named as recipes the import does not read", "[import][torchtune]") {
  // pytorch/torchtune bd2a0fc recipes/configs/mistral/7B_full_ppo_low_memory.yaml (policy_model,
  // reward_and_value_model) and recipes/configs/dev/3B_full_grpo.yaml (grpo_samples): excerpts.
  const std::pair<const char*, const char*> cases[] = {
      {"ppo", "policy_model:\n  _component_: torchtune.models.mistral.mistral_7b\nreward_and_value_model:\n"
              "  _component_: torchtune.modules.classifier_model\n  base_model_path: torchtune.models.mistral.mistral_7b\nbatch_size: 64\n"},
      {"grpo", "model:\n  _component_: torchtune.models.llama3_2.llama3_2_3b\ngrpo_samples: 16\nbatch_size: 1\n"},
  };
  for (const auto& [algorithm, yaml] : cases) {
    trainmem::Errors errors;
    auto f = trainmem::cli::load_config_file("recipe.yaml", yaml, errors);
    REQUIRE(f);
    const auto r = trainmem::import_configs({*f}, trainmem::builtin_catalog());
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].code == "unsupported");
    CHECK(std::get<std::string>(r.errors[0].params.values.at(0).second) == "torchtune_rlhf_recipe");
    CHECK(r.errors[0].message.find(std::string("as an rlhf ") + algorithm + " job") != std::string::npos);
  }
}

TEST_CASE("A script's own adapter or quantization flags leave the method open instead of a full fine-tune", "[import][unresolved]") {
  // huggingface/peft 5d602fdb examples/sft/run_peft_qlora_fsdp.sh runs examples/sft/train.py, whose
  // ModelArguments define --use_peft_lora and --use_4bit_quantization (QLoRA on Llama-2-70B): an
  // estimate of full fine-tuning would be another run.
  const auto r = trainmem::import_configs(
      {command_line("run.sh", "accelerate launch --num_processes 2 train.py --model_name_or_path meta-llama/Llama-2-70b-hf "
                              "--per_device_train_batch_size 2 --max_seq_length 2048 --gradient_checkpointing True --bf16 True "
                              "--use_peft_lora True --lora_r 8 --use_4bit_quantization True --use_nested_quant True\n")},
      trainmem::builtin_catalog());
  REQUIRE(r.errors.empty());
  CHECK(has_key(r.unresolved, "run.sh:--use_peft_lora"));
  CHECK_FALSE(as_json(r.document).contains("method"));
  for (const auto& n : r.unmodelled) CHECK(n.key != "run.sh:--use_peft_lora");
  // Whole words of the name: exploration ("exp-lora-tion") and quantile are not about adapters; a
  // flag turned off (--use_peft_lora False) leaves the line a full fine-tune, listed as ignored.
  const auto other = trainmem::import_configs(
      {command_line("run.sh", "python train.py --model_name_or_path Qwen/Qwen2.5-0.5B --per_device_train_batch_size 2 --bf16 "
                              "--exploration_steps 10 --quantile 0.9 --use_peft_lora False --output_dir o\n")},
      trainmem::builtin_catalog());
  REQUIRE(other.errors.empty());
  CHECK_FALSE(has_key(other.unresolved, "run.sh:--exploration_steps"));
  CHECK_FALSE(has_key(other.unresolved, "run.sh:--quantile"));
  CHECK_FALSE(has_key(other.unresolved, "run.sh:--use_peft_lora"));
  CHECK(reason_of(other.ignored, "run.sh:--use_peft_lora").find("turned off") != std::string::npos);
  CHECK(std::none_of(other.provenance.begin(), other.provenance.end(),
                     [](const auto& p) { return p.field == "method" && p.origin.rfind("unresolved", 0) == 0; }));
}

TEST_CASE("llamafactory-cli train with flags and no config file reads the flags as the config's keys", "[import][llamafactory]") {
  // hiyouga/LLaMA-Factory ff6d4d1 examples/train_lora/qwen3_lora_sft.sh (an excerpt):
  // hparams/parser.py read_args parses the command's arguments with the same dataclasses when no
  // YAML or JSON file is given.
  const auto r = trainmem::import_configs(
      {command_line("qwen3_lora_sft.sh", "NPROC_PER_NODE=2 llamafactory-cli train \\\n    --model_name_or_path Qwen/Qwen3-4B \\\n"
                                         "    --stage sft \\\n    --do_train \\\n    --finetuning_type lora \\\n    --lora_rank 8 \\\n"
                                         "    --lora_target all \\\n    --cutoff_len 2048 \\\n    --per_device_train_batch_size 1 \\\n"
                                         "    --gradient_accumulation_steps 8 \\\n    --bf16\n")},
      trainmem::builtin_catalog());
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  const json doc = as_json(r.document);
  CHECK(doc.at("method") == "lora");
  CHECK(doc.at("lora").at("r") == 8);
  CHECK(doc.at("batch").at("seq_length") == 2048);
  CHECK(doc.at("batch").at("gradient_accumulation_steps") == 8);
  CHECK(doc.at("parallel").at("world_size") == 2);
}

TEST_CASE("torchtune's Qwen3, Llama 3.3 and Phi-4 builders name their catalog models", "[import][torchtune]") {
  // pytorch/torchtune bd2a0fc recipes/configs/qwen3/8B_lora_single_device.yaml (an excerpt):
  // lora_qwen3_8b_instruct builds Qwen/Qwen3-8B (qwen3/_model_builders.py: vocabulary 151,936, 36
  // layers, 4,096 wide, the catalog's qwen3-8b); llama3_3_70b is llama3_1_70b's layout for
  // Llama 3.3 70B, phi4_14b Phi-4's (vocabulary 100,352, 40 layers, 5,120 wide).
  const std::string rest = "batch_size: 2\ngradient_accumulation_steps: 8\ndtype: bf16\nenable_activation_checkpointing: True\n"
                           "optimizer:\n  _component_: torch.optim.AdamW\n  fused: True\n  lr: 3e-4\n"
                           "loss:\n  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss\n";
  const std::pair<const char*, const char*> cases[] = {
      {"model:\n  _component_: torchtune.models.qwen3.lora_qwen3_8b_instruct\n  lora_attn_modules: ['q_proj', 'v_proj', 'output_proj']\n"
       "  apply_lora_to_mlp: True\n  apply_lora_to_output: False\n  lora_rank: 8\n  lora_alpha: 16\n  lora_dropout: 0.0\n", "qwen3-8b"},
      {"model:\n  _component_: torchtune.models.llama3_3.llama3_3_70b\n", "llama-3.3-70b"},
      {"model:\n  _component_: torchtune.models.phi4.lora_phi4_14b\n  lora_attn_modules: ['q_proj', 'v_proj']\n  lora_rank: 8\n"
       "  lora_alpha: 16\n", "phi-4"},
  };
  for (const auto& [model, preset] : cases) {
    trainmem::Errors errors;
    auto f = trainmem::cli::load_config_file("recipe.yaml", std::string(model) + rest, errors);
    REQUIRE(f);
    const auto r = trainmem::import_configs({*f}, trainmem::builtin_catalog());
    INFO(model << trainmem::error_document(r.errors));
    REQUIRE(r.errors.empty());
    CHECK(as_json(r.document).at("model").at("preset") == preset);
  }
}

TEST_CASE("a Llama 3.1 repository under its name before Meta's rename is the same preset", "[import][axolotl]") {
  // meta-llama renamed Meta-Llama-3.1-8B to Llama-3.1-8B (and the 70B, 405B and Instruct repos
  // alike); the Hub redirects the old name to the same files, and axolotl's older example configs
  // still use it.
  trainmem::Errors errors;
  for (const std::string& old_name : {"meta-llama/Meta-Llama-3.1-8B", "meta-llama/meta-llama-3.1-70b"}) {
    const auto f = trainmem::cli::load_config_file("axolotl.yaml", "base_model: " + old_name + "\nmicro_batch_size: 1\nsequence_len: 2048\n", errors);
    REQUIRE(f);
    const auto r = trainmem::import_configs({*f}, trainmem::builtin_catalog());
    REQUIRE(r.errors.empty());
    CHECK(as_json(r.document).at("model").at("preset") == (old_name.find("8B") != std::string::npos ? "llama-3.1-8b" : "llama-3.1-70b"));
  }
}

TEST_CASE("a choice written as another type than a string is a wrong_type error, not the default", "[import][axolotl][llamafactory]") {
  // axolotl utils/schemas/config.py: adapter is a string or null; LLaMA-Factory hparams/*.py take
  // stage, finetuning_type, pref_loss and quantization_method as strings. Read as the default, a
  // list or a number would price full fine-tuning (axolotl) or LoRA (LLaMA-Factory) unannounced.
  auto refused = [](const std::string& text) {
    const auto r = import_file_text("a.yaml", text);
    return r.errors.empty() ? std::string() : std::string(r.errors.front().code) + " " + r.errors.front().field;
  };
  const std::string axolotl = "base_model: meta-llama/Llama-3.1-8B\nsequence_len: 2048\nlora_r: 8\n";
  CHECK(refused(axolotl + "adapter: [lora]\n") == "wrong_type a.yaml:adapter");
  CHECK(refused(axolotl + "adapter: 5\n") == "wrong_type a.yaml:adapter");
  CHECK(refused(axolotl + "adapter: true\n") == "wrong_type a.yaml:adapter");
  CHECK(refused(axolotl + "adapter:\n").empty());  // null: no adapter
  const std::string factory = "model_name_or_path: meta-llama/Llama-3.1-8B\ncutoff_len: 1024\n";
  for (const char* key : {"stage", "finetuning_type", "pref_loss", "quantization_method"})
    CHECK(refused(factory + key + ": [lora]\n") == std::string("wrong_type a.yaml:") + key);
}

TEST_CASE("an axolotl FSDP full fine-tune in bf16 keeps accelerate's fp32 upcast, as the same setup typed in", "[import][axolotl][fsdp]") {
  // accelerate v0.30+ (huggingface/accelerate#2674) upcasts the trainable parameters of a model
  // loaded in bf16 to fp32 under FSDP with bf16 mixed precision: fp32 weights (the master copy),
  // fp32 gradients and fp32 Adam moments, fully sharded over 8 GPUs: 16 B x 8,030,261,248 / 8 =
  // 16,060,522,496 B of model states per GPU for Llama-3.1-8B. The HF Trainer's "no master copy"
  // default (a model loaded in 16 bits trains in 16 bits) holds outside FSDP only.
  const auto r = import_file_text("a.yaml", "base_model: meta-llama/Llama-3.1-8B\nsequence_len: 2048\nmicro_batch_size: 1\n"
                                            "bf16: true\nfsdp_version: 1\nfsdp_config:\n  offload_params: false\n");
  INFO(trainmem::error_document(r.errors));
  REQUIRE(r.errors.empty());
  json doc = as_json(r.document);
  CHECK_FALSE(doc.at("precision").contains("master_weights"));
  CHECK_FALSE(doc.at("precision").contains("optimizer_state_dtype"));
  doc["parallel"]["world_size"] = 8;
  const auto e = trainmem::test::estimate_doc(doc.dump());
  CHECK(e.at("per_gpu").at("model_states").get<double>() == 16060522496.0);
  // Without FSDP the HF Trainer trains the bf16 weights as loaded: no master copy.
  const auto ddp = import_file_text("a.yaml", "base_model: meta-llama/Llama-3.1-8B\nsequence_len: 2048\nmicro_batch_size: 1\nbf16: true\n");
  REQUIRE(ddp.errors.empty());
  CHECK(as_json(ddp.document).at("precision").at("master_weights") == false);
  // Without mixed precision there is no upcast under FSDP either: axolotl's bf16 "full" passes
  // bf16_full_eval alone (core/builders/base.py _configure_precision_settings), LLaMA-Factory's
  // pure_bf16 refuses bf16 beside it (hparams/parser.py).
  const auto full = import_file_text("a.yaml", "base_model: meta-llama/Llama-3.1-8B\nsequence_len: 2048\nmicro_batch_size: 1\n"
                                               "bf16: full\nfsdp_version: 1\nfsdp_config:\n  offload_params: false\n");
  REQUIRE(full.errors.empty());
  CHECK(as_json(full.document).at("precision").at("master_weights") == false);
  CHECK(as_json(full.document).at("precision").at("optimizer_state_dtype") == "bf16");
  const auto pure = import_file_text("a.yaml", "model_name_or_path: meta-llama/Llama-3.1-8B\ncutoff_len: 1024\nfinetuning_type: full\npure_bf16: true\n");
  REQUIRE(pure.errors.empty());
  CHECK(as_json(pure.document).at("precision").at("master_weights") == false);
}
