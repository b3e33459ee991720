// Strategy ranking against published layouts: for every case of tests/fixtures/throughput_cases.json
// on more than one GPU, runs the strategy search (solve.strategies, strategy_search.hpp) for the
// case's model, framework, GPU, GPU count, sequence length and global batch (micro-batch x gradient
// accumulation x data parallel, kept by every candidate) and prints where the published layout
// (tensor x pipeline x context parallel; data parallel is the rest) ranks among the distinct layouts
// the search returns, best first (a layout's rank is that of its best candidate).
//
//   strategy_ranking FIXTURE
//
// The figure: of the layouts their publishers chose as the fastest they found or recommend
// (layout_choice.tuned_for_speed true in the fixture, with the source's words), how many the search
// puts among its top three distinct layouts. A layout the search does not return (one the
// framework or the model's divisibility rules out, or past the 1,000 candidates returned) counts
// as a miss. Exit status 1 only when the fixture cannot be read.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixture_file.hpp"
#include "trainmem/json_api.hpp"

using nlohmann::json;

namespace {

using Layout = std::tuple<std::int64_t, std::int64_t, std::int64_t>;  // tensor, pipeline, context

constexpr std::size_t kTop = 3;
constexpr int kCandidates = 1000;  // solve.strategies.limit's maximum

std::string layout_name(const Layout& l) {
  std::ostringstream s;
  s << "TP" << std::get<0>(l) << " PP" << std::get<1>(l) << " CP" << std::get<2>(l);
  return s.str();
}

Layout layout_of(const json& parallel) {
  return {parallel.value("tensor_parallel_size", std::int64_t{1}), parallel.value("pipeline_parallel_size", std::int64_t{1}),
          parallel.value("context_parallel_size", std::int64_t{1})};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: strategy_ranking FIXTURE\n";
    return 1;
  }
  const std::optional<json> read = trainmem::accuracy::read_fixture(argv[1]);
  if (!read) {
    std::cerr << "strategy_ranking: cannot read " << argv[1] << "\n";
    return 1;
  }
  const json& fixture = *read;
  int tuned = 0, tuned_in_top = 0, all = 0, all_in_top = 0;
  std::cout << "| case | tuned for speed | published layout | rank among distinct layouts | top three | note |\n"
               "|---|---|---|---|---|---|\n";
  for (const auto& c : fixture["cases"]) {
    if (!c.contains("document")) continue;
    const json& doc = c["document"];
    const json parallel = doc.value("parallel", json::object());
    const std::int64_t world = parallel.value("world_size", std::int64_t{1});
    if (world <= 1) continue;
    const Layout published = layout_of(parallel);
    const auto [tp, pp, cp] = published;
    const json batch = doc.value("batch", json::object());
    const std::int64_t global_batch = batch.value("micro_batch_size", std::int64_t{1}) *
                                      batch.value("gradient_accumulation_steps", std::int64_t{1}) * (world / (tp * pp * cp));
    json request = doc;
    request["solve"] = {{"target_global_batch_size", global_batch}, {"strategies", {{"world_size", world}, {"limit", kCandidates}}}};
    const trainmem::JsonResult result = trainmem::solve_json(request.dump());
    const json out = json::parse(result.json);
    std::vector<Layout> layouts;
    std::string note;
    if (!result.ok) {
      note = "rejected: " + out["error"].value("message", std::string("?"));
    } else {
      for (const auto& s : out["strategies"]["ranked"]) {
        const Layout l = layout_of(s);
        if (std::find(layouts.begin(), layouts.end(), l) == layouts.end()) layouts.push_back(l);
      }
      if (layouts.empty() && !out["strategies"]["reasons"].empty()) note = out["strategies"]["reasons"][0].get<std::string>();
    }
    const auto at = std::find(layouts.begin(), layouts.end(), published);
    const bool found = at != layouts.end();
    const std::size_t rank = static_cast<std::size_t>(at - layouts.begin()) + 1;
    const bool in_top = found && rank <= kTop;
    const json choice = c.value("layout_choice", json::object());
    const json tuned_for_speed = choice.value("tuned_for_speed", json());
    const bool is_tuned = tuned_for_speed.is_boolean() && tuned_for_speed.get<bool>();
    ++all;
    all_in_top += in_top;
    if (is_tuned) ++tuned, tuned_in_top += in_top;
    std::cout << "| " << c.value("id", "?") << " | " << (tuned_for_speed.is_null() ? "not said" : is_tuned ? "yes" : "no") << " | "
              << layout_name(published) << " | ";
    if (found) std::cout << rank << " of " << layouts.size();
    else std::cout << "not returned (" << layouts.size() << " layouts)";
    std::cout << " | ";
    for (std::size_t i = 0; i < std::min(kTop, layouts.size()); ++i) std::cout << (i ? ", " : "") << layout_name(layouts[i]);
    std::cout << " | " << note << " |\n";
  }
  std::cout << "\nstrategy ranking: the published layout is among the top " << kTop << " distinct layouts for " << tuned_in_top
            << " of " << tuned << " layouts their publishers tuned for speed; " << all_in_top << " of " << all
            << " multi-GPU cases in all\n";
  return 0;
}
