// The trainer-config import under the limits of every input (docs/api.md "Limits"): linear work in
// the keys and flags of a file (counted by trainmem/work_meter.hpp, never timed), duplicate keys
// and NUL bytes named, bounded alias expansion, and messages that stay valid UTF-8.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "config_files.hpp"
#include "test_support.hpp"
#include "trainmem/config_import.hpp"
#include "trainmem/json_api.hpp"

namespace {

using nlohmann::json;
using trainmem::test::steps_of;

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

}  // namespace

TEST_CASE("a YAML file of 20,000 keys is read in steps linear in its keys", "[import][limits]") {
  // An HF TrainingArguments file (model_name_or_path + per_device_train_batch_size) with 20,000
  // further keys. Building the mapping takes one step per key (ObjectBuilder); each reader then
  // looks up each of its known keys once, a scan of the 20,002 keys per lookup, and there are
  // fewer than 100 known keys: under 100 x 20,002 steps. Building it by a scan per key (as before)
  // counted 20,000^2 / 2 = 2e8 steps in the builder alone.
  constexpr std::size_t n = 20000;
  std::string yaml = "model_name_or_path: meta-llama/Llama-3.1-8B\nper_device_train_batch_size: 2\n";
  for (std::size_t i = 0; i < n; ++i) yaml += "unknown_" + std::to_string(i) + ": 1\n";
  trainmem::Errors errors;
  std::optional<trainmem::ConfigFile> file;
  const auto built = steps_of([&] { file = trainmem::cli::load_config_file("args.yaml", yaml, errors); });
  REQUIRE(file);
  CHECK(built <= n + 2);
  trainmem::ImportResult r;
  const auto read = steps_of([&] { r = trainmem::import_configs({*file}, trainmem::builtin_catalog()); });
  CHECK(read < 100 * (n + 2));
  CHECK(r.ignored.size() + r.unmodelled.size() + r.unresolved.size() >= n);  // every key reported
}

TEST_CASE("a command line of 20,000 flags is read in steps linear in its flags", "[import][limits]") {
  // python train.py --model_name_or_path ... --unknown_0 1 ... --unknown_19999 1: each flag is set
  // once in the flags object (one step each, ObjectBuilder), then looked up by the readers as
  // above: under 100 x 20,001 steps. A scan per flag (as before) counted 2e8.
  constexpr std::size_t n = 20000;
  std::string line = "python train.py --model_name_or_path meta-llama/Llama-3.1-8B";
  for (std::size_t i = 0; i < n; ++i) line += " --unknown_" + std::to_string(i) + " 1";
  trainmem::ConfigFile file;
  file.name = "run.sh";
  file.text = line;
  trainmem::ImportResult r;
  const auto steps = steps_of([&] { r = trainmem::import_configs({file}, trainmem::builtin_catalog()); });
  CHECK(steps < 100 * (n + 1));
  CHECK(r.errors.empty());
}

TEST_CASE("a key twice in a JSON or YAML file is an error naming it", "[import][errors]") {
  // Python's json and PyYAML keep the last value silently; DeepSpeed itself refuses a repeat
  // (deepspeed/runtime/config_utils.py dict_raise_error_on_duplicate_keys).
  trainmem::Errors errors;
  CHECK_FALSE(trainmem::cli::load_config_file("ds.json", R"({"zero_optimization": {"stage": 3, "stage": 1}})", errors));
  REQUIRE(errors.total() == 1);
  CHECK(errors[0].code == "duplicate_key");
  CHECK(errors[0].field == "ds.json:zero_optimization.stage");
  errors.clear();
  // Line 3, column 1: the second "a".
  CHECK_FALSE(trainmem::cli::load_config_file("args.yaml", "a: 1\nb: 2\na: 3\n", errors));
  REQUIRE(errors.total() == 1);
  CHECK(errors[0].code == "duplicate_key");
  CHECK(errors[0].message == "args.yaml:3:1: the key \"a\" appears more than once in its mapping");
  errors.clear();
  // The WASM import: a JSON file's text is read the same way.
  const json request = {{"files", {{{"name", "ds.json"}, {"text", R"({"train_batch_size": 8, "train_batch_size": 16})"}}}}};
  const json answer = json::parse(trainmem::import_json(request.dump()).json);
  CHECK(answer["error"]["code"] == "duplicate_key");
  CHECK(answer["error"]["field"] == "ds.json:train_batch_size");
}

TEST_CASE("a NUL byte in a file is an error naming its offset", "[import][errors]") {
  // Each text below has the NUL at byte offset 4 ("a: 1" / "{}  " / "x = " are 4 bytes).
  trainmem::Errors errors;
  CHECK_FALSE(trainmem::cli::load_config_file("a.yaml", std::string("a: 1\0b: 2\n", 10), errors));
  CHECK_FALSE(trainmem::cli::load_config_file("a.toml", std::string("x = \0", 5), errors));
  CHECK_FALSE(trainmem::cli::load_config_file("a.json", std::string("{}  \0", 5), errors));
  REQUIRE(errors.total() == 3);
  CHECK(errors[0].code == "invalid_yaml");
  CHECK(errors[1].code == "invalid_toml");
  CHECK(errors[2].code == "invalid_json");
  for (const auto& e : errors) CHECK_THAT(e.message, Catch::Contains("NUL byte at byte offset 4"));
  // A command line: "python" is 6 bytes.
  trainmem::ConfigFile line;
  line.name = "run.sh";
  line.text = std::string("python\0 train.py", 16);
  const auto r = trainmem::import_configs({line}, trainmem::builtin_catalog());
  REQUIRE(r.errors.total() == 1);
  CHECK_THAT(r.errors[0].message, Catch::Contains("NUL byte at byte offset 6"));
}

TEST_CASE("YAML aliases expand to at most 64 MiB of text", "[import][limits]") {
  // One 100,000-byte string repeated by 700 aliases is 7e7 bytes > 64 MiB = 67,108,864.
  const std::string yaml = "a: &a " + std::string(100000, 'x') + "\nb: [" + repeat("*a, ", 699) + "*a]\n";
  trainmem::Errors errors;
  CHECK_FALSE(trainmem::cli::load_config_file("bomb.yaml", yaml, errors));
  REQUIRE(errors.total() == 1);
  CHECK(errors[0].code == "invalid_yaml");
  CHECK_THAT(errors[0].message, Catch::Contains("67108864 bytes of text"));
}

TEST_CASE("a quoted value is cut on a character boundary", "[import][errors]") {
  // "a" then 29 x "€" (3 bytes each in UTF-8): 88 bytes, over the 60 a message quotes. The cut
  // falls at byte 57, inside the 19th "€" (bytes 55-57), so it backs up to byte 55: "a" and 18
  // x "€", then "...". A cut inside the character made the error document invalid UTF-8 (the
  // "internal" error).
  const std::string euro = "\xE2\x82\xAC";
  const json request = {{"files", {{{"name", "ds.json"},
                                    {"content", {{"train_micro_batch_size_per_gpu", 1}, {"zero_optimization", "a" + repeat(euro, 29)}}}}}}};
  const json answer = json::parse(trainmem::import_json(request.dump()).json);
  CHECK(answer["error"]["code"] == "wrong_type");
  CHECK_THAT(answer["error"]["message"].get<std::string>(), Catch::Contains("\"a" + repeat(euro, 18) + "...\""));
}

TEST_CASE("invalid UTF-8 in a file read by the CLI is refused by name, never an internal error", "[import][errors]") {
  // PyYAML and Python's json read a file decoded as UTF-8 and stop at such bytes; so does the CLI,
  // at the first one (config_files.cpp), and its error document is valid UTF-8 JSON.
  trainmem::Errors errors;
  auto file = trainmem::cli::load_config_file("args.yaml", "model_name_or_path: meta-llama/Llama-3.1-8B\nrun_name: \xFF\xFE\n", errors);
  CHECK_FALSE(file);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].code == "invalid_encoding");
  CHECK(errors[0].message == "args.yaml:2:11: byte 0xFF is not UTF-8; save the file as UTF-8");
  const json answer = json::parse(trainmem::error_document(errors));
  CHECK(answer["error"]["code"] == "invalid_encoding");
  // The position and the byte as params, from which a page words the message in its language:
  // "run_name: " is 10 characters, so the first bad byte is column 11 of line 2.
  CHECK(answer["error"]["params"] == json{{"file", "args.yaml"}, {"line", 2}, {"column", 11}, {"byte", "0xFF"}});
}

TEST_CASE("invalid UTF-8 in a value handed to the engine comes back as U+FFFD, never an internal error", "[import][errors]") {
  // A caller of the engine can hand it bytes that are not UTF-8 (the CLI refuses such files first);
  // the answer still is a JSON document, the bytes written as U+FFFD (EF BF BD in UTF-8).
  trainmem::ConfigFile file;
  file.name = "args.yaml";
  file.content = trainmem::ConfigValue::Object{{"model_name_or_path", "meta-llama/Llama-3.1-8B"}, {"run_name", "\xFF\xFE"}};
  const auto r = trainmem::import_files_json({file}, {}, false);
  const json answer = json::parse(r.json);  // valid UTF-8 JSON
  CHECK_FALSE(answer.contains("error"));
  CHECK(r.json.find("\xEF\xBF\xBD") != std::string::npos);
}
