// Typed, error-collecting access to one JSON object of a document (JSON boundary only).
//
// Each accessor returns nullopt when the key is absent or null (the documented default applies)
// and records a FieldError, with the full document path, when the value has the wrong type or
// range. finish() reports every key that no accessor asked for as unknown_field.
#pragma once

#include <algorithm>
#include <cmath>
#include <string_view>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "trainmem/errors.hpp"
#include "trainmem/json_api.hpp"
#include "trainmem/number_text.hpp"

namespace trainmem::json_io {

using nlohmann::json;

// A scalar from the input as messages show it: a number in number_text's one format (a JSON
// 1e12 reads as 1000000000000, not nlohmann's 1000000000000.0), anything else as JSON text.
inline std::string scalar_text(const json& v) {
  return v.is_number_float() ? number_text(v.get<double>()) : v.dump();
}

inline std::string join_path(const std::string& base, const std::string& key) {
  return base.empty() ? key : base + "." + key;
}

inline std::string type_name(const json& v) { return std::string(v.type_name()); }

// Deepest nesting of arrays and objects in a JSON text (outside strings). Checked before parsing:
// printing or destroying very deep values recurses, and WebAssembly's stack is small.
inline std::size_t nesting_depth(std::string_view text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char ch : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (ch == '\\') escaped = true;
      else if (ch == '"') in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((ch == ']' || ch == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// Longest key from the input quoted in a field path or message (bytes; longer keys are cut).
inline constexpr std::size_t kMaxKeyInMessage = 64;

class ObjectReader {
 public:
  ObjectReader(const json& value, std::string path, Errors& errors)
      : value_(value), path_(std::move(path)), errors_(errors) {
    valid_ = value.is_object();
    if (!valid_)
      errors_.push_back({error_code::wrong_type, path_.empty() ? "(document)" : path_,
                         (path_.empty() ? std::string("the document") : path_) + " must be an object, got " + type_name(value),
                         {{"expected", "object"}, {"got", type_name(value)}}});
  }

  bool valid() const { return valid_; }
  const std::string& path() const { return path_; }
  // The key's document path; a key from the input is shortened (a 1 MB key is not echoed whole).
  std::string field(const std::string& key) const { return join_path(path_, excerpt(key, kMaxKeyInMessage)); }

  // The raw value, or nullptr when absent or null.
  const json* get(const std::string& key) {
    seen_.insert(key);
    if (!valid_) return nullptr;
    auto it = value_.find(key);
    if (it == value_.end() || it->is_null()) return nullptr;
    return &*it;
  }

  bool has(const std::string& key) const { return valid_ && value_.contains(key) && !value_.at(key).is_null(); }

  std::optional<double> number(const std::string& key, double min, double max, bool min_exclusive = false) {
    const json* v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_number()) {
      type_error(key, "a number", *v);
      return std::nullopt;
    }
    const double d = v->get<double>();
    if (!std::isfinite(d) || d < min || d > max || (min_exclusive && d == min)) {
      errors_.push_back({error_code::out_of_range, field(key),
                         field(key) + " = " + scalar_text(*v) + " is out of range (" + (min_exclusive ? "> " : ">= ") +
                             number_text(min) + " and <= " + number_text(max) + ")",
                         {{"value", scalar_text(*v)}, {min_exclusive ? "above" : "min", min}, {"max", max}}});
      return std::nullopt;
    }
    return d;
  }

  // A whole number (7e9 is accepted) in [min, max].
  std::optional<std::int64_t> integer(const std::string& key, double min, double max) {
    const json* v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_number()) {
      type_error(key, "an integer", *v);
      return std::nullopt;
    }
    const double d = v->get<double>();
    if (!std::isfinite(d) || std::floor(d) != d) {
      errors_.push_back({error_code::not_integer, field(key), field(key) + " = " + scalar_text(*v) + " must be a whole number",
                         {{"value", scalar_text(*v)}}});
      return std::nullopt;
    }
    if (d < min || d > max || d > kMaxExactInteger) {
      errors_.push_back({error_code::out_of_range, field(key),
                         field(key) + " = " + scalar_text(*v) + " is out of range (" + number_text(min) + " to " +
                             number_text(std::min(max, kMaxExactInteger)) + ")",
                         {{"value", scalar_text(*v)}, {"min", min}, {"max", std::min(max, kMaxExactInteger)}}});
      return std::nullopt;
    }
    if (v->is_number_integer()) return v->get<std::int64_t>();
    return static_cast<std::int64_t>(d);
  }

  std::optional<bool> boolean(const std::string& key) {
    const json* v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) {
      type_error(key, "true or false", *v);
      return std::nullopt;
    }
    return v->get<bool>();
  }

  std::optional<std::string> string(const std::string& key) {
    const json* v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_string()) {
      type_error(key, "a string", *v);
      return std::nullopt;
    }
    return v->get<std::string>();
  }

  // One of a fixed set of names.
  template <typename E>
  std::optional<E> choice(const std::string& key, const std::vector<std::pair<const char*, E>>& table) {
    auto s = string(key);
    if (!s) return std::nullopt;
    std::vector<std::string> names;
    for (const auto& [name, value] : table) {
      if (*s == name) return value;
      names.emplace_back(name);
    }
    unknown_value(key, *s, names);
    return std::nullopt;
  }

  void unknown_value(const std::string& key, const std::string& got, const std::vector<std::string>& names) {
    if (errors_.full()) return errors_.push_back({error_code::unknown_value, field(key), ""});  // counted, not listed
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    std::string near = closest_match(got, names);
    // PyTorch's and Hugging Face's dtype spellings (torch_dtype: "bfloat16") are no typos of ours.
    static const std::pair<const char*, const char*> kTorchDtypes[] = {
        {"bfloat16", "bf16"}, {"torch.bfloat16", "bf16"}, {"float16", "fp16"}, {"torch.float16", "fp16"}, {"half", "fp16"},
        {"float32", "fp32"}, {"torch.float32", "fp32"}, {"float", "fp32"}, {"float8", "fp8"}, {"float8_e4m3fn", "fp8"}};
    for (const auto& [torch_name, ours] : kTorchDtypes)
      if (got == torch_name && std::find(names.begin(), names.end(), ours) != names.end()) near = ours;
    Params params{{"value", excerpt(got)}, {"allowed", list}};
    if (!near.empty()) params.values.emplace_back("suggestion", near);
    errors_.push_back({error_code::unknown_value, field(key),
                       field(key) + " = \"" + excerpt(got) + "\" is not one of: " + list +
                           (near.empty() ? "" : "; did you mean \"" + near + "\"?"),
                       std::move(params)});
  }

  void type_error(const std::string& key, const char* expected, const json& got) {
    // Only scalars are quoted: printing a container would recurse through all of its nesting.
    const bool scalar = !got.is_structured();
    // The simple expectations as a type name a page words; a described shape stays in the message.
    Params params{{"got", type_name(got)}};
    const std::string want = expected;
    const char* type = want == "a number" ? "number" : want == "an integer" ? "integer" : want == "true or false" ? "boolean"
                       : want == "a string" ? "string" : nullptr;
    if (type) params.values.emplace_back("expected", type);
    if (scalar) params.values.emplace_back("value", excerpt(scalar_text(got)));
    errors_.push_back({error_code::wrong_type, field(key),
                       field(key) + " must be " + expected + ", got " + type_name(got) + (scalar ? " " + excerpt(scalar_text(got)) : ""),
                       std::move(params)});
  }

  void too_many_entries(const std::string& key, std::size_t entries) {
    errors_.push_back({error_code::out_of_range, field(key),
                       field(key) + " has " + std::to_string(entries) + " entries; the limit is " +
                           std::to_string(kMaxListEntries),
                       {{"entries", static_cast<double>(entries)}, {"limit", static_cast<double>(kMaxListEntries)}}});
  }

  // Reports keys nobody asked for.
  void finish() {
    if (!valid_) return;
    std::vector<std::string> known(seen_.begin(), seen_.end());
    for (auto it = value_.begin(); it != value_.end(); ++it) {
      if (seen_.count(it.key())) continue;
      if (errors_.full()) {  // counted, not listed: no suggestion to compute
        errors_.push_back({error_code::unknown_field, field(it.key()), ""});
        continue;
      }
      const std::string near = closest_match(it.key(), known);
      Params params;
      if (!near.empty()) params.values.emplace_back("suggestion", near);
      errors_.push_back({error_code::unknown_field, field(it.key()),
                         "unknown field " + field(it.key()) + (near.empty() ? "" : "; did you mean \"" + near + "\"?"),
                         std::move(params)});
    }
  }

  Errors& errors() { return errors_; }

 private:
  const json& value_;
  std::string path_;
  Errors& errors_;
  bool valid_ = false;
  std::set<std::string> seen_;
};

}  // namespace trainmem::json_io
