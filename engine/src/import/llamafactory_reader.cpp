// LLaMA-Factory YAML (`llamafactory-cli train FILE`) -> estimate document fields. LLaMA-Factory
// parses its model, data, fine-tuning and generating arguments beside transformers'
// Seq2SeqTrainingArguments from one file, and trains with transformers.Trainer subclasses, sharded
// by DeepSpeed or FSDP as the TrainingArguments say. Meanings and defaults: LLaMA-Factory
// 0.9.6.dev0 (hiyouga/LLaMA-Factory ff6d4d1):
//   src/llamafactory/hparams/model_args.py, finetuning_args.py, data_args.py, parser.py
//     (compute dtype from bf16/fp16/pure_bf16),
//   src/llamafactory/model/loader.py (torch_dtype "auto": the checkpoint's dtype; Liger),
//   src/llamafactory/model/adapter.py (trainable parameters upcast to fp32; LoRA targets),
//   src/llamafactory/model/model_utils/checkpointing.py, attention.py, quantization.py,
//   src/llamafactory/train/trainer_utils.py (create_ref_model).
// TrainingArguments keys are read as the HF reader reads them (transformers training_args.py).
#include <algorithm>
#include <cctype>
#include <set>

#include "reading.hpp"

namespace trainmem::import_detail {

namespace {

constexpr const char* kFactory = "LLaMA-Factory 0.9.6";
constexpr const char* kHf = "transformers training_args.py (00349ae)";

std::string src(const char* file, const std::string& what) {
  return std::string(kFactory) + " src/llamafactory/" + file + " " + what;
}

// "q_proj, v_proj" -> ["q_proj", "v_proj"] (hparams split_arg).
ConfigValue::Array split_arg(const std::string& s) {
  ConfigValue::Array out;
  std::string w;
  for (char c : s + ",") {
    if (c == ',') {
      const auto b = w.find_first_not_of(' '), e = w.find_last_not_of(' ');
      if (b != std::string::npos) out.emplace_back(w.substr(b, e - b + 1));
      w.clear();
    } else {
      w += c;
    }
  }
  return out;
}

// Keys without an effect on the training step's memory: data, templates, logging, saving, schedules.
bool no_memory_effect(const std::string& k) {
  static const std::set<std::string> keys = {
      "trust_remote_code", "do_train", "do_eval", "do_predict", "dataset", "eval_dataset", "dataset_dir", "template",
      "max_samples", "preprocessing_num_workers", "dataloader_num_workers", "overwrite_cache", "output_dir",
      "logging_steps", "save_steps", "save_strategy", "plot_loss", "overwrite_output_dir", "save_only_model",
      "report_to", "learning_rate", "num_train_epochs", "max_steps", "lr_scheduler_type", "warmup_ratio",
      "warmup_steps", "weight_decay", "max_grad_norm", "ddp_timeout", "resume_from_checkpoint", "val_size",
      "per_device_eval_batch_size", "eval_strategy", "eval_steps", "seed", "run_name", "pref_beta", "pref_ftx",
      "lora_alpha", "train_on_prompt", "mask_history", "tokenized_path", "streaming", "buffer_size", "mix_strategy",
      "interleave_probs", "media_dir", "image_max_pixels", "video_max_pixels", "adapter_name_or_path",
      "cache_dir", "model_revision", "hf_hub_token", "export_dir", "use_swanlab", "swanlab_project",
      "print_param_status", "include_num_input_tokens_seen", "logging_dir", "tf32", "remove_unused_columns",
      "gradient_checkpointing_kwargs", "use_reentrant_gc", "ignore_pad_token_for_loss", "disable_shuffling",
      "enable_thinking", "default_system", "tool_format", "flash_attn_cross_entropy"};
  return keys.count(k) > 0;
}

}  // namespace

Reading read_llamafactory_config(const std::string& file, const ConfigValue& c) {
  Reading r(file, "llamafactory");
  auto has = [&](const char* k) {
    const ConfigValue* v = c.find(k);
    return v != nullptr && !v->is_null();
  };
  auto text = [&](const char* k, const std::string& fallback) {
    const ConfigValue* v = c.find(k);
    return v && v->is_string() ? lower(v->as_string()) : fallback;
  };
  auto flag = [&](const char* k) {
    const ConfigValue* v = c.find(k);
    return v != nullptr && bool_value(*v).value_or(false);
  };
  std::vector<Reading> inline_deepspeed;
  r.trainer_default("framework", "hf_trainer", src("train/sft/trainer.py", "CustomSeq2SeqTrainer subclasses transformers.Seq2SeqTrainer (DPO: TRL's DPOTrainer)"));

  const std::string stage = text("stage", "sft");
  const std::string type = text("finetuning_type", "lora");
  const std::string pref_loss = text("pref_loss", "sigmoid");
  const std::string quant_method = text("quantization_method", "bnb");
  std::optional<std::int64_t> quant_bits;
  if (const ConfigValue* q = c.find("quantization_bit"); q && !q->is_null()) quant_bits = integer_value(*q);
  const bool qlora = (type == "lora") && quant_bits == std::int64_t{4} && quant_method == "bnb";
  // model/model_utils/quantization.py: quantization_bit 8 loads BitsAndBytesConfig(load_in_8bit=True).
  const bool int8_lora = (type == "lora") && quant_bits == std::int64_t{8} && quant_method == "bnb";
  // quantization_method hqq: HqqConfig(nbits=quantization_bit, quant_zero=False, quant_scale=False,
  // axis=0) for 1 to 6 or 8 bits (the same file).
  const bool hqq_width = quant_bits && *quant_bits >= 1 && *quant_bits <= 8 && *quant_bits != 7;
  const bool hqq_lora = (type == "lora") && quant_method == "hqq" && hqq_width;
  const bool quantized_lora = qlora || int8_lora || hqq_lora;
  const bool pure_bf16 = flag("pure_bf16");

  for (const auto& [name, v] : c.as_object()) {
    const std::string& k = name;
    // HfArgumentParser passes a null as None (hf_argparser.py parse_dict), and the trainer
    // multiplies the batch sizes (None fails), as under the HF Trainer (hf_trainer_reader.cpp).
    if (v.is_null() && (name == "per_device_train_batch_size" || name == "gradient_accumulation_steps")) {
      r.error(error_code::wrong_type, k, "expected a positive integer, got null: the trainer multiplies it (None fails)",
              {{"expected", "integer"}, {"got", "null"}});
      continue;
    }
    if (v.is_null()) {
      r.ignore(k, v, "null: passed to the trainer as None");
      continue;
    }
    // The choices read above as text (hparams/*.py declare them as Literal[...] strings): another
    // type is an error here rather than read as the default (HfArgumentParser.parse_dict does not
    // check types; LLaMA-Factory fails later, on some keys only).
    if (!v.is_string() && (name == "stage" || name == "finetuning_type" || name == "pref_loss" || name == "quantization_method")) {
      r.error(error_code::wrong_type, k, "expected a string, got " + v.summary());
      continue;
    }
    if (name == "model_name_or_path") {
      if (auto id = string_value(v)) r.name_model(*id, k);
      else r.error(error_code::wrong_type, k, "expected a model id, got " + v.summary());
    } else if (name == "stage") {
      if (stage == "dpo" && pref_loss != "orpo" && pref_loss != "simpo") r.read("rlhf.algorithm", "dpo", k);
      else if (stage == "sft" || stage == "pt") r.ignore(k, v, "supervised or pre-training: one model, one sequence per sample");
      else if (stage == "dpo") r.unmodelled_key(k, v, "DPO with " + pref_loss + " loss keeps no reference model (finetuning_args.py use_ref_model); its paired sequences are estimated as supervised fine-tuning");
      else if (stage == "rm") r.unmodelled_key(k, v, "stage \"rm\" (a reward model: one model with a value head) is estimated as supervised fine-tuning");
      // PPO keeps a reward and a reference model beside the policy and its value head, KTO a
      // reference model (LLaMA-Factory train/ppo, train/kto): priced as supervised fine-tuning they
      // would be under-estimated, so the RLHF setting is left open (`rlhf` in the document).
      else if (stage == "ppo" || stage == "kto")
        r.unresolved_field("rlhf.algorithm", k, v, "stage " + v.summary() + " keeps further models (" +
                                                       (stage == "ppo" ? "reward, reference, value head" : "a reference model") +
                                                       ") that this import does not read: set rlhf (ppo: rlhf.algorithm \"ppo\")");
      else {
        // hparams/finetuning_args.py: stage: Literal["pt", "sft", "rm", "ppo", "dpo", "kto"].
        static const std::vector<std::string> kStages = {"pt", "sft", "rm", "ppo", "dpo", "kto"};
        const std::string near = closest_match(stage, kStages);
        r.error(error_code::unknown_value, k,
                "LLaMA-Factory takes pt, sft, rm, ppo, dpo or kto (hparams/finetuning_args.py), got " + v.summary() +
                    (near.empty() ? "" : " (nearest: \"" + near + "\")"),
                near.empty() ? Params{{"value", v.summary()}} : Params{{"value", v.summary()}, {"suggestion", near}});
      }
    } else if (name == "finetuning_type") {
      // hparams/finetuning_args.py: finetuning_type: Literal["lora", "oft", "freeze", "full"];
      // HfArgumentParser refuses any other value (argparse choices).
      static const std::vector<std::string> kTypes = {"lora", "oft", "freeze", "full"};
      if (std::find(kTypes.begin(), kTypes.end(), type) == kTypes.end()) {
        const std::string near = closest_match(type, kTypes);
        r.error(error_code::unknown_value, k,
                "LLaMA-Factory takes lora, oft, freeze or full (hparams/finetuning_args.py), got " + v.summary() +
                    (near.empty() ? "" : " (nearest: \"" + near + "\")"),
                near.empty() ? Params{{"value", v.summary()}} : Params{{"value", v.summary()}, {"suggestion", near}});
        continue;
      }
      if (type == "lora" && !quantized_lora) r.read("method", "lora", k);
      else if (type == "full") r.read("method", "full", k);
      else if (type == "freeze") r.read("method", "freeze", k);
      else if (!quantized_lora) r.unmodelled_key(k, v, "fine-tuning type " + v.summary() + " is not modelled (lora, freeze, full are)");
    } else if (name == "lora_rank" || name == "lora_dropout" || name == "lora_target" || name == "additional_target" || name == "use_dora") {
      if (type != "lora") {
        r.ignore(k, v, "not a LoRA run: LoRA settings do not apply");
      } else if (name == "lora_rank") {
        if (auto n = positive_integer(r, k, v)) r.read("lora.r", *n, k);
      } else if (name == "lora_dropout") {
        if (auto d = typed<double>(r, k, v, number_value, "a number")) r.read("lora.lora_dropout", *d, k);
      } else if (name == "lora_target") {
        // model/adapter.py: "all" -> every linear layer but the output head (find_all_linear_modules).
        const auto s = string_value(v);
        if (!s) r.error(error_code::wrong_type, k, "expected module names separated by commas, or all, got " + v.summary());
        else if (lower(*s) == "all") r.read("lora.target_modules", "all-linear", k);
        else r.read("lora.target_modules", ConfigValue(split_arg(*s)), k);
      } else if (name == "additional_target") {
        if (auto s = string_value(v)) r.read("lora.modules_to_save", ConfigValue(split_arg(*s)), k);
        else r.error(error_code::wrong_type, k, "expected module names separated by commas, got " + v.summary());
      } else {
        // model/adapter.py: "DoRA is not compatible with PTQ-quantized models." for any quantization
        // but bitsandbytes'.
        const auto b = boolean(r, k, v);
        if (b && *b && hqq_lora)
          r.error(error_code::inconsistent, k, "DoRA cannot go with quantization_method hqq: LLaMA-Factory refuses DoRA over a base "
                  "quantized other than by bitsandbytes (model/adapter.py)", {{"reason", "dora_needs_bitsandbytes"}});
        else if (b) r.read("lora.use_dora", *b, k);
      }
    } else if (name == "freeze_trainable_layers") {
      auto n = whole_number(r, k, v);
      if (type != "freeze") r.ignore(k, v, "not a freeze run");
      else if (n && *n > 0) r.read("freeze.trainable_layers", *n, k);
      else if (n) r.unmodelled_key(k, v, "a negative count trains the first layers; the estimate trains the last ones");
    } else if (name == "freeze_trainable_modules" || name == "freeze_extra_modules") {
      if (type != "freeze") r.ignore(k, v, "not a freeze run");
      else if (name == "freeze_trainable_modules" && text("freeze_trainable_modules", "all") == "all") r.ignore(k, v, "whole layers: as the estimate's freeze");
      else r.unmodelled_key(k, v, "trains only these modules of the last layers (or extra ones): the estimate trains whole layers");
    } else if (name == "quantization_bit") {
      if (quantized_lora) continue;  // cited by the method
      if (!quant_bits) {
        r.error(error_code::wrong_type, k, "expected a whole number of bits, got " + v.summary(), {{"expected", "integer"}, {"got", v.summary()}});
      } else if (type != "lora" && type != "oft") {
        // hparams/parser.py: "Quantization is only compatible with the LoRA or OFT method."
        r.error(error_code::inconsistent, k, "quantization needs finetuning_type lora or oft: LLaMA-Factory refuses it with " + type +
                " (hparams/parser.py)", {{"reason", "quantization_needs_lora"}, {"value", type}});
      } else if (quant_method == "hqq" && !hqq_width) {
        r.error(error_code::unknown_value, k, "HQQ takes 1, 2, 3, 4, 5, 6 or 8 bits, got " + v.summary() +
                " (model_utils/quantization.py raises)", {{"value", v.summary()}, {"allowed", "1, 2, 3, 4, 5, 6, 8"}});
      } else if (*quant_bits >= 16) {
        r.ignore(k, v, "no quantization");
      } else {
        r.unmodelled_key(k, v, "quantized base weights other than 4- or 8-bit bitsandbytes or HQQ's widths under LoRA are not modelled");
      }
    } else if (name == "quantization_method") {
      if (quant_method == "bnb") r.ignore(k, v, "bitsandbytes, the default");
      else if (hqq_lora) r.read("qlora.quant_method", "hqq", k);
      else if (!quant_bits) r.ignore(k, v, "no quantization: quantization_bit is not set");
      else if (type != "lora" && type != "oft") continue;  // quantization_bit's error names it
      else if (quant_method == "hqq" && !hqq_width) continue;  // the same
      else r.unmodelled_key(k, v, "quantization with " + v.summary() + " is not modelled");
    } else if (name == "quantization_type") {
      const auto s = lower(string_value(v).value_or(""));
      if (hqq_lora) r.ignore(k, v, "bitsandbytes' setting: quantization_method is hqq");
      else if (!qlora) r.ignore(k, v, "no 4-bit quantization");
      else if (s == "nf4" || s == "fp4") r.read("qlora.quant_type", s, k);
      else r.error(error_code::unknown_value, k, "expected nf4 or fp4, got " + v.summary());
    } else if (name == "double_quantization") {
      if (hqq_lora) r.ignore(k, v, "bitsandbytes' setting: quantization_method is hqq");
      else if (!qlora) r.ignore(k, v, "no 4-bit quantization");
      else if (auto b = boolean(r, k, v)) r.read("qlora.double_quant", *b, k);
    } else if (name == "bf16" || name == "fp16" || name == "pure_bf16") {
      auto b = boolean(r, k, v);
      if (b && *b) {
        // parser.py: compute_dtype = bf16 if bf16 or pure_bf16, fp16 if fp16.
        r.read("precision.compute_dtype", name == "fp16" ? "fp16" : "bf16", k);
        // pure_bf16 keeps the trainable parameters in bf16 (adapter.py skips the fp32 upcast) and
        // trains without mixed precision (hparams/parser.py refuses bf16 or fp16 beside it, so the
        // trainer's bf16 is off and accelerate's mixed_precision "no"): no master copy, under FSDP too.
        if (name == "pure_bf16") {
          r.read("precision.param_dtype", "bf16", k);
          r.read("precision.master_weights", false, k);
        }
      } else if (b) {
        r.ignore(k, v, "off");
      }
    } else if (name == "cutoff_len") {
      if (auto n = positive_integer(r, k, v)) r.read("batch.seq_length", *n, k);
    } else if (name == "packing" || name == "neat_packing") {
      if (const auto on = boolean(r, k, v))
        r.ignore(k, v, *on ? "every sequence at cutoff_len tokens, packed" : "off: samples are not packed (see batch.padding)");
    } else if (name == "per_device_train_batch_size") {
      if (auto n = positive_integer(r, k, v)) r.read("batch.micro_batch_size", *n, k);
    } else if (name == "gradient_accumulation_steps") {
      if (auto n = positive_integer(r, k, v)) r.read("batch.gradient_accumulation_steps", *n, k);
    } else if (name == "disable_gradient_checkpointing") {
      if (auto b = boolean(r, k, v)) r.read("activation_checkpointing", *b ? "none" : "full", k);
    } else if (name == "gradient_checkpointing") {
      r.ignore(k, v, "LLaMA-Factory enables checkpointing itself unless disable_gradient_checkpointing (model_utils/checkpointing.py)");
    } else if (name == "use_unsloth_gc") {
      // Unsloth's checkpointing moves the checkpointed layer inputs to the CPU.
      if (auto b = boolean(r, k, v); b && *b && !flag("disable_gradient_checkpointing")) r.read("activation_offload", true, k);
      else if (b) r.ignore(k, v, *b ? "checkpointing is disabled" : "off");
    } else if (name == "flash_attn") {
      const std::string a = lower(string_value(v).value_or(""));
      if (a == "fa2") r.read("attention", "flash", k);
      else if (a == "fa3") r.read("attention", "flash3", k);
      else if (a == "sdpa") r.read("attention", "sdpa", k);
      else if (a == "disabled") r.read("attention", "eager", k);
      else if (a == "auto") r.ignore(k, v, "transformers' choice: sdpa");
      else r.error(error_code::unknown_value, k, "expected auto, disabled, sdpa, fa2 or fa3, got " + v.summary());
    } else if (name == "enable_liger_kernel") {
      // model/model_utils/liger_kernel.py: Liger's kernels with the fused linear cross-entropy for pt
      // and sft; other stages need the logits (require_logits: Liger's cross_entropy on them instead).
      auto b = boolean(r, k, v);
      if (b) r.read("use_liger_kernel", *b, k);
      if (b && *b && stage != "pt" && stage != "sft") {
        r.read("loss.implementation", "full", k);
        r.unmodelled_key(k, v, "Liger's cross-entropy kernel on the materialised logits (this stage needs them) is priced as the model's own loss");
      }
    } else if (name == "optim") {
      read_hf_optim(r, k, v);
    } else if (name == "deepspeed") {
      read_deepspeed_key(r, k, v, inline_deepspeed);
    } else if (name == "fsdp") {
      read_fsdp_option(r, k, v);
    } else if (name == "fsdp_config") {
      read_fsdp_config_key(r, k, v);
    } else if (name == "torch_compile") {
      if (auto b = boolean(r, k, v)) r.read("compile", *b, k);
    } else if (name == "save_total_limit") {
      if (auto n = positive_integer(r, k, v)) r.read("checkpoint.keep_last", *n, k);
    } else if (name == "ref_model") {
      if (stage == "dpo") r.unmodelled_key(k, v, "a separate reference model: the estimate takes the policy's own architecture");
      else r.ignore(k, v, "used by DPO only");
    } else if (name == "pref_loss") {
      r.ignore(k, v, stage == "dpo" ? "the loss; orpo and simpo drop the reference model (see stage)" : "used by DPO only");
    } else if (name == "upcast_layernorm" || name == "upcast_lmhead_output" || name == "use_unsloth" || name == "use_badam" ||
               name == "use_galore" || name == "use_apollo" || name == "use_adam_mini" || name == "use_muon" ||
               name == "use_llama_pro" || name == "shift_attn" || name == "rope_scaling" || name == "mixture_of_depths" ||
               name == "use_kt" || name == "sequence_parallel_size" || name == "freeze_vision_tower" ||
               name == "freeze_multi_modal_projector" || name == "freeze_language_model" || name == "pissa_init" ||
               name == "use_dft_loss" || name == "use_eaft_loss" || name == "moe_aux_loss_coef" ||
               // Megatron-Core training through mcore_adapter (examples/megatron/*.yaml): the
               // parallel layout and its optimizer, which the HF-Trainer estimate does not take.
               name == "tensor_model_parallel_size" || name == "pipeline_model_parallel_size" || name == "expert_model_parallel_size" ||
               name == "context_parallel_size" || name == "sequence_parallel" || name == "use_distributed_optimizer" ||
               name == "recompute_granularity" || name == "virtual_pipeline_model_parallel_size" ||
               // KTransformers: experts on the CPU (examples/ktransformers/).
               name == "kt_config" || name == "kt_cpu_activation") {
      if (v.is_bool() && !v.as_bool()) r.ignore(k, v, "off");
      else r.unmodelled_key(k, v, "affects memory; the estimate has no field for it");
    } else if (name == "fp8") {
      // hparams/training_args.py Fp8Arguments: FP8 mixed precision through accelerate (torchao or
      // Transformer Engine).
      if (auto b = boolean(r, k, v)) r.read("precision.fp8_compute", *b, k);
    } else if (no_memory_effect(name)) {
      r.ignore(k, v, "no memory effect");
    } else {
      r.ignore(k, v, std::string("not a key this reader maps; assumed without memory effect (") + kFactory + " hparams)");
    }
  }

  // Defaults where the file is silent.
  if (!has("finetuning_type")) {
    if (!quantized_lora) r.trainer_default("method", "lora", src("hparams/finetuning_args.py", "finetuning_type = \"lora\""));
  }
  if (quantized_lora)
    r.fields.push_back({"method", ConfigValue("qlora"),
                        "read from " + r.key("quantization_bit") + (has("finetuning_type") ? " and " + r.key("finetuning_type") : ""),
                        r.key("quantization_bit"), Strength::read});
  if (qlora) {
    if (!has("quantization_type")) r.trainer_default("qlora.quant_type", "nf4", src("hparams/model_args.py", "quantization_type = \"nf4\""));
    if (!has("double_quantization")) r.trainer_default("qlora.double_quant", true, src("hparams/model_args.py", "double_quantization = True"));
  }
  if (int8_lora) r.read("qlora.quant_type", "int8", "quantization_bit");
  if (hqq_lora) {
    r.read("qlora.nbits", *quant_bits, "quantization_bit");
    // model_utils/quantization.py: HqqConfig(..., axis=0) ("use ATEN kernel (axis=0) for performance").
    r.trainer_default("qlora.axis", 0, src("model/model_utils/quantization.py", "HqqConfig(nbits=..., quant_zero=False, quant_scale=False, axis=0)"));
  }
  if (type == "lora") {
    if (!has("lora_rank")) r.trainer_default("lora.r", 8, src("hparams/finetuning_args.py", "lora_rank = 8"));
    if (!has("lora_target")) r.trainer_default("lora.target_modules", "all-linear", src("hparams/finetuning_args.py", "lora_target = \"all\""));
    if (!has("lora_dropout")) r.trainer_default("lora.lora_dropout", 0.0, src("hparams/finetuning_args.py", "lora_dropout = 0.0"));
    // adapter.py: get_peft_model(autocast_adapter_dtype=True) and trainable parameters cast to
    // fp32, unless pure_bf16; under DeepSpeed the engine's own casts decide (see import_configs.cpp).
    if (!pure_bf16 && !has("deepspeed"))
      r.trainer_default("lora.adapter_dtype", "fp32", src("model/adapter.py", "trainable parameters cast to float32"));
  }
  if (type == "freeze" && !has("freeze_trainable_layers"))
    r.trainer_default("freeze.trainable_layers", 2, src("hparams/finetuning_args.py", "freeze_trainable_layers = 2"));
  // loader.py loads with torch_dtype "auto": the checkpoint's own dtype. A full run's trainable
  // parameters are then cast to fp32 (adapter.py _setup_full_tuning), unless pure_bf16; DeepSpeed's
  // bf16/fp16 sections cast the model again.
  if (!pure_bf16) {
    if (type == "full") r.trainer_default("precision.param_dtype", "fp32", src("model/adapter.py", "_setup_full_tuning: trainable parameters cast to float32"));
    else r.dtype_from_checkpoint_key = r.key("model_name_or_path");
  }
  if (type == "freeze" && !pure_bf16)
    r.unmodelled_key("finetuning_type", "freeze", "the trainable layers are cast to fp32 (adapter.py _setup_freeze_tuning), the frozen ones stay in the checkpoint's dtype: one param_dtype cannot say both");
  if (!has("cutoff_len")) r.trainer_default("batch.seq_length", 2048, src("hparams/data_args.py", "cutoff_len = 2048"));
  // Packing is on for pre-training unless the file says otherwise (hparams/parser.py: packing if not
  // None else stage == "pt"), and neat_packing turns it on (data_args.py); unpacked samples are
  // truncated at cutoff_len and each batch padded to its longest (the stages' collators:
  // transformers DataCollatorForSeq2Seq / DataCollatorForLanguageModeling, padding=True).
  const bool packing = (has("packing") ? flag("packing") : stage == "pt") || flag("neat_packing");
  if (!packing)
    r.trainer_default("batch.padding", "longest", src("data/collator.py", "the collators pad each batch to its longest sample (packing off)"));
  if (!has("per_device_train_batch_size"))
    r.trainer_default("batch.micro_batch_size", 8, std::string(kHf) + " per_device_train_batch_size = 8");
  if (!has("gradient_accumulation_steps"))
    r.trainer_default("batch.gradient_accumulation_steps", 1, std::string(kHf) + " gradient_accumulation_steps = 1");
  if (!flag("bf16") && !flag("fp16") && !pure_bf16)
    r.trainer_default("precision.compute_dtype", "fp32", std::string(kHf) + " bf16 = fp16 = False");
  if (!has("disable_gradient_checkpointing"))
    r.trainer_default("activation_checkpointing", "full", src("model/model_utils/checkpointing.py", "on unless disable_gradient_checkpointing"));
  if (!has("optim")) {
    r.trainer_default("precision.optimizer", "adamw", std::string(kHf) + " optim = adamw_torch_fused (torch >= 2.8)");
    r.trainer_default("precision.optimizer_implementation", "fused", std::string(kHf) + " optim = adamw_torch_fused (torch >= 2.8)");
  }
  if (!has("flash_attn") || text("flash_attn", "") == "auto")
    r.trainer_default("attention", "sdpa", src("model/model_utils/attention.py", "flash_attn = auto: transformers' choice, sdpa"));
  if (stage == "dpo" && pref_loss != "orpo" && pref_loss != "simpo")
    // train/trainer_utils.py create_ref_model: a LoRA policy without ref_model scores the reference
    // with its adapters disabled; otherwise a copy of the model is loaded.
    r.trainer_default("rlhf.reference.method", type == "lora" && !has("ref_model") ? "shared_base" : "frozen",
                      src("train/trainer_utils.py", "create_ref_model"));

  for (const auto& d : inline_deepspeed) absorb(r, d);
  return r;
}

}  // namespace trainmem::import_detail
