// Estimate input document -> TrainingSetup, and Estimate -> output document
// (docs/api.md). The only place that knows the documents' field names.
#include <algorithm>
#include <cmath>

#include "documents.hpp"
#include "enum_names.hpp"
#include "params_json.hpp"
#include "hf_config.hpp"
#include "object_reader.hpp"
#include "trainmem/catalog.hpp"
#include "trainmem/estimate.hpp"
#include "trainmem/framework_defaults.hpp"
#include "trainmem/activations.hpp"
#include "trainmem/explain.hpp"
#include "trainmem/loss_memory.hpp"
#include "trainmem/message_codes.hpp"
#include "trainmem/json_api.hpp"
#include "trainmem/pipeline_split.hpp"
#include "trainmem/rlhf.hpp"
#include "trainmem/step_time.hpp"
#include "trainmem/vision_activations.hpp"
#include "trainmem/vision_parameters.hpp"

namespace trainmem {

namespace {

// The dtype the trained weights are held in, which bytes_per_param.param prices: the adapters' under
// LoRA/QLoRA (lora.adapter_dtype), fp32 where accelerate's FSDP upcasts the trainable weights
// (precision.hpp), else the model's.
Dtype trainable_dtype(const TrainingSetup& s, const ResolvedPrecision& p) {
  if (uses_adapters(s.method)) return adapter_dtype(s);
  return p.trainable_upcast_to_fp32 ? Dtype::fp32 : p.param_dtype;
}

using namespace json_io;  // the enum tables (enum_names.hpp)
using json_io::json;
using json_io::ObjectReader;

constexpr double kMaxCount = 1e15;  // generous bound for sizes; JSON integers beyond 2^53 are refused anyway

template <typename T>
void set(T& target, const std::optional<T>& value) {
  if (value) target = *value;
}

// A model object at `path`: {"preset": id} | {"hf_config": {...}} | {"num_parameters": N}.
void parse_model_spec(const json& model, const std::string& path, ModelSpec& out, Errors& errors) {
  ObjectReader m(model, path, errors);
  if (!m.valid()) return;
  const int given = int(m.has("preset")) + int(m.has("hf_config")) + int(m.has("num_parameters"));
  if (given != 1) {
    errors.push_back({given == 0 ? error_code::missing_field : error_code::inconsistent, path,
                      path + " needs exactly one of preset, hf_config or num_parameters (got " + std::to_string(given) + ")",
                      {{"reason", "one_model_source"}, {"given", static_cast<double>(given)}}});
  }
  if (auto preset = m.string("preset")) {
    if (const ModelPreset* p = builtin_model(*preset)) {
      out.preset = p->id;
      out.architecture = p->architecture;
      out.seq_length_default = p->seq_length;
    } else {
      const Catalog& catalog = builtin_catalog();
      const CatalogMatch near = closest_catalog_id(*preset, catalog.model_ids(), catalog.model_hf_ids());
      errors.push_back({error_code::unknown_preset, m.field("preset"),
                        m.field("preset") + " \"" + excerpt(*preset) + "\" is not in the model catalog" + near.message_tail() +
                            " (trainmem catalog models lists them)",
                        near.params(*preset)});
    }
  }
  if (const json* cfg = m.get("hf_config")) {
    if (auto a = json_io::import_hf_config(*cfg, m.field("hf_config"), errors)) out.architecture = *a;
  }
  if (auto n = m.integer("num_parameters", 1, kMaxCount)) out.num_parameters = *n;
  if (out.architecture) out.num_parameters = out.architecture->total_params();
  m.finish();
}

void parse_model(ObjectReader& doc, TrainingSetup& s, Errors& errors) {
  const json* model = doc.get("model");
  if (!model) {
    errors.push_back({error_code::missing_field, "model", "model is required: {\"preset\": id}, {\"hf_config\": {...}} or {\"num_parameters\": N}",
                      {{"reason", "model_required"}}});
    return;
  }
  parse_model_spec(*model, "model", s.model, errors);
}

// Records settings given for something this setup does not do (accepted, reported as ignored).
void note_ignored(TrainingSetup& s, bool applies, std::vector<std::string> paths, const char* reason) {
  if (applies) s.ignored_fields.push_back({std::move(paths), reason});
}

// rlhf: {"algorithm", "reference": {"method"}, "reward": {"model"}, "critic": {"model", "method"}, "rollout": {...}}
void parse_rlhf(ObjectReader& doc, TrainingSetup& s, Errors& errors) {
  const json* v = doc.get("rlhf");
  if (!v) return;
  ObjectReader r(*v, "rlhf", errors);
  if (!r.valid()) return;
  RlhfSettings rl;
  auto algorithm = r.choice("algorithm", Table<RlhfAlgorithm>{{"dpo", RlhfAlgorithm::dpo}, {"ppo", RlhfAlgorithm::ppo}, {"grpo", RlhfAlgorithm::grpo}});
  if (!algorithm && !r.has("algorithm"))
    errors.push_back({error_code::missing_field, "rlhf.algorithm", "rlhf.algorithm is required: dpo, ppo or grpo",
                      {{"reason", "rlhf_algorithm_required"}, {"allowed", "dpo, ppo, grpo"}}});
  rl.algorithm = algorithm.value_or(RlhfAlgorithm::dpo);
  std::optional<ReferenceModel> reference;
  if (const json* ref = r.get("reference")) {
    ObjectReader rr(*ref, "rlhf.reference", errors);
    reference = rr.choice("method", Table<ReferenceModel>{{"frozen", ReferenceModel::frozen},
                                                          {"shared_base", ReferenceModel::shared_base},
                                                          {"none", ReferenceModel::none}});
    rr.finish();
  }
  // Unstated, a LoRA/QLoRA policy's reference is its own base with the adapters disabled, as TRL
  // runs DPO, GRPO and PPO with a PEFT model (ref_model None: trl/trainer/dpo_trainer.py,
  // grpo_trainer.py @f2cd577) and torchtune's LoRA DPO recipe does; a full policy's is a frozen copy.
  const bool adapters = uses_adapters(s.method);
  rl.reference = reference.value_or(adapters ? ReferenceModel::shared_base : ReferenceModel::frozen);
  // Only GRPO trains without a reference (TRL grpo_trainer.py @f2cd577: beta 0.0 loads none); DPO's
  // loss and PPO's KL penalty read its log-probs.
  if (rl.reference == ReferenceModel::none && rl.algorithm != RlhfAlgorithm::grpo)
    errors.push_back({error_code::inconsistent, "rlhf.reference.method",
                      "rlhf.reference.method none: only GRPO (with a zero KL coefficient) trains without a reference model",
                      {{"reason", "reference_needed"}}});
  auto sub_model = [&](const char* key, std::optional<ModelSpec>& out, Method* method) {
    const json* m = r.get(key);
    if (!m) return;
    const std::string path = std::string("rlhf.") + key;
    ObjectReader mr(*m, path, errors);
    if (const json* model = mr.get("model")) {
      ModelSpec spec;
      parse_model_spec(*model, path + ".model", spec, errors);
      out = spec;
    }
    if (method) set(*method, mr.choice("method", Table<Method>{{"full", Method::full}, {"lora", Method::lora}}));
    mr.finish();
  };
  sub_model("reward", rl.reward_model, nullptr);
  sub_model("critic", rl.critic_model, &rl.critic_method);
  bool vllm_settings = false;  // a vLLM share or sleep mode given
  if (const json* ro = r.get("rollout")) {
    ObjectReader rr(*ro, "rlhf.rollout", errors);
    vllm_settings = rr.has("vllm_gpu_memory_utilization") || rr.has("vllm_enable_sleep_mode");
    set(rl.max_new_tokens, rr.integer("max_new_tokens", 1, 1e7));
    set(rl.num_generations, rr.integer("num_generations", 1, 1e5));
    set(rl.colocated, rr.boolean("colocated"));
    set(rl.use_vllm, rr.boolean("use_vllm"));
    set(rl.vllm_gpu_memory_utilization, rr.number("vllm_gpu_memory_utilization", 0.01, 1));
    set(rl.vllm_enable_sleep_mode, rr.boolean("vllm_enable_sleep_mode"));
    rr.finish();
  }
  r.finish();
  // Parts that this algorithm does not use: accepted, reported as ignored.
  note_ignored(s, rl.reward_model.has_value() && rl.algorithm != RlhfAlgorithm::ppo, {"rlhf.reward"},
               "only PPO scores with a reward model");
  note_ignored(s, rl.critic_model.has_value() && rl.algorithm != RlhfAlgorithm::ppo, {"rlhf.critic"}, "only PPO trains a critic");
  note_ignored(s, r.has("rollout") && rl.algorithm == RlhfAlgorithm::dpo, {"rlhf.rollout"}, "DPO does not generate");
  note_ignored(s, rl.use_vllm && rl.algorithm == RlhfAlgorithm::ppo, {"rlhf.rollout.use_vllm"},
               "TRL's PPOTrainer generates with transformers only");
  note_ignored(s, vllm_settings && rl.algorithm == RlhfAlgorithm::grpo && !(rl.use_vllm && rl.colocated),
               {"rlhf.rollout.vllm_gpu_memory_utilization", "rlhf.rollout.vllm_enable_sleep_mode"},
               "for vLLM colocated with training only: use_vllm, colocated");
  note_ignored(s, reference == ReferenceModel::shared_base && !adapters, {"rlhf.reference"},
               "shared_base: only a LoRA/QLoRA policy has a frozen base to share");
  s.rlhf = rl;
}

void parse_lora(ObjectReader& doc, TrainingSetup& s, Errors& errors) {
  const json* v = doc.get("lora");
  s.unstated.lora = !doc.has("lora");
  if (!v) return;
  ObjectReader r(*v, "lora", errors);
  set(s.lora.r, r.integer("r", 1, 1e6));
  auto names = [](const json& v) {
    return v.is_array() && !v.empty() && std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_string(); });
  };
  // PEFT: a list matches module names (exactly or as a ".name" suffix), a string is a regex that
  // must match the whole module name, except "all-linear".
  if (const json* t = r.get("target_modules")) {
    if (t->is_array() && t->size() > kMaxListEntries) {
      r.too_many_entries("target_modules", t->size());
    } else if (t->is_string() && *t == "all-linear") {
      s.lora.target_modules = {"all-linear"};
    } else if (t->is_string()) {
      s.lora.target_pattern = t->get<std::string>();
    } else if (names(*t)) {
      s.lora.target_modules = t->get<std::vector<std::string>>();
    } else {
      r.type_error("target_modules", "a non-empty list of module names, \"all-linear\" or a regex string", *t);
    }
  }
  if (const json* t = r.get("exclude_modules")) {
    if (t->is_array() && t->size() > kMaxListEntries) r.too_many_entries("exclude_modules", t->size());
    else if (t->is_string()) s.lora.exclude_pattern = t->get<std::string>();
    else if (names(*t)) s.lora.exclude_modules = t->get<std::vector<std::string>>();
    else r.type_error("exclude_modules", "a non-empty list of module names or a regex string", *t);
  }
  if (const json* t = r.get("layers_to_transform")) {
    const json list = t->is_array() ? *t : json::array({*t});
    // Integers here; one outside the model's layers (a negative one included) is named by the
    // validation, which knows the layer count.
    const bool ok = !list.empty() && std::all_of(list.begin(), list.end(), [](const json& x) { return x.is_number_integer(); });
    if (list.size() > kMaxListEntries) r.too_many_entries("layers_to_transform", list.size());
    else if (ok) s.lora.layers_to_transform = list.get<std::vector<std::int64_t>>();
    else r.type_error("layers_to_transform", "a layer index or a non-empty list of layer indices", *t);
  }
  if (const json* t = r.get("rank_pattern")) {
    if (!t->is_object()) {
      r.type_error("rank_pattern", "an object of module-name patterns to ranks", *t);
    } else if (t->size() > kMaxListEntries) {
      r.too_many_entries("rank_pattern", t->size());
    } else {
      ObjectReader ranks(*t, "lora.rank_pattern", errors);
      for (auto it = t->begin(); it != t->end(); ++it)
        if (auto rank = ranks.integer(it.key(), 1, 1e6)) s.lora.rank_pattern.emplace_back(it.key(), *rank);
    }
  }
  if (const json* t = r.get("modules_to_save")) {
    const bool names = t->is_array() && std::all_of(t->begin(), t->end(), [](const json& x) { return x.is_string(); });
    if (t->is_array() && t->size() > kMaxListEntries) {
      r.too_many_entries("modules_to_save", t->size());
    } else if (!names) {
      r.type_error("modules_to_save", "a list of module names", *t);
    } else {
      // A name this document has no module for is named with the ones it has.
      static const std::vector<std::string> kSaved{"lm_head", "embed_tokens"};
      bool known = true;
      for (const auto& x : *t)
        if (std::find(kSaved.begin(), kSaved.end(), x.get<std::string>()) == kSaved.end()) {
          r.unknown_value("modules_to_save", x.get<std::string>(), kSaved);
          known = false;
        }
      if (known) s.lora.modules_to_save = t->get<std::vector<std::string>>();
    }
  }
  set(s.lora.use_dora, r.boolean("use_dora"));
  set(s.lora.lora_dropout, r.number("lora_dropout", 0, 1));
  set(s.lora.adapter_dtype, r.choice("adapter_dtype", kTrainingDtypes));
  s.unstated.adapter_dtype = !r.has("adapter_dtype");
  r.number("lora_alpha", 0, 1e6);  // scaling only: no memory effect
  r.finish();
}

// multimodal: {"freeze_vision_tower", "freeze_projector", "images_per_sample", "image_size": [h, w]}
void parse_multimodal(ObjectReader& doc, TrainingSetup& s, Errors& errors) {
  const json* v = doc.get("multimodal");
  if (!v) return;
  ObjectReader r(*v, "multimodal", errors);
  if (!r.valid()) return;
  set(s.multimodal.freeze_vision_tower, r.boolean("freeze_vision_tower"));
  set(s.multimodal.freeze_projector, r.boolean("freeze_projector"));
  set(s.multimodal.images_per_sample, r.integer("images_per_sample", 0, 1e4));
  if (const json* size = r.get("image_size")) {
    // Pixels; 1e5 a side bounds the tiling work and every product below 2^53. Each side's error
    // names it (multimodal.image_size[0], the height) and what is wrong with it.
    constexpr double kMaxSide = 1e5;
    if (!size->is_array()) {
      r.type_error("image_size", "[height, width] in whole pixels from 1 to 100000", *size);
    } else if (size->size() != 2) {
      const std::string f = "multimodal.image_size";
      errors.push_back({error_code::wrong_type, f, f + " must be [height, width], got an array of " + std::to_string(size->size()) + " entries",
                        {{"expected", "[height, width]"}, {"got", "array"}, {"entries", static_cast<double>(size->size())}}});
    } else {
      bool ok = true;
      for (std::size_t i = 0; i < 2; ++i) {
        const json& x = (*size)[i];
        const std::string f = "multimodal.image_size[" + std::to_string(i) + "]";
        const std::string side = i == 0 ? " (the height)" : " (the width)";
        const double d = x.is_number() ? x.get<double>() : 0;
        if (!x.is_number()) {
          errors.push_back({error_code::wrong_type, f, f + side + " must be a whole number of pixels, got " + type_name(x),
                            {{"expected", "integer"}, {"got", type_name(x)}}});
        } else if (!std::isfinite(d) || std::floor(d) != d) {
          errors.push_back({error_code::not_integer, f, f + side + " = " + scalar_text(x) + " must be a whole number of pixels",
                            {{"value", scalar_text(x)}}});
        } else if (d < 1 || d > kMaxSide) {
          errors.push_back({error_code::out_of_range, f, f + side + " = " + scalar_text(x) + " is out of range (1 to 100000 pixels)",
                            {{"value", scalar_text(x)}, {"min", 1.0}, {"max", kMaxSide}}});
        } else {
          continue;
        }
        ok = false;
      }
      if (ok) s.multimodal.image_size = std::pair{(*size)[0].get<std::int64_t>(), (*size)[1].get<std::int64_t>()};
    }
  }
  r.finish();
}

void parse_precision(ObjectReader& doc, TrainingSetup& s, Errors& errors) {
  const json* v = doc.get("precision");
  s.unstated.optimizer = s.unstated.optimizer_in_backward = true;
  if (!v) return;
  ObjectReader r(*v, "precision", errors);
  s.unstated.optimizer = !r.has("optimizer");
  s.unstated.optimizer_in_backward = !r.has("optimizer_in_backward");
  s.precision.param_dtype = r.choice("param_dtype", kTrainingDtypes);
  s.precision.grad_dtype = r.choice("grad_dtype", kTrainingDtypes);
  s.precision.compute_dtype = r.choice("compute_dtype", kTrainingDtypes);
  s.precision.master_weights = r.boolean("master_weights");
  set(s.precision.optimizer, r.choice("optimizer", kOptimizers));
  s.precision.optimizer_state_dtype = r.choice("optimizer_state_dtype", kStateDtypes);
  set(s.precision.optimizer_in_backward, r.boolean("optimizer_in_backward"));
  set(s.precision.fp8_compute, r.boolean("fp8_compute"));
  s.precision.optimizer_implementation = r.choice("optimizer_implementation", kOptimizerImplementations);
  r.finish();
}

void parse_batch(ObjectReader& doc, TrainingSetup& s, Errors& errors) {
  const json* v = doc.get("batch");
  if (!v) return;
  ObjectReader r(*v, "batch", errors);
  set(s.batch.micro_batch_size, r.integer("micro_batch_size", 1, 1e9));
  s.batch.seq_length = r.integer("seq_length", 1, 1e9);
  set(s.batch.gradient_accumulation_steps, r.integer("gradient_accumulation_steps", 1, 1e9));
  s.batch.decoder_seq_length = r.integer("decoder_seq_length", 1, 1e9);
  s.batch.padding = r.choice("padding", kPadding);
  r.finish();
}

void parse_parallel(ObjectReader& doc, TrainingSetup& s, Errors& errors) {
  ParallelSettings& p = s.parallel;
  std::optional<std::int64_t> world, dp;
  std::optional<int> zero;
  if (const json* v = doc.get("parallel")) {
    ObjectReader r(*v, "parallel", errors);
    world = r.integer("world_size", 1, kMaxWorldSize);
    set(p.gpus_per_node, r.integer("gpus_per_node", 1, 1024));
    dp = r.integer("data_parallel_size", 1, kMaxWorldSize);
    if (auto z = r.integer("zero_stage", 0, 3)) zero = static_cast<int>(*z);
    p.sharding_group_size = r.integer("sharding_group_size", 1, kMaxWorldSize);
    set(p.tensor_parallel_size, r.integer("tensor_parallel_size", 1, 1e5));
    set(p.pipeline_parallel_size, r.integer("pipeline_parallel_size", 1, kMaxPipelineStages));
    set(p.sequence_parallel, r.boolean("sequence_parallel"));
    set(p.context_parallel_size, r.integer("context_parallel_size", 1, 1e5));
    set(p.expert_parallel_size, r.integer("expert_parallel_size", 1, 1e5));
    set(p.offload_optimizer, r.choice("offload_optimizer", kOffload));
    set(p.offload_param, r.choice("offload_param", kOffload));
    set(p.pipeline_schedule, r.choice("pipeline_schedule", kSchedules));
    set(p.virtual_pipeline_stages, r.integer("virtual_pipeline_stages", 1, 1e4));
    set(p.reshard_after_forward, r.boolean("reshard_after_forward"));
    p.use_orig_params = r.boolean("use_orig_params");
    set(p.zero3_max_live_parameters, r.number("zero3_max_live_parameters", 0, 1e15));
    p.sharding_engine = r.choice("sharding_engine", kShardingEngines);
    p.gradient_sync = r.choice("gradient_sync", kGradientSync);
    p.expert_tensor_parallel_size = r.integer("expert_tensor_parallel_size", 1, 1e5);
    set(p.context_parallel_kind, r.choice("context_parallel_kind", Table<ContextParallelKind>{
                                                                      {"ring", ContextParallelKind::ring},
                                                                      {"ulysses", ContextParallelKind::ulysses}}));
    if (const json* layers = r.get("pipeline_layers")) {
      const bool ok = layers->is_array() && !layers->empty() && layers->size() <= 100000 &&
                      std::all_of(layers->begin(), layers->end(), [](const json& x) {
                        return x.is_number_integer() && x.get<std::int64_t>() >= 0 && x.get<std::int64_t>() <= 100000000;
                      });
      if (ok) p.pipeline_layers = layers->get<std::vector<std::int64_t>>();
      else r.type_error("pipeline_layers", "a non-empty list of layer counts (0 to 1e8), one per pipeline chunk", *layers);
    }
    p.overlap_grad_reduce = r.boolean("overlap_grad_reduce");
    p.tp_comm_overlap = r.boolean("tp_comm_overlap").value_or(false);
    r.finish();
  }
  // data_parallel_size follows from world_size (Megatron arguments.py); both given must agree.
  const std::int64_t model_parallel = p.tensor_parallel_size * p.pipeline_parallel_size * p.context_parallel_size;
  if (world) {
    p.world_size = *world;
    p.data_parallel_size = dp.value_or(std::max<std::int64_t>(1, *world / model_parallel));
  } else {
    p.data_parallel_size = dp.value_or(1);
    p.world_size = p.data_parallel_size * model_parallel;
  }
  p.zero_stage = zero.value_or(default_zero_stage(s.framework, p.world_size));
  if (static_cast<double>(p.data_parallel_size) * static_cast<double>(model_parallel) > kMaxWorldSize)
    errors.push_back({error_code::out_of_range, "parallel.world_size",
                      "data x tensor x pipeline x context parallel = " + std::to_string(p.data_parallel_size) + " x " +
                          std::to_string(model_parallel) + " GPUs exceeds the limit of " + std::to_string(kMaxWorldSize)});
}

void parse_gpu(ObjectReader& doc, TrainingSetup& s, Errors& errors) {
  const json* v = doc.get("gpu");
  if (!v) return;
  if (v->is_string()) {
    const Catalog& catalog = builtin_gpus();
    const std::string id = v->get<std::string>();
    if (const GpuEntry* g = catalog.find_gpu(id)) {
      s.gpu = g->spec;
    } else {
      const CatalogMatch near = closest_catalog_id(id, catalog.gpu_ids());
      errors.push_back({error_code::unknown_gpu, "gpu",
                        "gpu \"" + excerpt(id) + "\" is not in the GPU catalog" + near.message_tail() + " (trainmem catalog gpus lists them)",
                        near.params(id)});
    }
    return;
  }
  ObjectReader r(*v, "gpu", errors);
  if (!r.valid()) return;
  GpuSpec g;
  g.display_name = "custom";
  auto memory = r.integer("memory_bytes", 1, 1e15);
  if (!memory && !r.has("memory_bytes"))
    errors.push_back({error_code::missing_field, "gpu.memory_bytes", "gpu.memory_bytes is required for a custom device",
                      {{"reason", "custom_gpu_memory"}}});
  g.memory_bytes = memory.value_or(0);
  g.usable_bytes = r.integer("usable_bytes", 1, 1e15);
  g.cuda_context_bytes = r.integer("cuda_context_bytes", 0, 1e12);
  if (g.usable_bytes && memory && *g.usable_bytes > *memory)
    errors.push_back({error_code::inconsistent, "gpu.usable_bytes", "gpu.usable_bytes exceeds gpu.memory_bytes",
                      {{"reason", "usable_above_memory"}}});
  // Speeds for the time model (a custom device has none unless given).
  GpuPerformance& perf = g.performance;
  perf.bf16_dense_flops_per_s = r.number("bf16_dense_flops_per_s", 0, 1e18, true).value_or(0);
  perf.fp8_dense_flops_per_s = r.number("fp8_dense_flops_per_s", 0, 1e18, true).value_or(0);
  perf.memory_bandwidth_bytes_per_s = r.number("memory_bandwidth_bytes_per_s", 0, 1e15, true).value_or(0);
  r.finish();
  s.gpu = g;
}

// network: {"intra_node_bytes_per_s", "inter_node_bytes_per_s"}: nccl-tests bus bandwidth per GPU.
void parse_network(ObjectReader& doc, TrainingSetup& s, Errors& errors) {
  const json* v = doc.get("network");
  if (!v) return;
  ObjectReader r(*v, "network", errors);
  s.network.intra_node_bytes_per_s = r.number("intra_node_bytes_per_s", 0, 1e15, true);
  s.network.inter_node_bytes_per_s = r.number("inter_node_bytes_per_s", 0, 1e15, true);
  r.finish();
}

// training: {"total_tokens", "price_per_gpu_hour_usd"}.
void parse_training(ObjectReader& doc, TrainingSetup& s, Errors& errors) {
  const json* v = doc.get("training");
  if (!v) return;
  ObjectReader r(*v, "training", errors);
  s.training.total_tokens = r.number("total_tokens", 0, 1e18, true);
  s.training.price_per_gpu_hour_usd = r.number("price_per_gpu_hour_usd", 0, 1e5);
  r.finish();
}

// Settings given for something this setup does not do: accepted, but reported.
void note_ignored_fields(const ObjectReader& r, TrainingSetup& s) {
  const bool adapters = uses_adapters(s.method);
  // A PPO critic trained with LoRA takes its adapters from the lora block (rlhf.cpp), whatever the policy's method.
  const bool critic_adapters = s.rlhf && s.rlhf->algorithm == RlhfAlgorithm::ppo && uses_adapters(s.rlhf->critic_method);
  auto note = [&](bool ignored, const char* path, const char* reason) { note_ignored(s, ignored, {path}, reason); };
  note(r.has("lora") && !adapters && !critic_adapters, "lora",
       "neither the method nor a PPO critic's rlhf.critic.method is lora/qlora");
  note(r.has("qlora") && s.method != Method::qlora, "qlora", "method is not qlora");
  note(r.has("freeze") && s.method != Method::freeze, "freeze", "method is not freeze");
  note(s.qlora.saves_base_inputs && s.method == Method::qlora && !qlora_through_bitsandbytes(s), "qlora.saves_base_inputs",
       "bitsandbytes' quantized linears, under hf_trainer, fsdp and deepspeed, only; torchtune's NF4 linears keep the weight alone");
  note(!s.unstated.double_quant && s.method == Method::qlora && s.qlora.quant_type == Dtype::int8, "qlora.double_quant",
       "4-bit bases only: an int8 base keeps one fp32 scale per row");
  note(r.has("selective_policy") && s.activation_checkpointing != Checkpointing::selective, "selective_policy",
       "activation_checkpointing is not selective");
  note(r.has("checkpointed_layers") && s.activation_checkpointing == Checkpointing::none, "checkpointed_layers",
       "activation_checkpointing is none");
  note(s.parallel.sequence_parallel && s.parallel.tensor_parallel_size == 1, "parallel.sequence_parallel",
       "needs tensor_parallel_size > 1");
  note(s.parallel.virtual_pipeline_stages > 1 && s.parallel.pipeline_parallel_size == 1, "parallel.virtual_pipeline_stages",
       "needs pipeline_parallel_size > 1");
  note(s.parallel.use_orig_params.has_value() && sharding_engine(s) != ShardingEngine::fsdp, "parallel.use_orig_params",
       "FSDP1 only: sharding_engine fsdp");
  // Tensor-parallel communication under the GEMMs is Megatron's --tp-comm-overlap (Transformer
  // Engine's userbuffers) and torchtitan's async tensor parallel; elsewhere it changes nothing.
  if (s.parallel.tp_comm_overlap && s.framework != Framework::megatron && s.framework != Framework::torchtitan) {
    note_ignored(s, true, {"parallel.tp_comm_overlap"}, "Megatron's --tp-comm-overlap and torchtitan's async tensor parallel only");
    s.parallel.tp_comm_overlap = false;
  }
  note(s.batch.decoder_seq_length && s.model.architecture && !s.model.architecture->encoder_decoder, "batch.decoder_seq_length",
       "the model is not encoder-decoder");
  note(s.batch.padding && !s.model.architecture, "batch.padding", "no activations without an architecture");
  note(r.has("multimodal") && !(s.model.architecture && s.model.architecture->vision), "multimodal",
       "the model has no vision tower");
  note(s.loss.num_chunks && s.loss.implementation.value_or(default_loss(s)) == LossImplementation::full, "loss.num_chunks",
       "the loss is not chunked");
  note(s.loss.held_logits && s.loss.held_logits != HeldLogits::none && s.loss.implementation.value_or(default_loss(s)) == LossImplementation::fused, "loss.held_logits",
       "a fused loss returns no logits to hold");
  note(s.zero_grad_set_to_none && engine_keeps_gradients(s), "zero_grad_set_to_none",
       "DeepSpeed and Megatron keep their own gradient buffers through the step");
  note(s.use_liger_kernel && !liger_applies(s), "use_liger_kernel",
       "Liger patches Hugging Face transformers models of the types it has kernels for; not this framework's or model's");
}

TrainingSetup parse_setup(const json& doc, Errors& errors) {
  TrainingSetup s;
  // Another command's error document piped in (`trainmem import --document-only ... | trainmem
  // estimate -` where the import failed): named as such, with the error it carries, instead of
  // "model is required" and its keys as unknown fields.
  if (doc.is_object() && doc.contains("error") && doc.contains("errors") && !doc.contains("model")) {
    const json& e = doc.at("error");
    const std::string carried = e.is_object() && e.contains("message") && e.at("message").is_string() ? e.at("message").get<std::string>() : "";
    errors.push_back({error_code::invalid_json, "(document)",
                      "the input is an error document (another command's output), not an estimate document" +
                          (carried.empty() ? std::string() : ": " + excerpt(carried, kMaxKeyInMessage * 4)),
                      {{"reason", "error_document"}}});
    return s;
  }
  ObjectReader r(doc, "", errors);
  if (!r.valid()) return s;
  parse_model(r, s, errors);
  set(s.framework, r.choice("framework", kFrameworks));
  set(s.method, r.choice("method", kMethods));
  parse_lora(r, s, errors);
  if (const json* v = r.get("qlora")) {
    ObjectReader q(*v, "qlora", errors);
    set(s.qlora.quant_method, q.choice("quant_method", kQuantMethods));
    const bool hqq = s.qlora.quant_method == QuantMethod::hqq;
    // bitsandbytes' settings are read (and checked) either way, and left at their defaults under
    // HQQ, where ignored_fields lists them.
    const auto quant_type = q.choice("quant_type", kQuantTypes);
    const auto double_quant = q.boolean("double_quant");
    const auto saves_base_inputs = q.boolean("saves_base_inputs");
    if (!hqq) {
      set(s.qlora.quant_type, quant_type);
      set(s.qlora.double_quant, double_quant);
      s.unstated.double_quant = !q.has("double_quant");
      s.qlora.saves_base_inputs = saves_base_inputs;
    }
    if (const auto nbits = q.integer("nbits", 1, 8)) {
      // HQQ's Quantizer.SUPPORTED_BITS (mobiusml/hqq hqq/core/quantize.py @e0b1d00) less its 1.58.
      if (*nbits == 7)
        errors.push_back({error_code::unknown_value, "qlora.nbits", "qlora.nbits = 7 is not one of HQQ's widths: 1, 2, 3, 4, 5, 6, 8",
                          {{"value", 7.0}, {"allowed", "1, 2, 3, 4, 5, 6, 8"}}});
      else s.qlora.nbits = static_cast<int>(*nbits);
    }
    if (const auto group = q.integer("group_size", 8, 1e6)) {
      // hqq's BaseQuantizeConfig asserts "the value should be a multiple of 8" (hqq/core/quantize.py @e0b1d00).
      if (*group % 8 != 0)
        errors.push_back({error_code::not_divisible, "qlora.group_size",
                          "qlora.group_size = " + std::to_string(*group) + " must be a multiple of 8 (HQQ's BaseQuantizeConfig)",
                          {{"divisor", 8.0}, {"of", "qlora.group_size"}, {"value", static_cast<double>(*group)}}});
      else s.qlora.group_size = *group;
    }
    if (const auto axis = q.integer("axis", 0, 1)) s.qlora.axis = static_cast<int>(*axis);
    q.finish();
    if (s.method == Method::qlora) {
      auto ignored = [&](bool applies, const char* path, const char* reason) { note_ignored(s, applies, {path}, reason); };
      ignored(hqq && q.has("quant_type"), "qlora.quant_type", "bitsandbytes' setting; quant_method is hqq");
      ignored(hqq && q.has("double_quant"), "qlora.double_quant", "bitsandbytes' setting; quant_method is hqq");
      ignored(hqq && q.has("saves_base_inputs"), "qlora.saves_base_inputs", "bitsandbytes' setting; quant_method is hqq");
      ignored(!hqq && q.has("nbits"), "qlora.nbits", "HQQ's setting; quant_method is not hqq");
      ignored(!hqq && q.has("group_size"), "qlora.group_size", "HQQ's setting; quant_method is not hqq");
      ignored(!hqq && q.has("axis"), "qlora.axis", "HQQ's setting; quant_method is not hqq");
      ignored(!hqq && q.has("quant_method") && !trains_transformers_model(s.framework), "qlora.quant_method",
              "the framework builds its own model and quantizes it itself: torchtune with torchao's NF4");
    }
  }
  if (const json* v = r.get("freeze")) {
    ObjectReader f(*v, "freeze", errors);
    set(s.freeze_trainable_layers, f.integer("trainable_layers", 0, 1e6));
    f.finish();
  }
  parse_rlhf(r, s, errors);
  parse_multimodal(r, s, errors);
  parse_precision(r, s, errors);
  parse_batch(r, s, errors);
  const auto checkpointing = r.choice("activation_checkpointing", kCheckpointing);
  s.activation_checkpointing = checkpointing.value_or(default_checkpointing(s.framework, s.method));
  s.unstated.activation_checkpointing = !r.has("activation_checkpointing");
  s.selective_policy = r.choice("selective_policy", kSelective).value_or(default_selective_policy(s.framework));
  s.checkpointed_layers = r.integer("checkpointed_layers", 0, 1e6);
  set(s.activation_offload, r.boolean("activation_offload"));
  set(s.use_liger_kernel, r.boolean("use_liger_kernel"));
  s.zero_grad_set_to_none = r.boolean("zero_grad_set_to_none");
  if (const json* v = r.get("loss")) {
    ObjectReader l(*v, "loss", errors);
    s.loss.implementation = l.choice("implementation", kLoss);
    s.loss.logits_fp32 = l.boolean("logits_fp32");
    s.loss.num_chunks = l.integer("num_chunks", 1, 1e6);
    s.loss.held_logits = l.choice("held_logits", kHeldLogits);
    l.finish();
  }
  // compile: false | true (the framework's scope) | "blocks" | "blocks_and_loss".
  if (const json* v = r.get("compile")) {
    if (v->is_boolean()) {
      s.compile = v->get<bool>();
    } else if (v->is_string() && (*v == "blocks" || *v == "blocks_and_loss")) {
      s.compile = true;
      s.compile_scope = *v == "blocks" ? CompileScope::blocks : CompileScope::blocks_and_loss;
    } else {
      r.type_error("compile", "false, true, \"blocks\" or \"blocks_and_loss\"", *v);
    }
  }
  s.make_vocab_size_divisible_by = r.integer("make_vocab_size_divisible_by", 1, 1e6);
  if (const json* v = r.get("checkpoint")) {
    ObjectReader c(*v, "checkpoint", errors);
    set(s.checkpoint.save, c.choice("save", Table<CheckpointSave>{{"full_state", CheckpointSave::full_state},
                                                                   {"weights", CheckpointSave::weights},
                                                                   {"adapter", CheckpointSave::adapter}}));
    set(s.checkpoint.exclude_frozen_parameters, c.boolean("exclude_frozen_parameters"));
    s.checkpoint.weights_dtype = c.choice("weights_dtype", kTrainingDtypes);
    set(s.checkpoint.keep_last, c.integer("keep_last", 1, 1e6));
    s.checkpoint.free_disk_bytes = c.integer("free_disk_bytes", 0, 1e18);
    s.checkpoint.node_ram_bytes = c.integer("node_ram_bytes", 0, 1e18);
    c.finish();
  }
  s.unstated.fragmentation = true;
  if (const json* v = r.get("overhead")) {
    ObjectReader o(*v, "overhead", errors);
    set(s.fragmentation_fraction, o.number("fragmentation_fraction", 0, 1));
    s.unstated.fragmentation = !o.has("fragmentation_fraction");
    o.finish();
  }
  set(s.model_loading, r.choice("model_loading", kLoading));
  set(s.attention, r.choice("attention", kAttention));
  s.unstated.attention = !r.has("attention");
  parse_parallel(r, s, errors);
  parse_gpu(r, s, errors);
  parse_network(r, s, errors);
  parse_training(r, s, errors);
  // A solve request sent to the estimate: named as unknown here, with where it goes.
  if (r.get("solve"))
    errors.push_back({error_code::unknown_field, "solve",
                      "unknown field solve: a document with \"solve\" is a solve request (trainmem solve; the WASM module's solve)"});
  r.finish();
  if (s.unstated.attention) s.attention = default_attention(s);
  s.unstated.seq_length = !s.batch.seq_length.has_value();
  if (!s.batch.seq_length) s.batch.seq_length = s.model.seq_length_default;
  note_ignored_fields(r, s);
  return s;
}

// Byte counts are integers while doubles (and JavaScript) hold them exactly; beyond 2^53 they are
// written as plain numbers (flagged in warnings) instead of overflowing an integer.
json bytes_json(double v) {
  if (std::fabs(v) <= kMaxExactInteger) return std::llround(v);
  return v;
}

json optional_bytes(const std::optional<double>& v) {
  if (!v) return nullptr;
  return bytes_json(*v);
}

json by_kind(const CommunicationByKind& c) {
  return {{"data_parallel", c.data_parallel}, {"tensor_parallel", c.tensor_parallel}, {"pipeline", c.pipeline},
          {"context", c.context}, {"expert", c.expert}};
}

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// The "time" block: seconds, FLOPs (all GPUs), bus bytes per GPU.
json time_json(const StepTime& t) {
  const TimeBreakdown& b = t.breakdown;
  json cost = nullptr;
  if (t.cost) cost = {{"usd", t.cost->usd}, {"price_per_gpu_hour_usd", t.cost->price_per_gpu_hour_usd}, {"source", t.cost->source}};
  return {{"step_seconds", t.step_seconds},
          {"tokens_per_second_per_gpu", t.tokens_per_second_per_gpu},
          {"mfu", t.mfu},
          {"hfu", t.hfu},
          {"flops_per_step", t.flops_per_step},
          {"model_flops_per_step", t.model_flops_per_step},
          {"communication", {{"bytes_per_step", by_kind(t.bytes_per_step)},
                             {"seconds_per_step", by_kind(t.seconds_per_step)},
                             {"exposed_seconds", t.exposed_communication_seconds}}},
          {"breakdown_seconds", {{"compute", b.compute}, {"recompute", b.recompute},
                                 {"exposed_communication", b.exposed_communication}, {"overlap_slowdown", b.overlap_slowdown},
                                 {"pipeline_bubble", b.pipeline_bubble},
                                 {"optimizer", b.optimizer}, {"offload", b.offload}}},
          {"time_to_train_seconds", optional_number(t.time_to_train_seconds)},
          {"gpu_hours", optional_number(t.gpu_hours)},
          {"cost", cost}};
}

// The paths of the numbers in an output document above 2^53, which JavaScript cannot hold exactly.
// `path` is the value's own path, extended and restored in place while walking (no string is made
// per value: the walk covers every number of the document on every call).
void inexact_numbers(const json& v, std::string& path, std::vector<std::string>& out) {
  const std::size_t length = path.size();
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (length > 0) path += '.';
      path += it.key();
      inexact_numbers(it.value(), path, out);
      path.resize(length);
    }
  } else if (v.is_array()) {
    // An array's elements share one name (per_gpu.timeline[].allocated): a long array names a
    // field once, not once per element.
    path += "[]";
    for (const auto& element : v) inexact_numbers(element, path, out);
    path.resize(length);
  } else if (v.is_number() && std::fabs(v.get<double>()) > kMaxExactInteger &&
             std::find(out.begin(), out.end(), path) == out.end()) {
    out.push_back(path);
  }
}

// The vision parts of a vision-language checkpoint and the images the estimate prices.
json multimodal_json(const TrainingSetup& s, const Estimate& e) {
  const Architecture& a = *s.model.architecture;
  const VisionTower& v = *a.vision;
  const VisionActivations va = vision_activations(s, a, e.precision.compute_dtype);
  const auto [h, w] = priced_image_size(s, v);
  const ImageTokens& t = va.per_image;
  return {{"vision_model_type", v.model_type},
          {"parameters", {{"language_model", a.text_params()}, {"vision_tower", v.encoder_params()}, {"projector", v.projector_params()}}},
          {"trainable", {{"vision_tower", vision_encoder_trained_in_full(s) ? "full" : vision_encoder_has_adapters(s) ? "adapters" : "frozen"},
                         {"projector", projector_trained(s) ? "full" : "frozen"}}},
          {"image_size", {h, w}},
          {"processed_image_size", {t.height, t.width}},
          {"images_per_sample", s.multimodal.images_per_sample},
          {"image_tokens_per_image", t.lm_tokens},
          {"image_tokens_per_sample", va.lm_image_tokens},
          {"encoder_sequences_per_image", t.encoder_sequences},
          {"encoder_positions_per_sequence", t.encoder_positions},
          {"cross_attention_states_per_image", t.cross_attention_states},
          {"activations", {{"vision_tower", bytes_json(va.encoder_saved)}, {"projector", bytes_json(va.projector_saved)}}}};
}

const char* step_point_name(StepPoint p) {
  switch (p) {
    case StepPoint::load: return "load";
    case StepPoint::forward: return "forward";
    case StepPoint::loss_forward: return "loss_forward";
    case StepPoint::loss_backward: return "loss_backward";
    case StepPoint::backward: return "backward";
    case StepPoint::optimizer_step: return "optimizer_step";
  }
  return "";
}

const char* peak_component_name(PeakComponentKind k) {
  switch (k) {
    case PeakComponentKind::parameters: return "parameters";
    case PeakComponentKind::gradients: return "gradients";
    case PeakComponentKind::optimizer_states: return "optimizer_states";
    case PeakComponentKind::activations: return "activations";
    case PeakComponentKind::temporary_buffers: return "temporary_buffers";
    case PeakComponentKind::allocator: return "allocator";
    case PeakComponentKind::cuda_context: return "cuda_context";
    case PeakComponentKind::userbuffers: return "userbuffers";
  }
  return "";
}

// per_gpu.timeline: [{phase, layer (forward/backward only), allocated, reserved}], or null.
json timeline_json(const Estimate& e) {
  if (e.timeline.empty()) return nullptr;
  json out = json::array();
  for (const auto& p : e.timeline) {
    json point = {{"phase", step_point_name(p.phase)}};
    if (p.phase == StepPoint::forward || p.phase == StepPoint::backward) point["layer"] = p.layer;
    point["allocated"] = bytes_json(p.allocated);
    point["reserved"] = bytes_json(p.reserved);
    out.push_back(std::move(point));
  }
  return out;
}

json peak_breakdown_json(const Estimate& e) {
  if (e.peak_breakdown.empty()) return nullptr;
  json out = json::array();
  for (const auto& c : e.peak_breakdown) out.push_back({{"component", peak_component_name(c.component)}, {"bytes", bytes_json(c.bytes)}});
  return out;
}

json pipeline_stages_json(const Estimate& e) {
  if (e.pipeline_stages.empty()) return nullptr;
  json out = json::array();
  for (const auto& b : e.pipeline_stages)
    out.push_back({{"stage", b.stage},
                   {"layers", b.layers ? json(*b.layers) : json(nullptr)},
                   {"parameters", bytes_json(b.parameters)},
                   {"gradients", bytes_json(b.gradients)},
                   {"optimizer_states", bytes_json(b.optimizer_states)},
                   {"activations", optional_bytes(b.activations)},
                   {"peak_allocated", optional_bytes(b.peak_allocated)},
                   {"peak", optional_bytes(b.peak)}});
  return out;
}

json write_estimate(const TrainingSetup& s, const Estimate& e) {
  json out;
  out["parameters"] = {{"total", e.parameters.total}, {"trainable", e.parameters.trainable}, {"active", e.active_parameters}};
  if (e.parameters.adapter > 0) out["parameters"]["adapter"] = e.parameters.adapter;
  if (s.model.architecture && s.model.architecture->vision) out["multimodal"] = multimodal_json(s, e);
  const PerGpu& g = e.per_gpu;
  json per_gpu = {
      {"parameters", bytes_json(g.parameters)},
      {"gradients", bytes_json(g.gradients)},
      {"optimizer_states", bytes_json(g.optimizer_states)},
      {"model_states", bytes_json(g.model_states)},
      {"activations", optional_bytes(g.activations)},
      {"temporary_buffers", optional_bytes(g.temporary_buffers)},
      {"fragmentation", optional_bytes(g.fragmentation)},
      {"allocator_rounding", optional_bytes(g.allocator_rounding)},
      {"allocator_cache", optional_bytes(g.allocator_cache)},
      {"allocator_uncertainty", optional_bytes(g.allocator_uncertainty)},
      {"cuda_context", optional_bytes(g.cuda_context)},
      {"userbuffers", optional_bytes(g.userbuffers)},
      {"peak_allocated", optional_bytes(g.peak_allocated)},
      {"peak_reserved", optional_bytes(g.peak_reserved)},
      {"peak", optional_bytes(g.peak)},
      {"peak_phase", g.peak_phase.empty() ? json(nullptr) : json(g.peak_phase)},
      {"pipeline_stage", g.pipeline_stage},
      {"paged_optimizer_states", optional_bytes(g.paged_optimizer_states)},
      {"paged_device_resident", optional_bytes(g.paged_device_resident)},
      {"paged_host_resident", optional_bytes(g.paged_host_resident)},
      {"activations_per_layer", optional_bytes(g.activations_per_layer)},
  };
  if (g.phases) {
    per_gpu["phases"] = {{"load", bytes_json(g.phases->load)},
                         {"forward", bytes_json(g.phases->forward)},
                         {"backward", bytes_json(g.phases->backward)},
                         {"optimizer_step", bytes_json(g.phases->optimizer_step)}};
  } else {
    per_gpu["phases"] = nullptr;
  }
  per_gpu["timeline"] = timeline_json(e);
  per_gpu["peak_breakdown"] = peak_breakdown_json(e);
  out["per_gpu"] = std::move(per_gpu);
  out["pipeline_stages"] = pipeline_stages_json(e);
  out["bytes_per_param"] = {{"param", e.bytes_per_param.param}, {"grad", e.bytes_per_param.grad}, {"optimizer", e.bytes_per_param.optimizer}};
  out["precision"] = {{"param_dtype", dtype_name(e.precision.param_dtype)},
                      {"grad_dtype", dtype_name(e.precision.grad_dtype)},
                      {"compute_dtype", dtype_name(e.precision.compute_dtype)},
                      {"master_weights", e.precision.master_weights},
                      {"optimizer_state_dtype", dtype_name(e.precision.optimizer_state_dtype)},
                      {"trainable_dtype", dtype_name(trainable_dtype(s, e.precision))}};
  out["data_parallel_size"] = e.data_parallel_size;
  if (s.model.architecture && s.parallel.pipeline_parallel_size > 1)
    out["pipeline_layers"] = pipeline_split(s, s.model.architecture->num_hidden_layers()).chunk_layers;
  out["global_batch_size"] = e.global_batch_size;
  out["cpu_bytes_per_node"] = bytes_json(e.cpu_bytes_per_node);
  out["nvme_bytes"] = bytes_json(e.nvme_bytes);
  const CheckpointBudget& c = e.checkpoint;
  out["checkpoint"] = {{"training_state_bytes", optional_bytes(c.training_state_bytes)},
                       {"largest_rank_bytes", optional_bytes(c.largest_rank_bytes)},
                       {"inference_weights_bytes", bytes_json(c.inference_weights_bytes)},
                       {"adapter_bytes", optional_bytes(c.adapter_bytes)},
                       {"bytes_per_checkpoint", optional_bytes(c.bytes_per_checkpoint)},
                       {"keep_last_bytes", optional_bytes(c.keep_last_bytes)},
                       {"checkpoints_that_fit", c.checkpoints_that_fit ? json(*c.checkpoints_that_fit) : json(nullptr)}};
  out["cpu_ram_fits"] = e.cpu_ram_fits ? json(*e.cpu_ram_fits) : json(nullptr);
  out["gpu_capacity_bytes"] = optional_bytes(e.gpu_capacity_bytes);
  json_io::write_band(s, e, out);
  if (!e.per_gpu_models.empty()) {
    json models = json::object();
    for (const auto& m : e.per_gpu_models)
      models[m.role] = {{"parameters", bytes_json(m.parameters)},   {"gradients", bytes_json(m.gradients)},
                        {"optimizer_states", bytes_json(m.optimizer_states)}, {"model_states", bytes_json(m.model_states)},
                        {"activations", bytes_json(m.activations)}, {"transient", bytes_json(m.transient)}};
    out["per_gpu_models"] = std::move(models);
    out["rollout_kv_cache_bytes"] = optional_bytes(e.rollout_kv_cache_bytes);
    out["rollout_vllm_bytes"] = optional_bytes(e.rollout_vllm_bytes);
  }
  out["explanations"] = json::array();
  for (const auto& x : explain(s, e))
    out["explanations"].push_back({{"component", x.component}, {"formula", x.formula}, {"source", x.source}});
  std::vector<std::string> inexact;
  std::string root_path;
  inexact_numbers(out, root_path, inexact);
  out["warnings"] = json::array();
  for (const auto& w : estimate_warnings(s, e))
    out["warnings"].push_back({{"code", w.code}, {"message", w.message}, {"params", json_io::params_json(w.params)}});
  // What the device cannot run of the setup (the hardware warnings' codes, as solve's
  // gpu_options[].cannot_run): the run cannot start as written there, whatever the memory verdict.
  out["cannot_run"] = cannot_run_codes(s, e);
  std::string why_not, reason;
  const std::optional<StepTime> time = step_time(s, e, &why_not, &reason);
  out["time"] = time ? time_json(*time) : json(nullptr);
  if (!time && s.gpu)
    out["warnings"].push_back({{"code", warning_code::time_unavailable}, {"message", why_not}, {"params", {{"reason", reason}}}});
  if (!inexact.empty()) {
    std::string list;
    for (const auto& path : inexact) list += (list.empty() ? "" : ", ") + path;
    out["warnings"].push_back({{"code", warning_code::above_2_53},
                               {"message", list + (inexact.size() == 1 ? " exceeds" : " exceed") +
                                               " 2^53 = 9007199254740992: JavaScript shows " +
                                               (inexact.size() == 1 ? "it" : "them") + " rounded"},
                               {"params", {{"fields", inexact}}}});
  }
  return out;
}

}  // namespace

std::string error_document(const Errors& errors) {
  json list = json::array();
  for (const auto& e : errors)
    list.push_back({{"code", e.code}, {"field", e.field}, {"message", e.message}, {"params", json_io::params_json(e.params)}});
  json doc;
  doc["error"] = list.empty() ? json{{"code", error_code::internal}, {"field", ""}, {"message", "unknown error"}} : list.front();
  doc["errors"] = list;  // the first kMaxListedErrors problems
  doc["errors_total"] = std::max<std::size_t>(errors.total(), 1);
  // A message quotes the input, which a file read by the CLI may hold as invalid UTF-8: such bytes
  // become U+FFFD, so that an error always has its document.
  return doc.dump(2, ' ', false, json::error_handler_t::replace);
}

namespace json_io {

TrainingSetup read_setup(const json& doc, Errors& errors) { return parse_setup(doc, errors); }
json estimate_output(const TrainingSetup& s, const Estimate& e) { return write_estimate(s, e); }
json bytes_value(double bytes) { return bytes_json(bytes); }

}  // namespace json_io

namespace {

// The setup of a document already read (NaN/Infinity tokens resolved), checked.
ParsedSetup parse_document(const json& doc) {
  ParsedSetup parsed;
  parsed.setup = parse_setup(doc, parsed.errors);
  if (parsed.errors.empty()) parsed.errors = validate(parsed.setup);
  return parsed;
}

}  // namespace

ParsedSetup parse_estimate_document(std::string_view document) {
  Errors errors;
  const auto doc = json_io::read_document(document, errors);
  if (!doc) return {TrainingSetup{}, std::move(errors)};
  return parse_document(*doc);
}

namespace json_io {

bool overflowed(const Estimate& e) {
  return !std::isfinite(e.per_gpu.peak.value_or(e.per_gpu.model_states)) ||
         !std::isfinite(e.checkpoint.training_state_bytes.value_or(0.0));
}

FieldError overflow_error() {
  return {error_code::out_of_range, "(document)", "the setup is too large to estimate (byte counts overflow)"};
}

EstimateRun run_estimate(std::string_view document) {
  EstimateRun run;
  // Read once: the setup comes from it, and so do the fields it gave (resolved, suggestions).
  const std::optional<json> source = read_document(document, run.errors);
  if (!source) return run;
  ParsedSetup parsed = parse_document(*source);
  run.setup = std::move(parsed.setup);
  run.errors = std::move(parsed.errors);
  if (!run.errors.empty()) return run;
  run.estimate = estimate(run.setup, EstimateDetail::step);
  if (overflowed(run.estimate)) {
    run.errors = {overflow_error()};
    return run;
  }
  run.out = write_estimate(run.setup, run.estimate);
  run.out["resolved"] = resolved_inputs(*source, run.setup, run.estimate);
  run.out["suggestions"] = suggestions(*source, run.setup, run.estimate, run.out["verdict"]);
  return run;
}

}  // namespace json_io

JsonResult estimate_json(std::string_view document) {
  try {
    const json_io::EstimateRun run = json_io::run_estimate(document);
    if (!run.errors.empty()) return {error_document(run.errors), false};
    return {run.out.dump(2), true};
  } catch (const std::exception& ex) {
    return {error_document({{error_code::internal, "(document)", std::string("internal error: ") + ex.what()}}), false};
  }
}

JsonResult activations_json(std::string_view document) {
  try {
    ParsedSetup parsed = parse_estimate_document(document);
    if (parsed.errors.empty() && !parsed.setup.model.architecture)
      parsed.errors.push_back({error_code::missing_field, "model",
                               "activations need an architecture: give model.preset or model.hf_config",
                               {{"reason", "activations_need_architecture"}}});
    if (!parsed.errors.empty()) return {error_document(parsed.errors), false};
    // An RLHF job's tensors are its policy's, on the sequences the algorithm trains it on (DPO:
    // chosen and rejected, 2 x micro_batch_size; PPO, GRPO: prompt + completion), as the estimate's.
    const TrainingSetup s = parsed.setup.rlhf ? rlhf_policy_setup(parsed.setup) : parsed.setup;
    const Architecture& a = *s.model.architecture;
    const ResolvedPrecision p = resolve_precision(s);
    const ActivationContext c = activation_context(s, a, p.compute_dtype);
    json groups = json::array();
    for (const auto& g : a.layers) {
      const auto tensors = layer_activations(g, c);
      json list = json::array();
      for (const auto& t : tensors)
        list.push_back({{"name", std::string(t.scope) + "." + t.name},
                        {"shape", "[" + std::to_string(std::llround(t.rows)) + ", " + std::to_string(std::llround(t.cols)) + "]"},
                        {"dtype", dtype_name(t.dtype)}, {"bytes", bytes_json(t.bytes)},
                        {"role", role_name(t.role)}, {"recomputed", t.recomputed}});
      groups.push_back({{"name", g.name}, {"layers", g.count}, {"tensors", list},
                        {"saved_bytes_per_layer", bytes_json(saved_bytes(tensors))},
                        {"all_bytes_per_layer", bytes_json(all_bytes(tensors))}});
    }
    const LossMemory loss = loss_memory(s, a, p.compute_dtype, framework_behaviour(s));
    json out = {{"layer_groups", groups},
                {"head", {{"saved_bytes", bytes_json(loss.head_saved)},
                          {"logits_elements", bytes_json(loss.logits_elements)},
                          {"loss_bytes_per_logit_forward", loss.bytes_per_logit_forward},
                          {"loss_bytes_per_logit_backward", loss.bytes_per_logit_backward},
                          {"loss_forward_bytes", bytes_json(loss.forward_transient)},
                          {"loss_backward_bytes", bytes_json(loss.backward_transient)}}}};
    return {out.dump(2), true};
  } catch (const std::exception& ex) {
    return {error_document({{error_code::internal, "(document)", std::string("internal error: ") + ex.what()}}), false};
  }
}

namespace {

json published_json(const ModelPreset& m) {
  json p = {{"total", m.published_total}, {"exact", m.published_exact}, {"scope", m.published_scope}, {"source", m.published_source}};
  if (m.published_text_total) p["text_model"] = {{"total", *m.published_text_total}, {"scope", m.published_text_scope}};
  return p;
}

}  // namespace

JsonResult catalog_json(std::string_view which) {
  try {
    // The GPU list alone needs no model parsed.
    const Catalog& c = which == "gpus" ? builtin_gpus() : builtin_catalog();
    json out;
    if (which.empty() || which == "models") {
      out["models"] = json::array();
      for (const auto& m : c.models) {
        out["models"].push_back({{"id", m.id},
                                 {"display_name", m.display_name},
                                 {"family", m.family},
                                 {"hf_id", m.hf_id},
                                 {"hf_aliases", m.hf_aliases},
                                 {"model_type", m.architecture.model_type},
                                 {"parameters", m.architecture.total_params()},
                                 {"active_parameters", m.architecture.active_params()},
                                 {"text_parameters", m.architecture.text_params()},
                                 {"published_parameters", published_json(m)},
                                 {"defaults", {{"seq_length", m.seq_length}, {"param_dtype", dtype_name(m.param_dtype)}}},
                                 {"hf_config", json::parse(m.hf_config_json)}});
      }
    }
    if (which.empty() || which == "gpus") {
      out["gpus"] = json::array();
      for (const auto& g : c.gpus) out["gpus"].push_back(json::parse(g.raw_json));
    }
    if (!(which.empty() || which == "models" || which == "gpus"))
      return {error_document({{error_code::unknown_value, "catalog", "catalog must be \"models\" or \"gpus\""}}), false};
    out["errors"] = json::array();
    for (const auto& e : c.errors)
      out["errors"].push_back({{"code", e.code}, {"field", e.field}, {"message", e.message}, {"params", json_io::params_json(e.params)}});
    return {out.dump(2), c.errors.empty()};
  } catch (const std::exception& ex) {
    return {error_document({{error_code::internal, "catalog", std::string("internal error: ") + ex.what()}}), false};
  }
}

}  // namespace trainmem
