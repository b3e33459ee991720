// Writes the GPU catalog as C++ data for the engine (run by the build; CMakeLists.txt):
//   gpu_table OUTPUT.cpp catalog/gpus/a.json catalog/gpus/b.json ...
// Each file is validated by the engine's own catalog reader (parse_catalog); a malformed entry
// fails the build with the reader's message naming the file and the field (exit status 1).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gpu_table_source.hpp"
#include "trainmem/catalog.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: gpu_table OUTPUT.cpp GPU.json...\n";
    return 2;
  }
  std::vector<std::pair<std::string, std::string>> files;
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
      std::cerr << "gpu_table: cannot read " << argv[i] << "\n";
      return 1;
    }
    files.emplace_back(argv[i], text.str());
  }
  const trainmem::Catalog catalog = trainmem::parse_catalog(files);
  for (const auto& e : catalog.errors) std::cerr << "gpu_table: " << e.message << "\n";
  if (!catalog.errors.empty()) return 1;
  // Written beside the output and renamed, so an interrupted run leaves no half-written source.
  const std::string output = argv[1], partial = output + ".partial";
  std::ofstream out(partial, std::ios::binary);
  out << trainmem::gpu_table_source(catalog.gpus);
  out.close();
  if (!out || std::rename(partial.c_str(), output.c_str()) != 0) {
    std::cerr << "gpu_table: cannot write " << output << "\n";
    return 1;
  }
  return 0;
}
