// Megatron-LM training arguments (pretrain_gpt.py's command line, as a launch script passes them)
// -> estimate document fields, with the model built as an hf_config from the architecture
// arguments. Meanings and defaults, all at NVIDIA/Megatron-LM d98e8a64ddf34856e74b24714e3bedb2f5a39553:
//   megatron/training/arguments.py          validate_args and the argparse groups (kMegatronArgs)
//   megatron/training/argument_utils.py     core_transformer_config_from_args (kArgUtils)
//   megatron/core/transformer/transformer_config.py  TransformerConfig fields, recompute checks (kTransformerConfig)
//   megatron/core/transformer/transformer_block.py   get_num_layers_to_build, _checkpointed_forward
//   megatron/core/tokenizers/utils/build_tokenizer.py  build_tokenizer, vocab_size_with_padding
//   pretrain_gpt.py:527                      args_defaults={'tokenizer_type': 'GPT2BPETokenizer'}, which
//     arguments.py validate_args (lines 657-666) sets when --tokenizer-type is absent (None)
// Megatron's GPT layers (megatron/core/models/gpt/gpt_layer_specs.py): linear_qkv (hidden ->
// (heads + 2 x query groups) x kv_channels), linear_proj, linear_fc1 (x2 when gated), linear_fc2,
// with bias unless --disable-bias-linear (q/k/v alone with --add-qkv-bias); LayerNorm (weight and
// bias) or RMSNorm (weight) before attention and MLP and after the last layer; word embeddings,
// learned position embeddings for learned_absolute, an output layer when untied.
#include <map>
#include <algorithm>
#include <set>

#include "reading.hpp"
#include "trainmem/pipeline_split.hpp"

namespace trainmem::import_detail {

namespace {

constexpr const char* kMegatronArgs = "Megatron-LM megatron/training/arguments.py (d98e8a6)";
constexpr const char* kArgUtils = "Megatron-LM megatron/training/argument_utils.py (d98e8a6)";
constexpr const char* kTransformerConfig = "Megatron-LM megatron/core/transformer/transformer_config.py (d98e8a6)";
constexpr const char* kBuildTokenizer = "Megatron-LM megatron/core/tokenizers/utils/build_tokenizer.py (d98e8a6)";

// Arguments without an effect on training memory: schedules, logging, saving, data, tokenizer
// files, initialisation, fusions of kernels that keep the same tensors, rotary settings.
bool no_memory_effect(const std::string& k) {
  static const std::set<std::string> keys = {
      "lr", "min_lr", "lr_decay_style", "lr_decay_iters", "lr_decay_samples", "lr_warmup_fraction", "lr_warmup_iters",
      "lr_warmup_samples", "lr_warmup_init", "decoupled_lr", "decoupled_min_lr", "weight_decay", "start_weight_decay",
      "end_weight_decay", "weight_decay_incr_style", "adam_beta1", "adam_beta2", "adam_eps", "clip_grad",
      "init_method_std", "init_method_xavier_uniform", "train_iters", "train_samples", "exit_duration_in_mins",
      "exit_interval", "exit_signal_handler", "log_interval", "log_throughput", "log_params_norm", "log_num_zeros_in_grad",
      "log_timers_to_tensorboard", "log_validation_ppl_to_tensorboard", "log_memory_to_tensorboard",
      "log_world_size_to_tensorboard", "timing_log_level", "save", "load", "save_interval", "eval_interval", "eval_iters",
      "tensorboard_dir", "tensorboard_log_interval", "wandb_project", "wandb_exp_name", "wandb_save_dir", "data_path",
      "train_data_path", "valid_data_path", "test_data_path", "split", "data_cache_path", "mock_data", "vocab_file",
      "merge_file", "tokenizer_model", "tiktoken_pattern", "num_workers", "no_create_attention_mask_in_dataloader",
      "no_mmap_bin_files", "seed", "distributed_backend", "distributed_timeout_minutes", "use_mcore_models", "ckpt_format",
      "no_load_optim", "no_load_rng", "finetune", "use_checkpoint_args", "profile", "profile_step_start",
      "profile_step_end", "profile_ranks", "manual_gc", "manual_gc_interval", "calculate_per_token_loss", "rotary_base",
      "rotary_percent", "rotary_interleaved", "rotary_seq_len_interpolation_factor", "use_rope_scaling",
      "rope_scaling_factor", "apply_layernorm_1p", "layernorm_epsilon", "norm_epsilon", "no_masked_softmax_fusion",
      "no_bias_gelu_fusion", "no_bias_swiglu_fusion", "no_bias_dropout_fusion", "no_rope_fusion",
      "no_gradient_accumulation_fusion", "no_persist_layer_norm", "moe_router_load_balancing_type", "moe_aux_loss_coeff",
      "moe_z_loss_coeff", "moe_router_score_function", "moe_router_pre_softmax", "moe_router_topk_scaling_factor",
      "moe_input_jitter_eps", "check_for_nan_in_loss_and_grad", "no_check_for_nan_in_loss_and_grad", "overlap_param_gather",
      "overlap_param_gather_with_optimizer_step", "fp8_amax_history_len", "fp8_amax_compute_algo", "fp8_margin",
      "fp8_interval", "dataloader_type", "reset_position_ids", "reset_attention_mask", "eod_mask_loss", "eval_global_batch_size",
      "eval_micro_batch_size", "step_batch_size_schedule", "rampup_batch_size", "use_dist_ckpt", "async_save",
      "dist_ckpt_strictness", "ckpt_fully_parallel_save", "ckpt_fully_parallel_load", "no_save_optim", "no_save_rng",
      "pretrained_checkpoint", "ckpt_step", "tokenizer_type", "vocab_extra_ids", "initial_loss_scale", "min_loss_scale",
      "loss_scale", "loss_scale_window", "hysteresis", "attention_softmax_in_fp32", "apply_query_key_layer_scaling",
      "bias_gelu_fusion", "bias_swiglu_fusion", "use_rotary_position_embeddings", "no_position_embedding",
      "transformer_impl", "spec", "deterministic_mode", "use_pytorch_profiler", "record_memory_history",
      "memory_snapshot_path", "one_logger_project", "one_logger_run_name", "enable_one_logger", "no_one_logger",
      "logging_level", "log_progress", "log_straggler", "object_storage_cache_path", "ddp_bucket_size", "moe_router_dtype",
      "moe_router_enable_expert_bias", "moe_router_bias_update_rate", "moe_per_layer_logging", "sgd_momentum"};
  return keys.count(k) > 0;
}

class Args {
 public:
  Args(Reading& r, const ConfigValue& args) : r_(r), args_(args) {}

  const ConfigValue* find(const std::string& k) {
    used_.insert(k);
    return args_.find(k);
  }
  bool flag(const std::string& k) {
    const ConfigValue* v = find(k);
    if (!v) return false;
    auto b = boolean(r_, k, *v);
    return b.value_or(false);
  }
  std::optional<std::int64_t> positive(const std::string& k) {
    const ConfigValue* v = find(k);
    if (!v) return std::nullopt;
    return positive_integer(r_, k, *v);
  }
  std::optional<std::int64_t> count(const std::string& k) {  // 0 allowed
    const ConfigValue* v = find(k);
    if (!v) return std::nullopt;
    auto i = whole_number(r_, k, *v);
    if (i && *i < 0) {
      r_.error(error_code::out_of_range, k, "must be at least 0, got " + v->summary());
      return std::nullopt;
    }
    return i;
  }
  std::optional<double> probability(const std::string& k) {
    const ConfigValue* v = find(k);
    if (!v) return std::nullopt;
    auto d = typed<double>(r_, k, *v, number_value, "a number");
    if (d && (*d < 0 || *d > 1)) {
      r_.error(error_code::out_of_range, k, "must be between 0 and 1, got " + v->summary());
      return std::nullopt;
    }
    return d;
  }
  std::optional<std::string> text(const std::string& k) {
    const ConfigValue* v = find(k);
    if (!v) return std::nullopt;
    return typed<std::string>(r_, k, *v, string_value, "one word");
  }
  bool has(const std::string& k) {
    used_.insert(k);
    return args_.find(k) != nullptr;
  }
  const std::set<std::string>& used() const { return used_; }

 private:
  Reading& r_;
  const ConfigValue& args_;
  std::set<std::string> used_;
};

// The architecture as Megatron builds it (core_transformer_config_from_args and validate_args).
struct Architecture {
  std::int64_t layers = 0, hidden = 0, heads = 0, groups = 0, kv_channels = 0, ffn = 0, max_positions = 0;
  std::optional<std::int64_t> vocab;
  std::int64_t experts = 0, top_k = 2, expert_ffn = 0;
  bool gated = false, rms_norm = false, learned_positions = true, tie = true, linear_bias = true, qkv_bias = false,
       qk_norm = false;
  double attention_dropout = 0.1, hidden_dropout = 0.1;
  std::string blocker;  // an argument no Hugging Face layout here expresses exactly
};

// The Hugging Face family whose modules and parameters are exactly Megatron's for these
// arguments, as its config.json; empty with `why` when none is.
// `caveat`: what the layout leaves out of the activations, when it does.
std::optional<ConfigValue> as_hf_config(const Architecture& a, std::string& why, std::string& caveat) {
  if (!a.blocker.empty()) {
    why = a.blocker;
    return std::nullopt;
  }
  ObjectBuilder c;
  const bool mha = a.groups == a.heads;
  const bool rope_or_none = !a.learned_positions;
  // The keys configuration_llama.py names (and StarCoder2, Qwen2/3 and Mixtral share).
  auto llama_like = [&](const char* type, const char* activation) {
    c.set("model_type", type);
    c.set("hidden_size", a.hidden);
    c.set("num_hidden_layers", a.layers);
    c.set("num_attention_heads", a.heads);
    c.set("num_key_value_heads", a.groups);
    c.set("head_dim", a.kv_channels);
    c.set("intermediate_size", a.ffn);
    c.set("max_position_embeddings", a.max_positions);
    c.set("tie_word_embeddings", a.tie);
    c.set("attention_dropout", a.attention_dropout);
    c.set("hidden_act", activation);
  };
  if (a.rms_norm && a.gated && rope_or_none) {
    if (a.hidden_dropout > 0)
      caveat = "residual dropout (--hidden-dropout, 0.1 unless given) after attention and the MLP: the Llama-style layout "
               "keeps none, so its masks are not counted in the activations";
    if (a.experts > 0) {
      if (a.linear_bias || a.qkv_bias) {
        why = "experts with biases (no --disable-bias-linear): no Hugging Face mixture-of-experts layout has them";
        return std::nullopt;
      }
      // Mixtral (every layer MoE, router without bias, experts w1/w3/w2) or Qwen3-MoE (the same
      // with per-head q/k RMSNorm).
      llama_like(a.qk_norm ? "qwen3_moe" : "mixtral", "silu");
      c.set("attention_bias", false);
      if (a.qk_norm) {
        c.set("num_experts", a.experts);
        c.set("moe_intermediate_size", a.expert_ffn);
      } else {
        c.set("num_local_experts", a.experts);
        c.set("intermediate_size", a.expert_ffn);
      }
      c.set("num_experts_per_tok", a.top_k);
    } else if (a.qk_norm) {
      if (a.qkv_bias && !a.linear_bias) {
        why = "--qk-layernorm with --add-qkv-bias: no Hugging Face layout biases q/k/v alone beside q/k norms";
        return std::nullopt;
      }
      llama_like("qwen3", "silu");  // Qwen3Attention: q_norm and k_norm over head_dim
      c.set("attention_bias", a.linear_bias);
      c.set("mlp_bias", a.linear_bias);
    } else if (!a.linear_bias && a.qkv_bias) {
      llama_like("qwen2", "silu");  // Qwen2Attention: q/k/v with bias, o_proj and the MLP without
    } else {
      llama_like("llama", "silu");
      c.set("attention_bias", a.linear_bias);
      c.set("mlp_bias", a.linear_bias);
    }
    c.set("rms_norm_eps", 1e-5);
  } else if (!a.rms_norm && !a.gated && a.experts == 0 && !a.qk_norm) {
    if (a.learned_positions) {
      if (!mha || a.kv_channels * a.heads != a.hidden || !a.linear_bias) {
        why = "learned position embeddings with grouped-query attention, a --kv-channels other than hidden / heads, or "
              "without biases: GPT-2's layout has none of these";
        return std::nullopt;
      }
      // GPT-2: c_attn (hidden -> 3 hidden), c_proj, c_fc, mlp c_proj, all with bias; LayerNorm with
      // bias; learned positions wpe.
      c.set("model_type", "gpt2");
      c.set("n_embd", a.hidden);
      c.set("n_layer", a.layers);
      c.set("n_head", a.heads);
      c.set("n_inner", a.ffn);
      c.set("n_positions", a.max_positions);
      c.set("tie_word_embeddings", a.tie);
      c.set("attn_pdrop", a.attention_dropout);
      c.set("resid_pdrop", a.hidden_dropout);
      c.set("activation_function", "gelu");
    } else {
      if (a.qkv_bias && !a.linear_bias) {
        why = "--add-qkv-bias with LayerNorm and a plain MLP: no Hugging Face layout biases q/k/v alone there";
        return std::nullopt;
      }
      // StarCoder2: q/k/v/o_proj (grouped k/v heads) and c_fc/c_proj, with bias when use_bias;
      // LayerNorm with bias; rotary positions.
      llama_like("starcoder2", "gelu_pytorch_tanh");
      c.set("use_bias", a.linear_bias);
      c.set("residual_dropout", a.hidden_dropout);
    }
  } else {
    why = std::string(a.rms_norm ? "RMSNorm" : "LayerNorm") + " with " + (a.gated ? "a gated (SwiGLU) MLP" : "a plain MLP") +
          (a.learned_positions ? " and learned positions" : "") + (a.experts > 0 ? " and experts" : "") +
          (a.qk_norm ? " and --qk-layernorm" : "") + ": no Hugging Face layout here has exactly these modules";
    return std::nullopt;
  }
  c.set("vocab_size", *a.vocab);
  return c.take();
}

}  // namespace

Reading read_megatron_arguments(const std::string& file, const ConfigValue& given, const ShownKeys& shown_keys,
                                const MegatronWorld& world) {
  Reading r(file, "megatron");
  r.shown_keys = shown_keys;
  Args args(r, given);
  auto read_because = [&r](const std::string& field, ConfigValue value, const std::string& k, const std::string& why) {
    r.fields.push_back({field, std::move(value), "read from " + r.key(k) + " (" + why + ")", r.key(k), Strength::read});
  };
  r.read_from_kind("framework", "megatron", "Megatron-LM arguments");
  r.read_from_kind("parallel.sharding_engine", "megatron", "Megatron-LM arguments: Megatron's own data-parallel and distributed optimizer");

  // ---- parallelism (megatron/core/model_parallel_config.py; arguments.py validate_args) ----
  auto size = [&](const char* k, const char* field) -> std::int64_t {
    if (auto v = args.positive(k)) {
      r.read(field, *v, k);
      return *v;
    }
    return 1;
  };
  const std::int64_t tp = size("tensor_model_parallel_size", "parallel.tensor_parallel_size");
  const std::int64_t pp = size("pipeline_model_parallel_size", "parallel.pipeline_parallel_size");
  const std::int64_t cp = size("context_parallel_size", "parallel.context_parallel_size");
  const std::int64_t ep = size("expert_model_parallel_size", "parallel.expert_parallel_size");
  std::int64_t etp = tp;  // arguments.py: expert_tensor_parallel_size None -> tensor_model_parallel_size
  if (auto v = args.positive("expert_tensor_parallel_size")) {
    etp = *v;
    r.read("parallel.expert_tensor_parallel_size", *v, "expert_tensor_parallel_size");
  }
  if (args.has("sequence_parallel")) {
    // arguments.py: sequence parallelism is switched off when tensor parallelism is.
    if (!args.flag("sequence_parallel")) r.ignore("sequence_parallel", *given.find("sequence_parallel"), "off");
    else if (tp == 1) read_because("parallel.sequence_parallel", false, "sequence_parallel", "arguments.py turns it off without tensor parallelism");
    else r.read("parallel.sequence_parallel", true, "sequence_parallel");
  }
  // Megatron-FSDP (--use-megatron-fsdp, earlier --use-custom-fsdp) shards by
  // --data-parallel-sharding-strategy: optim, optim_grads and optim_grads_params are ZeRO-1, -2 and -3
  // (NVIDIA/Megatron-LM megatron/core/distributed/fsdp/README.md; arguments.py default no_shard).
  const bool megatron_fsdp = args.flag("use_megatron_fsdp") || args.flag("use_custom_fsdp");
  std::optional<std::string> fsdp_strategy = megatron_fsdp ? args.text("data_parallel_sharding_strategy") : std::nullopt;
  static const std::map<std::string, int> fsdp_stages = {{"no_shard", 0}, {"optim", 1}, {"optim_grads", 2}, {"optim_grads_params", 3}};
  const auto fsdp_stage = fsdp_strategy ? fsdp_stages.find(*fsdp_strategy) : fsdp_stages.end();
  if (fsdp_strategy && fsdp_stage == fsdp_stages.end())
    r.error(error_code::unknown_value, "data_parallel_sharding_strategy",
            "expected no_shard, optim, optim_grads or optim_grads_params, got \"" + *fsdp_strategy + "\"");
  const bool distributed_optimizer = args.flag("use_distributed_optimizer");
  if (fsdp_stage != fsdp_stages.end() && fsdp_stage->second > 0)
    r.read("parallel.zero_stage", fsdp_stage->second, "data_parallel_sharding_strategy");
  else if (distributed_optimizer)
    r.read("parallel.zero_stage", 1, "use_distributed_optimizer");  // optimizer states and fp32 masters sharded over data parallel
  else
    r.trainer_default("parallel.zero_stage", 0, std::string(kMegatronArgs) + " --use-distributed-optimizer off");
  if (args.flag("overlap_grad_reduce")) r.read("parallel.overlap_grad_reduce", true, "overlap_grad_reduce");
  if (args.flag("tp_comm_overlap")) r.read("parallel.tp_comm_overlap", true, "tp_comm_overlap");
  if (args.flag("optimizer_cpu_offload")) r.read("parallel.offload_optimizer", "cpu", "optimizer_cpu_offload");

  // ---- the architecture (TransformerConfig via core_transformer_config_from_args) ----
  Architecture a;
  const auto layers = args.positive("num_layers");
  const auto hidden = args.positive("hidden_size");
  const auto heads = args.positive("num_attention_heads");
  const auto seq = args.positive("seq_length");
  const auto max_pos = args.positive("max_position_embeddings");
  a.gated = args.flag("swiglu");
  if (args.flag("quick_geglu")) a.blocker = "--quick-geglu (a gated MLP with quick GELU)";
  if (args.flag("multi_latent_attention")) a.blocker = "--multi-latent-attention";
  if (args.has("moe_shared_expert_intermediate_size")) a.blocker = "--moe-shared-expert-intermediate-size (shared experts)";
  if (args.has("moe_layer_freq")) a.blocker = "--moe-layer-freq (dense and MoE layers mixed)";
  if (args.has("mtp_num_layers")) a.blocker = "--mtp-num-layers (multi-token prediction layers)";
  if (args.has("hybrid_layer_pattern")) a.blocker = "--hybrid-layer-pattern (Mamba hybrid layers)";
  if (auto n = args.text("normalization")) {
    if (*n == "RMSNorm") a.rms_norm = true;
    else if (*n != "LayerNorm") r.error(error_code::unknown_value, "normalization", "expected LayerNorm or RMSNorm, got \"" + *n + "\"");
  }
  std::string position = "learned_absolute";
  if (auto p = args.text("position_embedding_type")) position = *p;
  if (args.flag("use_rotary_position_embeddings")) position = "rope";  // arguments.py: the legacy flag means rope
  if (position == "rope" || position == "none") a.learned_positions = false;
  else if (position != "learned_absolute") a.blocker = "--position-embedding-type " + position;
  if (a.learned_positions && given.find("no_position_embedding"))
    r.error(error_code::unknown_value, "no_position_embedding",
            "without --position-embedding-type rope Megatron-LM refuses it (arguments.py: deprecated, use --position-embedding-type)");
  a.tie = !args.flag("untie_embeddings_and_output_weights");
  a.linear_bias = !args.flag("disable_bias_linear");
  a.qkv_bias = a.linear_bias || args.flag("add_qkv_bias");  // arguments.py keeps add_qkv_bias in step with add_bias_linear
  a.qk_norm = args.flag("qk_layernorm");
  if (auto d = args.probability("attention_dropout")) a.attention_dropout = *d;
  if (auto d = args.probability("hidden_dropout")) a.hidden_dropout = *d;
  if (layers) a.layers = *layers;
  if (hidden) a.hidden = *hidden;
  if (heads) a.heads = *heads;
  a.groups = a.heads;
  const bool gqa = args.flag("group_query_attention");
  if (auto g = args.positive("num_query_groups")) {
    if (gqa) a.groups = *g;  // argument_utils.py: num_query_groups only with --group-query-attention
    else r.ignore("num_query_groups", *given.find("num_query_groups"), "without --group-query-attention Megatron-LM uses one group per head");
  }
  if (hidden && heads) {
    if (auto kv = args.positive("kv_channels")) a.kv_channels = *kv;
    else if (*hidden % *heads == 0) a.kv_channels = *hidden / *heads;  // arguments.py: kv_channels = hidden / heads
    else r.error(error_code::not_divisible, "num_attention_heads", "--hidden-size " + std::to_string(*hidden) +
                                                                  " is not a multiple of it and no --kv-channels is given (Megatron-LM asserts)");
    // arguments.py: ffn_hidden_size = int(4 h x 2/3 / 64) x 64 with --swiglu, else 4 h.
    if (auto f = args.positive("ffn_hidden_size")) a.ffn = *f;
    else a.ffn = a.gated ? (4 * *hidden * 2 / 3) / 64 * 64 : 4 * *hidden;
  }
  if (auto e = args.count("num_experts"); e && *e > 0) {
    a.experts = *e;
    if (auto k = args.positive("moe_router_topk")) a.top_k = *k;  // TransformerConfig moe_router_topk = 2
    a.expert_ffn = args.positive("moe_ffn_hidden_size").value_or(a.ffn);  // arguments.py: defaults to ffn_hidden_size
    if (a.experts % ep != 0)
      r.error(error_code::not_divisible, "expert_model_parallel_size",
              "--num-experts " + std::to_string(a.experts) + " is not a multiple of --expert-model-parallel-size " + std::to_string(ep) +
                  " (Megatron-LM asserts)");
  } else {
    for (const char* k : {"moe_router_topk", "moe_ffn_hidden_size"})
      if (const ConfigValue* v = args.find(k)) r.ignore(k, *v, "no experts (--num-experts is not given)");
  }
  if (max_pos) a.max_positions = *max_pos;
  if (seq) r.read("batch.seq_length", *seq, "seq_length");
  else r.unresolved_key("seq_length", nullptr, "no --seq-length: the sequence length is not in the file");

  // ---- the vocabulary (build_tokenizer.py) ----
  std::string tokenizer = "GPT2BPETokenizer";  // pretrain_gpt.py args_defaults
  const bool tokenizer_given = args.has("tokenizer_type");
  if (auto t = args.text("tokenizer_type")) tokenizer = *t;
  const ConfigValue* vocab_arg = args.find("vocab_size");
  args.has("padded_vocab_size");
  std::string vocab_origin;
  if (const ConfigValue* padded = given.find("padded_vocab_size")) {
    // build_tokenizer.py _set_padded_vocab_size pads only when padded_vocab_size is None.
    if (auto v = positive_integer(r, "padded_vocab_size", *padded)) {
      a.vocab = *v;
      r.read("make_vocab_size_divisible_by", 1, "padded_vocab_size");
    }
  } else if (tokenizer == "GPT2BPETokenizer") {
    a.vocab = 50257;  // the GPT-2 BPE vocabulary (gpt2-vocab.json): 50,257 tokens
    vocab_origin = std::string("GPT2BPETokenizer") + (tokenizer_given ? ""
                                     : " (Megatron-LM pretrain_gpt.py:527 args_defaults at d98e8a6, set by "
                                       "arguments.py validate_args when --tokenizer-type is absent)") +
                   ": GPT-2's BPE vocabulary of 50257 tokens";
    if (vocab_arg) r.ignore("vocab_size", *vocab_arg, "GPT2BPETokenizer takes its vocabulary from --vocab-file");
  } else if (vocab_arg) {
    if (auto v = positive_integer(r, "vocab_size", *vocab_arg)) a.vocab = *v;
  } else {
    const ConfigValue* model_file = given.find("tokenizer_model");
    r.unresolved_key(given.find("tokenizer_type") ? "tokenizer_type" : "vocab_size", tokenizer,
                     tokenizer + " reads its vocabulary from " +
                         (model_file ? "the tokenizer model " + model_file->summary() : std::string("a tokenizer model")) +
                         ", which the import cannot open: add --vocab-size N to the arguments, or give the model's config.json");
  }
  if (auto m = args.positive("make_vocab_size_divisible_by")) r.read("make_vocab_size_divisible_by", *m, "make_vocab_size_divisible_by");
  else if (!given.find("padded_vocab_size"))
    r.trainer_default("make_vocab_size_divisible_by", 128,
                      std::string(kMegatronArgs) + " --make-vocab-size-divisible-by 128; " + kBuildTokenizer +
                          " vocab_size_with_padding pads to a multiple of it x tensor parallel");

  // The architecture arguments the file gives, as written.
  std::string arch_keys;
  for (const char* k : {"num_layers", "hidden_size", "ffn_hidden_size", "num_attention_heads", "group_query_attention",
                        "num_query_groups", "kv_channels", "max_position_embeddings", "position_embedding_type",
                        "use_rotary_position_embeddings", "normalization", "swiglu", "untie_embeddings_and_output_weights",
                        "disable_bias_linear", "add_qkv_bias", "qk_layernorm", "num_experts", "moe_router_topk",
                        "moe_ffn_hidden_size", "attention_dropout", "hidden_dropout", "tokenizer_type", "vocab_size",
                        "padded_vocab_size"})
    if (given.find(k) && !(std::string(k) == "vocab_size" && !vocab_origin.empty()) &&
        !(std::string(k) == "num_query_groups" && !gqa) && !(a.experts == 0 && std::string(k).rfind("moe_", 0) == 0))
      arch_keys += (arch_keys.empty() ? "" : ", ") + r.key(k).substr(file.size() + 1);
  const std::string arch_read = arch_keys.empty() ? "" : " (read: " + arch_keys + ")";
  if (layers && hidden && heads && max_pos && a.kv_channels > 0 && a.vocab) {
    std::string why, caveat;
    if (auto config = as_hf_config(a, why, caveat)) {
      r.built_model = *config;
      if (!caveat.empty()) {
        const ConfigValue* d = given.find("hidden_dropout");
        r.unmodelled_key(d ? "hidden_dropout" : "--hidden-dropout", d ? *d : ConfigValue(0.1), caveat);
      }
      std::string from = "read from " + file + ":" + arch_keys + " (the model Megatron-LM builds from these arguments, " + kArgUtils +
             ", the others at their defaults, in the Hugging Face layout with the same modules";
      if (!vocab_origin.empty()) from += "; vocabulary: " + vocab_origin;
      r.built_model_origin = from + ")";
      r.built_model_source = file + ":" + arch_keys;
    } else {
      r.model_unbuilt = true;
      r.unresolved.push_back({file + ":(architecture)", why + ": give the model's config.json or choose a catalog model" + arch_read, nullptr});
    }
  } else {
    r.model_unbuilt = true;
    std::string missing;
    for (const auto& [k, ok] : std::vector<std::pair<const char*, bool>>{{"--num-layers", layers.has_value()},
                                                                         {"--hidden-size", hidden.has_value()},
                                                                         {"--num-attention-heads", heads.has_value()},
                                                                         {"--max-position-embeddings", max_pos.has_value()},
                                                                         {"the vocabulary size", a.vocab.has_value()}})
      if (!ok) missing += (missing.empty() ? "" : ", ") + std::string(k);
    if (!missing.empty())
      r.unresolved.push_back({file + ":(architecture)", "the model is built from the architecture arguments and " + missing +
                                                             " is not known: give the model's config.json or choose a catalog model" +
                                                             arch_read, nullptr});
  }

  // ---- precision (arguments.py: params_dtype; bf16 accumulates and reduces gradients in fp32) ----
  const bool bf16 = args.flag("bf16"), fp16 = args.flag("fp16");
  if (bf16 && fp16) r.error(error_code::conflicting_values, "fp16", "--bf16 and --fp16 together: Megatron-LM asserts only one is set",
                            {{"reason", "bf16_and_fp16"}});
  const std::string dtype = bf16 ? "bf16" : fp16 ? "fp16" : "fp32";
  const char* dtype_key = bf16 ? "bf16" : "fp16";
  // --fp8-param-gather: "Keep the compute param in fp8 (do not use any other intermediate dtype)"
  // (Transformer Engine's fp8_model_init), with FP8 matmuls (--fp8-format).
  const std::optional<std::string> fp8_format = args.text("fp8_format");
  const bool fp8_params = args.flag("fp8_param_gather");
  if (fp8_params && (!fp8_format || !(bf16 || fp16)))
    r.unmodelled_key("fp8_param_gather", *args.find("fp8_param_gather"),
                     "FP8 parameters without --fp8-format and --bf16 or --fp16 are not modelled");
  if (bf16 || fp16) {
    if (fp8_params && fp8_format) r.read("precision.param_dtype", "fp8", "fp8_param_gather");
    else r.read("precision.param_dtype", dtype, dtype_key);
    r.read("precision.compute_dtype", dtype, dtype_key);
    r.trainer_default("precision.master_weights", true, std::string(kMegatronArgs) + ": the optimizer keeps fp32 main parameters under --" + dtype_key);
  } else {
    r.trainer_default("precision.param_dtype", "fp32", std::string(kMegatronArgs) + " params_dtype = torch.float without --bf16/--fp16");
    r.trainer_default("precision.compute_dtype", "fp32", std::string(kMegatronArgs) + " params_dtype = torch.float without --bf16/--fp16");
  }
  const bool grads_bf16 = args.flag("grad_reduce_in_bf16");
  const bool grads_fp32 = args.flag("accumulate_allreduce_grads_in_fp32");
  if (bf16 && grads_bf16) r.read("precision.grad_dtype", "bf16", "grad_reduce_in_bf16");
  else if (grads_fp32) r.read("precision.grad_dtype", "fp32", "accumulate_allreduce_grads_in_fp32");
  else if (bf16) r.read("precision.grad_dtype", "fp32", "bf16");  // arguments.py: bf16 accumulates in fp32
  else r.trainer_default("precision.grad_dtype", dtype, std::string(kMegatronArgs) + " accumulate_allreduce_grads_in_fp32 off: gradients in the parameter dtype");
  if (fp8_format) {
    if (*fp8_format == "hybrid" || *fp8_format == "e4m3") r.read("precision.fp8_compute", true, "fp8_format");
    else r.error(error_code::unknown_value, "fp8_format", "expected hybrid or e4m3, got \"" + *fp8_format + "\"");
  }
  std::string optimizer = "adam";  // arguments.py --optimizer default adam
  if (auto o = args.text("optimizer")) optimizer = *o;
  if (optimizer == "adam") {
    if (given.find("optimizer")) r.read("precision.optimizer", "adam", "optimizer");
    else r.trainer_default("precision.optimizer", "adam", std::string(kMegatronArgs) + " --optimizer adam");
  } else if (optimizer == "sgd") {
    // megatron/core/optimizer: torch SGD with momentum --sgd-momentum (0.9): one momentum buffer.
    const ConfigValue* m = given.find("sgd_momentum");
    const bool momentum = !m || number_value(*m).value_or(0.9) != 0;
    r.read("precision.optimizer", momentum ? "sgd_momentum" : "sgd", "optimizer");
  } else {
    r.unmodelled_key("optimizer", given.find("optimizer") ? *given.find("optimizer") : ConfigValue(optimizer),
                     "optimizer \"" + optimizer + "\" is not modelled (adam and sgd are)");
  }

  // ---- batch (arguments.py: global batch = micro-batch x micro-batches x data parallel) ----
  const std::int64_t micro = args.positive("micro_batch_size").value_or(1);
  if (given.find("micro_batch_size")) r.read("batch.micro_batch_size", micro, "micro_batch_size");
  else r.trainer_default("batch.micro_batch_size", 1, "Megatron-LM megatron/training/config/training_config.py micro_batch_size");
  const auto global = args.positive("global_batch_size");
  const std::int64_t model_parallel = tp * pp * cp;
  if (world.size) {
    const std::int64_t w = *world.size;
    if (w % model_parallel != 0) {
      r.errors.push_back({error_code::not_divisible, r.key("tensor_model_parallel_size"),
                          world.source + " = " + std::to_string(w) + " GPUs is not a multiple of tensor x pipeline x context parallel = " +
                              std::to_string(tp) + " x " + std::to_string(pp) + " x " + std::to_string(cp) + " = " +
                              std::to_string(model_parallel) + " (Megatron-LM asserts it is)"});
    } else if (w % (etp * ep * pp) != 0) {
      r.errors.push_back({error_code::not_divisible, r.key("expert_model_parallel_size"),
                          world.source + " = " + std::to_string(w) + " GPUs is not a multiple of expert tensor x expert x pipeline parallel = " +
                              std::to_string(etp) + " x " + std::to_string(ep) + " x " + std::to_string(pp) + " = " +
                              std::to_string(etp * ep * pp) + " (megatron/core/parallel_state.py asserts it is)"});
    } else {
      const std::int64_t dp = w / model_parallel;
      if (global) {
        if (*global % (micro * dp) != 0)
          r.error(error_code::not_divisible, "global_batch_size",
                  "--global-batch-size " + std::to_string(*global) + " is not a multiple of --micro-batch-size " + std::to_string(micro) +
                      " x data parallel " + std::to_string(dp) + " (" + world.source + " " + std::to_string(w) + " GPUs / (tensor " +
                      std::to_string(tp) + " x pipeline " + std::to_string(pp) + " x context " + std::to_string(cp) +
                      ")); Megatron-LM's micro-batch calculator asserts it is");
        else
          read_because("batch.gradient_accumulation_steps", *global / (micro * dp), "global_batch_size",
                       "global batch / (micro-batch " + std::to_string(micro) + " x data parallel " + std::to_string(dp) + "), " +
                           kMegatronArgs);
      } else {
        r.trainer_default("batch.gradient_accumulation_steps", 1, std::string(kMegatronArgs) + " global_batch_size = micro_batch_size x data_parallel_size");
      }
    }
  } else if (global) {
    r.unresolved_key("global_batch_size", *global,
                     "global batch = micro-batch x accumulation x data-parallel GPUs, and the file gives no GPU count: " +
                         gpu_count_not_given({{"tensor", tp}, {"pipeline", pp}, {"context", cp}}));
  } else {
    r.trainer_default("batch.gradient_accumulation_steps", 1, std::string(kMegatronArgs) + " global_batch_size = micro_batch_size x data_parallel_size");
  }

  // ---- pipeline stages (arguments.py; transformer_block.py get_num_layers_to_build) ----
  std::int64_t vpp = 1;
  std::string vpp_key;
  if (auto n = args.positive("num_layers_per_virtual_pipeline_stage"); n && layers) {
    vpp_key = "num_layers_per_virtual_pipeline_stage";
    if (*layers % pp != 0 || (*layers / pp) % *n != 0)
      r.error(error_code::not_divisible, vpp_key, "--num-layers " + std::to_string(*layers) + " / pipeline " + std::to_string(pp) +
                                                      " is not a multiple of " + std::to_string(*n) + " (Megatron-LM asserts)");
    else vpp = *layers / pp / *n;
  }
  if (auto n = args.positive("num_virtual_stages_per_pipeline_rank")) {
    vpp_key = "num_virtual_stages_per_pipeline_rank";
    vpp = *n;
  }
  if (vpp > 1 && pp > 1) {
    r.read("parallel.virtual_pipeline_stages", vpp, vpp_key);
    r.read("parallel.pipeline_schedule", "interleaved_1f1b", vpp_key);
  }
  const auto first = args.count("decoder_first_pipeline_num_layers");
  const auto last = args.count("decoder_last_pipeline_num_layers");
  if ((first || last) && layers) {
    const std::string key = first ? "decoder_first_pipeline_num_layers" : "decoder_last_pipeline_num_layers";
    std::int64_t rest = *layers - first.value_or(0) - last.value_or(0);
    const std::int64_t middle_stages = pp - (first ? 1 : 0) - (last ? 1 : 0);
    if (rest < 0 || (middle_stages > 0 && rest % middle_stages != 0) || (middle_stages <= 0 && rest != 0)) {
      r.error(error_code::not_divisible, key, "the " + std::to_string(rest) + " layers left over are not a multiple of the " +
                                                  std::to_string(std::max<std::int64_t>(middle_stages, 0)) +
                                                  " other pipeline stages (transformer_block.py asserts they divide)");
    } else {
      std::vector<std::int64_t> stage(static_cast<std::size_t>(pp), middle_stages > 0 ? rest / middle_stages : 0);
      if (first) stage.front() = *first;
      if (last) stage.back() = *last;
      bool divisible = true;
      for (auto s : stage) divisible = divisible && s % vpp == 0;
      if (!divisible) {
        r.error(error_code::not_divisible, key, "a pipeline stage's layers are not a multiple of the " + std::to_string(vpp) +
                                                    " virtual stages (transformer_block.py asserts they are)");
      } else {
        // Chunk k sits on stage k mod pp: virtual stage v of every stage, in model order.
        std::vector<ConfigValue> chunks;
        for (std::int64_t v = 0; v < vpp; ++v)
          for (auto s : stage) chunks.emplace_back(s / vpp);
        r.read("parallel.pipeline_layers", ConfigValue(ConfigValue::Array(chunks)), key);
      }
    }
  }
  // The embedding and the loss counted as one layer each (pipeline_split.hpp megatron_counted_split);
  // not with the first/last stage counts (transformer_block.py asserts).
  const bool embedding = args.flag("account_for_embedding_in_pipeline_split");
  const bool loss = args.flag("account_for_loss_in_pipeline_split");
  if ((embedding || loss) && layers && pp > 1) {
    const std::string key = embedding ? "account_for_embedding_in_pipeline_split" : "account_for_loss_in_pipeline_split";
    const std::vector<std::int64_t> counts = megatron_counted_split(*layers, pp * vpp, embedding, loss);
    if (first || last) {
      r.error(error_code::inconsistent, key,
              "--" + key + " with --decoder-first/last-pipeline-num-layers (transformer_block.py asserts: "
              "no standalone embedding or loss stage with an uneven pipeline)",
              {{"reason", "pipeline_split_flags_combined"}});
    } else if (counts.empty()) {
      r.error(error_code::not_divisible, key, std::to_string(*layers) + " layers with the embedding and/or the loss do not split over pipeline " +
                                                  std::to_string(pp) + " x virtual stages " + std::to_string(vpp) +
                                                  " (transformer_block.py asserts they divide and leave the first and last chunk a layer count)");
    } else {
      r.read("parallel.pipeline_layers", ConfigValue(ConfigValue::Array(std::vector<ConfigValue>(counts.begin(), counts.end()))), key);
    }
  }

  // ---- activation recomputation (arguments.py; transformer_config.py; transformer_block.py) ----
  std::optional<std::string> granularity = args.text("recompute_granularity");
  std::string granularity_key = "recompute_granularity";
  if (args.flag("recompute_activations")) {
    granularity = "selective";  // arguments.py: --recompute-activations means selective
    granularity_key = "recompute_activations";
  }
  const auto method = args.text("recompute_method");
  const auto recompute_layers = args.positive("recompute_num_layers");
  if (!granularity) {
    r.trainer_default("activation_checkpointing", "none", std::string(kTransformerConfig) + " recompute_granularity = None");
  } else if (*granularity == "selective") {
    r.read("activation_checkpointing", "selective", granularity_key);
    r.read("selective_policy", "attention_core", granularity_key);  // recompute_modules default ["core_attn"]
    if (const ConfigValue* m = args.find("recompute_modules")) {
      const bool core_only = (m->is_string() && m->as_string() == "core_attn") ||
                             (m->is_array() && m->as_array().size() == 1 && m->as_array()[0] == ConfigValue("core_attn"));
      if (!core_only) r.unmodelled_key("recompute_modules", *m, "recomputing modules other than core attention is not modelled");
    }
  } else if (*granularity == "full") {
    if (!method || !recompute_layers) {
      r.error(error_code::missing_field, granularity_key,
              "full recomputation needs --recompute-method (uniform or block) and --recompute-num-layers (transformer_config.py raises)",
              {{"reason", "recompute_method_required"}});
    } else if (*method == "uniform") {
      r.read("activation_checkpointing", "full", granularity_key);
      if (*recompute_layers > 1)
        r.unmodelled_key("recompute_num_layers", *given.find("recompute_num_layers"),
                         "uniform recomputation of " + std::to_string(*recompute_layers) +
                             " layers per checkpoint (one saved input per group, the group recomputed at once) is estimated as one layer per checkpoint");
    } else if (*method == "block") {
      r.read("activation_checkpointing", "full", granularity_key);
      // transformer_block.py: the first recompute_num_layers layers of every model chunk.
      if (layers && *layers % (pp * vpp) == 0) {
        const std::int64_t per_chunk = *layers / (pp * vpp);
        r.read("checkpointed_layers", std::min(per_chunk, *recompute_layers) * pp * vpp, "recompute_num_layers");
      } else if (layers) {
        r.unmodelled_key("recompute_num_layers", *given.find("recompute_num_layers"), "block recomputation over uneven pipeline stages is not modelled");
      }
    } else {
      r.error(error_code::unknown_value, "recompute_method", "expected uniform or block, got \"" + *method + "\"");
    }
  } else {
    r.error(error_code::unknown_value, granularity_key, "expected full or selective, got \"" + *granularity + "\"");
  }

  // ---- attention kernels (TransformerConfig attention_backend = auto: Transformer Engine's flash or cuDNN fused) ----
  if (args.flag("use_flash_attn")) {
    r.read("attention", "flash", "use_flash_attn");
  } else if (auto b = args.text("attention_backend")) {
    if (*b == "auto" || *b == "flash" || *b == "fused") r.read("attention", "flash", "attention_backend");
    else if (*b == "unfused" || *b == "local") r.read("attention", "eager", "attention_backend");  // scores materialised
    else r.error(error_code::unknown_value, "attention_backend", "expected auto, flash, fused, unfused or local, got \"" + *b + "\"");
  } else {
    r.trainer_default("attention", "flash", std::string(kTransformerConfig) + " attention_backend = auto (Transformer Engine flash or fused attention)");
  }
  // ---- everything else ----
  for (const auto& [k, v] : given.as_object()) {
    if (args.used().count(k)) continue;
    if (no_memory_effect(k)) r.ignore(k, v, "no effect on training memory");
    else r.unmodelled_key(k, v, "a Megatron-LM argument this import does not map; it may change memory");
  }
  return r;
}

}  // namespace trainmem::import_detail
