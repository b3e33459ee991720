#include "trainmem/catalog.hpp"

#include <algorithm>

#include "hf_config.hpp"
#include "object_reader.hpp"

namespace trainmem {

namespace {

using json_io::json;
using json_io::ObjectReader;

// Errors inside one file are reported as invalid_catalog with "<file>: <field>"; its params are the
// file, the problem's own code and the problem's params.
void relabel(Errors& into, const Errors& found, const std::string& file) {
  for (const auto& e : found) {
    Params params{{"file", file}, {"problem", e.code}};
    params.values.insert(params.values.end(), e.params.values.begin(), e.params.values.end());
    into.push_back({error_code::invalid_catalog, file + ": " + e.field, file + ": " + e.message, std::move(params)});
  }
}

// A key the file must have: missing_field when it is absent or null. A value that is there but
// invalid is reported by the reader's own check, not also as missing.
void require(const ObjectReader& r, const std::string& key, Errors& errors) {
  if (!r.has(key)) errors.push_back({error_code::missing_field, r.field(key), r.field(key) + " is missing", {{"reason", "catalog_key_missing"}}});
}

std::string base_name(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  return name.substr(0, name.rfind(".json"));
}

std::optional<ModelPreset> parse_model(const json& doc, const std::string& file, Errors& errors) {
  ObjectReader r(doc, "", errors);
  if (!r.valid()) return std::nullopt;
  ModelPreset m;
  m.id = r.string("id").value_or("");
  m.display_name = r.string("display_name").value_or(m.id);
  m.family = r.string("family").value_or("");
  m.hf_id = r.string("hf_id").value_or("");
  if (const json* aliases = r.get("hf_aliases")) {
    const bool names = aliases->is_array() && !aliases->empty() &&
                       std::all_of(aliases->begin(), aliases->end(), [](const json& a) { return a.is_string() && !a.get<std::string>().empty(); });
    if (names) m.hf_aliases = aliases->get<std::vector<std::string>>();
    else r.type_error("hf_aliases", "a non-empty list of Hugging Face ids", *aliases);
  }
  r.string("config_note");
  if (m.id != base_name(file))
    errors.push_back({error_code::inconsistent, "id", "id \"" + m.id + "\" must equal the file name", {{"reason", "id_not_file_name"}}});
  const json* cfg = r.get("hf_config");
  if (!cfg) {
    errors.push_back({error_code::missing_field, "hf_config", "hf_config is missing", {{"reason", "catalog_key_missing"}}});
  } else {
    m.hf_config_json = cfg->dump();
    if (auto a = json_io::import_hf_config(*cfg, "hf_config", errors)) m.architecture = *a;
  }
  if (const json* pub = r.get("published_parameters")) {
    ObjectReader p(*pub, "published_parameters", errors);
    auto total = p.integer("total", 1, 1e15);
    require(p, "total", errors);
    m.published_total = total.value_or(0);
    m.published_exact = p.boolean("exact").value_or(false);
    m.published_scope = p.string("scope").value_or("");
    m.published_source = p.string("source").value_or("");
    p.string("note");
    if (const json* text = p.get("text_model")) {
      // A multimodal checkpoint's language model alone, the figure text-only tools quote.
      ObjectReader t(*text, "published_parameters.text_model", errors);
      m.published_text_total = t.integer("total", 1, 1e15);
      require(t, "total", errors);
      m.published_text_scope = t.string("scope").value_or("");
      t.finish();
    }
    p.finish();
  } else {
    errors.push_back({error_code::missing_field, "published_parameters", "published_parameters is missing", {{"reason", "catalog_key_missing"}}});
  }
  if (const json* d = r.get("defaults")) {
    ObjectReader dr(*d, "defaults", errors);
    m.seq_length = dr.integer("seq_length", 1, 1e8).value_or(m.seq_length);
    if (auto dt = dr.string("param_dtype")) {
      if (auto parsed = parse_dtype(*dt)) m.param_dtype = *parsed;
      else errors.push_back({error_code::unknown_value, "defaults.param_dtype", "unknown dtype \"" + *dt + "\""});
    }
    dr.finish();
  }
  r.finish();
  return m;
}

// "prices": [{"usd_per_gpu_hour", "kind", "provider_type", "provider", "offer", "read_on", "source"}]
void read_prices(ObjectReader& r, GpuEntry& g, Errors& errors) {
  const json* list = r.get("prices");
  if (!list) return;
  if (!list->is_array()) {
    r.type_error("prices", "a list of offers", *list);
    return;
  }
  for (std::size_t i = 0; i < list->size(); ++i) {
    ObjectReader o((*list)[i], "prices." + std::to_string(i), errors);
    if (!o.valid()) continue;
    PriceOffer offer;
    offer.usd_per_gpu_hour = o.number("usd_per_gpu_hour", 0, 1e4, true).value_or(0);
    offer.kind = o.choice<std::string>("kind", {{"on_demand", "on_demand"}, {"reserved", "reserved"}, {"spot", "spot"}}).value_or("");
    offer.provider_type =
        o.choice<std::string>("provider_type", {{"hyperscaler", "hyperscaler"}, {"specialist", "specialist"}, {"marketplace", "marketplace"}})
            .value_or("");
    offer.provider = o.string("provider").value_or("");
    offer.offer = o.string("offer").value_or("");
    offer.read_on = o.string("read_on").value_or("");
    offer.source = o.string("source").value_or("");
    for (const char* key : {"usd_per_gpu_hour", "kind", "provider_type", "provider", "read_on", "source"}) require(o, key, errors);
    o.finish();
    g.prices.push_back(offer);
  }
}

std::optional<GpuEntry> parse_gpu(const json& doc, const std::string& file, Errors& errors) {
  ObjectReader r(doc, "", errors);
  if (!r.valid()) return std::nullopt;
  GpuEntry g;
  g.raw_json = doc.dump();
  g.spec.id = r.string("id").value_or("");
  if (g.spec.id != base_name(file))
    errors.push_back({error_code::inconsistent, "id", "id \"" + g.spec.id + "\" must equal the file name", {{"reason", "id_not_file_name"}}});
  g.spec.display_name = r.string("display_name").value_or(g.spec.id);
  g.vendor = r.string("vendor").value_or("");
  g.kind = r.choice<std::string>("kind", {{"gpu", "gpu"}, {"hpu", "hpu"}, {"tpu", "tpu"}}).value_or("gpu");
  g.spec.has_cuda_context = g.kind == "gpu";
  g.spec.kind = g.kind;
  if (const json* mem = r.get("memory")) {
    ObjectReader m(*mem, "memory", errors);
    m.number("value", 0, 1e6, true);
    m.choice<std::string>("unit", {{"GB", "GB"}, {"GiB", "GiB"}});
    auto bytes = m.integer("bytes", 1, 1e15);
    require(m, "bytes", errors);
    g.spec.memory_bytes = bytes.value_or(0);
    m.string("note");
    m.finish();
  } else {
    errors.push_back({error_code::missing_field, "memory", "memory is missing", {{"reason", "catalog_key_missing"}}});
  }
  g.spec.device_total_bytes = r.integer("device_total_bytes", 1, 1e15);
  r.string("device_total_source");
  g.spec.usable_bytes = r.integer("usable_bytes", 1, 1e15);
  r.string("usable_source");
  g.spec.cuda_context_bytes = r.integer("cuda_context_bytes", 0, 1e11);
  r.string("cuda_context_source");
  GpuPerformance& perf = g.spec.performance;
  g.bf16_dense_tflops = r.number("bf16_dense_tflops", 0, 1e6).value_or(0);
  perf.bf16_dense_flops_per_s = g.bf16_dense_tflops * 1e12;
  r.string("bf16_note");
  g.spec.bf16 = r.boolean("bf16").value_or(true);
  g.spec.flash_attention_2 = r.boolean("flash_attention_2").value_or(true);
  r.string("capability_source");
  g.memory_bandwidth_bytes_per_s = r.number("memory_bandwidth_bytes_per_s", 0, 1e15).value_or(0);
  perf.memory_bandwidth_bytes_per_s = g.memory_bandwidth_bytes_per_s;
  perf.fp8_dense_flops_per_s = r.number("fp8_dense_tflops", 0, 1e6).value_or(0) * 1e12;
  r.string("fp8_note");
  perf.generation = r.choice<GpuGeneration>("architecture", {{"volta", GpuGeneration::volta},
                                                              {"turing", GpuGeneration::turing},
                                                              {"ampere", GpuGeneration::ampere},
                                                              {"ada", GpuGeneration::ada},
                                                              {"hopper", GpuGeneration::hopper},
                                                              {"blackwell", GpuGeneration::blackwell},
                                                              {"other", GpuGeneration::other}})
                        .value_or(GpuGeneration::other);
  perf.streaming_multiprocessors = r.integer("streaming_multiprocessors", 0, 1e5).value_or(0);
  r.string("streaming_multiprocessors_source");
  if (const json* me = r.get("matmul_efficiency")) {
    ObjectReader m(*me, "matmul_efficiency", errors);
    perf.matmul_efficiency_bf16 = m.number("bf16", 0.01, 1, true).value_or(0);
    perf.matmul_efficiency_fp8 = m.number("fp8", 0.01, 1, true).value_or(0);
    m.string("source");
    m.finish();
  }
  if (const json* ic = r.get("interconnect")) {
    ObjectReader i(*ic, "interconnect", errors);
    g.interconnect_name = i.string("name").value_or("");
    g.interconnect_bytes_per_s = i.number("bytes_per_s", 0, 1e15).value_or(0);
    perf.interconnect_bytes_per_s = g.interconnect_bytes_per_s;
    i.string("note");
    i.finish();
  }
  if (const json* net = r.get("network")) {
    ObjectReader n(*net, "network", errors);
    perf.intra_node_bytes_per_s = n.number("intra_node_bytes_per_s", 1, 1e15).value_or(0);
    n.string("intra_node_source");
    perf.intra_node_gpus = n.integer("intra_node_gpus", 1, 1e5).value_or(0);
    perf.inter_node_bytes_per_s = n.number("inter_node_bytes_per_s", 1, 1e15).value_or(0);
    n.string("inter_node_source");
    n.finish();
  }
  if (const json* hl = r.get("host_link")) {
    ObjectReader h(*hl, "host_link", errors);
    h.string("name");
    perf.host_link_bytes_per_s = h.number("bytes_per_s", 1, 1e15).value_or(0);
    h.string("note");
    h.finish();
  }
  g.spec.gpus_per_node = r.integer("gpus_per_node", 1, 1024).value_or(8);
  r.string("gpus_per_node_note");
  g.price_per_gpu_hour_usd = r.number("price_per_gpu_hour_usd", 0, 1e4);
  g.spec.price_per_gpu_hour_usd = g.price_per_gpu_hour_usd;
  g.spec.price_source = r.string("price_source").value_or("");
  read_prices(r, g, errors);
  // The default price is what every comparison uses (the cheapest fitting GPU, a run's cost, the
  // strategies' tokens per dollar), so it is one class of offer for every GPU: a hyperscaler's
  // on-demand price, listed among the entry's offers (catalog/README.md, "Prices").
  if (g.price_per_gpu_hour_usd) {
    const double price = *g.price_per_gpu_hour_usd;
    const bool listed = std::any_of(g.prices.begin(), g.prices.end(), [price](const PriceOffer& o) {
      return o.kind == "on_demand" && o.provider_type == "hyperscaler" && o.usd_per_gpu_hour == price;
    });
    if (!listed)
      errors.push_back({error_code::inconsistent, "price_per_gpu_hour_usd",
                        "price_per_gpu_hour_usd must be one of the entry's hyperscaler on-demand offers in prices, so that GPUs "
                        "are compared like with like (catalog/README.md, \"Prices\")",
                        {{"reason", "default_price_not_hyperscaler_on_demand"}}});
  }
  g.source = r.string("source").value_or("");
  r.string("note");
  r.finish();
  return g;
}

}  // namespace

const ModelPreset* Catalog::find_model(const std::string& id) const {
  for (const auto& m : models)
    if (m.id == id) return &m;
  return nullptr;
}

const GpuEntry* Catalog::find_gpu(const std::string& id) const {
  for (const auto& g : gpus)
    if (g.spec.id == id) return &g;
  return nullptr;
}

std::vector<std::string> Catalog::model_ids() const {
  std::vector<std::string> ids;
  for (const auto& m : models) ids.push_back(m.id);
  return ids;
}

std::vector<std::string> Catalog::model_hf_ids() const {
  std::vector<std::string> ids;
  for (const auto& m : models) ids.push_back(m.hf_id);
  return ids;
}

std::vector<std::string> Catalog::gpu_ids() const {
  std::vector<std::string> ids;
  for (const auto& g : gpus) ids.push_back(g.spec.id);
  return ids;
}

namespace {

// Reads each file with read(doc, path, catalog, errors) and sorts the entries by id; a file that is
// not JSON, or an entry with errors, is left out and its errors kept.
template <class ReadEntry>
Catalog read_files(const std::vector<std::pair<std::string, std::string>>& files, ReadEntry read) {
  Catalog c;
  for (const auto& [path, text] : files) {
    Errors found;
    json doc;
    try {
      doc = json::parse(text);
    } catch (const json::exception& e) {
      // nlohmann/json's own words, where and what (line and column, or the number that overflows),
      // without its "[json.exception.parse_error.101] " prefix.
      const std::string what = e.what();
      const std::string detail = what.substr(what.find("] ") == std::string::npos ? 0 : what.find("] ") + 2);
      c.errors.push_back({error_code::invalid_catalog, path, path + ": not valid JSON: " + detail,
                          {{"file", path}, {"problem", error_code::invalid_json}}});
      continue;
    }
    read(doc, path, c, found);
    relabel(c.errors, found, path);
  }
  std::sort(c.models.begin(), c.models.end(), [](const ModelPreset& a, const ModelPreset& b) { return a.id < b.id; });
  std::sort(c.gpus.begin(), c.gpus.end(), [](const GpuEntry& a, const GpuEntry& b) { return a.spec.id < b.spec.id; });
  return c;
}

void read_model(const json& doc, const std::string& path, Catalog& c, Errors& found) {
  auto m = parse_model(doc, path, found);
  if (m && found.empty()) c.models.push_back(std::move(*m));
}

}  // namespace

Catalog parse_catalog(const std::vector<std::pair<std::string, std::string>>& files) {
  return read_files(files, [](const json& doc, const std::string& path, Catalog& c, Errors& found) {
    if (path.find("models/") != std::string::npos) {
      read_model(doc, path, c, found);
    } else {
      auto g = parse_gpu(doc, path, found);
      if (g && found.empty()) c.gpus.push_back(std::move(*g));
    }
  });
}

Catalog parse_model_files(const std::vector<std::pair<std::string, std::string>>& files) {
  return read_files(files, read_model);
}

}  // namespace trainmem
