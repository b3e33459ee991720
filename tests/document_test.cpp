// Bad input: every invalid field gives the error document with a stable code and the field path.
#include <map>

#include "test_support.hpp"

using namespace trainmem;
using trainmem::test::has;
using trainmem::test::error_codes;
using trainmem::test::error_fields;

namespace {
const std::string kModel = R"("model": {"num_parameters": 7e9})";
}  // namespace

TEST_CASE("invalid values are rejected with code and field", "[document][errors]") {
  struct Case { const char* fragment; const char* code; const char* field; };
  const Case c = GENERATE(
      Case{R"("batch": {"micro_batch_size": 0})", "out_of_range", "batch.micro_batch_size"},
      Case{R"("batch": {"micro_batch_size": -4})", "out_of_range", "batch.micro_batch_size"},
      Case{R"("batch": {"micro_batch_size": 1.5})", "not_integer", "batch.micro_batch_size"},
      Case{R"("batch": {"seq_length": "4096"})", "wrong_type", "batch.seq_length"},
      Case{R"("parallel": {"zero_stage": 4})", "out_of_range", "parallel.zero_stage"},
      Case{R"("parallel": {"world_size": 8, "data_parallel_size": 4})", "inconsistent", "parallel.data_parallel_size"},
      Case{R"("parallel": {"world_size": 6, "tensor_parallel_size": 4})", "not_divisible", "parallel.world_size"},
      Case{R"("precision": {"optimizer": "adamm"})", "unknown_value", "precision.optimizer"},
      Case{R"("precision": {"param_dtype": "float16"})", "unknown_value", "precision.param_dtype"},
      Case{R"("method": "dora")", "unknown_value", "method"},
      Case{R"("bacth": {})", "unknown_field", "bacth"},
      Case{R"("batch": {"micro_bach_size": 2})", "unknown_field", "batch.micro_bach_size"},
      Case{R"("gpu": "h100")", "unknown_gpu", "gpu"},
      Case{R"("gpu": {"memory_bytes": -1})", "out_of_range", "gpu.memory_bytes"},
      Case{R"("parallel": {"offload_param": "cpu", "zero_stage": 2})", "inconsistent", "parallel.offload_param"},
      Case{R"("framework": "megatron", "parallel": {"world_size": 4, "tensor_parallel_size": 4, "tp_comm_overlap": true})", "inconsistent",
           "parallel.tp_comm_overlap"});
  const std::string doc = "{" + kModel + ", " + c.fragment + "}";
  CAPTURE(doc);
  CHECK(has(error_codes(doc), c.code));
  CHECK(has(error_fields(doc), c.field));
}

TEST_CASE("a whole-valued 7e9 is an integer", "[document]") { CHECK(error_codes("{" + kModel + "}").empty()); }

TEST_CASE("every problem is listed, not only the first", "[document][errors]") {
  const auto codes = error_codes(R"({"model": {"num_parameters": 0}, "batch": {"micro_batch_size": 0}, "typo": 1})");
  CHECK(codes.size() == 3);
}

TEST_CASE("malformed JSON, wrong document types and oversized documents", "[document][errors]") {
  CHECK(error_codes(R"({"model": {"num_parameters": 7e9})") == std::vector<std::string>{"invalid_json"});
  CHECK(error_codes("[1, 2]") == std::vector<std::string>{"wrong_type"});
  CHECK(error_codes("") == std::vector<std::string>{"invalid_json"});
  // Python's NaN/Infinity tokens are read (transformers writes them into config.json) and refused
  // at the field outside an hf_config.
  CHECK(error_fields(R"({"model": {"num_parameters": NaN}})") == std::vector<std::string>{"model.num_parameters"});
  CHECK(error_codes(R"({"model": {"num_parameters": 1e400}})") == std::vector<std::string>{"invalid_json"});  // overflows a double
  CHECK(error_codes(R"({"model": {"num_parameters": 1e300}})") == std::vector<std::string>{"out_of_range"});
  const std::string huge = "{" + kModel + R"(, "pad": ")" + std::string(kMaxDocumentBytes, 'x') + "\"}";
  CHECK(error_codes(huge) == std::vector<std::string>{"document_too_large"});
}

TEST_CASE("another command's error document piped in is named as one, with the error it carries", "[document][errors]") {
  // `trainmem import --document-only X | trainmem estimate -` where the import failed: its error
  // document is the input.
  const std::string failed = error_document({{"unresolved_value", "batch.seq_length", "batch.seq_length is not in the files"}});
  const nlohmann::json out = nlohmann::json::parse(estimate_json(failed).json);
  REQUIRE(out.at("errors").size() == 1);
  CHECK(out.at("error").at("code") == "invalid_json");
  CHECK(out.at("error").at("params").at("reason") == "error_document");
  CHECK(out.at("error").at("message").get<std::string>().find("batch.seq_length is not in the files") != std::string::npos);
  // A document with a model and a key named "error" stays an estimate document (its key unknown).
  CHECK(error_codes("{" + kModel + R"(, "error": 1, "errors": []})") == std::vector<std::string>{"unknown_field", "unknown_field"});
}

TEST_CASE("tensor parallel must divide the heads; Megatron's pipeline the layers", "[document][errors]") {
  const std::string cfg = R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_attention_heads": 4, "num_hidden_layers": 3, "vocab_size": 100})";
  CHECK(has(error_fields(R"({"model": {"hf_config": )" + cfg + R"(}, "parallel": {"tensor_parallel_size": 8}})"),
            "parallel.tensor_parallel_size"));
  // 3 layers on 2 stages: Megatron needs an explicit split (run_shapes_test.cpp has the other rules).
  CHECK(has(error_fields(R"({"model": {"hf_config": )" + cfg + R"(}, "framework": "megatron",
    "parallel": {"pipeline_parallel_size": 2}})"), "parallel.pipeline_layers"));
}

TEST_CASE("the error document lists every problem with its code", "[document][errors]") {
  const JsonResult r = estimate_json(R"({"model": {"num_parameters": -1}, "batch": {"seq_length": 0}})");
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.json, Catch::Contains("\"error\"") && Catch::Contains("\"errors\"") &&
                         Catch::Contains("\"field\": \"batch.seq_length\"") && Catch::Contains("\"code\": \"out_of_range\""));
}

TEST_CASE("num_parameters alone: model states known, the rest null, never 0", "[document]") {
  const JsonResult r = estimate_json("{" + kModel + "}");
  REQUIRE(r.ok);
  CHECK_THAT(r.json, Catch::Contains("\"activations\": null") && Catch::Contains("\"peak\": null"));
}

TEST_CASE("a duplicate key is an error naming its path, wherever it is", "[document][errors]") {
  // The last value used to win silently: "full" then "lora" estimated a LoRA run.
  auto errors_of = [](const std::string& document) { return parse_estimate_document(document).errors; };
  const auto top = errors_of(R"({"model": {"num_parameters": 7e9}, "method": "full", "method": "lora"})");
  REQUIRE(top.total() == 1);
  CHECK(top[0].code == "duplicate_key");
  CHECK(top[0].field == "method");
  const auto nested = errors_of(R"({"model": {"num_parameters": 7e9}, "batch": {"seq_length": 1, "seq_length": 2}})");
  REQUIRE(nested.total() == 1);
  CHECK(nested[0].field == "batch.seq_length");
  // Inside a list, and inside hf_config (taken as published, but a config with two values for one
  // key is not one config).
  const auto in_list = errors_of(R"({"model": {"preset": "llama-3-8b"}, "gpu": "h100-sxm-80gb",
    "solve": {"calibration": [{"measured_bytes": 1}, {"measured_bytes": 2, "measure": "allocated", "measure": "reserved"}]}})");
  REQUIRE(in_list.total() == 1);
  CHECK(in_list[0].field == "solve.calibration.1.measure");
  const auto in_config = errors_of(R"({"model": {"hf_config": {"model_type": "llama", "hidden_size": 8, "hidden_size": 16}}})");
  REQUIRE(in_config.total() == 1);
  CHECK(in_config[0].field == "model.hf_config.hidden_size");
  // The same key in different objects is no duplicate.
  CHECK(errors_of(R"({"model": {"num_parameters": 7e9}, "batch": {"seq_length": 8}, "checkpoint": {"keep_last": 2},
    "loss": {"num_chunks": 2}})").empty());
}

TEST_CASE("a NUL byte is an error: the parser would stop reading there", "[document][errors]") {
  // {"model": ...}\0{garbage}: everything after the NUL used to be ignored. The document before
  // it is 34 bytes, so the NUL is at offset 34 (counting from 0).
  const std::string document = std::string(R"({"model": {"num_parameters": 7e9}})") + '\0' + "{\"method\": 1}";
  const auto errors = parse_estimate_document(document).errors;
  REQUIRE(errors.total() == 1);
  CHECK(errors[0].code == "invalid_json");
  CHECK_THAT(errors[0].message, Catch::Contains("NUL byte at byte offset 34"));
}

TEST_CASE("a syntax error names its line, column and byte", "[document][errors]") {
  // The 34-byte document above, then "," and "}": a key was due at offset 34, "}" came. One line,
  // so line 1; columns count from 1, so column 35.
  const auto errors = parse_estimate_document(R"({"model": {"num_parameters": 7e9},})").errors;
  REQUIRE(errors.total() == 1);
  CHECK(errors[0].code == "invalid_json");
  CHECK_THAT(errors[0].message, Catch::Contains("syntax error at line 1, column 35, byte offset 34"));
  // The same document over three lines: the "}" is the first byte of line 3.
  const auto split = parse_estimate_document("{\"model\": {\"num_parameters\": 7e9},\n\n}").errors;
  REQUIRE(split.total() == 1);
  CHECK_THAT(split[0].message, Catch::Contains("syntax error at line 3, column 1, byte offset 36"));
}

TEST_CASE("a wrong type names the value that was typed, for a page to word it in any language", "[document][errors]") {
  const auto errors = parse_estimate_document(R"({"model": {"num_parameters": 7e9}, "batch": {"seq_length": "abc"}})").errors;
  REQUIRE(errors.size() == 1);
  std::map<std::string, std::string> params;
  for (const auto& [key, value] : errors[0].params.values)
    if (const auto* s = std::get_if<std::string>(&value)) params[key] = *s;
  CHECK(params["expected"] == "integer");
  CHECK(params["got"] == "string");
  CHECK(params["value"] == "\"abc\"");
}

TEST_CASE("a modules_to_save name without a module here is an unknown value naming the ones there are", "[document][errors]") {
  // PEFT's modules_to_save takes module names; this document prices the head and the embedding.
  const auto errors = parse_estimate_document(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora",
    "lora": {"modules_to_save": ["lm_head", "foo"]}})").errors;
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].code == "unknown_value");
  CHECK(errors[0].field == "lora.modules_to_save");
  CHECK_THAT(errors[0].message, Catch::Contains("\"foo\" is not one of: lm_head, embed_tokens"));
  // Not a list of names: a wrong type.
  CHECK(error_codes(R"({"model": {"preset": "llama-3.1-8b"}, "method": "lora", "lora": {"modules_to_save": [1]}})") ==
        std::vector<std::string>{"wrong_type"});
}
