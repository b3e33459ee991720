// The overview document: what the page shows for one input, from one call: the estimate and every
// catalog GPU's verdict for the same setup (see overview_json in json_api.hpp).
#include "documents.hpp"
#include "params_json.hpp"
#include "trainmem/catalog.hpp"
#include "trainmem/json_api.hpp"
#include "trainmem/uncertainty.hpp"

namespace trainmem {

namespace {

using nlohmann::json;

json field_error_json(const FieldError& e) {
  return {{"code", e.code}, {"field", e.field}, {"message", e.message}, {"params", json_io::params_json(e.params)}};
}

// The setup on one catalog GPU in place of its own: the gpu_capacity_bytes, per_gpu.peak and
// verdict that estimate_json gives for the document with "gpu" set to that GPU's id (parse_gpu sets
// the setup's gpu to the catalog entry's spec and nothing else), or the first error it reports.
json gpu_verdict(TrainingSetup s, const GpuEntry& gpu) {
  s.gpu = gpu.spec;
  json row = {{"gpu", gpu.spec.id}};
  Errors errors = validate(s);
  if (!errors.empty()) {
    row["error"] = field_error_json(errors.front());
    return row;
  }
  const Estimate e = estimate(s);
  if (json_io::overflowed(e)) {
    row["error"] = field_error_json(json_io::overflow_error());
    return row;
  }
  const std::optional<Verdict> verdict = judge_verdict(s, e, uncertainty_band(s, e));
  row["gpu_capacity_bytes"] = e.gpu_capacity_bytes ? json_io::bytes_value(*e.gpu_capacity_bytes) : json(nullptr);
  row["peak"] = e.per_gpu.peak ? json_io::bytes_value(*e.per_gpu.peak) : json(nullptr);
  row["verdict"] = verdict ? json(verdict_name(*verdict)) : json(nullptr);
  return row;
}

}  // namespace

JsonResult overview_json(std::string_view document) {
  try {
    json_io::EstimateRun run = json_io::run_estimate(document);
    if (!run.errors.empty()) return {error_document(run.errors), false};
    json gpus = json::array();
    for (const GpuEntry& g : builtin_gpus().gpus) gpus.push_back(gpu_verdict(run.setup, g));
    json out = {{"estimate", std::move(run.out)}, {"gpus", std::move(gpus)}};
    return {out.dump(), true};
  } catch (const std::exception& ex) {
    return {error_document({{error_code::internal, "(document)", std::string("internal error: ") + ex.what()}}), false};
  }
}

}  // namespace trainmem
