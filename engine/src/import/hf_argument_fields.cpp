// The field names of the dataclasses HfArgumentParser / TrlParser build from a config file or a
// command line: a key none of them defines is refused by the framework (transformers
// src/transformers/hf_argparser.py (0024962) parse_dict raises "Some keys are not used by the
// HfArgumentParser", parse_args_into_dataclasses "Some specified arguments are not used"; TRL
// trl/scripts/utils.py (f2cd577) TrlParser.parse_args_and_config raises "Unknown arguments from config
// file"). Data only, taken from the sources at the commits named per class (transformers 00349ae,
// huggingface/trl f2cd57710); TRL's configs also inherit every TrainingArguments field
// (trl/trainer/base_config.py _BaseConfig(TrainingArguments)).
#include "hf_argument_fields.hpp"

namespace trainmem::import_detail {

const std::vector<ArgumentClass>& hf_argument_classes() {
  static const std::vector<ArgumentClass> classes = {
      {"TrainingArguments", "transformers src/transformers/training_args.py (00349ae)",
         {
          "output_dir", "per_device_train_batch_size", "num_train_epochs", "max_steps", "learning_rate",
          "lr_scheduler_type", "lr_scheduler_kwargs", "warmup_steps", "optim", "optim_args", "weight_decay",
          "adam_beta1", "adam_beta2", "adam_epsilon", "optim_target_modules", "gradient_accumulation_steps",
          "average_tokens_across_devices", "max_grad_norm", "label_smoothing_factor", "bf16", "fp16",
          "bf16_full_eval", "fp16_full_eval", "tf32", "gradient_checkpointing",
          "gradient_checkpointing_kwargs", "torch_compile", "torch_compile_backend", "torch_compile_mode",
          "use_liger_kernel", "liger_kernel_config", "use_cache", "neftune_noise_alpha",
          "torch_empty_cache_steps", "auto_find_batch_size", "logging_strategy", "logging_steps",
          "logging_first_step", "log_on_each_node", "logging_nan_inf_filter", "include_num_input_tokens_seen",
          "log_level", "log_level_replica", "disable_tqdm", "report_to", "run_name", "project",
          "trackio_space_id", "eval_strategy", "eval_steps", "eval_delay", "per_device_eval_batch_size",
          "prediction_loss_only", "eval_on_start", "eval_do_concat_batches", "eval_use_gather_object",
          "eval_accumulation_steps", "include_for_metrics", "batch_eval_metrics", "save_only_model",
          "save_strategy", "save_steps", "save_on_each_node", "save_total_limit", "enable_jit_checkpoint",
          "push_to_hub", "hub_token", "hub_private_repo", "hub_model_id", "hub_strategy", "hub_always_push",
          "hub_revision", "load_best_model_at_end", "metric_for_best_model", "greater_is_better",
          "ignore_data_skip", "restore_callback_states_from_checkpoint", "full_determinism", "seed",
          "data_seed", "use_cpu", "accelerator_config", "parallelism_config", "dataloader_drop_last",
          "dataloader_num_workers", "dataloader_pin_memory", "dataloader_persistent_workers",
          "dataloader_prefetch_factor", "remove_unused_columns", "label_names", "train_sampling_strategy",
          "length_column_name", "ddp_find_unused_parameters", "ddp_bucket_cap_mb", "ddp_broadcast_buffers",
          "ddp_backend", "ddp_timeout", "fsdp", "fsdp_config", "deepspeed", "debug", "skip_memory_metrics",
          "do_train", "do_eval", "do_predict", "resume_from_checkpoint", "warmup_ratio", "logging_dir",
          "local_rank"}},
      {"ScriptArguments", "TRL trl/scripts/utils.py (f2cd577)",
         {
          "dataset_name", "dataset_config", "dataset_train_split", "dataset_test_split", "dataset_streaming",
          "ignore_bias_buffers"}},
      {"DatasetMixtureConfig", "TRL trl/scripts/utils.py (f2cd577)",
         {
          "datasets", "streaming", "test_split_size"}},
      {"ModelConfig", "TRL trl/trainer/model_config.py (f2cd577)",
         {
          "model_name_or_path", "model_revision", "dtype", "attn_implementation", "use_peft", "lora_r",
          "lora_alpha", "lora_dropout", "lora_target_modules", "lora_target_parameters",
          "lora_modules_to_save", "lora_task_type", "use_rslora", "use_dora", "load_in_8bit", "load_in_4bit",
          "bnb_4bit_quant_type", "use_bnb_nested_quant", "bnb_4bit_quant_storage"}},
      {"SFTConfig", "TRL trl/trainer/sft_config.py (f2cd577)",
         {
          "learning_rate", "model_init_kwargs", "router_aux_loss_coef", "trust_remote_code",
          "chat_template_path", "dataset_text_field", "dataset_kwargs", "dataset_num_proc", "eos_token",
          "max_length", "truncation_mode", "shuffle_dataset", "packing", "packing_strategy", "padding_free",
          "pad_to_multiple_of", "eval_packing", "completion_only_loss", "assistant_only_loss", "loss_type",
          "activation_offloading", "pad_token"}},
      {"DPOConfig", "TRL trl/trainer/dpo_config.py (f2cd577)",
         {
          "learning_rate", "model_init_kwargs", "trust_remote_code", "router_aux_loss_coef",
          "disable_dropout", "dataset_num_proc", "max_length", "truncation_mode", "padding_free",
          "pad_to_multiple_of", "precompute_ref_log_probs", "precompute_ref_batch_size", "loss_type",
          "loss_weights", "ld_alpha", "f_divergence_type", "f_alpha_divergence_coef", "label_smoothing",
          "beta", "use_weighting", "discopop_tau", "activation_offloading", "sync_ref_model",
          "ref_model_mixup_alpha", "ref_model_sync_steps", "pad_token"}},
      {"GRPOConfig", "TRL trl/trainer/grpo_config.py (f2cd577)",
         {
          "learning_rate", "model_init_kwargs", "trust_remote_code", "router_aux_loss_coef",
          "disable_dropout", "cast_lm_head_to_fp32", "remove_unused_columns", "num_generations",
          "num_generations_eval", "max_completion_length", "ds3_gather_for_generation", "shuffle_dataset",
          "pad_to_multiple_of", "generation_batch_size", "steps_per_generation", "temperature", "top_p",
          "top_k", "min_p", "generation_kwargs", "chat_template_kwargs", "repetition_penalty",
          "cache_implementation", "use_vllm", "vllm_mode", "vllm_model_impl", "vllm_enable_sleep_mode",
          "vllm_structured_outputs_regex", "vllm_server_base_url", "vllm_server_host", "vllm_server_port",
          "vllm_server_timeout", "vllm_group_port", "vllm_gpu_memory_utilization", "vllm_max_model_length",
          "vllm_tensor_parallel_size", "beta", "num_iterations", "epsilon", "delta", "epsilon_high",
          "sapo_temperature_neg", "sapo_temperature_pos", "vespo_k_pos", "vespo_lambda_pos", "vespo_k_neg",
          "vespo_lambda_neg", "importance_sampling_level", "reward_weights", "multi_objective_aggregation",
          "scale_rewards", "loss_type", "mask_truncated_completions", "sync_ref_model",
          "ref_model_mixup_alpha", "ref_model_sync_steps", "top_entropy_quantile", "entropy_coef",
          "use_adaptive_entropy", "entropy_coef_min", "entropy_coef_max", "entropy_coef_delta",
          "entropy_target", "max_tool_calling_iterations", "vllm_importance_sampling_correction",
          "vllm_importance_sampling_mode", "vllm_importance_sampling_clip_max",
          "vllm_importance_sampling_clip_min", "off_policy_mask_threshold", "use_bias_correction_kl",
          "log_completions", "log_multimodal", "num_completions_to_print", "log_unique_prompts",
          "log_completions_hub_repo", "use_transformers_continuous_batching",
          "transformers_continuous_batching_config", "use_transformers_paged", "vllm_importance_sampling_cap"}},
  };
  return classes;
}

}  // namespace trainmem::import_detail
