// Reads an accuracy program's fixture: a JSON file whose top level holds "cases". A path that is
// not a readable regular file (a directory, a missing file) or text that is not such a document
// gives nullopt, which the programs report as "cannot read PATH" and exit 1; never an exception.
#pragma once

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace trainmem::accuracy {

inline std::optional<nlohmann::json> read_fixture(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path);
  if (!in) return std::nullopt;
  nlohmann::json fixture = nlohmann::json::parse(in, nullptr, false);
  if (fixture.is_discarded() || !fixture.is_object() || !fixture.contains("cases") || !fixture["cases"].is_array())
    return std::nullopt;
  return fixture;
}

}  // namespace trainmem::accuracy
