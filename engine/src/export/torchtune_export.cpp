// TrainingSetup -> a torchtune launch line: `tune run [--nnodes N --nproc_per_node K] RECIPE --config
// NAME key=value ...`, the built-in config of the model and method with every memory setting given
// as an override (torchtune 0.7.0, pytorch/torchtune bd2a0fc: _cli/run.py, config/_utils.py
// _merge_yaml_and_cli_args, _recipe_registry.py for the config names, recipes/*.py for the keys
// they read). The inverse of engine/src/import/torchtune_reader.cpp given the same config file.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>

#include "../import/torchtune_builders.hpp"
#include "export_formats.hpp"
#include "trainmem/loss_memory.hpp"
#include "torchtune_configs.hpp"
#include "trainmem/framework_defaults.hpp"
#include "trainmem/lora_targeting.hpp"
#include "trainmem/precision.hpp"

namespace trainmem::export_detail {

namespace {

using import_detail::has_qlora_builders;
using import_detail::LoraOutput;
using import_detail::TorchtuneBuilder;

std::vector<std::string> words_of(const char* text) {
  std::vector<std::string> out;
  std::string w;
  for (const char* c = text;; ++c) {
    if (*c == ' ' || *c == '\0') {
      if (!w.empty()) out.push_back(w);
      w.clear();
      if (*c == '\0') return out;
    } else {
      w += *c;
    }
  }
}

// The keyword arguments of each component the line can name: torch.optim.AdamW / Adam / SGD
// (PyTorch 2.x torch/optim/adamw.py, adam.py, sgd.py, SGD's fused since 2.4), bitsandbytes 0.49.2
// (bitsandbytes-foundation/bitsandbytes f0e6ca3, bitsandbytes/optim/adamw.py AdamW8bit, PagedAdamW,
// PagedAdamW8bit; optim/lion.py Lion: no fused, no foreach), torchtune's LinearCrossEntropyLoss
// (modules/loss/cross_entropy_loss.py at bd2a0fc), torch.nn.CrossEntropyLoss.
std::set<std::string> component_arguments(const std::string& component) {
  if (component == "torch.optim.AdamW" || component == "torch.optim.Adam")
    return {"lr", "betas", "eps", "weight_decay", "amsgrad", "foreach", "maximize", "capturable", "differentiable", "fused"};
  if (component == "torch.optim.SGD")
    return {"lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize", "foreach", "differentiable", "fused"};
  if (component == "bitsandbytes.optim.AdamW8bit")
    return {"lr", "betas", "eps", "weight_decay", "amsgrad", "optim_bits", "args", "min_8bit_size", "percentile_clipping", "block_wise", "is_paged"};
  if (component == "bitsandbytes.optim.PagedAdamW" || component == "bitsandbytes.optim.PagedAdamW8bit")
    return {"lr", "betas", "eps", "weight_decay", "amsgrad", "optim_bits", "args", "min_8bit_size", "percentile_clipping", "block_wise"};
  if (component == "bitsandbytes.optim.Lion")
    return {"lr", "betas", "weight_decay", "optim_bits", "args", "min_8bit_size", "percentile_clipping", "block_wise", "is_paged"};
  if (component == "torchtune.modules.loss.LinearCrossEntropyLoss") return {"num_output_chunks", "ignore_index", "tp_enabled", "mask_ignored_tokens"};
  if (component == "torch.nn.CrossEntropyLoss") return {"weight", "size_average", "ignore_index", "reduce", "reduction", "label_smoothing"};
  return {};
}

// The arguments of a model builder (models/<family>/_model_builders.py at bd2a0fc): the full
// builders take none (Llama 3.2's tie_word_embeddings aside); lora_* and qlora_* (a partial with
// quantize_base=True) take the adapter settings their family defines.
std::set<std::string> builder_arguments(const TorchtuneBuilder& b, bool adapters) {
  std::set<std::string> args;
  if (std::string(b.family) == "llama3_2") args.insert("tie_word_embeddings");
  if (!adapters) return args;
  args.insert({"lora_attn_modules", "apply_lora_to_mlp", "lora_rank", "lora_alpha", "lora_dropout", "quantize_base"});
  if (b.lora_output != LoraOutput::absent) args.insert("apply_lora_to_output");
  if (b.takes_use_dora) args.insert("use_dora");
  return args;
}

// The built-in config to start from: the model's config for this method and device count, or the
// nearest one whose keys the same recipe reads (a QLoRA run starts from the LoRA config and swaps
// the builder; a single-device full run from the low-memory config; DoRA from the DoRA config
// where torchtune ships one).
std::string base_config(const TorchtuneBuilder& b, Method method, bool dora, bool single) {
  const std::string stem = std::string(b.family) + "/" + b.config_size + "_";
  const std::string kind = method == Method::full ? "full" : method == Method::qlora ? "qlora" : "lora";
  std::vector<std::string> candidates;
  if (dora && method != Method::full) candidates.push_back(stem + (method == Method::qlora ? "qdora" : "dora") + (single ? "_single_device" : ""));
  if (single) {
    candidates.push_back(stem + kind + "_single_device");
    if (method == Method::full) candidates.push_back(stem + "full_low_memory");
    if (method == Method::qlora) candidates.push_back(stem + "lora_single_device");
  } else {
    candidates.push_back(stem + kind);
    if (method == Method::qlora) candidates.push_back(stem + "lora");
  }
  for (const auto& c : candidates)
    if (torchtune_config(c)) return c;
  return "";
}

std::string boolean(bool b) { return b ? "True" : "False"; }

// A dropout probability as a YAML float OmegaConf reads back ("0.05", "0.0").
std::string probability(double p) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", p);
  std::string out = text;
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

// A word as bash reads it back: single-quoted when it holds anything but plain characters.
std::string shell_word(const std::string& w) {
  const bool plain = std::all_of(w.begin(), w.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '/' || c == '=' || c == ':' || c == ',';
  });
  return plain ? w : "'" + w + "'";
}

}  // namespace

ExportResult export_torchtune(const TrainingSetup& s) {
  ExportResult out;
  const auto& par = s.parallel;
  const bool single = par.world_size == 1;
  const bool adapters = uses_adapters(s.method);
  std::vector<std::string> overrides;
  auto set = [&](const std::string& key, const std::string& value) { overrides.push_back(key + "=" + value); };
  out.carried = {"method", "batch.micro_batch_size", "batch.gradient_accumulation_steps", "batch.seq_length", "precision.param_dtype",
                 "precision.compute_dtype", "precision.optimizer", "precision.optimizer_implementation", "activation_checkpointing",
                 "activation_offload", "compile", "loss.implementation", "loss.num_chunks", "parallel.world_size",
                 "parallel.gpus_per_node", "parallel.sharding_engine", "parallel.zero_stage", "attention"};
  if (s.framework == Framework::torchtune) out.carried.push_back("framework");
  else out.not_expressible.emplace_back("framework", "a torchtune line trains with torchtune's recipes");

  // The model and the config it starts from.
  const TorchtuneBuilder* b = import_detail::torchtune_builder_for(s.model.preset);
  std::string config;
  if (s.method == Method::freeze) out.not_expressible.emplace_back("method", "torchtune's recipes train in full or with LoRA adapters");
  if (!b) {
    out.not_expressible.emplace_back("model", "the model has no torchtune builder in this export (torchtune/models/*/_model_builders.py)");
  } else {
    out.carried.push_back("model");
    config = base_config(*b, s.method == Method::freeze ? Method::full : s.method, s.lora.use_dora, single);
    const bool qlora_partial = s.method == Method::qlora && has_qlora_builders(*b);
    const std::string prefix = qlora_partial ? "qlora_" : adapters ? "lora_" : "";
    set("model", std::string("torchtune.models.") + b->family + "." + prefix + b->builder);
    if (s.method == Method::qlora && !qlora_partial) set("model.quantize_base", "True");
    if (config.empty()) out.not_expressible.emplace_back("model", "torchtune ships no built-in config for this model, method and GPU count");
  }
  const std::string recipe = std::string(adapters ? "lora" : "full") + "_finetune_" + (single ? "single_device" : "distributed");

  // Adapters (models/<family>/_model_builders.py lora_* arguments; PEFT names -> torchtune's).
  if (adapters) {
    out.carried.push_back("lora");
    if (s.method == Method::qlora) {
      out.carried.push_back("qlora");
      if (s.qlora.quant_method == QuantMethod::hqq || s.qlora.quant_type != Dtype::nf4 || !s.qlora.double_quant)
        out.not_expressible.emplace_back("qlora", "torchtune quantizes the base to NF4 with quantized scalers (torchao to_nf4)");
    }
    set("model.lora_rank", std::to_string(s.lora.r));
    set("model.lora_dropout", probability(s.lora.lora_dropout));
    if (!b || b->takes_use_dora) set("model.use_dora", boolean(s.lora.use_dora));
    else if (s.lora.use_dora) out.not_expressible.emplace_back("lora.use_dora", "this model's LoRA builder has no use_dora argument");
    // The targets the estimate priced: with none given, the family's PEFT defaults.
    const std::vector<std::string>& targets =
        s.model.architecture ? effective_target_modules(*s.model.architecture, s.lora) : s.lora.target_modules;
    std::set<std::string> names(targets.begin(), targets.end());
    // A regex (PEFT's string target_modules) names the modules it matches: the linears it adapts
    // in every layer, by name; one it adapts in some layers only is no torchtune setting.
    bool some_layers_only = false;
    if (s.lora.target_pattern && s.model.architecture) {
      const LoraTargeting targeting(*s.model.architecture, s.lora);
      for (std::size_t g = 0; g < s.model.architecture->layers.size(); ++g) {
        const LayerGroup& group = s.model.architecture->layers[g];
        for (std::size_t i = 0; i < group.linears.size(); ++i) {
          if (targeting.adapter_params(g, i, 0, group.count) <= 0) continue;
          names.insert(group.linears[i].name);
          for (std::int64_t layer = 0; layer < group.count && !some_layers_only; ++layer)
            some_layers_only = targeting.adapter_params(g, group.linears[i], layer) <= 0;
        }
      }
      if (targeting.lm_head_adapter() > 0) names.insert("lm_head");
    }
    if (names.count("all-linear")) names = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
    if (names.erase("qkv_proj")) names.insert({"q_proj", "k_proj", "v_proj"});
    if (names.erase("gate_up_proj")) names.insert({"gate_proj", "up_proj"});
    std::vector<std::string> attn;
    for (const char* n : {"q_proj", "k_proj", "v_proj", "o_proj"})
      if (names.erase(n)) attn.push_back(std::string(n) == "o_proj" ? "output_proj" : n);
    const int mlp = static_cast<int>(names.erase("gate_proj") + names.erase("up_proj") + names.erase("down_proj"));
    const bool output = names.erase("lm_head") > 0;
    // Each PEFT setting torchtune's builders have no argument for, named by its own field.
    if (!s.lora.rank_pattern.empty())
      out.not_expressible.emplace_back("lora.rank_pattern", "torchtune's LoRA builders take one lora_rank for every adapted module");
    if (!s.lora.layers_to_transform.empty())
      out.not_expressible.emplace_back("lora.layers_to_transform", "torchtune adapts the chosen modules on every layer");
    if (!s.lora.exclude_modules.empty() || s.lora.exclude_pattern)
      out.not_expressible.emplace_back("lora.exclude_modules", "torchtune names the modules to adapt, none to leave out");
    if (!s.lora.modules_to_save.empty())
      out.not_expressible.emplace_back("lora.modules_to_save", "torchtune trains no whole module beside the adapters");
    const bool other = some_layers_only;
    if (!s.model.architecture)
      out.not_expressible.emplace_back("lora.target_modules", "a parameter count names no modules to adapt; torchtune's builders need them");
    else if (!names.empty() || (mlp != 0 && mlp != 3) || other)
      out.not_expressible.emplace_back("lora.target_modules", "torchtune adapts a subset of q/k/v/output projections, the whole MLP (apply_lora_to_mlp) and the output (apply_lora_to_output), on every layer");
    std::string list;
    for (const auto& a : attn) list += (list.empty() ? "" : ",") + a;
    set("model.lora_attn_modules", "[" + list + "]");
    set("model.apply_lora_to_mlp", boolean(mlp == 3));
    // apply_lora_to_output is written only where the builder takes it and can adapt the output.
    if (!b || b->lora_output == LoraOutput::adaptable) set("model.apply_lora_to_output", boolean(output));
    else if (output)
      out.not_expressible.emplace_back("lora.target_modules", b->lora_output == LoraOutput::tied
          ? "this model's output is tied to the embedding: its LoRA builder refuses apply_lora_to_output=True"
          : "this model's LoRA builder takes no apply_lora_to_output");
  }

  // Batch, sequence and precision.
  set("batch_size", std::to_string(s.batch.micro_batch_size));
  set("gradient_accumulation_steps", std::to_string(s.batch.gradient_accumulation_steps));
  // A length the document leaves to the preset's default is not written: the config's own applies.
  if (s.batch.seq_length && !s.unstated.seq_length) set("tokenizer.max_seq_len", std::to_string(*s.batch.seq_length));
  // Every sample at max_seq_len tokens is a packed dataset (datasets/_packed.py, which needs
  // max_seq_len); an unpacked one is padded per batch to its longest sample (data/_collate.py).
  if (s.batch.padding.value_or(Padding::max_length) == Padding::longest) {
    set("dataset.packed", "False");
    out.carried.push_back("batch.padding");
  } else if (s.batch.seq_length && !s.unstated.seq_length) {
    set("dataset.packed", "True");
    out.carried.push_back("batch.padding");
  } else {
    out.not_expressible.emplace_back("batch.padding", "every sample at the maximum length is a packed dataset, which needs "
                                                      "tokenizer.max_seq_len: the document leaves the length to the preset");
  }
  const ResolvedPrecision p = resolve_precision(s);
  if (p.param_dtype == p.compute_dtype && (p.param_dtype == Dtype::bf16 || p.param_dtype == Dtype::fp32)) {
    set("dtype", p.param_dtype == Dtype::bf16 ? "bf16" : "fp32");
  } else {
    set("dtype", "bf16");
    out.not_expressible.emplace_back("precision.param_dtype", "torchtune trains weights and compute in one dtype, bf16 or fp32");
  }
  // The recipes build the model under set_default_dtype(dtype): no fp32 master copy, optimizer
  // states in the training dtype. A document saying so is carried; one that asks otherwise is not.
  if (!p.master_weights) out.carried.push_back("precision.master_weights");
  else out.not_expressible.emplace_back("precision.master_weights", "torchtune keeps no fp32 master copy");
  // The bitsandbytes 32-bit optimizers written below (PagedAdamW, Lion) keep fp32 states whatever the
  // training dtype.
  const bool bnb_32bit = bitsandbytes_32bit_states(s.precision.optimizer);
  if (p.optimizer_state_dtype == (bnb_32bit ? Dtype::fp32 : p.param_dtype)) out.carried.push_back("precision.optimizer_state_dtype");
  else if (bnb_32bit) out.not_expressible.emplace_back("precision.optimizer_state_dtype", "bitsandbytes' 32-bit optimizers keep fp32 states");
  else out.not_expressible.emplace_back("precision.optimizer_state_dtype", "torchtune's optimizer states are in the training dtype");
  if (adapters && adapter_dtype(s) != p.param_dtype)
    out.not_expressible.emplace_back("lora.adapter_dtype", "torchtune builds the adapters in the training dtype");

  // Optimizer (recipes instantiate cfg.optimizer; torch's AdamW takes fused / foreach).
  std::string optimizer;
  switch (s.precision.optimizer) {
    case Optimizer::adamw: optimizer = "torch.optim.AdamW"; break;
    case Optimizer::adam: optimizer = "torch.optim.Adam"; break;
    case Optimizer::sgd: optimizer = "torch.optim.SGD"; break;
    case Optimizer::adamw_8bit: optimizer = "bitsandbytes.optim.AdamW8bit"; break;
    case Optimizer::paged_adamw: optimizer = "bitsandbytes.optim.PagedAdamW"; break;
    case Optimizer::paged_adamw_8bit: optimizer = "bitsandbytes.optim.PagedAdamW8bit"; break;
    case Optimizer::lion: optimizer = "bitsandbytes.optim.Lion"; break;
    default: out.not_expressible.emplace_back("precision.optimizer", "no optimizer component of this kind in the export"); break;
  }
  if (!optimizer.empty()) set("optimizer", optimizer);
  if (component_arguments(optimizer).count("fused")) {
    // torch's optimizers: fused=True, or foreach (their CUDA default) with fused=False.
    const OptimizerImplementation impl = optimizer_implementation(s);
    set("optimizer.fused", boolean(impl == OptimizerImplementation::fused));
    if (impl == OptimizerImplementation::for_loop)
      out.not_expressible.emplace_back("precision.optimizer_implementation", "the for-loop step is not chosen by a config key");
  }
  if (!adapters) {
    out.carried.push_back("precision.optimizer_in_backward");
    set("optimizer_in_bwd", boolean(s.precision.optimizer_in_backward));
  } else if (s.precision.optimizer_in_backward) {
    out.not_expressible.emplace_back("precision.optimizer_in_backward", "the LoRA recipes have no optimizer_in_bwd");
  }

  // Activations, loss and compile (recipes: enable_activation_*, cfg.loss, compile).
  if (s.activation_checkpointing == Checkpointing::selective)
    out.not_expressible.emplace_back("activation_checkpointing", "selective checkpointing is ac_mode/ac_option, not written by this export");
  set("enable_activation_checkpointing", boolean(s.activation_checkpointing != Checkpointing::none));
  if (s.activation_offload && s.activation_checkpointing == Checkpointing::none)
    out.not_expressible.emplace_back("activation_offload", "the recipes offload only with activation checkpointing on");
  set("enable_activation_offloading", boolean(s.activation_offload && s.activation_checkpointing != Checkpointing::none));
  const LossImplementation loss = s.loss.implementation.value_or(framework_behaviour(s).loss);
  const std::string loss_component = loss == LossImplementation::full ? "torch.nn.CrossEntropyLoss" : "torchtune.modules.loss.LinearCrossEntropyLoss";
  set("loss", loss_component);
  if (loss == LossImplementation::chunked) set("loss.num_output_chunks", std::to_string(s.loss.num_chunks.value_or(kDefaultLossChunks)));
  if (loss != LossImplementation::chunked && loss != LossImplementation::full)
    out.not_expressible.emplace_back("loss.implementation", "torchtune has no fused linear cross-entropy kernel; its chunked loss is written");
  set("compile", boolean(s.compile));
  if (s.compile && compile_scope(s) != CompileScope::blocks_and_loss)
    out.not_expressible.emplace_back("compile", "torchtune's compile: True compiles the model and the loss");
  if (s.attention != AttentionImplementation::sdpa)
    out.not_expressible.emplace_back("attention", "torchtune's attention is torch's scaled_dot_product_attention");

  // GPUs and sharding (torchrun options; training/_distributed.py shard_model).
  std::string launch = "tune run";
  if (sharding_engine(s) != ShardingEngine::fsdp2)
    out.not_expressible.emplace_back("parallel.sharding_engine", "torchtune's distributed recipes shard with FSDP2");
  out.carried.insert(out.carried.end(), {"parallel.offload_param", "parallel.offload_optimizer"});
  if (!single) {
    out.carried.push_back("parallel.reshard_after_forward");
    const std::int64_t per_node = std::min(par.gpus_per_node, par.world_size);
    if (par.world_size % per_node == 0) {
      launch += " --nnodes " + std::to_string(par.world_size / per_node) + " --nproc_per_node " + std::to_string(per_node);
    } else {
      launch += " --nnodes 1 --nproc_per_node " + std::to_string(par.world_size);
      out.not_expressible.emplace_back("parallel.gpus_per_node", "the GPUs must fill whole nodes");
    }
    if (par.zero_stage != 3) out.not_expressible.emplace_back("parallel.zero_stage", "torchtune's distributed recipes shard fully with FSDP2");
    set("fsdp_reshard_after_forward", boolean(par.reshard_after_forward));
    const bool offload = par.offload_param == OffloadTarget::cpu && par.offload_optimizer == OffloadTarget::cpu;
    note_joint_offload(out, par, offload, "FSDP2's CPU offload moves parameters, gradients and the optimizer step together");
    set("fsdp_cpu_offload", boolean(offload));
  } else {
    note_joint_offload(out, par, false, "the single-device recipes do not offload states");
  }
  const bool full_distributed = !single && !adapters;
  if (par.tensor_parallel_size > 1 || par.context_parallel_size > 1) {
    if (full_distributed) {
      out.carried.insert(out.carried.end(), {"parallel.tensor_parallel_size", "parallel.context_parallel_size"});
      if (par.tensor_parallel_size > 1) set("tensor_parallel_dim", std::to_string(par.tensor_parallel_size));
      if (par.context_parallel_size > 1) set("context_parallel_dim", std::to_string(par.context_parallel_size));
    } else {
      out.not_expressible.emplace_back("parallel.tensor_parallel_size", "tensor and context parallelism are in full_finetune_distributed only");
    }
  }
  if (s.precision.fp8_compute) {
    if (full_distributed) {
      out.carried.push_back("precision.fp8_compute");
      set("enable_fp8_training", "True");
    } else {
      out.not_expressible.emplace_back("precision.fp8_compute", "FP8 training is in full_finetune_distributed only");
    }
  }
  if (s.rlhf)
    out.not_expressible.emplace_back("rlhf", "the line is a supervised fine-tuning recipe: torchtune's DPO, PPO and GRPO recipes are not written by this export");

  // A switched component keeps the config's other keys (OmegaConf.merge): each one the new
  // component does not take is removed with ~block.key, which tune run accepts only for a key the
  // config has -- hence the table of the named config's keys.
  if (const TorchtuneConfig* base = config.empty() ? nullptr : torchtune_config(config)) {
    auto remove_others = [&](const std::string& block, const char* keys, const std::set<std::string>& taken) {
      for (const auto& k : words_of(keys))
        if (!taken.count(k)) overrides.push_back("~" + block + "." + k);
    };
    if (!optimizer.empty()) remove_others("optimizer", base->optimizer_keys, component_arguments(optimizer));
    remove_others("loss", base->loss_keys, component_arguments(loss_component));
    if (b) remove_others("model", base->model_keys, builder_arguments(*b, adapters));
    // A config that quantizes through a lora_ builder (the QDoRA config) keeps doing so unless told.
    const auto model_keys = words_of(base->model_keys);
    if (adapters && s.method != Method::qlora && std::find(model_keys.begin(), model_keys.end(), "quantize_base") != model_keys.end())
      overrides.push_back("model.quantize_base=False");
  }

  std::string line = launch + " " + recipe + " --config " + (config.empty() ? std::string("CONFIG") : config);
  for (const auto& o : overrides) line += " " + shell_word(o);
  out.config = ConfigValue(line);
  return out;
}

}  // namespace trainmem::export_detail
