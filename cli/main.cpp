// trainmem: the command-line face of the engine (same JSON documents as the WASM module).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "config_files.hpp"
#include "trainmem/json_api.hpp"

namespace {

constexpr const char* kUsage = R"(trainmem: training-memory estimates for transformer models

Usage:
  trainmem estimate FILE|-     estimate document (docs/api.md) -> output document
  trainmem solve FILE|-        estimate document + "solve": {...} -> largest micro-batch, longest sequence,
                               fewest GPUs, cheapest GPU, global batch plan, calibration, strategy search
  trainmem activations FILE|-  the tensors one layer saves for backward (name, shape, dtype, bytes, recomputed)
  trainmem catalog models|gpus list the built-in model presets or GPU catalog as JSON
  trainmem import [--document-only] [--model ID] FILE...
                               trainer configs (DeepSpeed JSON, accelerate YAML, HF TrainingArguments /
                               TRL YAML or JSON, axolotl or LLaMA-Factory YAML, torchtune recipe YAML,
                               torchtitan TOML, command lines and launch scripts (tune run, run_train.sh,
                               torchrun, Megatron-LM)) -> {document, provenance, ignored, unmodelled, unresolved};
                               --document-only prints the estimate document alone (pipe it into
                               `trainmem estimate -`); --model names a catalog model (its id or its
                               Hugging Face id) when the files name one the catalog lacks
  trainmem export deepspeed|accelerate|axolotl|torchtune [--config-only] FILE|-
                               an estimate document -> {format, config, not_exported}; --config-only
                               prints the file itself (DeepSpeed JSON, accelerate or axolotl YAML,
                               torchtune's tune run line)
  trainmem parse FILE          a YAML, TOML or JSON file as the JSON the import reads (YAML 1.1 scalars)
  trainmem codes               every error and warning code the documents carry, with the params
                               each message names (JSON)
  trainmem --help              this text

Exit status: 0 on success, 2 on invalid input (the error document is printed), 1 on other errors.
All byte counts are bytes; GiB = 2^30 bytes, GB = 10^9 bytes.
)";

// Reads a document, keeping at most kMaxDocumentBytes + 1 bytes and reading no further: an endless
// stream (`/dev/zero`, `yes | trainmem import -`) is refused, never read forever. `size`: the
// bytes read, or for a regular file over the limit its whole size (known without reading it);
// `exact` is false when only "more than the limit" is known.
bool read_input(const std::string& path, std::string& out, std::uint64_t& size, bool& exact) {
  std::ifstream file;
  if (path != "-") {
    file.open(path, std::ios::binary);
    if (!file) return false;
  }
  std::istream& in = path == "-" ? std::cin : file;
  std::vector<char> chunk(1 << 16);
  while (out.size() <= trainmem::kMaxDocumentBytes &&
         (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0)) {
    const auto got = static_cast<std::size_t>(in.gcount());
    out.append(chunk.data(), std::min(got, trainmem::kMaxDocumentBytes + 1 - out.size()));
  }
  size = out.size();
  exact = size <= trainmem::kMaxDocumentBytes;
  std::error_code ec;
  if (!exact && path != "-" && std::filesystem::is_regular_file(path, ec)) {
    const auto whole = std::filesystem::file_size(path, ec);
    if (!ec) size = whole, exact = true;
  }
  return !in.bad();
}

trainmem::FieldError too_large(const std::string& name, std::uint64_t size, bool exact) {
  return {trainmem::error_code::document_too_large, name,
          (name == "(document)" ? std::string("the document") : name) + " is " + (exact ? "" : "more than ") +
              std::to_string(exact ? size : trainmem::kMaxDocumentBytes) + " bytes; the limit is " +
              std::to_string(trainmem::kMaxDocumentBytes),
          exact ? trainmem::Params{{"bytes", static_cast<double>(size)}, {"limit", static_cast<double>(trainmem::kMaxDocumentBytes)}}
                : trainmem::Params{{"limit", static_cast<double>(trainmem::kMaxDocumentBytes)}}};
}

// read_input for one named input: one over the document limit is recorded in `errors`
// (document_too_large naming it) and left unread. False when it cannot be read at all.
bool read_within_limit(const std::string& path, const std::string& name, std::string& out, trainmem::Errors& errors) {
  std::uint64_t size = 0;
  bool exact = true;
  if (!read_input(path, out, size, exact)) return false;
  if (size > trainmem::kMaxDocumentBytes) {
    errors.push_back(too_large(name, size, exact));
    out.clear();
  }
  return true;
}

int import_command(int argc, char** argv) {
  bool document_only = false;
  trainmem::ImportOptions options;
  std::vector<trainmem::ConfigFile> files;
  trainmem::Errors errors;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--document-only") { document_only = true; continue; }
    if (arg == "--model" && i + 1 < argc) { options.model_preset = argv[++i]; continue; }
    // An option this command does not define is named, not opened as a file ("./--foo" is a file).
    if (arg.size() > 1 && arg[0] == '-') {
      std::cerr << "trainmem import: " << (arg == "--model" ? "--model needs a catalog model id" : "unknown option " + arg)
                << " (the options are --document-only and --model ID; a file named so is given as ./" << arg << ")\n";
      return 1;
    }
    std::string text;
    const std::size_t errors_before = errors.total();
    if (!read_within_limit(arg, arg, text, errors)) {
      std::cerr << "trainmem: cannot read " << arg << "\n";
      return 1;
    }
    if (errors.total() > errors_before) continue;
    if (auto f = trainmem::cli::load_config_file(arg, text, errors)) files.push_back(std::move(*f));
  }
  if (files.empty() && errors.empty()) {
    std::cerr << kUsage;
    return 1;
  }
  if (!errors.empty()) {
    std::cout << trainmem::error_document(errors) << "\n";
    return 2;
  }
  const auto r = trainmem::import_files_json(files, options, document_only);
  std::cout << r.json << "\n";
  return r.ok ? 0 : 2;
}

int parse_command(const std::string& path) {
  std::string text;
  trainmem::Errors errors;
  if (!read_within_limit(path, path, text, errors)) {
    std::cerr << "trainmem: cannot read " << path << "\n";
    return 1;
  }
  auto f = errors.empty() ? trainmem::cli::load_config_file(path, text, errors) : std::nullopt;
  if (!f) {
    std::cout << trainmem::error_document(errors) << "\n";
    return 2;
  }
  std::cout << (f->text ? trainmem::config_value_json(*f->text) : trainmem::config_value_json(f->content)) << "\n";
  return 0;
}

int export_command(int argc, char** argv) {
  const std::string format = argv[2];
  bool config_only = false;
  std::string path;
  for (int i = 3; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--config-only") config_only = true;
    else path = arg;
  }
  std::string document;
  trainmem::Errors errors;
  if (path.empty() || !read_within_limit(path, "(document)", document, errors)) {
    std::cerr << (path.empty() ? std::string(kUsage) : "trainmem: cannot read " + path + "\n");
    return 1;
  }
  if (!errors.empty()) {
    std::cout << trainmem::error_document(errors) << "\n";
    return 2;
  }
  const auto r = trainmem::export_json(document, format);
  if (!r.ok || !config_only) {
    std::cout << r.json << "\n";
    return r.ok ? 0 : 2;
  }
  const auto parsed = trainmem::parse_json_config(r.json, "export", errors);
  const trainmem::ConfigValue* config = parsed ? parsed->find("config") : nullptr;
  if (!config) return 1;
  if (config->is_string()) std::cout << config->as_string() << "\n";  // torchtune: the launch line
  else if (format == "accelerate" || format == "axolotl") std::cout << trainmem::cli::emit_yaml(*config);
  else std::cout << trainmem::config_value_json(*config) << "\n";
  return 0;
}

int print(const trainmem::JsonResult& r) {
  std::cout << r.json << "\n";
  return r.ok ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  // "--help" anywhere (trainmem estimate --help) asks for this text, never for a file so named.
  const bool help = std::any_of(argv + 1, argv + argc, [](const char* a) { return std::string(a) == "--help" || std::string(a) == "-h"; });
  if (help || command == "help") {
    std::cout << kUsage;
    return 0;
  }
  if ((command == "estimate" || command == "activations" || command == "solve") && argc == 3) {
    std::string document;
    trainmem::Errors errors;
    if (!read_within_limit(argv[2], "(document)", document, errors)) {
      std::cerr << "trainmem: cannot read " << argv[2] << "\n";
      return 1;
    }
    if (!errors.empty()) return print({trainmem::error_document(errors), false});
    if (command == "solve") return print(trainmem::solve_json(document));
    return print(command == "estimate" ? trainmem::estimate_json(document) : trainmem::activations_json(document));
  }
  if (command == "catalog" && argc == 3) return print(trainmem::catalog_json(argv[2]));
  if (command == "import" && argc >= 3) return import_command(argc, argv);
  if (command == "parse" && argc == 3) return parse_command(argv[2]);
  if (command == "codes" && argc == 2) {
    std::cout << trainmem::message_codes_json() << "\n";
    return 0;
  }
  if (command == "export" && argc >= 4) return export_command(argc, argv);
  static const char* const kCommands[] = {"estimate", "activations", "solve", "catalog", "import", "parse", "codes", "export"};
  const bool known = std::find(std::begin(kCommands), std::end(kCommands), command) != std::end(kCommands);
  if (command.empty()) std::cerr << "trainmem: no command given\n\n";
  else if (!known) std::cerr << "trainmem: unknown command '" << command << "'\n\n";
  else std::cerr << "trainmem: wrong number of arguments for '" << command << "'\n\n";
  std::cerr << kUsage;
  return 1;
}
