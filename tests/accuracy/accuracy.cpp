// Predicted vs measured: runs the engine on every case of tests/fixtures/measured_cases.json and
// prints, per case and in summary, the prediction, the measurement and the relative error.
//
//   accuracy FIXTURE [--markdown OUT.md] [--js OUT.js]
//
// --js writes the same rows as a classic script (window.TRAINMEM_ACCURACY = {...}) for the page's
// accuracy section, which cannot fetch JSON under file://.
//
// The summary's denominator is every case whose value_semantics is peak_per_gpu: a case the
// engine cannot express is listed and counted as a miss. oom_lower_bound cases must be predicted
// not to fit. Exit status 1 only when the fixture cannot be read.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "trainmem/json_api.hpp"

using nlohmann::json;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Reads a dotted path ("per_gpu.peak"); "a + b" sums two paths. nullopt when any part is null.
std::optional<double> read_field(const json& out, const std::string& spec) {
  double sum = 0;
  std::stringstream parts(spec);
  std::string part;
  while (std::getline(parts, part, '+')) {
    part.erase(0, part.find_first_not_of(' '));
    part.erase(part.find_last_not_of(' ') + 1);
    const json* v = &out;
    std::stringstream path(part);
    std::string key;
    while (std::getline(path, key, '.')) {
      if (!v->is_object() || !v->contains(key)) return std::nullopt;
      v = &(*v)[key];
    }
    if (!v->is_number()) return std::nullopt;
    sum += v->get<double>();
  }
  return sum;
}

struct Row {
  std::string id, source, semantics, field, status;
  double measured = 0, predicted = 0, error = 0;
  bool has_error = false;
};

std::string gib(double b) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << b / kGiB;
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: accuracy FIXTURE [--markdown OUT.md]\n";
    return 1;
  }
  std::ifstream in(argv[1]);
  const json fixture = json::parse(in, nullptr, false);
  if (fixture.is_discarded() || !fixture.contains("cases")) {
    std::cerr << "accuracy: cannot read " << argv[1] << "\n";
    return 1;
  }
  std::vector<Row> rows;
  int oom_cases = 0, oom_right = 0, fit_cases = 0, fit_right = 0;
  for (const auto& c : fixture["cases"]) {
    Row r;
    r.id = c.value("id", "?");
    r.source = c.value("source", "");
    r.semantics = c.value("value_semantics", "");
    r.field = c.value("compare_field", "");
    const bool expressible = c.value("expressible", false) && c.contains("document") && !c["document"].is_null();
    if (!expressible) {
      r.status = "not expressible: " + c.value("why_not", std::string("-"));
      rows.push_back(r);
      continue;
    }
    const trainmem::JsonResult result = trainmem::estimate_json(c["document"].dump());
    const json out = json::parse(result.json);
    if (!result.ok) {
      r.status = "rejected: " + out["error"].value("message", std::string("?"));
      rows.push_back(r);
      continue;
    }
    if (r.field == "fits") {
      const bool expected = c.value("expected_fits", false);
      const bool known = out["fits"].is_boolean();
      const bool predicted = known && out["fits"].get<bool>();
      const bool right = known && predicted == expected;
      r.status = std::string("fits expected ") + (expected ? "true" : "false") + ", predicted " +
                 (known ? (predicted ? "true" : "false") : "unknown") + (right ? " (right)" : " (WRONG)");
      if (r.semantics == "oom_lower_bound") ++oom_cases, oom_right += right;
      else ++fit_cases, fit_right += right;
      rows.push_back(r);
      continue;
    }
    const auto predicted = read_field(out, r.field);
    const bool measured_known = c.contains("measured_bytes") && c["measured_bytes"].is_number();
    if (!predicted || !measured_known) {
      r.status = predicted ? "no measured bytes" : "prediction null";
      rows.push_back(r);
      continue;
    }
    r.measured = c["measured_bytes"].get<double>();
    r.predicted = *predicted;
    r.error = (r.predicted - r.measured) / r.measured;
    r.has_error = true;
    r.status = "ok";
    rows.push_back(r);
  }

  // Summary over peak_per_gpu cases; misses count as infinite error for the median.
  std::vector<double> errors;
  int peak_cases = 0, misses = 0, within_15 = 0;
  for (const auto& r : rows) {
    if (r.semantics != "peak_per_gpu") continue;
    ++peak_cases;
    if (!r.has_error) {
      ++misses;
      errors.push_back(INFINITY);
      continue;
    }
    errors.push_back(std::fabs(r.error));
    if (std::fabs(r.error) <= 0.15) ++within_15;
  }
  std::sort(errors.begin(), errors.end());
  const double median = errors.empty() ? NAN
                        : errors.size() % 2 ? errors[errors.size() / 2]
                                            : (errors[errors.size() / 2 - 1] + errors[errors.size() / 2]) / 2;

  std::ostringstream table;
  table << "| case | measure | field | measured GiB | predicted GiB | error | status | source |\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : rows) {
    table << "| " << r.id << " | " << r.semantics << " | " << r.field << " | " << (r.has_error ? gib(r.measured) : "")
          << " | " << (r.has_error ? gib(r.predicted) : "") << " | ";
    if (r.has_error) table << std::showpos << std::fixed << std::setprecision(1) << 100 * r.error << "%" << std::noshowpos;
    table << " | " << r.status << " | " << r.source << " |\n";
  }
  std::ostringstream summary;
  summary << "peak_per_gpu cases: " << peak_cases << ", predicted: " << (peak_cases - misses) << ", misses: " << misses
          << ", within 15%: " << within_15 << ", median |error|: ";
  if (std::isfinite(median)) summary << std::fixed << std::setprecision(1) << 100 * median << "%";
  else summary << "n/a (more misses than predictions)";
  summary << "\noom_lower_bound cases predicted not to fit: " << oom_right << "/" << oom_cases
          << "; fit cases predicted to fit: " << fit_right << "/" << fit_cases << "\n";

  std::cout << table.str() << "\n" << summary.str();
  for (int i = 2; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--js") {
      json data = {{"summary", summary.str()}, {"rows", json::array()}};
      for (const auto& r : rows) {
        json row = {{"id", r.id}, {"source", r.source}, {"measure", r.semantics}, {"field", r.field}, {"status", r.status}};
        if (r.has_error) row.update({{"measured_bytes", r.measured}, {"predicted_bytes", r.predicted}, {"error", r.error}});
        data["rows"].push_back(row);
      }
      std::ofstream js(argv[i + 1]);
      js << "// Generated by the accuracy program (tests/accuracy/accuracy.cpp); do not edit.\n"
         << "window.TRAINMEM_ACCURACY = " << data.dump() << ";\n";
    }
    if (std::string(argv[i]) == "--markdown") {
      std::ofstream md(argv[i + 1]);
      md << "# Accuracy: predicted vs measured\n\nGenerated by `build-native/tests/accuracy "
            "tests/fixtures/measured_cases.json --markdown docs/accuracy.md` (run by the test command). Cases and their "
            "sources: `tests/fixtures/measured_cases.json` (from `shared/cases/measured-handed.json`). Error = "
            "(predicted - measured) / measured; GiB = 2^30 bytes.\n\n"
         << summary.str() << "\n" << table.str();
    }
  }
  return 0;
}
