// trainmem: the command-line face of the engine (same JSON documents as the WASM module).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include "trainmem/json_api.hpp"

namespace {

constexpr const char* kUsage = R"(trainmem: training-memory estimates for transformer models

Usage:
  trainmem estimate FILE|-     estimate document (docs/api.md) -> output document
  trainmem solve FILE|-        estimate document + "solve": {...} -> largest micro-batch, longest sequence,
                               fewest GPUs, cheapest GPU, global batch plan, calibration, strategy search
  trainmem activations FILE|-  the tensors one layer saves for backward (name, shape, dtype, bytes, recomputed)
  trainmem catalog models|gpus list the built-in model presets or GPU catalog as JSON
  trainmem --help              this text

Exit status: 0 on success, 2 on invalid input (the error document is printed), 1 on other errors.
All byte counts are bytes; GiB = 2^30 bytes, GB = 10^9 bytes.
)";

bool read_input(const std::string& path, std::string& out) {
  if (path == "-") {
    out.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

int print(const trainmem::JsonResult& r) {
  std::cout << r.json << "\n";
  return r.ok ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return 0;
  }
  if ((command == "estimate" || command == "activations" || command == "solve") && argc == 3) {
    std::string document;
    if (!read_input(argv[2], document)) {
      std::cerr << "trainmem: cannot read " << argv[2] << "\n";
      return 1;
    }
    if (command == "solve") return print(trainmem::solve_json(document));
    return print(command == "estimate" ? trainmem::estimate_json(document) : trainmem::activations_json(document));
  }
  if (command == "catalog" && argc == 3) return print(trainmem::catalog_json(argv[2]));
  std::cerr << kUsage;
  return 1;
}
