// Input problems as values: a stable code, the document path of the field, and a message for people.
// Codes are a contract (tests and the page map them); messages state the offending values.
// Every code is listed, with the params its message names, in message_codes.hpp.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "trainmem/params.hpp"

namespace trainmem {

namespace error_code {
inline constexpr const char* invalid_json = "invalid_json";
inline constexpr const char* duplicate_key = "duplicate_key";
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
// An exception inside the engine (a defect): the document answers with it instead of crashing.
inline constexpr const char* internal = "internal";
}  // namespace error_code

struct FieldError {
  std::string code;
  std::string field;  // document path, e.g. "parallel.tensor_parallel_size"
  std::string message;
  Params params{};  // the values the message names (params.hpp); empty where a message names none
};

// The problems of one input: the first kMaxListedErrors are kept, all are counted. A document with
// 200,000 bad entries answers with 100 described problems and errors_total = 200000, not a
// 46 MB error document. Callers that build costly messages (suggestions) check full() first.
inline constexpr std::size_t kMaxListedErrors = 100;

class Errors {
 public:
  Errors() = default;
  Errors(std::initializer_list<FieldError> list) {
    for (const auto& e : list) push_back(e);
  }
  void push_back(FieldError e) {
    ++total_;
    if (listed_.size() < kMaxListedErrors) listed_.push_back(std::move(e));
  }
  template <typename... Args>
  void emplace_back(Args&&... args) {
    push_back(FieldError{std::forward<Args>(args)...});
  }
  void clear() {
    listed_.clear();
    total_ = 0;
  }
  // Adds another list's problems, counting the ones it dropped.
  void append(const Errors& other) {
    for (const auto& e : other) push_back(e);
    total_ += other.total_ - other.size();
  }
  bool empty() const { return total_ == 0; }
  bool full() const { return listed_.size() >= kMaxListedErrors; }
  std::size_t size() const { return listed_.size(); }  // listed problems
  std::size_t total() const { return total_; }          // every problem found
  const FieldError& operator[](std::size_t i) const { return listed_[i]; }
  const FieldError& front() const { return listed_.front(); }
  std::vector<FieldError>::const_iterator begin() const { return listed_.begin(); }
  std::vector<FieldError>::const_iterator end() const { return listed_.end(); }

 private:
  std::vector<FieldError> listed_;
  std::size_t total_ = 0;
};

// A text from the input, shortened for a message: at most `max_bytes` bytes, cut on a UTF-8
// character boundary, "..." marking the cut (a cut inside a character would make the message,
// and the whole JSON answer, invalid UTF-8).
std::string excerpt(const std::string& text, std::size_t max_bytes = 40);

// Closest candidate by edit distance, for "did you mean" messages; empty when none is close.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

// What a mistyped catalog id (a preset or GPU id) most likely meant, for "did you mean": `id`, one
// entry, or `candidates`, several the word names equally, for the user to choose among.
struct CatalogMatch {
  std::string id;                       // empty when nothing is near or the word names several
  std::vector<std::string> candidates;  // two or more: every id holding all of the word's parts
  // ", did you mean ..." / "; it names several: ..." for a message (empty when nothing is near).
  std::string message_tail() const;
  // The params of the failed look-up: `value` (the word, shortened) and `suggestion` (the id) or
  // `candidates` (the ids, quoted and comma-separated, at most 8 and "and N more").
  Params params(const std::string& word) const;
};

// An entry whose alias is `word` (a preset's Hugging Face id, any case); else every id that holds all
// the parts of `word` (parts split at '-', '_', '.', '/', ' ', any case): one ("h200" -> "h200-141gb")
// or several, listed by length, then name ("h100-80gb" -> "h100-pcie-80gb", "h100-sxm-80gb": a
// different GPU each, never one picked for the user); else the longest id whose parts `word` all holds
// ("llama-3.1-8b-instruct" -> "llama-3.1-8b"); else the shortest id that starts with `word` with
// the separators dropped ("rtx4090" -> "rtx-4090-24gb"); else closest_match. `aliases[i]` belongs to
// `ids[i]` (empty: none). Both fields empty when nothing is near.
CatalogMatch closest_catalog_id(const std::string& word, const std::vector<std::string>& ids,
                                const std::vector<std::string>& aliases = {});

}  // namespace trainmem
