// The GPU catalog compiled as C++ data (tools/gpu_table): the same entries, field for field, as
// the engine's reader makes of catalog/gpus/*.json, and C++ literals that read back exactly.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gpu_table_source.hpp"
#include "trainmem/catalog.hpp"
#include "trainmem/gpu_entry_fields.hpp"
#include "trainmem/gpu_table.hpp"
#include <utility>
#include <stdexcept>

using namespace trainmem;

namespace gpu_table_test_detail {

// How many members an aggregate has: the most initializers `T{...}` accepts, each one a value that
// converts to any member's type (a member of class type takes it whole, so nothing is brace-elided).
struct AnyMember {
  template <class T>
  operator T() const;  // declared only: used in unevaluated contexts
};

template <class T, class... Given>
constexpr auto accepts(int) -> decltype(T{std::declval<Given>()...}, true) {
  return true;
}
template <class T, class... Given>
constexpr bool accepts(...) {
  return false;
}

template <class T, class... Given>
constexpr std::size_t member_count() {
  if constexpr (accepts<T, Given..., AnyMember>(0)) return member_count<T, Given..., AnyMember>();
  else return sizeof...(Given);
}

}  // namespace gpu_table_test_detail

TEST_CASE("the field list names every member of the GPU entry's structs", "[catalog]") {
  // gpu_entry_fields.hpp is the table's only knowledge of the structs: a member it misses would be
  // left at its default in every built-in GPU. Its names, by struct, against the structs' members.
  using gpu_table_test_detail::member_count;
  std::size_t entry = 0, spec = 0, performance = 0;
  GpuEntry g;
  for_each_gpu_entry_field(g, [&](const std::string& name, const auto&) {
    if (name.rfind("spec.performance.", 0) == 0) ++performance;
    else if (name.rfind("spec.", 0) == 0) ++spec;
    else ++entry;
  });
  std::size_t offer = 0;
  PriceOffer o;
  for_each_price_offer_field(o, [&](const char*, const auto&) { ++offer; });
  CHECK(performance == member_count<GpuPerformance>());
  CHECK(spec + 1 == member_count<GpuSpec>());    // + performance, listed by its members
  CHECK(entry + 1 == member_count<GpuEntry>());  // + spec, likewise
  CHECK(offer == member_count<PriceOffer>());
  // By hand from the headers (training_setup.hpp, catalog.hpp), so the counting itself is checked.
  CHECK(member_count<PriceOffer>() == 7);
  CHECK(member_count<GpuPerformance>() == 12);
}

TEST_CASE("the built-in GPUs are the catalog files as the reader parses them", "[catalog]") {
  namespace fs = std::filesystem;
  const Catalog& built = builtin_gpus();
  CHECK(built.models.empty());
  CHECK(built.errors.empty());
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(TRAINMEM_SOURCE_DIR) / "catalog" / "gpus")) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    const std::string name = "gpus/" + entry.path().filename().string();
    CAPTURE(name);
    const Catalog parsed = parse_catalog({{name, text.str()}});
    REQUIRE(parsed.errors.empty());
    REQUIRE(parsed.gpus.size() == 1);
    const GpuEntry* same = built.find_gpu(parsed.gpus[0].spec.id);
    REQUIRE(same != nullptr);
    // Every field (gpu_entry_fields.hpp), written out: equal text is equal values, doubles bit for bit.
    CHECK(gpu_entry_values(*same) == gpu_entry_values(parsed.gpus[0]));
  }
  CHECK(built.gpus.size() == files);
  CHECK(builtin_catalog().gpus.size() == files);
  // Sorted by id, as parse_catalog sorts.
  for (std::size_t i = 1; i < built.gpus.size(); ++i) CHECK(built.gpus[i - 1].spec.id < built.gpus[i].spec.id);
}

TEST_CASE("a built-in GPU carries its datasheet figures", "[catalog]") {
  // catalog/gpus/a100-40gb.json: NVIDIA A100 datasheet (40 GB HBM2, 312 dense BF16 TFLOP/s,
  // 1,555 GB/s) and the GA100 whitepaper (108 SMs); nvidia-smi reports 40960 MiB = 40 x 2^30 bytes.
  const GpuEntry* g = builtin_gpus().find_gpu("a100-40gb");
  REQUIRE(g != nullptr);
  CHECK(g->spec.memory_bytes == 40LL * 1024 * 1024 * 1024);
  CHECK(g->spec.performance.bf16_dense_flops_per_s == 312e12);
  CHECK(g->spec.performance.memory_bandwidth_bytes_per_s == 1555e9);
  CHECK(g->spec.performance.streaming_multiprocessors == 108);
  CHECK(g->spec.performance.generation == GpuGeneration::ampere);
  CHECK_FALSE(g->spec.usable_bytes.has_value());
}

TEST_CASE("the GPU table writes values that read back exactly", "[catalog]") {
  using namespace std::string_literals;
  GpuEntry g;
  // Quotes, a backslash, a newline, UTF-8, a trigraph's "??=", a NUL ("\u0000" in JSON) and what follows it: 41 bytes.
  g.spec.display_name = "a \"quoted\" back\\slash\nline caf\xc3\xa9 ?\?= \0end"s;
  REQUIRE(g.spec.display_name.size() == 41);
  g.spec.memory_bytes = 85899345920;
  g.spec.usable_bytes = 1;
  g.spec.performance.matmul_efficiency_bf16 = 0.1;  // nearest double 0.1000000000000000055511151231257827
  g.spec.performance.bf16_dense_flops_per_s = 989e12;
  g.spec.performance.generation = GpuGeneration::hopper;  // the enum's sixth name, value 5
  g.prices.resize(1);
  g.prices[0].usd_per_gpu_hour = 2.5;
  const std::string s = gpu_entry_values(g);
  CHECK_THAT(s, Catch::Contains("\nspec.display_name = {\"a \\\"quoted\\\" back\\\\slash\\012line caf\\303\\251 \\?\\?= \\000end\", 41}\n"));
  CHECK_THAT(s, Catch::Contains("\nspec.memory_bytes = 85899345920LL\n"));
  CHECK_THAT(s, Catch::Contains("\nspec.usable_bytes set = true\nspec.usable_bytes = 1LL\n"));
  CHECK_THAT(s, Catch::Contains("\nspec.cuda_context_bytes set = false\nspec.has_cuda_context = true\n"));
  CHECK_THAT(s, Catch::Contains("\nspec.performance.matmul_efficiency_bf16 = 0.10000000000000001\n"));
  CHECK_THAT(s, Catch::Contains("\nspec.performance.bf16_dense_flops_per_s = 989000000000000.0\n"));
  CHECK_THAT(s, Catch::Contains("\nspec.performance.generation = 5LL\n"));
  CHECK_THAT(s, Catch::Contains("\nprices count = 1LL\nprices[0].usd_per_gpu_hour = 2.5\nprices[0].kind = {\"\", 0}\n"));
  // Read back through the table: the NUL and what follows it kept.
  const TableString strings[] = {{"x", 1}, {"a\0b", 3}, {"", 0}, {"", 0}, {"", 0}, {"", 0}, {"", 0}, {"", 0}, {"", 0}, {nullptr, 0}};
  const double numbers[13] = {};
  const std::int64_t integers[7] = {};
  const bool flags[9] = {};
  const std::vector<GpuEntry> read = read_gpu_table({1, strings, 9, numbers, 12, integers, 6, flags, 8});
  REQUIRE(read.size() == 1);
  CHECK(read[0].spec.display_name == "a\0b"s);
}

TEST_CASE("a GPU table that does not match the build's fields is refused", "[catalog]") {
  // With every optional unset and no price offer, one entry takes (gpu_entry_fields.hpp) 9 strings
  // (id, display_name, spec.kind, price_source, vendor, kind, interconnect_name, source, raw_json), 12 numbers
  // (9 of spec.performance, bf16_dense_tflops, memory_bandwidth_bytes_per_s,
  // interconnect_bytes_per_s), 6 integers (memory_bytes, gpus_per_node, streaming_multiprocessors,
  // generation, intra_node_gpus, the offers' count) and 8 flags (5 optionals unset, has_cuda_context,
  // bf16, flash_attention_2). A table written for other fields has other counts.
  const TableString strings[10] = {{"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}, {"e", 1}, {"f", 1}, {"g", 1}, {"h", 1}, {"i", 1}, {nullptr, 0}};
  const double numbers[13] = {};
  const std::int64_t integers[7] = {};
  const bool flags[9] = {};
  const GpuTableData exact{1, strings, 9, numbers, 12, integers, 6, flags, 8};
  const std::vector<GpuEntry> read = read_gpu_table(exact);
  REQUIRE(read.size() == 1);
  CHECK(read[0].spec.id == "a");
  CHECK(read[0].spec.kind == "c");
  CHECK(read[0].vendor == "e");
  CHECK(read[0].raw_json == "i");
  CHECK_FALSE(read[0].spec.usable_bytes.has_value());
  CHECK_THROWS_AS(read_gpu_table({1, strings, 8, numbers, 12, integers, 6, flags, 8}), std::logic_error);
  CHECK_THROWS_AS(read_gpu_table({1, strings, 9, numbers, 13, integers, 6, flags, 8}), std::logic_error);
}
