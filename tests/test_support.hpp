// Helpers shared by the Catch2 tests: documents in, setups and estimates out.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "trainmem/estimate.hpp"
#include "trainmem/json_api.hpp"

namespace trainmem::test {

// Parses a document that must be valid; fails the test with the errors otherwise.
inline TrainingSetup setup_from(const std::string& document) {
  ParsedSetup parsed = parse_estimate_document(document);
  if (!parsed.errors.empty()) FAIL(error_document(parsed.errors));
  return parsed.setup;
}

inline Estimate estimate_from(const std::string& document) { return estimate(setup_from(document)); }

// The codes of every error a document produces.
inline std::vector<std::string> error_codes(const std::string& document) {
  std::vector<std::string> codes;
  for (const auto& e : parse_estimate_document(document).errors) codes.push_back(e.code);
  return codes;
}

inline std::vector<std::string> error_fields(const std::string& document) {
  std::vector<std::string> fields;
  for (const auto& e : parse_estimate_document(document).errors) fields.push_back(e.field);
  return fields;
}

constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace trainmem::test
