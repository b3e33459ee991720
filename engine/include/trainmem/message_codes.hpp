// Every code the engine's documents carry in "errors", "warnings" and the solve's "reason_messages", with the params (params.hpp)
// its message names, so that a page can word each code in its own language from the params alone
// and a test can check that every code it may meet is worded (`trainmem codes` prints this list).
//
// Error codes are declared in errors.hpp and config_import.hpp (error_code::), warning codes here
// (warning_code::); emission sites use these constants, never a bare string (tests/message_codes_test.cpp
// scans engine/src and cli/ for codes the list lacks and for listed codes nothing emits).
//
// params: the keys, space-separated. A warning carries all of them. An error's message is written
// where the problem is found, by many checks: the keys listed are the ones the checks attach
// (object_reader.hpp, validate.cpp, the catalog look-ups, the import's checks), each its own subset.
//
// reasons: for a code many different checks emit (inconsistent, missing_field, ...), the check
// that found the problem, as params.reason, space-separated; a page words each reason of a code
// from the other params. A check of such a code always attaches its reason (tests/message_codes_test.cpp
// checks each emission site names a registered reason, and each registered reason is emitted).
#pragma once

#include "trainmem/config_import.hpp"
#include "trainmem/errors.hpp"

namespace trainmem {

namespace warning_code {
inline constexpr const char* ignored_fields = "ignored_fields";
inline constexpr const char* lora_targets_assumed = "lora_targets_assumed";
inline constexpr const char* generic_layout = "generic_layout";
inline constexpr const char* beyond_context = "beyond_context";
inline constexpr const char* flash_unsupported = "flash_unsupported";
inline constexpr const char* lora_rank_exceeds_model = "lora_rank_exceeds_model";
inline constexpr const char* model_states_only = "model_states_only";
inline constexpr const char* adapters_need_architecture = "adapters_need_architecture";
inline constexpr const char* zero_does_not_shard_activations = "zero_does_not_shard_activations";
inline constexpr const char* global_batch_does_not_set_memory = "global_batch_does_not_set_memory";
inline constexpr const char* paged_optimizer = "paged_optimizer";
inline constexpr const char* eight_bit_small_tensors = "eight_bit_small_tensors";
inline constexpr const char* fp8_not_a_saving = "fp8_not_a_saving";
inline constexpr const char* fp8_weights_bf16_gradients = "fp8_weights_bf16_gradients";
inline constexpr const char* sharded_checkpoint_resume = "sharded_checkpoint_resume";
inline constexpr const char* bf16_unsupported = "bf16_unsupported";
inline constexpr const char* flash_attention_unsupported = "flash_attention_unsupported";
inline constexpr const char* flash_attention_3_unsupported = "flash_attention_3_unsupported";
inline constexpr const char* tpu_unsupported_software = "tpu_unsupported_software";
inline constexpr const char* fp8_unsupported = "fp8_unsupported";
inline constexpr const char* unpriced_part = "unpriced_part";
inline constexpr const char* image_size_assumed = "image_size_assumed";
inline constexpr const char* ssm_fused_kernels = "ssm_fused_kernels";
inline constexpr const char* time_unavailable = "time_unavailable";
inline constexpr const char* above_2_53 = "above_2_53";
inline constexpr const char* vllm_share_below_weights = "vllm_share_below_weights";
inline constexpr const char* grpo_partial_prompt_groups = "grpo_partial_prompt_groups";
inline constexpr const char* layout_beyond_framework = "layout_beyond_framework";
inline constexpr const char* quantized_checkpoint = "quantized_checkpoint";
}  // namespace warning_code

// Why an answer of `solve` (solver.hpp, calibration.hpp) or its strategy search
// (strategy_search.hpp) is missing or doubtful, and what a ranked strategy's checkpointing frees:
// the solve document's reason_messages and each strategy's explanation_message.
namespace reason_code {
inline constexpr const char* answer_needs_architecture = "answer_needs_architecture";
inline constexpr const char* answer_at_search_cap = "answer_at_search_cap";
inline constexpr const char* micro_batch_one_does_not_fit = "micro_batch_one_does_not_fit";
inline constexpr const char* model_states_exceed_budget = "model_states_exceed_budget";
inline constexpr const char* no_sequence_length_fits = "no_sequence_length_fits";
inline constexpr const char* band_past_gpu_at_every_count = "band_past_gpu_at_every_count";
inline constexpr const char* no_gpu_count_fits = "no_gpu_count_fits";
inline constexpr const char* calibration_below_model_states = "calibration_below_model_states";
inline constexpr const char* calibration_per_token_not_positive = "calibration_per_token_not_positive";
inline constexpr const char* calibration_fixed_part_negative = "calibration_fixed_part_negative";
inline constexpr const char* calibration_fixed_part_fills_budget = "calibration_fixed_part_fills_budget";
inline constexpr const char* strategy_search_truncated = "strategy_search_truncated";
inline constexpr const char* no_covered_strategy_fits = "no_covered_strategy_fits";
inline constexpr const char* no_factorization = "no_factorization";
inline constexpr const char* no_factorization_keeping_global_batch = "no_factorization_keeping_global_batch";
inline constexpr const char* no_strategy_fits = "no_strategy_fits";
inline constexpr const char* strategy_without_recompute = "strategy_without_recompute";
inline constexpr const char* strategy_checkpointing_frees = "strategy_checkpointing_frees";
inline constexpr const char* strategy_checkpointing_frees_at_cost = "strategy_checkpointing_frees_at_cost";
inline constexpr const char* strategies_untimed = "strategies_untimed";
}  // namespace reason_code

enum class MessageKind { error, warning, reason };

struct MessageCode {
  const char* code;
  MessageKind kind;
  const char* params;   // the params keys its message names, space-separated; "" for none
  const char* reasons = "";  // the values of params.reason its checks give, space-separated; "" for none
};

inline constexpr MessageCode kMessageCodes[] = {
    // Documents and fields (object_reader.hpp, read_document.cpp).
    {error_code::invalid_json, MessageKind::error, "reason offset limit line column",
     "nul_byte too_deep number_out_of_range syntax shell_syntax error_document"},
    {error_code::duplicate_key, MessageKind::error, "file line column key"},  // file...key: a YAML file's (cli/config_files.cpp)
    {error_code::document_too_large, MessageKind::error, "bytes limit"},
    {error_code::unknown_field, MessageKind::error, "suggestion"},
    {error_code::missing_field, MessageKind::error, "reason given allowed origin value model_type",
     "one_model_source model_required rlhf_algorithm_required custom_gpu_memory activations_need_architecture "
     "method_needs_architecture adapter_size_needs_architecture measured_bytes_required solve_needs_gpu text_config_required dense_layers_need_width "
     "config_key_required recompute_method_required lora_attn_modules_required recipe_key_required tune_run_no_recipe vllm_needs_gpu "
     "tune_run_config_missing files_required file_text_required catalog_key_missing"},
    {error_code::wrong_type, MessageKind::error, "expected got value entries"},
    {error_code::not_integer, MessageKind::error, "value"},
    {error_code::out_of_range, MessageKind::error, "value min above max entries limit reason chunks layers",
     "torchtitan_empty_stages empty_pipeline_stages global_batch_above_2_53"},
    {error_code::unknown_value, MessageKind::error, "value allowed suggestion"},
    // Cross-field checks (validate.cpp) and the catalogs.
    {error_code::not_divisible, MessageKind::error, "divisor of value world_size model_parallel"},
    {error_code::inconsistent, MessageKind::error,
     "reason given value limit context world_size model_parallel zero_stage entries chunks sum layers intermediate_size divisor product recipe component dtype",
     "one_model_source policy_not_language_model data_parallel_mismatch hybrid_shard_needs_zero offload_param_needs_zero3 "
     "virtual_stages_need_interleaved tp_comm_overlap_needs_sequence_parallel adapter_save_needs_lora int8_needs_bitsandbytes int8_not_sharded hqq_needs_transformers hqq_not_sharded dora_needs_bitsandbytes quantization_needs_lora qlora_fp8 experts_needed lora_targets_nothing pipeline_layers_count "
     "pipeline_layers_sum pipeline_split_flags_combined layer_types_per_layer usable_above_memory context_not_below_memory reference_needed calibration_measures_differ calibration_same_tokens "
     "mamba_heads_width gpus_not_multiple_of_parallel parallel_product_not_gpus local_batch_not_multiple_of_microbatch "
     "global_batch_not_multiple qlora_needs_4bit qlora_in_8bit both_4bit_and_8bit legacy_attention_with_attn_implementation single_device_recipe "
     "offload_needs_checkpointing optimizer_in_bwd_with_accumulation lora_recipe_full_model full_recipe_lora_model builder_argument tied_output "
     "packing_needs_max_seq_len train_batch_mismatch train_batch_not_multiple deepspeed_precision_differs id_not_file_name default_price_not_hyperscaler_on_demand "
     "usable_and_context_above_memory ring_context_parallel_needs_fused_attention optimizer_in_backward_with_accumulation nothing_trains "
     "processes_above_visible_devices"},
    {error_code::unknown_preset, MessageKind::error, "value suggestion candidates"},
    {error_code::unknown_gpu, MessageKind::error, "value suggestion candidates"},
    {error_code::unsupported_model_type, MessageKind::error, "model_type suggestion"},
    {error_code::unsupported, MessageKind::error, "reason entries limit algorithm", "too_many_open_values config_overrides torchtune_rlhf_recipe"},
    {error_code::invalid_catalog, MessageKind::error, "file problem"},  // and the params of the problem (code `problem`) in the file
    {error_code::internal, MessageKind::error, ""},
    // Trainer configuration import (config_import.hpp).
    {error_code::unknown_config_format, MessageKind::error, "reason framework file evidence", "empty_file"},
    {error_code::conflicting_values, MessageKind::error, "reason first first_value second second_value", "files_disagree bf16_and_fp16"},
    {error_code::model_config_needed, MessageKind::error, "value suggestion"},
    // YAML and TOML (cli/config_files.cpp; the page parses them alike, web/src/config-files.js).
    {error_code::invalid_yaml, MessageKind::error, "file line column"},
    {error_code::invalid_toml, MessageKind::error, "file line column"},
    {error_code::invalid_encoding, MessageKind::error, "file line column byte"},
    {error_code::unresolved_value, MessageKind::error, "origin"},
    // Estimate warnings (explain.cpp, hardware_warnings.cpp, multimodal_checks.cpp, estimate_document.cpp).
    {warning_code::ignored_fields, MessageKind::warning, "fields paths"},
    {warning_code::lora_targets_assumed, MessageKind::warning, "model_type targets"},
    {warning_code::generic_layout, MessageKind::warning, "model_type assumptions parameters"},
    {warning_code::beyond_context, MessageKind::warning, "seq_length max_position_embeddings"},
    {warning_code::flash_unsupported, MessageKind::warning, "model_type"},
    {warning_code::lora_rank_exceeds_model, MessageKind::warning, "r adapter_parameters parameters"},
    {warning_code::model_states_only, MessageKind::warning, ""},
    {warning_code::adapters_need_architecture, MessageKind::warning, ""},
    {warning_code::zero_does_not_shard_activations, MessageKind::warning, ""},
    {warning_code::global_batch_does_not_set_memory, MessageKind::warning, "global_batch_size"},
    {warning_code::paged_optimizer, MessageKind::warning, ""},
    {warning_code::eight_bit_small_tensors, MessageKind::warning, "min_8bit_size"},
    {warning_code::fp8_not_a_saving, MessageKind::warning, ""},
    {warning_code::fp8_weights_bf16_gradients, MessageKind::warning, ""},
    {warning_code::sharded_checkpoint_resume, MessageKind::warning, ""},
    {warning_code::bf16_unsupported, MessageKind::warning, "gpu"},
    {warning_code::flash_attention_unsupported, MessageKind::warning, "gpu"},
    {warning_code::flash_attention_3_unsupported, MessageKind::warning, "gpu"},
    // parts: what of the setup has no TPU back end, comma-separated ("bitsandbytes 4-bit base", "DeepSpeed").
    {warning_code::tpu_unsupported_software, MessageKind::warning, "gpu parts part_ids"},
    {warning_code::fp8_unsupported, MessageKind::warning, "gpu field"},
    {warning_code::unpriced_part, MessageKind::warning, "field parameters"},
    {warning_code::image_size_assumed, MessageKind::warning, "model_type height width"},
    {warning_code::ssm_fused_kernels, MessageKind::warning, ""},
    {warning_code::time_unavailable, MessageKind::warning, "reason"},
    {warning_code::layout_beyond_framework, MessageKind::warning, "field"},
    {warning_code::quantized_checkpoint, MessageKind::warning, "quant_method method"},
    {warning_code::above_2_53, MessageKind::warning, "fields"},
    // bytes: vLLM's pool (the share of the device); weights: its copy of the policy.
    {warning_code::vllm_share_below_weights, MessageKind::warning, "share bytes weights"},
    {warning_code::grpo_partial_prompt_groups, MessageKind::warning, "num_generations generation_batch micro_batch_size world_size gradient_accumulation_steps"},
    // Solve and strategy-search reasons (solver.cpp, calibration.cpp, strategy_search.cpp). Bytes
    // in bytes (model_states, headroom, freed); step_time_increase a fraction of the step without
    // recompute; include_offload "true" or "false".
    {reason_code::answer_needs_architecture, MessageKind::reason, ""},
    {reason_code::answer_at_search_cap, MessageKind::reason, "answer cap"},
    // actions: what can still lower the peak, space-separated: shorter_sequence checkpointing, zero_1, zero_2 or
    // zero_3 (the highest ZeRO stage above the setup's that it accepts), more_gpus offload lora larger_gpu.
    {reason_code::micro_batch_one_does_not_fit, MessageKind::reason, "seq_length actions"},
    {reason_code::model_states_exceed_budget, MessageKind::reason, ""},
    {reason_code::no_sequence_length_fits, MessageKind::reason, "micro_batch_size seq_length peak budget"},
    {reason_code::band_past_gpu_at_every_count, MessageKind::reason, "gpus max_gpus zero_stage"},
    {reason_code::no_gpu_count_fits, MessageKind::reason, "max_gpus zero_stage actions can_shard"},
    {reason_code::calibration_below_model_states, MessageKind::reason, "model_states"},
    {reason_code::calibration_per_token_not_positive, MessageKind::reason, ""},
    {reason_code::calibration_fixed_part_negative, MessageKind::reason, "points"},
    {reason_code::calibration_fixed_part_fills_budget, MessageKind::reason, ""},
    {reason_code::strategy_search_truncated, MessageKind::reason, "max_work covered_splits splits model_parallel"},
    {reason_code::no_covered_strategy_fits, MessageKind::reason, ""},
    {reason_code::no_factorization, MessageKind::reason, "world_size constraints"},
    {reason_code::no_factorization_keeping_global_batch, MessageKind::reason, "world_size global_batch_size constraints"},
    {reason_code::no_strategy_fits, MessageKind::reason, "world_size include_offload zero_stage adapters"},
    {reason_code::strategy_without_recompute, MessageKind::reason, "headroom"},
    {reason_code::strategy_checkpointing_frees, MessageKind::reason, "checkpointing freed"},
    {reason_code::strategy_checkpointing_frees_at_cost, MessageKind::reason, "checkpointing freed step_time_increase"},
    {reason_code::strategies_untimed, MessageKind::reason, "reason"},  // reason: time_unavailable's reason keys
};

}  // namespace trainmem
