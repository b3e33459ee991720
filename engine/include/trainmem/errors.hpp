// Input problems as values: a stable code, the document path of the field, and a message for people.
// Codes are a contract (tests and the page map them); messages state the offending values.
#pragma once

#include <string>
#include <vector>

namespace trainmem {

namespace error_code {
inline constexpr const char* invalid_json = "invalid_json";
inline constexpr const char* document_too_large = "document_too_large";
inline constexpr const char* unknown_field = "unknown_field";
inline constexpr const char* missing_field = "missing_field";
inline constexpr const char* wrong_type = "wrong_type";
inline constexpr const char* not_integer = "not_integer";
inline constexpr const char* out_of_range = "out_of_range";
inline constexpr const char* unknown_value = "unknown_value";
inline constexpr const char* not_divisible = "not_divisible";
inline constexpr const char* inconsistent = "inconsistent";
inline constexpr const char* unknown_preset = "unknown_preset";
inline constexpr const char* unknown_gpu = "unknown_gpu";
inline constexpr const char* unsupported_model_type = "unsupported_model_type";
inline constexpr const char* unsupported = "unsupported";
inline constexpr const char* invalid_catalog = "invalid_catalog";
}  // namespace error_code

struct FieldError {
  std::string code;
  std::string field;  // document path, e.g. "parallel.tensor_parallel_size"
  std::string message;
};

using Errors = std::vector<FieldError>;

// A text from the input, shortened for a message: at most `max_bytes` bytes, cut on a UTF-8
// character boundary, "..." marking the cut (a cut inside a character would make the message,
// and the whole JSON answer, invalid UTF-8).
std::string excerpt(const std::string& text, std::size_t max_bytes = 40);

// Closest candidate by edit distance, for "did you mean" messages; empty when none is close.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace trainmem
