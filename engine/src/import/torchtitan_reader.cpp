// torchtitan job config (TOML, `--job.config_file`) and its launch line -> estimate document fields.
// torchtitan's ConfigManager reads the TOML into the JobConfig dataclasses and then applies the
// command line's `--section.key value` arguments over it; a key the file leaves out keeps the
// dataclass default. Meanings and defaults: pytorch/torchtitan at 238fa9953e4aec2a62582121564273d7cbb1e9f1
// (2026-02-23, the last commit with TOML job configs):
//   torchtitan/config/job_config.py (every key and default), torchtitan/config/manager.py (the
//     command line over the file),
//   torchtitan/models/llama3/__init__.py llama3_args (the flavors), model/args.py TransformerModelArgs
//     and model/model.py FeedForward (the hidden size rule),
//   torchtitan/distributed/parallel_dims.py (data_parallel_shard_degree -1, fsdp_enabled),
//   torchtitan/train.py (global_batch_size -> gradient accumulation),
//   torchtitan/models/llama3/infra/parallelize.py (FSDP2 fully_shard, mixed precision, reshard policy,
//     sequence-parallel TP),
//   torchtitan/distributed/activation_checkpoint.py (full, op-level and every-Nth-layer checkpointing),
//   torchtitan/distributed/pipeline_parallel.py (stages per rank, microbatches),
//   torchtitan/components/quantization/float8.py (the float8 converter), run_train.sh (NGPU).
// Older releases named training.local_batch_size `batch_size`, switched compile with training.compile
// and float8 with a [float8] table: those names are read too.
#include <algorithm>
#include <map>
#include <set>

#include "reading.hpp"

namespace trainmem::import_detail {

namespace {

constexpr const char* kAt = "torchtitan 238fa99";

std::string src(const char* file, const std::string& what) { return std::string(kAt) + " " + file + " " + what; }
std::string job_config(const std::string& what) { return src("torchtitan/config/job_config.py", what); }

// llama3_args flavors (torchtitan/models/llama3/__init__.py) as TransformerModelArgs fields.
struct Llama3Flavor {
  const char* name;
  std::int64_t dim, n_layers, n_heads, n_kv_heads;  // n_kv_heads 0: n_heads
  std::int64_t vocab_size;
  std::int64_t multiple_of;
  double ffn_dim_multiplier;  // 0: None
};
// TransformerModelArgs defaults (model/args.py): vocab_size 128256, multiple_of 256,
// ffn_dim_multiplier None, norm_eps 1e-5; the debug flavors keep vocab 2048 and n_kv_heads None.
constexpr Llama3Flavor kLlama3[] = {
    {"debugmodel", 256, 6, 16, 0, 2048, 256, 0},
    {"debugmodel_flex_attn", 256, 6, 16, 0, 2048, 256, 0},
    {"debugmodel_varlen_attn", 256, 6, 16, 0, 2048, 256, 0},
    {"8B", 4096, 32, 32, 8, 128256, 1024, 1.3},
    {"8B_flex", 4096, 32, 32, 8, 128256, 1024, 1.3},
    {"8B_varlen", 4096, 32, 32, 8, 128256, 1024, 1.3},
    {"70B", 8192, 80, 64, 8, 128256, 4096, 1.3},
    {"405B", 16384, 126, 128, 8, 128256, 4096, 1.2},
};

// FeedForward (model/model.py): hidden = int(2 * 4 * dim / 3), times ffn_dim_multiplier (int()),
// rounded up to a multiple of multiple_of.
std::int64_t llama3_hidden_dim(const Llama3Flavor& f) {
  std::int64_t hidden = 2 * (4 * f.dim) / 3;
  if (f.ffn_dim_multiplier > 0) hidden = static_cast<std::int64_t>(f.ffn_dim_multiplier * static_cast<double>(hidden));
  return f.multiple_of * ((hidden + f.multiple_of - 1) / f.multiple_of);
}

// The flavor as the Hugging Face config.json of the same network (LlamaForCausalLM: wq/wk/wv/wo ->
// q/k/v/o_proj, w1/w3/w2 -> gate/up/down_proj, untied output). max_position_embeddings is the
// training seq_len, as update_from_config sets max_seq_len.
ConfigValue llama3_hf_config(const Llama3Flavor& f, std::int64_t seq_len) {
  ObjectBuilder o;
  o.set("architectures", ConfigValue(ConfigValue::Array{ConfigValue("LlamaForCausalLM")}));
  o.set("model_type", "llama");
  o.set("hidden_size", f.dim);
  o.set("intermediate_size", llama3_hidden_dim(f));
  o.set("num_hidden_layers", f.n_layers);
  o.set("num_attention_heads", f.n_heads);
  o.set("num_key_value_heads", f.n_kv_heads > 0 ? f.n_kv_heads : f.n_heads);
  o.set("head_dim", f.dim / f.n_heads);
  o.set("vocab_size", f.vocab_size);
  o.set("hidden_act", "silu");
  o.set("rms_norm_eps", 1e-5);
  o.set("rope_theta", 500000.0);
  o.set("max_position_embeddings", seq_len);
  o.set("tie_word_embeddings", false);
  o.set("attention_bias", false);
  o.set("mlp_bias", false);
  return o.take();
}

// "a.b.c" -> value for every non-table value of a TOML document (tables flattened, arrays kept).
void flatten(const ConfigValue& v, const std::string& prefix, std::vector<std::pair<std::string, const ConfigValue*>>& out) {
  if (v.is_object() && (prefix.empty() || !v.as_object().empty())) {
    for (const auto& [k, e] : v.as_object()) flatten(e, prefix.empty() ? k : prefix + "." + k, out);
    return;
  }
  out.emplace_back(prefix, &v);
}

// JobConfig keys without an effect on the training step's memory: logging, profiling, data,
// checkpoint files, schedules, validation, fault tolerance, communication timeouts.
bool no_memory_effect(const std::string& key) {
  static const std::set<std::string> sections = {"job", "profiling", "metrics", "lr_scheduler", "checkpoint", "validation",
                                                 "comm", "fault_tolerance", "experimental", "debug", "memory_estimation"};
  static const std::set<std::string> keys = {
      "training.dataset", "training.dataset_path", "training.max_norm", "training.steps", "training.gc_freq", "training.gc_debug",
      "training.seed", "training.deterministic", "model.hf_assets_path", "model.tokenizer_path", "model.print_after_conversion",
      "optimizer.lr", "optimizer.eps", "optimizer.weight_decay", "optimizer.beta1", "optimizer.beta2",
      "compile.backend", "activation_checkpoint.preserve_rng_state", "activation_checkpoint.determinism_check",
      "activation_checkpoint.debug", "activation_checkpoint.early_stop", "activation_checkpoint.visualize_memory_budget_pareto",
      "activation_checkpoint.per_op_sac_force_recompute_mm_shapes_by_fqns", "parallelism.context_parallel_load_balancer",
      "parallelism.context_parallel_rotate_method", "parallelism.expert_parallel_comm_backend",
      "parallelism.pipeline_parallel_schedule_csv", "parallelism.pipeline_parallel_expert_parallel_overlap"};
  const auto dot = key.find('.');
  return sections.count(key.substr(0, dot)) > 0 || key.rfind("training.dataloader.", 0) == 0 || keys.count(key) > 0;
}

class TorchtitanReader {
 public:
  TorchtitanReader(const std::string& file, const ConfigValue& content, const std::optional<TorchtitanLaunch>& launch)
      : toml_(file, "torchtitan"), launch_(launch ? launch->file : "", "torchtitan launch"), has_launch_(launch.has_value()) {
    flatten(content, "", file_keys_);
    for (const auto& [k, v] : file_keys_) values_.emplace(k, Source{v, &toml_, k});
    if (launch) {
      launch_.shown_keys = launch->shown;
      for (const auto& [k, v] : launch->flags.as_object()) {
        if (k == "job.config_file") continue;  // the pairing with the given TOML is noted (read_torchtitan_files)
        if (auto it = values_.find(k); it != values_.end() && it->second.r == &toml_)
          toml_.ignore(k, *it->second.v, "overridden by " + launch_.key(k) + " (torchtitan/config/manager.py: the command line over the file)");
        values_[k] = Source{&v, &launch_, k};
        launch_keys_.push_back(k);
      }
      for (const auto& n : launch->unresolved) launch_.unresolved.push_back(n);
    }
  }

  std::vector<Reading> read(const std::optional<TorchtitanLaunch>& launch) {
    // A section written as an array of tables ([[training]]): JobConfig's sections are single
    // tables (torchtitan/config/job_config.py), so its keys would reach no field.
    for (const auto& [k, v] : file_keys_) {
      const bool tables = v->is_array() && std::any_of(v->as_array().begin(), v->as_array().end(), [](const ConfigValue& e) { return e.is_object(); });
      if (k.find('.') != std::string::npos || !tables) continue;
      toml_.error(error_code::wrong_type, k, "expected a table ([" + k + "]), got an array of tables ([[" + k + "]])",
                  {{"expected", "object"}, {"got", "array"}});
      handled_.insert(k);
    }
    toml_.read_from_kind("framework", "torchtitan", "a torchtitan job config");
    toml_.trainer_default("parallel.sharding_engine", "fsdp2",
                          src("torchtitan/models/llama3/infra/parallelize.py", "apply_fsdp: FSDP2 fully_shard"));
    read_world(launch);
    read_model();
    read_precision();
    read_batch_and_parallel();
    read_checkpointing();
    read_compile_and_float8();
    report_the_rest();
    std::vector<Reading> out;
    out.push_back(std::move(toml_));
    if (has_launch_) out.push_back(std::move(launch_));
    return out;
  }

 private:
  struct Source {
    const ConfigValue* v = nullptr;
    Reading* r = nullptr;
    std::string k;
  };

  const Source* at(const std::string& k) {
    auto it = values_.find(k);
    if (it == values_.end() || it->second.v->is_null()) return nullptr;
    handled_.insert(k);
    return &it->second;
  }
  void set(const std::string& field, ConfigValue v, const Source& s) { s.r->read(field, std::move(v), s.k); }
  void set_default(const std::string& field, ConfigValue v, const std::string& why) { toml_.trainer_default(field, std::move(v), why); }
  void ignore(const Source& s, const std::string& why) { s.r->ignore(s.k, *s.v, why); }
  void unmodelled(const Source& s, const std::string& why) { s.r->unmodelled_key(s.k, *s.v, why); }
  std::optional<std::int64_t> integer(const Source& s) { return whole_number(*s.r, s.k, *s.v); }
  std::optional<std::int64_t> positive(const Source& s) { return positive_integer(*s.r, s.k, *s.v); }
  std::optional<bool> flag(const Source& s) { return boolean(*s.r, s.k, *s.v); }
  std::optional<std::string> text(const Source& s) { return typed<std::string>(*s.r, s.k, *s.v, string_value, "a string"); }
  // An integer key with its JobConfig default.
  std::int64_t integer_or(const std::string& k, std::int64_t fallback, bool allow_minus_one = false) {
    const Source* s = at(k);
    if (!s) return fallback;
    auto n = allow_minus_one ? integer(*s) : positive(*s);
    if (n && allow_minus_one && *n != -1 && *n < 1) {
      s->r->error(error_code::out_of_range, s->k, "must be -1 (the remaining GPUs) or at least 1, got " + s->v->summary());
      return fallback;
    }
    return n.value_or(fallback);
  }

  // GPUs: torchrun --nproc_per_node x --nnodes, or run_train.sh's NGPU (default 8). The TOML holds none.
  void read_world(const std::optional<TorchtitanLaunch>& launch) {
    if (!launch) return;
    if (launch->gpus_per_node) {
      const std::int64_t nodes = launch->nodes.value_or(1);
      if (launch->gpus_default) {
        launch_.trainer_default("parallel.gpus_per_node", *launch->gpus_per_node, src("run_train.sh", "NGPU=${NGPU:-\"8\"}"));
        launch_.trainer_default("parallel.world_size", *launch->gpus_per_node, src("run_train.sh", "NGPU=${NGPU:-\"8\"}, one node"));
      } else {
        launch_.read("parallel.gpus_per_node", *launch->gpus_per_node, launch->gpus_key);
        launch_.read("parallel.world_size", *launch->gpus_per_node * nodes, launch->nodes ? launch->nodes_key : launch->gpus_key);
      }
      world_ = *launch->gpus_per_node * nodes;
      world_key_ = launch->gpus_default ? launch_.file() + ": run_train.sh's default NGPU=8" : launch_.key(launch->gpus_key);
    }
  }

  void read_model() {
    const Source* name = at("model.name");
    const Source* flavor = at("model.flavor");
    const std::string model = name ? text(*name).value_or("") : "llama3";
    const std::string fl = flavor ? text(*flavor).value_or("") : "debugmodel";
    seq_len_ = integer_or("training.seq_len", 2048);
    if (model == "llama3") {
      for (const auto& f : kLlama3) {
        if (fl != f.name) continue;
        layers_ = f.n_layers;
        const std::string source = flavor ? flavor->r->key(flavor->k) : toml_.file();
        const std::string origin =
            (flavor ? source : source + " (model.flavor default \"debugmodel\")") +
            " (torchtitan llama3 flavor \"" + fl + "\": torchtitan/models/llama3/__init__.py llama3_args at 238fa99, built as a config.json)";
        toml_.built_model = llama3_hf_config(f, seq_len_);
        toml_.built_model_origin = "read from " + origin;
        toml_.built_model_source = source;
        return;
      }
    }
    // Other model families (llama4, deepseek_v3, qwen3, flux, ...) and unknown flavors: named, so the
    // import asks for the model's config.json or a catalog model instead of guessing.
    const Source* naming = flavor ? flavor : name;
    if (naming) naming->r->name_model("torchtitan " + model + " " + fl, naming->k);
    else toml_.name_model("torchtitan " + model + " " + fl, "model");
  }

  void read_precision() {
    // training.dtype: "float32" (default) keeps fp32 sharded parameters, gradients and optimizer
    // states, with FSDP's MixedPrecisionPolicy computing in mixed_precision_param; "bfloat16"
    // trains everything in bf16 without an fp32 copy.
    std::string dtype = "float32";
    if (const Source* s = at("training.dtype")) {
      dtype = text(*s).value_or("float32");
      if (dtype != "float32" && dtype != "bfloat16") s->r->error(error_code::out_of_range, s->k, "expected \"bfloat16\" or \"float32\", got " + s->v->summary());
    }
    const Source* dtype_src = at("training.dtype");
    auto set_param = [&](const std::string& field, const ConfigValue& v) {
      if (dtype_src) set(field, v, *dtype_src);
      else set_default(field, v, job_config("Training.dtype = \"float32\""));
    };
    const bool bf16 = dtype == "bfloat16";
    set_param("precision.param_dtype", bf16 ? "bf16" : "fp32");
    set_param("precision.grad_dtype", bf16 ? "bf16" : "fp32");
    set_param("precision.optimizer_state_dtype", bf16 ? "bf16" : "fp32");
    set_param("precision.master_weights", false);
    if (const Source* s = at("training.mixed_precision_param")) {
      const auto m = text(*s).value_or("bfloat16");
      const std::string compute = m == "float32" ? "fp32" : "bf16";
      if (m != "float32" && m != "bfloat16") s->r->error(error_code::out_of_range, s->k, "expected \"bfloat16\" or \"float32\", got " + s->v->summary());
      if (bf16) ignore(*s, "training.dtype bfloat16: the parameters are bf16 already");
      else set("precision.compute_dtype", compute, *s);
    } else if (bf16) {
      set_param("precision.compute_dtype", "bf16");
    } else {
      set_default("precision.compute_dtype", "bf16", job_config("Training.mixed_precision_param = \"bfloat16\""));
    }
    if (const Source* s = at("training.mixed_precision_reduce"))
      ignore(*s, "the reduce-scatter's dtype; the sharded gradients keep the parameters' dtype (training.dtype)");

    const Source* opt = at("optimizer.name");
    const std::string name = opt ? text(*opt).value_or("AdamW") : "AdamW";
    if (name == "AdamW" || name == "Adam") {
      if (opt) set("precision.optimizer", name == "AdamW" ? "adamw" : "adam", *opt);
      else set_default("precision.optimizer", "adamw", job_config("Optimizer.name = \"AdamW\""));
    } else if (opt) {
      unmodelled(*opt, "optimizer " + opt->v->summary() + " is not one the estimate models for torchtitan (AdamW, Adam)");
    }
    if (const Source* s = at("optimizer.implementation")) {
      const auto impl = text(*s).value_or("");
      if (impl == "fused" || impl == "foreach") set("precision.optimizer_implementation", impl, *s);
      else if (impl == "for-loop") set("precision.optimizer_implementation", "for_loop", *s);
      else s->r->error(error_code::out_of_range, s->k, "expected \"fused\", \"foreach\" or \"for-loop\", got " + s->v->summary());
    } else {
      set_default("precision.optimizer_implementation", "fused", job_config("Optimizer.implementation = \"fused\""));
    }
    if (const Source* s = at("optimizer.early_step_in_backward"))
      if (auto b = flag(*s)) set("precision.optimizer_in_backward", *b, *s);
  }

  void read_batch_and_parallel() {
    const Source* local = at("training.local_batch_size");
    if (!local) local = at("training.batch_size");  // the name before local_batch_size
    const std::int64_t local_batch = local ? positive(*local).value_or(8) : 8;
    const std::int64_t tp = integer_or("parallelism.tensor_parallel_degree", 1);
    const std::int64_t pp = integer_or("parallelism.pipeline_parallel_degree", 1);
    const std::int64_t cp = integer_or("parallelism.context_parallel_degree", 1);
    const std::int64_t ep = integer_or("parallelism.expert_parallel_degree", 1);
    const std::int64_t replicate = integer_or("parallelism.data_parallel_replicate_degree", 1);
    const std::int64_t shard_given = integer_or("parallelism.data_parallel_shard_degree", -1, true);
    const Source* shard_src = at("parallelism.data_parallel_shard_degree");
    const Source* replicate_src = at("parallelism.data_parallel_replicate_degree");

    // seq_len (read with the model).
    if (const Source* s = at("training.seq_len")) set("batch.seq_length", seq_len_, *s);
    else set_default("batch.seq_length", seq_len_, job_config("Training.seq_len = 2048"));

    // Degrees. data_parallel_shard_degree -1 takes the GPUs the other degrees leave
    // (parallel_dims.py: world_size // (dp_replicate * cp * tp * pp)).
    auto degree = [&](const char* key, const char* field, std::int64_t value, const char* why) {
      if (const Source* s = at(key)) set(field, value, *s);
      else set_default(field, value, job_config(why));
    };
    degree("parallelism.tensor_parallel_degree", "parallel.tensor_parallel_size", tp, "Parallelism.tensor_parallel_degree = 1");
    degree("parallelism.pipeline_parallel_degree", "parallel.pipeline_parallel_size", pp, "Parallelism.pipeline_parallel_degree = 1");
    degree("parallelism.context_parallel_degree", "parallel.context_parallel_size", cp, "Parallelism.context_parallel_degree = 1");
    degree("parallelism.expert_parallel_degree", "parallel.expert_parallel_size", ep, "Parallelism.expert_parallel_degree = 1");
    if (tp > 1)
      set_default("parallel.sequence_parallel", true,
                  src("torchtitan/models/llama3/infra/parallelize.py", "apply_tp: the norms run sequence-parallel (SequenceParallel)"));
    if (const Source* s = at("parallelism.expert_tensor_parallel_degree")) {
      if (auto n = positive(*s)) set("parallel.expert_tensor_parallel_size", *n, *s);
    } else if (ep > 1) {
      set_default("parallel.expert_tensor_parallel_size", 1, job_config("Parallelism.expert_tensor_parallel_degree = 1"));
    }

    std::optional<std::int64_t> shard;
    if (shard_given != -1) shard = shard_given;
    else if (world_) {
      const std::int64_t others = replicate * cp * tp * pp;
      if (*world_ % others != 0) {
        const Source* s = shard_src ? shard_src : nullptr;
        const std::string k = s ? s->k : "parallelism.data_parallel_shard_degree";
        (s ? s->r : &toml_)->error(error_code::inconsistent, k,
                                   std::to_string(*world_) + " GPUs (" + world_key_ + ") are not a multiple of replicate " + std::to_string(replicate) +
                                       " x context " + std::to_string(cp) + " x tensor " + std::to_string(tp) + " x pipeline " + std::to_string(pp) +
                                       " (torchtitan/distributed/parallel_dims.py asserts they divide)",
                                   {{"reason", "gpus_not_multiple_of_parallel"}, {"world_size", static_cast<double>(*world_)}, {"model_parallel", static_cast<double>(others)}});
      } else {
        shard = *world_ / others;
      }
    } else if (!has_launch_ || !world_) {
      toml_.unresolved_key(shard_src ? shard_src->k : "parallelism.data_parallel_shard_degree", shard_src ? *shard_src->v : ConfigValue(-1),
                           "-1: the GPUs the other degrees leave, and the TOML holds no GPU count (the launch line does: NGPU=8 "
                           "./run_train.sh ... or torchrun --nproc_per_node 8 ...); " +
                               gpu_count_not_given({{"replicate", replicate}, {"context", cp}, {"tensor", tp}, {"pipeline", pp}}));
    }
    // Every degree given: torchtitan/distributed/parallel_dims.py asserts their product is the
    // world size, so the TOML itself states the GPU count.
    if (!world_ && shard && shard_src) {
      const std::int64_t implied = replicate * (*shard) * cp * tp * pp;
      const Source& s = *shard_src;
      s.r->fields.push_back({"parallel.world_size", implied,
                             "read from " + s.r->key("parallelism") + " (replicate " + std::to_string(replicate) + " x shard " +
                                 std::to_string(*shard) + " x context " + std::to_string(cp) + " x tensor " + std::to_string(tp) +
                                 " x pipeline " + std::to_string(pp) + "; torchtitan/distributed/parallel_dims.py asserts the product is the world size)",
                             s.r->key("parallelism"), Strength::read});
    }
    if (world_ && shard && replicate * (*shard) * cp * tp * pp != *world_) {
      toml_.error(error_code::inconsistent, "parallelism",
                  "replicate " + std::to_string(replicate) + " x shard " + std::to_string(*shard) + " x context " + std::to_string(cp) + " x tensor " +
                      std::to_string(tp) + " x pipeline " + std::to_string(pp) + " != " + std::to_string(*world_) + " GPUs (" + world_key_ +
                      "); torchtitan/distributed/parallel_dims.py asserts they are equal",
                  {{"reason", "parallel_product_not_gpus"}, {"value", static_cast<double>(replicate * (*shard) * cp * tp * pp)}, {"world_size", static_cast<double>(*world_)}});
    }
    // FSDP shards when data_parallel_shard_degree > 1 or context parallelism is on (fsdp_enabled);
    // otherwise the replicas are DDP (zero stage 0).
    const bool fsdp = (shard && *shard > 1) || cp > 1 || (!shard && shard_given == -1);
    const Source* zero_src = shard_src ? shard_src : replicate_src;
    const std::string zero_why = "parallel_dims.py fsdp_enabled = data_parallel_shard_degree > 1 or context_parallel_degree > 1";
    if (zero_src) set("parallel.zero_stage", fsdp ? 3 : 0, *zero_src);
    else set_default("parallel.zero_stage", fsdp ? 3 : 0, job_config("Parallelism.data_parallel_shard_degree = -1; " + zero_why));
    if (replicate > 1 && shard && *shard > 1 && replicate_src)
      set("parallel.sharding_group_size", *shard, *replicate_src);  // HSDP: shard within, replicate across

    if (const Source* s = at("parallelism.fsdp_reshard_after_forward")) {
      const auto policy = text(*s).value_or("default");
      if (policy == "always") set("parallel.reshard_after_forward", true, *s);
      else if (policy == "never") set("parallel.reshard_after_forward", false, *s);
      else if (policy == "default") set("parallel.reshard_after_forward", pp == 1, *s);
      else s->r->error(error_code::out_of_range, s->k, "expected \"default\", \"always\" or \"never\", got " + s->v->summary());
    } else if (fsdp) {
      set_default("parallel.reshard_after_forward", pp == 1,
                  src("torchtitan/models/llama3/infra/parallelize.py", "apply_fsdp: \"default\" reshards after forward unless pipelining"));
    }
    if (const Source* s = at("training.enable_cpu_offload")) {
      if (auto b = flag(*s)) {
        // FSDP2 CPUOffloadPolicy: parameters, gradients and optimizer states live on the CPU.
        set("parallel.offload_param", *b ? "cpu" : "none", *s);
        set("parallel.offload_optimizer", *b ? "cpu" : "none", *s);
      }
    }
    for (const char* k : {"parallelism.enable_async_tensor_parallel", "parallelism.disable_loss_parallel"})
      if (const Source* s = at(k)) {
        if (!flag(*s).value_or(false) || tp == 1) ignore(*s, tp == 1 ? "tensor parallelism is off" : "the default");
        else unmodelled(*s, std::string(k) == "parallelism.enable_async_tensor_parallel"
                                ? "async TP's symmetric-memory buffers are not modelled"
                                : "without loss parallelism each TP rank holds the whole vocabulary's logits: not modelled");
      }

    // Pipeline: schedule, stages per rank, microbatches.
    std::int64_t microbatch = local_batch;
    std::int64_t microbatches = 1;
    const Source* schedule_src = at("parallelism.pipeline_parallel_schedule");
    const Source* mb_src = at("parallelism.pipeline_parallel_microbatch_size");
    for (const char* k : {"parallelism.pipeline_parallel_layers_per_stage", "parallelism.pipeline_parallel_first_stage_less_layers",
                          "parallelism.pipeline_parallel_last_stage_less_layers", "parallelism.module_fqns_per_model_part"})
      if (const Source* s = at(k)) {
        if (pp == 1) ignore(*s, "pipeline parallelism is off");
        else unmodelled(*s, "a custom stage split is not modelled: the estimate splits the layers by torchtitan's default rule");
      }
    if (pp > 1) {
      const std::string schedule = schedule_src ? text(*schedule_src).value_or("1F1B") : "1F1B";
      const std::string l = lower(schedule);
      std::string ours;
      std::int64_t stages_per_rank = 1;
      if (l == "1f1b") ours = "1f1b";
      else if (l == "gpipe") ours = "gpipe";
      else if (l == "interleaved1f1b") ours = "interleaved_1f1b", stages_per_rank = 2;
      if (ours.empty()) {
        if (schedule_src) unmodelled(*schedule_src, "schedule " + schedule_src->v->summary() + " is not modelled (1F1B, Interleaved1F1B, GPipe are)");
      } else if (schedule_src) {
        set("parallel.pipeline_schedule", ours, *schedule_src);
      } else {
        set_default("parallel.pipeline_schedule", ours, job_config("Parallelism.pipeline_parallel_schedule = \"1F1B\""));
      }
      if (stages_per_rank > 1)
        set_default("parallel.virtual_pipeline_stages", stages_per_rank,
                    src("torchtitan/distributed/pipeline_parallel.py", "pipeline_llm: 2 stages per rank for multi-stage schedules"));
      microbatch = mb_src ? positive(*mb_src).value_or(1) : 1;
      if (local_batch % microbatch != 0) {
        (mb_src ? mb_src->r : &toml_)->error(error_code::inconsistent, mb_src ? mb_src->k : "parallelism.pipeline_parallel_microbatch_size",
                                              "local batch " + std::to_string(local_batch) + " is not a multiple of the microbatch size " +
                                                  std::to_string(microbatch) + " (pipeline_parallel.py build_pipeline_schedule refuses it)",
                                              {{"reason", "local_batch_not_multiple_of_microbatch"}, {"value", static_cast<double>(local_batch)}, {"divisor", static_cast<double>(microbatch)}});
        microbatch = 1;
      }
      microbatches = local_batch / microbatch;
    } else {
      if (schedule_src) ignore(*schedule_src, "pipeline parallelism is off");
      if (mb_src) ignore(*mb_src, "pipeline parallelism is off");
    }
    if (pp > 1) {
      const std::string why = src("torchtitan/distributed/pipeline_parallel.py", "build_pipeline_schedule: each microbatch carries pipeline_parallel_microbatch_size samples");
      if (mb_src) set("batch.micro_batch_size", microbatch, *mb_src);
      else set_default("batch.micro_batch_size", microbatch, why + " (default 1)");
      if (local) ignore(*local, "split into " + std::to_string(microbatches) + " pipeline microbatches (batch.gradient_accumulation_steps)");
    } else if (local) {
      set("batch.micro_batch_size", local_batch, *local);
    } else {
      set_default("batch.micro_batch_size", local_batch, job_config("Training.local_batch_size = 8"));
    }

    // Gradient accumulation: global_batch_size / (local_batch_size x data-parallel degree)
    // (train.py; -1: local x data-parallel, one step).
    std::int64_t accumulation = 1;
    const Source* global = at("training.global_batch_size");
    const std::int64_t global_batch = global ? integer(*global).value_or(-1) : -1;
    if (global_batch > 0) {
      if (!shard) {
        unresolved_from(*global, "global_batch_size / (local batch x data-parallel GPUs), and the data-parallel GPUs are not known");
      } else {
        const std::int64_t per_step = local_batch * replicate * *shard;
        if (global_batch % per_step != 0)
          global->r->error(error_code::inconsistent, global->k,
                           std::to_string(global_batch) + " is not a multiple of local batch " + std::to_string(local_batch) + " x data-parallel " +
                               std::to_string(replicate * *shard) + " = " + std::to_string(per_step) + " (torchtitan/train.py asserts it)",
                           {{"reason", "global_batch_not_multiple"}, {"value", static_cast<double>(global_batch)}, {"divisor", static_cast<double>(per_step)}});
        else accumulation = global_batch / per_step;
      }
    }
    const std::int64_t steps = accumulation * microbatches;
    const std::string pipeline_note = pp > 1 ? " x " + std::to_string(microbatches) + " pipeline microbatches" : "";
    if (global_batch > 0) {
      if (shard) set("batch.gradient_accumulation_steps", steps, *global);
    } else if (pp > 1 && (mb_src || local)) {
      set("batch.gradient_accumulation_steps", steps, mb_src ? *mb_src : *local);
    } else {
      set_default("batch.gradient_accumulation_steps", steps,
                  job_config("Training.global_batch_size = -1: local batch x data-parallel degree, one step (torchtitan/train.py)") + pipeline_note);
    }
    if (global && global_batch <= 0) ignore(*global, "-1: local batch x data-parallel degree, no accumulation");
  }

  void unresolved_from(const Source& s, const std::string& why) { s.r->unresolved_key(s.k, *s.v, why); }

  void read_checkpointing() {
    const Source* mode_src = at("activation_checkpoint.mode");
    const Source* option_src = at("activation_checkpoint.selective_ac_option");
    const std::string mode = mode_src ? lower(text(*mode_src).value_or("selective")) : "selective";
    // TOML writes it as a string ('2', "op"); a bare integer means the same.
    std::string option = "2";
    if (option_src) {
      if (auto i = option_src->v->is_string() ? std::nullopt : integer_value(*option_src->v)) option = std::to_string(*i);
      else option = string_value(*option_src->v).value_or("");
    }
    auto put = [&](const std::string& field, ConfigValue v, const Source* s, const std::string& why) {
      if (s) set(field, std::move(v), *s);
      else set_default(field, std::move(v), job_config(why));
    };
    const std::string mode_default = "ActivationCheckpoint.mode = \"selective\"";
    if (option_src && mode != "selective") ignore(*option_src, "used by mode \"selective\" only");
    if (const Source* s = at("activation_checkpoint.memory_budget"); s && mode != "memory_budget") ignore(*s, "used by mode \"memory_budget\" only");
    if (mode == "none") {
      put("activation_checkpointing", "none", mode_src, mode_default);
    } else if (mode == "full") {
      put("activation_checkpointing", "full", mode_src, mode_default);
    } else if (mode == "memory_budget") {
      if (mode_src) unmodelled(*mode_src, "memory-budget checkpointing (the compiler's min-cut) is not modelled; estimated without checkpointing");
      if (const Source* s = at("activation_checkpoint.memory_budget")) unmodelled(*s, "memory-budget checkpointing is not modelled");
    } else if (mode == "selective") {
      const Source* s = option_src ? option_src : mode_src;
      const std::string why = mode_src ? mode_default : "ActivationCheckpoint.mode = \"selective\", selective_ac_option = \"2\"";
      if (option == "op") {
        put("activation_checkpointing", "selective", s, why);
        put("selective_policy", "op_level", s, why + " (op-level SAC: activation_checkpoint.py _apply_op_sac)");
      } else if (!option.empty() && option.find_first_not_of("0123456789") == std::string::npos && option.size() < 10) {
        // activation_checkpoint.py _apply_layer_sac: the k-th block (k = 1, 2, ...) is wrapped in
        // full checkpointing when k % N == 0 (every block when N is 0): floor(layers / N) blocks.
        const std::int64_t every = std::stoll(option);
        put("activation_checkpointing", "full", s, why + " (layer SAC: full checkpointing of every " + option + ". block)");
        if (layers_ && every > 1) put("checkpointed_layers", *layers_ / every, s, why + " (every " + option + ". block of " + std::to_string(*layers_) + ")");
        else if (!layers_ && every > 1)
          (s ? s->r : &toml_)->unresolved_key(s ? s->k : "activation_checkpoint", ConfigValue(option),
                                               "every " + option + ". block is checkpointed and the layer count is not known without the flavor's model: "
                                               "the estimate checkpoints every block until checkpointed_layers is given");
      } else {
        (s ? s->r : &toml_)->error(error_code::out_of_range, s ? s->k : "activation_checkpoint.selective_ac_option",
                                   "expected \"op\" or a whole number, got " + (option_src ? option_src->v->summary() : option));
      }
    } else if (mode_src) {
      mode_src->r->error(error_code::out_of_range, mode_src->k, "expected \"none\", \"selective\", \"full\" or \"memory_budget\", got " + mode_src->v->summary());
    }
  }

  void read_compile_and_float8() {
    // [compile] enable + components (since pytorch/torchtitan#1608), or training.compile (before):
    // read as the blocks alone, as releases before #1033 (2025-04-02) compiled them; from #1033 to
    // #1608 training.compile compiled the loss too, which holds less.
    if (const Source* s = at("compile.enable")) {
      const bool on = flag(*s).value_or(false);
      const Source* comps = at("compile.components");
      bool model = true, loss = true;
      if (comps && comps->v->is_array()) {
        model = loss = false;
        for (const auto& c : comps->v->as_array()) {
          model = model || c == ConfigValue("model");
          loss = loss || c == ConfigValue("loss");
        }
      }
      if (!on) {
        set("compile", false, *s);
        if (comps) ignore(*comps, "compile is off");
      } else if (model) {
        set("compile", loss ? "blocks_and_loss" : "blocks", *s);
        if (comps) ignore(*comps, std::string("read with compile.enable: the compiled scope (") + (loss ? "blocks_and_loss" : "blocks") + ")");
      } else {
        unmodelled(comps ? *comps : *s, "compiling the loss alone is not modelled; estimated uncompiled");
        set("compile", false, *s);
      }
    } else if (const Source* t = at("training.compile")) {
      if (auto b = flag(*t)) set("compile", *b ? ConfigValue("blocks") : ConfigValue(false), *t);
    } else {
      set_default("compile", false, job_config("Compile.enable = False"));
    }

    // Float8 linears: model.converters names the float8 converter ("quantize.linear.float8", or
    // "float8" before the quantization refactor, pytorch/torchtitan#1763), or [float8] of older releases.
    bool float8 = false;
    if (const Source* s = at("model.converters")) {
      // A list in the TOML; on the command line one word, names separated by commas.
      ConfigValue::Array names;
      if (s->v->is_array()) names = s->v->as_array();
      else if (auto text = string_value(*s->v)) {
        std::string name;
        for (char ch : *text + ",") {
          if (ch != ',') name += ch;
          else if (!name.empty()) names.emplace_back(name), name.clear();
        }
      } else {
        s->r->error(error_code::wrong_type, s->k, "expected a list of converter names, got " + s->v->summary());
      }
      for (const auto& c : names) {
        const auto n = string_value(c).value_or("");
        if (n == "float8" || n == "quantize.linear.float8") float8 = true;
        else unmodelled(*s, "converter " + c.summary() + " is not modelled (float8 linears are)");
      }
      if (float8) set("precision.fp8_compute", true, *s);
      else if (names.empty() && (s->v->is_array() || s->v->is_string())) ignore(*s, "no converter");
    }
    if (const Source* s = at("float8.enable_float8_linear")) {
      if (auto b = flag(*s)) {
        float8 = float8 || *b;
        if (*b) set("precision.fp8_compute", true, *s);
        else ignore(*s, "float8 off");
      }
    }
    for (const auto& [k, v] : file_and_launch_keys()) {
      if (handled_.count(k)) continue;
      const bool float8_key = k.rfind("quantize.linear.float8.", 0) == 0 || k.rfind("float8.", 0) == 0;
      if (!float8_key) continue;
      const Source* s = at(k);
      if (!s) continue;
      if (!float8) ignore(*s, "float8 linears are not enabled (model.converters)");
      else if (ends_with_key(k, "enable_fsdp_float8_all_gather") && flag(*s).value_or(false))
        unmodelled(*s, "FSDP all-gathers float8 weights (half the bf16 gather buffers): not modelled, the estimate gathers bf16");
      else ignore(*s, "float8 scaling details without a modelled memory effect");
    }
  }

  static bool ends_with_key(const std::string& k, const std::string& tail) {
    return k.size() >= tail.size() && k.compare(k.size() - tail.size(), tail.size(), tail) == 0;
  }

  std::vector<std::pair<std::string, const Source*>> file_and_launch_keys() {
    std::vector<std::pair<std::string, const Source*>> out;
    for (const auto& [k, v] : file_keys_) out.emplace_back(k, &values_.at(k));
    for (const auto& k : launch_keys_) out.emplace_back(k, &values_.at(k));
    return out;
  }

  // Every key not read above: ignored (no memory effect) or unmodelled (unknown to the estimate).
  void report_the_rest() {
    std::set<std::string> done;
    for (const auto& [k, v] : file_keys_) report(k, toml_, *v, done);
    for (const auto& k : launch_keys_) report(k, launch_, *values_.at(k).v, done);
  }
  void report(const std::string& k, Reading& r, const ConfigValue& v, std::set<std::string>& done) {
    const Source& s = values_.at(k);
    if (s.r != &r) return;  // overridden by the command line: listed there
    if (handled_.count(k) || !done.insert(k).second) return;
    if (v.is_null()) r.ignore(k, v, "null: the default applies");
    else if (k == "model.name" || k == "model.flavor") r.ignore(k, v, "read with the model");
    else if (no_memory_effect(k)) r.ignore(k, v, "no effect on the training step's memory");
    else if (k.rfind("quantize.", 0) == 0) r.unmodelled_key(k, v, "this quantization converter is not modelled");
    else r.unmodelled_key(k, v, "not a key the estimate reads (torchtitan/config/job_config.py at 238fa99): its memory effect is not modelled");
  }

  Reading toml_, launch_;
  bool has_launch_;
  std::vector<std::pair<std::string, const ConfigValue*>> file_keys_;
  std::vector<std::string> launch_keys_;
  std::map<std::string, Source> values_;
  std::set<std::string> handled_;
  std::optional<std::int64_t> world_, layers_;
  std::string world_key_;
  std::int64_t seq_len_ = 2048;
};

}  // namespace

bool is_torchtitan_config(const ConfigValue& c) {
  if (!c.is_object()) return false;
  auto table = [&](const char* k) {
    const ConfigValue* v = c.find(k);
    return v && v->is_object();
  };
  const ConfigValue* model = c.find("model");
  const bool flavor = model && model->is_object() && model->find("flavor");
  return (table("job") && table("training")) || table("parallelism") || table("activation_checkpoint") || (flavor && table("training"));
}

std::vector<Reading> read_torchtitan_config(const std::string& file, const ConfigValue& content, const std::optional<TorchtitanLaunch>& launch) {
  return TorchtitanReader(file, content, launch).read(launch);
}

}  // namespace trainmem::import_detail
