// Shared by the JSON documents' translation units (estimate and solve): reading the input
// document and writing byte counts and the estimate output.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "trainmem/errors.hpp"
#include "trainmem/estimate.hpp"

namespace trainmem::json_io {

// Size, NUL byte, nesting depth, syntax and duplicate key checks, then the parsed document
// (nullopt with errors). `name` names the input in errors: "(document)" for the request itself, a
// file's name for a file inside it (duplicate keys are then reported as "NAME:key.path").
std::optional<nlohmann::json> read_document(std::string_view text, Errors& errors, const std::string& name = "(document)");
// The estimate input fields of a document object (the caller removes its own extra keys first).
TrainingSetup read_setup(const nlohmann::json& doc, Errors& errors);
// The estimate output document.
nlohmann::json estimate_output(const TrainingSetup& s, const Estimate& e);
// Adds the uncertainty band, the verdict, fits (= verdict "fits") and the margins to an estimate
// output (band_document.cpp).
void write_band(const TrainingSetup& s, const Estimate& e, nlohmann::json& out);
// The `resolved` block: every input the estimate of `doc` used, with its value and origin
// (resolved_document.cpp).
nlohmann::json resolved_inputs(const nlohmann::json& doc, const TrainingSetup& s, const Estimate& e);
// The `suggestions` list for a setup whose verdict (the output's "verdict") is "does_not_fit" or
// "borderline": single document changes, each re-estimated, ranked by the bytes they save
// (suggestions_document.cpp). Empty otherwise.
nlohmann::json suggestions(const nlohmann::json& doc, const TrainingSetup& s, const Estimate& e, const nlohmann::json& verdict);
// estimate_json's work on an estimate document: the output as a value (out; null with errors),
// with the setup and estimate it came from.
struct EstimateRun {
  TrainingSetup setup;
  Estimate estimate;
  nlohmann::json out;
  Errors errors;
};
EstimateRun run_estimate(std::string_view document);
// An estimate whose byte counts overflowed a double (peak or training state not finite) is refused
// with overflow_error() (code out_of_range).
bool overflowed(const Estimate& e);
FieldError overflow_error();
// Bytes: an integer while exact in a double, else a plain number.
nlohmann::json bytes_value(double bytes);

}  // namespace trainmem::json_io
