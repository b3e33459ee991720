#include "trainmem/pipeline_split.hpp"

#include <numeric>

#include "trainmem/errors.hpp"

namespace trainmem {

namespace {

std::string str(std::int64_t v) { return std::to_string(v); }

std::vector<std::int64_t> uniform(std::int64_t layers, std::int64_t chunks) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(chunks), layers / chunks);
  for (std::int64_t i = 0; i < layers % chunks; ++i) ++out[static_cast<std::size_t>(i)];
  return out;
}

}  // namespace

std::vector<std::int64_t> megatron_counted_split(std::int64_t layers, std::int64_t chunks, bool embedding, bool loss) {
  const std::int64_t units = layers + (embedding ? 1 : 0) + (loss ? 1 : 0);
  if (chunks < 1 || units % chunks != 0) return {};
  std::vector<std::int64_t> out(static_cast<std::size_t>(chunks), units / chunks);
  if (embedding) out.front() -= 1;
  if (loss) out.back() -= 1;
  if (out.front() < 0 || out.back() < 0) return {};
  return out;
}

PipelineSplit pipeline_split(const TrainingSetup& s, std::int64_t layers) {
  PipelineSplit split;
  const ParallelSettings& p = s.parallel;
  const std::int64_t chunks = p.pipeline_parallel_size * p.virtual_pipeline_stages;
  auto refuse = [&](const char* code, const char* field, std::string message, Params params) {
    split.error_code = code;
    split.error_params = std::move(params);
    split.error_field = field;
    split.error_message = std::move(message);
    split.chunk_layers = uniform(layers, chunks);  // a shape to estimate with meanwhile
    return split;
  };
  if (!p.pipeline_layers.empty()) {
    if (static_cast<std::int64_t>(p.pipeline_layers.size()) != chunks)
      return refuse(error_code::inconsistent, "parallel.pipeline_layers",
                    "parallel.pipeline_layers has " + str(static_cast<std::int64_t>(p.pipeline_layers.size())) +
                        " entries; pipeline_parallel_size x virtual_pipeline_stages = " + str(chunks),
                    {{"reason", "pipeline_layers_count"}, {"entries", static_cast<double>(p.pipeline_layers.size())},
                     {"chunks", static_cast<double>(chunks)}});
    const std::int64_t sum = std::accumulate(p.pipeline_layers.begin(), p.pipeline_layers.end(), std::int64_t{0});
    if (sum != layers)
      return refuse(error_code::inconsistent, "parallel.pipeline_layers",
                    "parallel.pipeline_layers adds up to " + str(sum) + " layers; the model has " + str(layers),
                    {{"reason", "pipeline_layers_sum"}, {"sum", static_cast<double>(sum)}, {"layers", static_cast<double>(layers)}});
    split.chunk_layers = p.pipeline_layers;
    return split;
  }
  if (chunks == 1) {
    split.chunk_layers = {layers};
    return split;
  }
  switch (s.framework) {
    case Framework::megatron:
      if (layers % chunks != 0)
        return refuse(error_code::not_divisible, "parallel.pipeline_layers",
                      "Megatron splits " + str(layers) + " layers over pipeline_parallel_size x virtual_pipeline_stages = " +
                          str(chunks) + " chunks only with --decoder-first-pipeline-num-layers / "
                          "--decoder-last-pipeline-num-layers, --account-for-embedding-in-pipeline-split / "
                          "--account-for-loss-in-pipeline-split or --pipeline-model-parallel-layout: give "
                          "parallel.pipeline_layers (layers per chunk)",
                      {{"divisor", static_cast<double>(chunks)}, {"of", "num_hidden_layers"}, {"value", static_cast<double>(layers)}});
      split.chunk_layers = uniform(layers, chunks);
      return split;
    case Framework::torchtitan: {
      const std::int64_t effective = layers + 2;  // + embedding + output, one layer each
      const std::int64_t per = effective / chunks;
      if (per < 1)
        return refuse(error_code::out_of_range, "parallel.pipeline_parallel_size",
                      "torchtitan refuses " + str(chunks) + " pipeline chunks for " + str(layers) +
                          " layers plus embedding and output: empty stages",
                      {{"reason", "torchtitan_empty_stages"}, {"chunks", static_cast<double>(chunks)}, {"layers", static_cast<double>(layers)}});
      split.chunk_layers = uniform(effective, chunks);
      split.chunk_layers.front() -= 1;
      split.chunk_layers.back() -= 1;
      if (per < 1 || split.chunk_layers.front() < 0 || split.chunk_layers.back() < 0)
        return refuse(error_code::out_of_range, "parallel.pipeline_parallel_size",
                      "torchtitan refuses this split: the embedding or output weight exceeds the layers per stage",
                      {{"reason", "torchtitan_empty_stages"}, {"chunks", static_cast<double>(chunks)}, {"layers", static_cast<double>(layers)}});
      return split;
    }
    default:
      // DeepSpeed's PipelineModule (partition_method "parameters" or "uniform") and PyTorch's
      // pipelining give every stage at least one layer: more chunks than layers leaves a stage
      // with nothing to run, which no framework builds.
      if (chunks > layers)
        return refuse(error_code::out_of_range, "parallel.pipeline_parallel_size",
                      str(chunks) + " pipeline chunks (pipeline_parallel_size x virtual_pipeline_stages) for " + str(layers) +
                          " layers: a chunk would hold no layer",
                      {{"reason", "empty_pipeline_stages"}, {"chunks", static_cast<double>(chunks)}, {"layers", static_cast<double>(layers)}});
      split.chunk_layers = uniform(layers, chunks);
      return split;
  }
}

}  // namespace trainmem
