#include "trainmem/uncertainty.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "trainmem/framework_defaults.hpp"
#include "trainmem/precision.hpp"
#include "trainmem/userbuffers.hpp"
#include "trainmem/vision_activations.hpp"

namespace trainmem {

namespace {

// Allocator overhead above the allocated bytes: up to 30 %, the last step of the estimation
// procedure the project implements (docs/memory-model.md, "Uncertainty band"). Its 10 % is the
// point estimate's floor, not a lower bound: this project's 32 H200 runs
// (tests/fixtures/measured_h200_hf_trainer.json, readings.peak_reserved_bytes over measured_bytes)
// reserved between 0.2 % and 20.7 % above the allocated peak, 19 of them under 10 %, so the band's
// low end is the reserve the allocator's rules alone give (allocator.hpp).
constexpr double kFragmentationHigh = 0.30;
// CUDA context of one process, measured by cudaMemGetInfo after one small tensor
// (pytorch/pytorch#86509): 287,047,680 B with lazy module loading (CUDA_MODULE_LOADING=LAZY, which
// PyTorch sets by default since 1.13) and 666,632,192 B with eager loading.
constexpr double kContextLazyBytes = 287047680.0;
constexpr double kContextEagerBytes = 666632192.0;

// A setting the document left out, re-estimated at another value the framework uses in its own
// configurations or versions.
struct Alternative {
  const char* source;
  std::string label;  // "field: value"
  std::function<void(TrainingSetup&)> apply;
  const char* reference;
};


std::vector<Alternative> alternatives(const TrainingSetup& s) {
  std::vector<Alternative> out;
  const bool arch = s.model.architecture.has_value();
  if (arch && s.unstated.activation_checkpointing) {
    const Checkpointing other = s.activation_checkpointing == Checkpointing::none ? Checkpointing::full : Checkpointing::none;
    const char* other_name = other == Checkpointing::full ? "activation_checkpointing: full" : "activation_checkpointing: none";
    if (s.framework == Framework::torchtune) {
      out.push_back({"unstated_activation_checkpointing", other_name, [other](TrainingSetup& t) { t.activation_checkpointing = other; },
                     "pytorch/torchtune recipes/configs (v0.6): enable_activation_checkpointing is True in most configs and "
                     "False in others (llama3/8B_lora.yaml, llama2/7B_lora.yaml)"});
    } else if (s.framework == Framework::hf_trainer) {
      out.push_back({"unstated_activation_checkpointing", other_name, [other](TrainingSetup& t) { t.activation_checkpointing = other; },
                     "transformers TrainingArguments.gradient_checkpointing defaults to False; TRL's configs default it to True "
                     "since huggingface/trl#3510 (2025-08); PEFT prepare_model_for_kbit_training turns it on for k-bit models"});
    } else if (s.framework == Framework::torchtitan && s.activation_checkpointing == Checkpointing::none) {
      out.push_back({"unstated_activation_checkpointing", "activation_checkpointing: selective (op_level)",
                     [](TrainingSetup& t) {
                       t.activation_checkpointing = Checkpointing::selective;
                       t.selective_policy = SelectivePolicy::op_level;
                     },
                     "pytorch/torchtitan torchtitan/config/job_config.py: activation_checkpoint.mode defaults to \"selective\" "
                     "(op-level SAC) since 2025-04"});
    }
  }
  if (arch && !s.loss.implementation && s.framework == Framework::torchtune) {
    out.push_back({"unstated_loss_implementation", "loss.implementation: full",
                   [](TrainingSetup& t) { t.loss.implementation = LossImplementation::full; },
                   "pytorch/torchtune#1390 (2024-08-28): CEWithChunkedOutputLoss replaced torch.nn.CrossEntropyLoss in the "
                   "recipe configs; earlier configs compute the loss over the full logits"});
  }
  if (arch && !s.parallel.gradient_sync && s.batch.gradient_accumulation_steps > 1 &&
      gradient_sync(s) == GradientSync::last_micro_batch && (s.framework == Framework::hf_trainer || s.framework == Framework::fsdp)) {
    out.push_back({"unstated_gradient_sync", "parallel.gradient_sync: every_micro_batch",
                   [](TrainingSetup& t) { t.parallel.gradient_sync = GradientSync::every_micro_batch; },
                   "accelerate GradientAccumulationPlugin(sync_each_batch=True), in TrainingArguments as "
                   "accelerator_config.gradient_accumulation_kwargs: reduces after every micro-batch instead of no_sync"});
  }
  // torchtune's single-device full fine-tuning configs step a paged 8-bit AdamW inside backward;
  // the engine's default is AdamW stepped after backward, what its multi-device configs use.
  const bool unstated_in_backward = s.unstated.optimizer_in_backward && s.batch.gradient_accumulation_steps == 1;
  if (s.framework == Framework::torchtune && s.method == Method::full && s.parallel.world_size == 1 &&
      (s.unstated.optimizer || unstated_in_backward)) {
    std::string label;
    if (s.unstated.optimizer) label = "precision.optimizer: paged_adamw_8bit";
    if (unstated_in_backward) label += std::string(label.empty() ? "" : ", ") + "precision.optimizer_in_backward: true";
    const bool optimizer = s.unstated.optimizer;
    out.push_back({"unstated_optimizer", label,
                   [optimizer, unstated_in_backward](TrainingSetup& t) {
                     if (optimizer) t.precision.optimizer = Optimizer::paged_adamw_8bit;
                     if (unstated_in_backward) t.precision.optimizer_in_backward = true;
                   },
                   "pytorch/torchtune recipes/configs at v0.3.0 and v0.6.0: llama3_1/8B_full_single_device.yaml steps "
                   "bitsandbytes.optim.PagedAdamW8bit (llama2/7B_full_low_memory.yaml PagedAdamW) with optimizer_in_bwd: "
                   "True (requires gradient_accumulation_steps=1); the multi-device llama3_1/8B_full.yaml steps "
                   "torch.optim.AdamW after backward"});
  }
  const bool adapters = uses_adapters(s.method);
  if (arch && adapters && s.unstated.lora && s.framework == Framework::torchtune) {
    auto lora = [](std::int64_t r, std::vector<std::string> targets) {
      return [r, targets](TrainingSetup& t) {
        t.lora.r = r;
        t.lora.target_modules = targets;
      };
    };
    out.push_back({"unstated_lora", "lora: r 8 on q_proj, v_proj", lora(8, {"q_proj", "v_proj"}),
                   "pytorch/torchtune v0.3.0 recipes/configs/llama3_1/8B_lora_single_device.yaml: lora_rank 8, "
                   "lora_attn_modules [q_proj, v_proj]"});
    out.push_back({"unstated_lora", "lora: r 64 on q_proj, v_proj, o_proj, gate_proj, up_proj, down_proj",
                   lora(64, {"q_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}),
                   "pytorch/torchtune v0.6.0 recipes/configs/llama3_2/3B_lora_single_device.yaml: lora_rank 64, "
                   "lora_attn_modules [q_proj, v_proj, output_proj], apply_lora_to_mlp: True"});
  } else if (arch && adapters && s.unstated.lora && trains_transformers_model(s.framework)) {
    out.push_back({"unstated_lora", "lora.r: 8", [](TrainingSetup& t) { t.lora.r = 8; },
                   "huggingface/peft src/peft/tuners/lora/config.py: LoraConfig.r defaults to 8"});
  }
  // Only where the model's kernel is in doubt: a model with an SDPA path runs it (transformers >= v4.36,
  // 2023-12), one without runs eager, and both are the estimate already.
  const TransformersAttention kernel = arch ? s.model.architecture->transformers_attention : TransformersAttention::sdpa;
  const bool kernel_in_doubt = kernel == TransformersAttention::sdpa_eager_advised || kernel == TransformersAttention::unknown;
  if (arch && s.unstated.attention && s.framework == Framework::hf_trainer && kernel_in_doubt) {
    out.push_back({"unstated_attention", "attention: eager",
                   [](TrainingSetup& t) { t.attention = AttentionImplementation::eager; },
                   kernel == TransformersAttention::sdpa_eager_advised
                       ? "transformers modeling_gemma2.py / modeling_gemma3.py: the ForCausalLM forward logs \"It is strongly "
                         "recommended to train Gemma2 [Gemma3] models with the `eager` attention implementation\" when it runs sdpa"
                       : "a model_type outside transformers' own modeling files (remote code, or no family layout here) picks "
                         "its attention kernel in its own code: eager where it has no fused path"});
  }
  static constexpr std::int64_t kCommonTruncation = 1024;
  if (arch && s.unstated.seq_length && s.batch.seq_length.value_or(4096) > kCommonTruncation) {
    out.push_back({"unstated_seq_length", "batch.seq_length: 1024",
                   [](TrainingSetup& t) { t.batch.seq_length = kCommonTruncation; },
                   "the data sets the padded length up to the trainer's truncation: TRL SFTConfig max_length defaults to 1024 "
                   "(min(tokenizer.model_max_length, 1024) before v0.20), transformers examples run_clm.py block_size to 1024"});
  }
  // Batches padded to their longest sample reach seq_length only when a sample is that long: the
  // low end is a batch of the shortest samples the layout takes (a multiple of 2 x CP x TP, what
  // ring attention's and sequence parallelism's splits need, holding the sample's image tokens and
  // one text token), the point the batch at seq_length.
  const std::int64_t unit = 2 * s.parallel.context_parallel_size * s.parallel.tensor_parallel_size;
  const std::int64_t image_tokens =
      arch && s.model.architecture->vision ? vision_activations(s, *s.model.architecture, Dtype::bf16).lm_image_tokens : 0;
  const std::int64_t shortest = unit * ((image_tokens + 1 + unit - 1) / unit);
  if (arch && s.batch.padding == Padding::longest && s.batch.seq_length.value_or(4096) > shortest) {
    out.push_back({"data_dependent_seq_length", "batch.seq_length: " + std::to_string(shortest) + " (a batch of short samples)",
                   [shortest](TrainingSetup& t) { t.batch.seq_length = shortest; },
                   "batch.padding longest: the collator pads each batch to its longest sample, truncated at seq_length "
                   "(pytorch/torchtune torchtune/data/_collate.py padded_collate_sft; huggingface/trl "
                   "DataCollatorForLanguageModeling; transformers DataCollatorWithPadding, padding=True), so the data "
                   "sets how long the longest batch a run meets is"});
  }
  if (!s.precision.optimizer_implementation && adam_family(s.precision.optimizer) &&
      (s.framework == Framework::hf_trainer || s.framework == Framework::fsdp)) {
    out.push_back({"framework_version_optimizer_implementation", "precision.optimizer_implementation: for_loop",
                   [](TrainingSetup& t) { t.precision.optimizer_implementation = OptimizerImplementation::for_loop; },
                   "HF Trainer optim adamw_hf (one tensor at a time) before transformers v4.32 (huggingface/transformers#25109)"});
    out.push_back({"framework_version_optimizer_implementation", "precision.optimizer_implementation: fused",
                   [](TrainingSetup& t) { t.precision.optimizer_implementation = OptimizerImplementation::fused; },
                   "HF Trainer optim adamw_torch_fused by default with torch >= 2.8"});
  }
  if (arch && s.compile && !s.compile_scope && s.framework == Framework::torchtitan) {
    out.push_back({"framework_version_compile_scope", "compile: blocks",
                   [](TrainingSetup& t) { t.compile_scope = CompileScope::blocks; },
                   "pytorch/torchtitan#1033 (2025-04-02): training.compile compiles the loss too; before, the "
                   "TransformerBlocks alone (apply_compile)"});
  }
  if (arch && !s.loss.held_logits && s.framework == Framework::torchtune && s.loss.implementation == LossImplementation::full) {
    out.push_back({"framework_version_held_logits", "loss.held_logits: fp32",
                   [](TrainingSetup& t) { t.loss.held_logits = HeldLogits::fp32; },
                   "pytorch/torchtune#1235 (2024-07-28; #1046 for lora_finetune_distributed, 2024-06-04): the recipes "
                   "delete the logits before backward; before, the fp32 logits (TransformerDecoder.forward returned "
                   "self.output(h).float()) stayed referenced through backward"});
  }
  // Gradients built in backward (framework_defaults.hpp) hold only where the loop frees them; a
  // step of one micro-batch is then below the same run on PyTorch 1.x by the gradients. Only the
  // loops that ran on PyTorch 1.x: the HF Trainer's and accelerate's (torchtune's recipes pass
  // set_to_none=True themselves, and torchtitan needs PyTorch 2).
  const bool ran_on_torch1 = s.framework == Framework::hf_trainer || s.framework == Framework::fsdp;
  if (ran_on_torch1 && !s.zero_grad_set_to_none && framework_behaviour(s).gradients_freed_between_steps &&
      s.batch.gradient_accumulation_steps == 1 && s.parallel.pipeline_parallel_size == 1 && !s.precision.optimizer_in_backward) {
    out.push_back({"framework_version_zero_grad", "zero_grad_set_to_none: false",
                   [](TrainingSetup& t) { t.zero_grad_set_to_none = false; },
                   "pytorch/pytorch#92731 (PyTorch 2.0, 2023-03): zero_grad() sets gradients to None by default; on PyTorch "
                   "1.x, and in the HF Trainer before huggingface/transformers#22136 (2023-03), they were zeroed in place "
                   "and kept through the step"});
  }
  if (arch && !s.qlora.saves_base_inputs && qlora_through_bitsandbytes(s)) {
    out.push_back({"framework_version_bitsandbytes", "qlora.saves_base_inputs: true",
                   [](TrainingSetup& t) { t.qlora.saves_base_inputs = true; },
                   s.qlora.quant_type == Dtype::int8
                       ? "bitsandbytes-foundation/bitsandbytes#1401 (v0.45.0, 2024-12-05): MatMul8bitLt kept an int8 copy "
                         "of each 8-bit linear's input (CAt, from F.double_quant) beside the input up to v0.44.1, and skips "
                         "it for a frozen weight since"
                       : "bitsandbytes-foundation/bitsandbytes#1270 (v0.43.2, 2024-07-16): MatMul4Bit kept each 4-bit "
                         "linear's input for the backward (ctx.tensors = (A, B)) up to v0.43.1, and keeps (None, B) since"});
  }
  // Adapters without a dtype over 16-bit weights are fp32 under PEFT >= 0.12 (peft_upcasts_adapters);
  // earlier PEFT, and TRL under ZeRO-3 for a 16-bit base (autocast_adapter_dtype=False,
  // huggingface/trl#6089), hold them in the weights' dtype.
  if (arch && uses_adapters(s.method) && peft_upcasts_adapters(s)) {
    const Dtype weights = resolve_precision(s).param_dtype;
    out.push_back({"framework_version_peft_adapter_dtype", "lora.adapter_dtype: " + std::string(dtype_name(weights)),
                   [weights](TrainingSetup& t) {
                     t.lora.adapter_dtype = weights;
                     t.unstated.adapter_dtype = false;
                   },
                   "huggingface/peft v0.12.0 (2024-07): get_peft_model(autocast_adapter_dtype=True) upcasts 16-bit "
                   "adapters to fp32; before, and where TRL passes autocast_adapter_dtype=False (ZeRO-3 over a 16-bit "
                   "base, huggingface/trl#6089), they take the weights' dtype"});
  }
  // PEFT's prepare_model_for_kbit_training casts every parameter left unquantized around a 4- or
  // 8-bit base to fp32 (peft src/peft/utils/other.py), which the document says as param_dtype fp32
  // under 16-bit compute. Callers differ by version: only where the weights' dtype is unstated and
  // the model is not sharded (TRL and axolotl skip it under FSDP and ZeRO-3), and not under
  // DeepSpeed, whose bf16/fp16 engine casts every floating parameter back to 16 bits
  // (deepspeed/runtime/engine.py _configure_distributed_model, _cast_module_mixed_precision).
  const bool deepspeed = sharding_engine(s) == ShardingEngine::deepspeed && (s.parallel.zero_stage > 0 || s.framework == Framework::deepspeed);
  if (arch && qlora_through_bitsandbytes(s) && !s.precision.param_dtype && !shards_frozen_weights(s) && !deepspeed &&
      resolve_precision(s).compute_dtype != Dtype::fp32) {
    const Dtype compute = resolve_precision(s).compute_dtype;
    out.push_back({"framework_version_kbit_preparation", "precision.param_dtype: fp32",
                   [compute](TrainingSetup& t) {
                     t.precision.param_dtype = Dtype::fp32;
                     t.precision.compute_dtype = compute;
                   },
                   "huggingface/trl#4577 (2025-12-04): SFTTrainer called PEFT's prepare_model_for_kbit_training on a "
                   "quantized, unsharded base from huggingface/trl#728 (2023-09) until then, as axolotl still does "
                   "(loaders/model.py) and PEFT's QLoRA examples do; it casts the weights left unquantized to fp32"});
  }
  if (!s.parallel.sharding_engine && s.framework == Framework::torchtune && s.parallel.zero_stage > 0 &&
      s.parallel.data_parallel_size > 1) {
    out.push_back({"framework_version_sharding_engine", "parallel.sharding_engine: fsdp",
                   [](TrainingSetup& t) { t.parallel.sharding_engine = ShardingEngine::fsdp; },
                   "torchtune recipes wrapped the model in FSDP1 (FullyShardedDataParallel) before v0.2 and shard with "
                   "FSDP2 fully_shard since"});
  }
  return out;
}

double term_bytes(const UncertaintyTerm& t) { return t.below + t.above; }

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::fits: return "fits";
    case Verdict::borderline: return "borderline";
    case Verdict::does_not_fit: return "does_not_fit";
  }
  return "";
}

std::optional<Band> uncertainty_band(const TrainingSetup& s, const Estimate& e) {
  const PerGpu& g = e.per_gpu;
  if (!g.peak_allocated || !g.peak_reserved || !g.peak) return std::nullopt;
  const double allocated = *g.peak_allocated, reserved = *g.peak_reserved, peak = *g.peak;
  Band band;

  // Unstated settings: the spread of the allocated peak over the alternatives, one term per source,
  // with the alternative of each source that lowers (raises) the peak most.
  std::vector<UncertaintyTerm> allocated_terms;
  std::vector<const Alternative*> lowest, highest;  // per term
  // Userbuffers (outside the allocator) follow the sequence length: what each term's lowest
  // (highest) alternative moves them by, bytes.
  const double ub = g.userbuffers.value_or(0.0);
  std::vector<double> ub_below, ub_above;  // per term
  const std::vector<Alternative> alts = alternatives(s);
  for (const Alternative& alt : alts) {
    TrainingSetup other = s;
    alt.apply(other);
    if (!validate(other).empty()) continue;
    const Estimate o = estimate(other);
    if (!o.per_gpu.peak_allocated || !std::isfinite(*o.per_gpu.peak_allocated)) continue;
    const double delta = *o.per_gpu.peak_allocated - allocated;
    const double ub_delta = o.per_gpu.userbuffers.value_or(0.0) - ub;
    auto same = std::find_if(allocated_terms.begin(), allocated_terms.end(),
                             [&](const UncertaintyTerm& t) { return t.source == alt.source; });
    if (same == allocated_terms.end()) {
      allocated_terms.push_back({alt.source, BandLevel::peak_allocated, 0, 0, alt.label, alt.reference});
      lowest.push_back(nullptr);
      highest.push_back(nullptr);
      ub_below.push_back(0);
      ub_above.push_back(0);
      same = allocated_terms.end() - 1;
    } else {
      same->alternative += "; " + alt.label;
      same->reference += "; " + std::string(alt.reference);
    }
    const std::size_t i = static_cast<std::size_t>(same - allocated_terms.begin());
    if (-delta > same->below) same->below = -delta, lowest[i] = &alt, ub_below[i] = std::max(0.0, -ub_delta);
    if (delta > same->above) same->above = delta, highest[i] = &alt, ub_above[i] = std::max(0.0, ub_delta);
  }
  // The band's ends: every source at its lowest (highest) alternative together, one setup each, so
  // that settings which move the same bytes (checkpointing and a shorter sequence both shrink the
  // activations) are not counted twice; the sum of the terms where that setup is refused. Each
  // term is then its share of that end.
  struct Moved {
    double allocated, userbuffers;  // bytes, absolute
  };
  const auto together = [&](const std::vector<const Alternative*>& chosen, Moved summed) {
    TrainingSetup other = s;
    int applied = 0;
    for (const Alternative* a : chosen)
      if (a) a->apply(other), ++applied;
    if (applied < 2 || !validate(other).empty()) return summed;
    const Estimate o = estimate(other);
    if (!o.per_gpu.peak_allocated || !std::isfinite(*o.per_gpu.peak_allocated)) return summed;
    return Moved{std::fabs(*o.per_gpu.peak_allocated - allocated), std::fabs(o.per_gpu.userbuffers.value_or(0.0) - ub)};
  };
  Moved summed_below{0, 0}, summed_above{0, 0};
  for (std::size_t i = 0; i < allocated_terms.size(); ++i) {
    summed_below.allocated += allocated_terms[i].below, summed_above.allocated += allocated_terms[i].above;
    summed_below.userbuffers += ub_below[i], summed_above.userbuffers += ub_above[i];
  }
  const Moved joint_low = together(lowest, summed_below), joint_high = together(highest, summed_above);
  const Moved joint_below{std::min(summed_below.allocated, joint_low.allocated), std::min(summed_below.userbuffers, joint_low.userbuffers)};
  const Moved joint_above{std::min(summed_above.allocated, joint_high.allocated), std::min(summed_above.userbuffers, joint_high.userbuffers)};
  for (std::size_t i = 0; i < allocated_terms.size(); ++i) {
    if (summed_below.allocated > 0) allocated_terms[i].below *= joint_below.allocated / summed_below.allocated;
    if (summed_above.allocated > 0) allocated_terms[i].above *= joint_above.allocated / summed_above.allocated;
    if (summed_below.userbuffers > 0) ub_below[i] *= joint_below.userbuffers / summed_below.userbuffers;
    if (summed_above.userbuffers > 0) ub_above[i] *= joint_above.userbuffers / summed_above.userbuffers;
  }
  // Colocated vLLM's pool is one block the document sizes (rlhf.cpp): neither the engine's error
  // nor the allocator's share applies to it.
  const double modelled = allocated - e.rollout_vllm_in_peak_bytes;
  UncertaintyTerm estimator{"estimator_error", BandLevel::peak_allocated, 0, kEstimatorErrorAbove * modelled, "",
                            "tests/fixtures/measured_cases.json, the 53 measured peaks marked split \"outside\": the 90th "
                            "percentile of their distance above the band of the other terms is 17.5 % of the expected "
                            "peak; 2 lie below its low end, at most 3.8 % (docs/memory-model.md, \"Uncertainty band\")"};
  const double below = joint_below.allocated, above = joint_above.allocated + estimator.above;
  band.peak_allocated = {std::max(0.0, allocated - below), allocated, allocated + above};

  // Reserved: the allocated band carried at the estimate's reserved/allocated ratio (of the bytes
  // the engine models: a colocated vLLM pool is reserved as it is), then the allocator's overhead
  // between 10 % and 30 % of the allocated bytes.
  const double pool = e.rollout_vllm_in_peak_bytes;
  const double ratio = modelled > 0 ? (reserved - pool) / modelled : 1.0;
  UncertaintyTerm fragmentation{"allocator_fragmentation", BandLevel::peak_reserved, 0, 0, "",
                                "docs/memory-model.md \"Uncertainty band\": reserved between what the allocator's rules "
                                "give, less cached blocks a failed cudaMalloc frees, and allocated x 1.30 (a colocated vLLM pool counted once); this project's H200 runs "
                                "reserved 0.2 % to 20.7 % above the allocated peak (tests/fixtures/measured_h200_hf_trainer.json)"};
  // Cached blocks the allocator frees and retries with when a cudaMalloc fails cannot run the GPU
  // out of memory: the low end leaves them out (allocator.hpp, LongerBatch::releasable).
  const double releasable = g.allocator_releasable.value_or(0.0);
  fragmentation.below = releasable;
  if (s.unstated.fragmentation) {
    const double by_rules = allocated + g.allocator_rounding.value_or(0.0) + g.allocator_cache.value_or(0.0) - releasable;
    fragmentation.below = std::max(0.0, reserved - by_rules);
    fragmentation.above = std::max(0.0, modelled * (1 + kFragmentationHigh) + pool - reserved);
  }
  // Reserved never lies below allocated: at the low end the allocator's floor and the smaller
  // step's reserve are not both taken in full.
  const double reserved_low = reserved - ratio * below - fragmentation.below;
  if (reserved_low < band.peak_allocated.low)
    fragmentation.below = std::max(0.0, fragmentation.below - (band.peak_allocated.low - reserved_low));
  band.peak_reserved = {std::max(0.0, reserved - ratio * below - fragmentation.below), reserved,
                        reserved + ratio * above + fragmentation.above};

  // Peak: + the CUDA context, between lazy and eager module loading when no figure was given.
  UncertaintyTerm context{"cuda_context", BandLevel::peak, 0, 0, "",
                          "pytorch/pytorch#86509: 287,047,680 B with lazy module loading (PyTorch's default since 1.13), "
                          "666,632,192 B with eager loading"};
  const bool context_given = !s.gpu || !s.gpu->has_cuda_context || s.gpu->cuda_context_bytes.has_value();
  if (!context_given && g.cuda_context) {
    context.below = std::max(0.0, *g.cuda_context - kContextLazyBytes);
    context.above = std::max(0.0, kContextEagerBytes - *g.cuda_context);
  }
  // Userbuffers: Transformer Engine before v2.7 registered two fewer (userbuffers.hpp).
  UncertaintyTerm userbuffers{"framework_version_userbuffers", BandLevel::peak, 0, 0, "",
                              "NVIDIA/TransformerEngine#1982 (v2.7): initialize_ub registers the proj_wgrad and fc2_wgrad "
                              "all-gather buffers; before, 10 of the 12"};
  // At the low end's sequence length: both are linear in the buffers' elements (the flags aside).
  if (g.userbuffers && s.model.architecture && ub > 0)
    userbuffers.below = userbuffer_bytes_since_te_2_7(s, *s.model.architecture) * (ub - joint_below.userbuffers) / ub;
  band.peak = {std::max(0.0, peak - (reserved - band.peak_reserved.low) - context.below - userbuffers.below - joint_below.userbuffers),
               peak, peak + (band.peak_reserved.high - reserved) + context.above + joint_above.userbuffers};

  // Every term as it widens the peak band (allocated terms at the reserved/allocated ratio, with
  // the userbuffers their setting moves).
  for (std::size_t i = 0; i < allocated_terms.size(); ++i) {
    allocated_terms[i].below = allocated_terms[i].below * ratio + ub_below[i];
    allocated_terms[i].above = allocated_terms[i].above * ratio + ub_above[i];
  }
  estimator.above *= ratio;
  for (auto& t : allocated_terms)
    if (term_bytes(t) > 0) band.terms.push_back(t);
  if (term_bytes(estimator) > 0) band.terms.push_back(estimator);
  if (term_bytes(fragmentation) > 0) band.terms.push_back(fragmentation);
  if (term_bytes(context) > 0) band.terms.push_back(context);
  if (term_bytes(userbuffers) > 0) band.terms.push_back(userbuffers);
  return band;
}

const UncertaintyTerm* deciding_term(const TrainingSetup& s, const Estimate& e, const Band& band, std::optional<Verdict> verdict) {
  const std::optional<double> compared = compared_peak(s, e);
  if (verdict != Verdict::borderline || !compared || !e.gpu_capacity_bytes) return nullptr;
  const bool raise = *compared <= *e.gpu_capacity_bytes;
  const UncertaintyTerm* best = nullptr;
  for (const auto& t : band.terms) {
    if (!widens_compared_band(s, t)) continue;
    const double moved = raise ? t.above : t.below;
    if (moved > 0 && (!best || moved > (raise ? best->above : best->below))) best = &t;
  }
  return best;
}

bool widens_compared_band(const TrainingSetup& s, const UncertaintyTerm& t) {
  return !(s.gpu && compares_reserved(*s.gpu) && t.level == BandLevel::peak);
}

std::optional<Range> compared_range(const TrainingSetup& s, const Band& band) {
  if (!s.gpu) return std::nullopt;
  return compares_reserved(*s.gpu) ? band.peak_reserved : band.peak;
}

std::optional<Verdict> judge_verdict(const TrainingSetup& s, const Estimate& e, const std::optional<Band>& band) {
  if (!s.gpu) return std::nullopt;
  const double capacity = gpu_capacity(*s.gpu);
  if (band) {
    const Range r = *compared_range(s, *band);
    if (r.high <= capacity) return Verdict::fits;
    if (r.low > capacity) return Verdict::does_not_fit;
    return Verdict::borderline;
  }
  if (e.per_gpu.model_states - e.per_gpu.paged_optimizer_states.value_or(0.0) > capacity) return Verdict::does_not_fit;
  return std::nullopt;
}

}  // namespace trainmem
