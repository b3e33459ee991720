// The overview document (overview_json): the page's one call per input, the estimate and every
// catalog GPU's verdict for the same setup.
#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "trainmem/catalog.hpp"

using namespace trainmem;
using nlohmann::json;

namespace {

json overview(const json& doc) {
  const JsonResult r = overview_json(doc.dump());
  REQUIRE(r.ok);
  return json::parse(r.json);
}

json estimate_of(const json& doc) {
  const JsonResult r = estimate_json(doc.dump());
  REQUIRE(r.ok);
  return json::parse(r.json);
}

const json& row_of(const json& out, const std::string& id) {
  for (const auto& row : out["gpus"])
    if (row["gpu"] == id) return row;
  FAIL("no row for " << id);
  return out;
}

// Llama 3.1 8B, full fine-tuning, ZeRO-3 over 8 GPUs: a setup some catalog GPUs hold and some do not.
const json kDoc = json::parse(R"({"model": {"preset": "llama-3.1-8b"}, "method": "full",
  "parallel": {"world_size": 8, "zero_stage": 3}, "batch": {"micro_batch_size": 4, "seq_length": 4096},
  "gpu": "a100-80gb"})");

}  // namespace

TEST_CASE("the overview's estimate is the estimate document's own output", "[overview]") {
  CHECK(overview(kDoc)["estimate"] == estimate_of(kDoc));
  json no_gpu = kDoc;
  no_gpu.erase("gpu");
  CHECK(overview(no_gpu)["estimate"] == estimate_of(no_gpu));
}

TEST_CASE("each catalog GPU's row is what a separate estimate with that gpu gives", "[overview]") {
  const json out = overview(kDoc);
  const auto& gpus = builtin_catalog().gpus;
  REQUIRE(out["gpus"].size() == gpus.size());
  for (std::size_t i = 0; i < gpus.size(); ++i) CHECK(out["gpus"][i]["gpu"] == gpus[i].spec.id);  // catalog order
  // A few GPUs, each estimated on its own: a small consumer card, the document's own GPU, the largest.
  for (const char* id : {"t4-16gb", "rtx-4090-24gb", "a100-80gb", "h100-sxm-80gb", "mi300x-192gb", "gb300-288gb"}) {
    CAPTURE(id);
    json doc = kDoc;
    doc["gpu"] = id;
    const json e = estimate_of(doc);
    const json& row = row_of(out, id);
    CHECK(row == json{{"gpu", id}, {"gpu_capacity_bytes", e["gpu_capacity_bytes"]}, {"peak", e["per_gpu"]["peak"]},
                      {"verdict", e["verdict"]}});
  }
  // Without a GPU in the document, the rows are the same: each row sets its own.
  json no_gpu = kDoc;
  no_gpu.erase("gpu");
  CHECK(overview(no_gpu)["gpus"] == out["gpus"]);
}

TEST_CASE("the overview's verdicts where the arithmetic is plain", "[overview]") {
  // Llama 2 70B fully fine-tuned on one GPU with mixed-precision Adam: 2 (bf16 weights) + 2 (bf16
  // gradients) + 4 (fp32 master weights) + 8 (two fp32 Adam moments) = 16 bytes per parameter
  // (ZeRO, Rajbhandari et al. 2020, section 3.1): 16 x 68e9 = 1.1e12 bytes of model states alone
  // (Llama 2 70B has 69.0e9 parameters), above the largest catalog GPU (GB300, 288 GB = 3.1e11 bytes).
  const json big = overview(json::parse(R"({"model": {"preset": "llama-2-70b"}, "method": "full"})"));
  for (const auto& row : big["gpus"]) {
    CAPTURE(row);
    CHECK(row["verdict"] == "does_not_fit");
    CHECK(row["peak"].get<double>() > 16 * 68e9);
  }
  // GPT-2 (124M parameters), the same recipe: 16 x 124e6 = 2.0e9 bytes of model states; a micro
  // batch of one 1,024-token sequence adds about 1.1e9 bytes of activations (34sbh + 5as^2b bytes per
  // layer, Korthikanti et al. 2022, table 2: 34 x 1024 x 768 + 5 x 12 x 1024^2 = 90 MB, x 12 layers)
  // and 1024 x 50257 fp32 logits of 0.2e9 bytes a copy: a few GB against the smallest catalog
  // device's 16 GiB: it fits on each.
  const json small = overview(json::parse(R"({"model": {"preset": "gpt2"}, "method": "full",
    "batch": {"micro_batch_size": 1, "seq_length": 1024}})"));
  for (const auto& row : small["gpus"]) {
    CAPTURE(row);
    CHECK(row["verdict"] == "fits");
    CHECK(row["peak"].get<double>() < row["gpu_capacity_bytes"].get<double>());
  }
}

TEST_CASE("an overview of an invalid document is the estimate's error document", "[overview]") {
  for (const std::string doc : {R"({"model": {"preset": "llama-3.1-8b"}, "batch": {"micro_batch_size": 0}})",
                                R"({"model": {"preset": "llama-3.1-8b"}, "gpu": "a100"})", R"([])", "{"}) {
    CAPTURE(doc);
    const JsonResult r = overview_json(doc);
    CHECK_FALSE(r.ok);
    CHECK(json::parse(r.json) == json::parse(estimate_json(doc).json));
  }
}
