// Every code the engine's documents carry in "errors" and "warnings", with the params (params.hpp)
// its message names, so that a page can word each code in its own language from the params alone
// and a test can check that every code it may meet is worded (`trainmem codes` prints this list).
//
// Error codes are declared in errors.hpp and config_import.hpp (error_code::), warning codes here
// (warning_code::); emission sites use these constants, never a bare string (tests/message_codes_test.cpp
// scans engine/src and cli/ for codes the list lacks and for listed codes nothing emits).
//
// params: the keys, space-separated. A warning carries all of them. An error's message is written
// where the problem is found, by many checks: the keys listed are the ones the generic field
// checks attach (object_reader.hpp, validate.cpp, the catalog look-ups, the import's checks); a message from another check names its values in its English text and carries `field` only.
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
inline constexpr const char* zero_does_not_shard_activations = "zero_does_not_shard_activations";
inline constexpr const char* global_batch_does_not_set_memory = "global_batch_does_not_set_memory";
inline constexpr const char* paged_optimizer = "paged_optimizer";
inline constexpr const char* eight_bit_small_tensors = "eight_bit_small_tensors";
inline constexpr const char* fp8_not_a_saving = "fp8_not_a_saving";
inline constexpr const char* sharded_checkpoint_resume = "sharded_checkpoint_resume";
inline constexpr const char* bf16_unsupported = "bf16_unsupported";
inline constexpr const char* flash_attention_unsupported = "flash_attention_unsupported";
inline constexpr const char* unpriced_part = "unpriced_part";
inline constexpr const char* image_size_assumed = "image_size_assumed";
inline constexpr const char* ssm_fused_kernels = "ssm_fused_kernels";
inline constexpr const char* time_unavailable = "time_unavailable";
inline constexpr const char* above_2_53 = "above_2_53";
}  // namespace warning_code

enum class MessageKind { error, warning };

struct MessageCode {
  const char* code;
  MessageKind kind;
  const char* params;  // the params keys its message names, space-separated; "" for none
};

inline constexpr MessageCode kMessageCodes[] = {
    // Documents and fields (object_reader.hpp, read_document.cpp).
    {error_code::invalid_json, MessageKind::error, ""},
    {error_code::duplicate_key, MessageKind::error, ""},
    {error_code::document_too_large, MessageKind::error, "bytes limit"},
    {error_code::unknown_field, MessageKind::error, "suggestion"},
    {error_code::missing_field, MessageKind::error, ""},
    {error_code::wrong_type, MessageKind::error, "expected got"},
    {error_code::not_integer, MessageKind::error, "value"},
    {error_code::out_of_range, MessageKind::error, "value min above max entries limit"},
    {error_code::unknown_value, MessageKind::error, "value allowed suggestion"},
    // Cross-field checks (validate.cpp) and the catalogs.
    {error_code::not_divisible, MessageKind::error, "divisor of value world_size model_parallel"},
    {error_code::inconsistent, MessageKind::error, ""},
    {error_code::unknown_preset, MessageKind::error, "value suggestion"},
    {error_code::unknown_gpu, MessageKind::error, "value suggestion"},
    {error_code::unsupported_model_type, MessageKind::error, "model_type suggestion"},
    {error_code::unsupported, MessageKind::error, ""},
    {error_code::invalid_catalog, MessageKind::error, ""},
    {error_code::internal, MessageKind::error, ""},
    // Trainer configuration import (config_import.hpp).
    {error_code::unknown_config_format, MessageKind::error, "framework file evidence"},
    {error_code::conflicting_values, MessageKind::error, ""},
    {error_code::model_config_needed, MessageKind::error, ""},
    {error_code::invalid_yaml, MessageKind::error, ""},
    {error_code::invalid_toml, MessageKind::error, ""},
    {error_code::invalid_encoding, MessageKind::error, ""},
    {error_code::unresolved_value, MessageKind::error, "origin"},
    // Estimate warnings (explain.cpp, hardware_warnings.cpp, multimodal_checks.cpp, estimate_document.cpp).
    {warning_code::ignored_fields, MessageKind::warning, "fields"},
    {warning_code::lora_targets_assumed, MessageKind::warning, "model_type targets"},
    {warning_code::generic_layout, MessageKind::warning, "model_type assumptions"},
    {warning_code::beyond_context, MessageKind::warning, "seq_length max_position_embeddings"},
    {warning_code::flash_unsupported, MessageKind::warning, "model_type"},
    {warning_code::lora_rank_exceeds_model, MessageKind::warning, "r adapter_parameters parameters"},
    {warning_code::model_states_only, MessageKind::warning, ""},
    {warning_code::zero_does_not_shard_activations, MessageKind::warning, ""},
    {warning_code::global_batch_does_not_set_memory, MessageKind::warning, "global_batch_size"},
    {warning_code::paged_optimizer, MessageKind::warning, ""},
    {warning_code::eight_bit_small_tensors, MessageKind::warning, "min_8bit_size"},
    {warning_code::fp8_not_a_saving, MessageKind::warning, ""},
    {warning_code::sharded_checkpoint_resume, MessageKind::warning, ""},
    {warning_code::bf16_unsupported, MessageKind::warning, "gpu"},
    {warning_code::flash_attention_unsupported, MessageKind::warning, "gpu"},
    {warning_code::unpriced_part, MessageKind::warning, "field parameters"},
    {warning_code::image_size_assumed, MessageKind::warning, "model_type height width"},
    {warning_code::ssm_fused_kernels, MessageKind::warning, ""},
    {warning_code::time_unavailable, MessageKind::warning, "reason"},
    {warning_code::above_2_53, MessageKind::warning, "fields"},
};

}  // namespace trainmem
