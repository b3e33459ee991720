// The built-in model and GPU catalogs (catalog/models/*.json, catalog/gpus/*.json, built in at
// build time; see catalog/README.md for the file format). Every entry is validated: a GPU when the
// engine is built, a model when it is loaded.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trainmem/architecture.hpp"
#include "trainmem/errors.hpp"
#include "trainmem/training_setup.hpp"

namespace trainmem {

struct ModelPreset {
  std::string id, display_name, family, hf_id;
  // Other names of the same Hugging Face repository, matched like hf_id: a rename the Hub redirects
  // ("meta-llama/Meta-Llama-3.1-8B" -> "meta-llama/Llama-3.1-8B"). catalog/README.md.
  std::vector<std::string> hf_aliases;
  Architecture architecture;
  std::int64_t published_total = 0;  // the publisher's parameter count (the whole checkpoint)
  bool published_exact = false;      // false: a rounded headline figure
  std::string published_scope, published_source;
  // Multimodal checkpoints: the language model alone (what text-only figures quote).
  std::optional<std::int64_t> published_text_total;
  std::string published_text_scope;
  std::int64_t seq_length = 4096;    // usual training length
  Dtype param_dtype = Dtype::bf16;
  std::string hf_config_json;        // the config.json as stored
};

// One published price of a GPU-hour: like is compared with like (on-demand vs reserved,
// hyperscaler vs specialist cloud), and each offer says where and when it was read.
struct PriceOffer {
  double usd_per_gpu_hour = 0;
  std::string kind;           // on_demand | reserved | spot
  std::string provider_type;  // hyperscaler | specialist | marketplace
  std::string provider, offer, read_on, source;
};

struct GpuEntry {
  GpuSpec spec;  // memory in bytes, usable bytes and CUDA context where published
  std::string vendor, kind;
  double bf16_dense_tflops = 0;             // TFLOP/s, dense
  double memory_bandwidth_bytes_per_s = 0;  // bytes/s
  std::string interconnect_name;
  double interconnect_bytes_per_s = 0;      // bytes/s
  std::optional<double> price_per_gpu_hour_usd;  // the default offer (also in spec)
  std::vector<PriceOffer> prices;               // every cited offer
  std::string source;
  std::string raw_json;  // the catalog file as stored
};

struct Catalog {
  std::vector<ModelPreset> models;
  std::vector<GpuEntry> gpus;
  Errors errors;  // malformed entries (code invalid_catalog, field "<file>: <path>")

  const ModelPreset* find_model(const std::string& id) const;
  const GpuEntry* find_gpu(const std::string& id) const;
  std::vector<std::string> model_ids() const;
  std::vector<std::string> model_hf_ids() const;  // in model_ids()'s order; empty where a preset has none
  std::vector<std::string> gpu_ids() const;
};

// Parses catalog files given as (path, JSON text) pairs; the path's folder ("models/" or "gpus/")
// says which kind each is.
Catalog parse_catalog(const std::vector<std::pair<std::string, std::string>>& files);

// parse_catalog for model preset files only (each read as a model, whatever its folder): what the
// engine reads at run time, the GPUs being compiled in (trainmem/gpu_table.hpp), so that the page's
// engine carries no GPU reader.
Catalog parse_model_files(const std::vector<std::pair<std::string, std::string>>& files);

// The catalog compiled into this build: the GPUs compiled in as data (trainmem/gpu_table.hpp), the
// models parsed once, on first use (every model's hf_config is imported, about 20 ms natively and
// 200-400 ms in WebAssembly before the engine's code is warm).
const Catalog& builtin_catalog();

// One preset of the built-in catalog, reading only its own file (catalog/models/<id>.json; a
// preset's id is its file name): what builtin_catalog().find_model(id) returns, without parsing
// the other models. nullptr when there is no such file or the entry is malformed (its errors are in
// builtin_catalog().errors). Each file is parsed once.
const ModelPreset* builtin_model(const std::string& id);

// The built-in catalog's GPUs alone (models and errors empty), read once from the table the build
// wrote from catalog/gpus/*.json (a malformed GPU file fails the build): what an estimate of a
// catalog GPU, the per-GPU overview and the solve need, without the models' parse.
const Catalog& builtin_gpus();

}  // namespace trainmem
