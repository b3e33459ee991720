// Python-like readings of configuration scalars (reading.hpp).
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "reading.hpp"

namespace trainmem::import_detail {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

namespace {
std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}
// A decimal or scientific number as Python's float() reads it (no hex, no inf/nan).
std::optional<double> parse_float(const std::string& text) {
  const std::string s = trimmed(text);
  if (s.empty() || s.size() > 64) return std::nullopt;
  for (char c : s)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' || c == '_'))
      return std::nullopt;
  std::string digits;
  for (char c : s) if (c != '_') digits += c;
  char* end = nullptr;
  const double d = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}
}  // namespace

std::optional<double> number_value(const ConfigValue& v) {
  if (v.is_number()) return std::isfinite(v.as_double()) ? std::optional<double>(v.as_double()) : std::nullopt;
  if (v.is_string()) return parse_float(v.as_string());
  return std::nullopt;
}

namespace {
// Text as Python's int() reads it (surrounding whitespace, an optional sign, decimal digits with
// single underscores between them; no exponent or fraction): argparse's type=int and pydantic's
// integer fields from a string. The digits without underscores and the sign, or nothing.
struct IntText {
  bool negative = false;
  std::string digits;
};
std::optional<IntText> python_int_text(const std::string& text) {
  const std::string t = trimmed(text);
  const std::size_t first = !t.empty() && (t[0] == '-' || t[0] == '+') ? 1 : 0;
  IntText out;
  out.negative = first == 1 && t[0] == '-';
  if (t.size() <= first) return std::nullopt;
  for (std::size_t i = first; i < t.size(); ++i) {
    if (t[i] >= '0' && t[i] <= '9') out.digits += t[i];
    else if (!(t[i] == '_' && i > first && i + 1 < t.size() && t[i - 1] != '_' && t[i + 1] >= '0' && t[i + 1] <= '9')) return std::nullopt;
  }
  return out;
}
}  // namespace

std::optional<std::int64_t> integer_value(const ConfigValue& v) {
  // Up to 2^53 in magnitude: what a document's reader (and the page, a JavaScript number) keeps
  // exactly; a 64-bit integer beyond it would reach them changed.
  constexpr std::int64_t kExact = std::int64_t{1} << 53;
  if (v.kind() == ConfigValue::Kind::integer) {
    const std::int64_t i = v.as_integer();
    return i >= -kExact && i <= kExact ? std::optional<std::int64_t>(i) : std::nullopt;
  }
  // A string (a command-line word, a quoted value) is read as Python's int() reads it: "1e2" and
  // "8.0" are no whole numbers to argparse's type=int or a pydantic integer field.
  if (v.is_string()) {
    const auto text = python_int_text(v.as_string());
    if (!text) return std::nullopt;
    const std::size_t significant = text->digits.find_first_not_of('0');
    if (significant == std::string::npos) return 0;
    if (text->digits.size() - significant > 16) return std::nullopt;
    const std::int64_t magnitude = std::stoll(text->digits.substr(significant));
    if (magnitude > kExact) return std::nullopt;
    return text->negative ? -magnitude : magnitude;
  }
  auto d = number_value(v);
  // 2e8 in a DeepSpeed JSON is a whole number; Python's int("2.5") fails, and so do we.
  if (!d || std::floor(*d) != *d || std::fabs(*d) > 9007199254740992.0) return std::nullopt;
  return static_cast<std::int64_t>(*d);
}

std::optional<std::int64_t> whole_number(Reading& r, const std::string& k, const ConfigValue& v) {
  if (auto i = integer_value(v)) return i;
  const bool int_text = v.is_string() && python_int_text(v.as_string());
  if (v.is_string() && !int_text) {
    r.error(error_code::wrong_type, k, "expected a whole number as Python's int() reads it (no exponent or fraction), got " + v.summary(),
            {{"expected", "integer"}, {"got", "string"}, {"value", v.summary()}});
    return std::nullopt;
  }
  if (const auto d = number_value(v); d && std::floor(*d) == *d) {
    r.error(error_code::out_of_range, k, v.summary() + " is beyond 9007199254740992 (2^53), the largest whole number read exactly",
            {{"value", v.is_string() ? v.as_string() : v.summary()}, {"max", 9007199254740992.0}});
    return std::nullopt;
  }
  r.error(error_code::wrong_type, k, "expected a whole number, got " + v.summary());
  return std::nullopt;
}

// A process count as torchrun reads one (Python's int(): surrounding whitespace, an optional sign,
// decimal digits with single underscores between them; no exponent or fraction), >= 1: "-8" is a
// whole number out of range, "8.0" is not a whole number. Digits in other scripts are refused.
std::optional<std::int64_t> process_count(Reading& r, const std::string& k, const std::string& text) {
  const std::string t = trimmed(text);
  const auto parsed = python_int_text(text);
  if (!parsed) {
    r.error(error_code::wrong_type, k, "expected a whole number of processes (torchrun reads it with int()), got \"" + text + "\"",
            {{"expected", "integer"}, {"got", "string"}, {"value", "\"" + text + "\""}});
    return std::nullopt;
  }
  const std::string& digits = parsed->digits;
  const std::size_t significant = digits.find_first_not_of('0');
  const bool negative = parsed->negative && significant != std::string::npos;
  if (negative || significant == std::string::npos) {
    r.error(error_code::out_of_range, k, "must be at least 1, got " + t, {{"value", t}, {"min", 1.0}});
    return std::nullopt;
  }
  if (digits.size() - significant > 15) {
    r.error(error_code::out_of_range, k, "must be at most 999999999999999 processes, got " + t, {{"value", t}, {"max", 999999999999999.0}});
    return std::nullopt;
  }
  return std::stoll(digits.substr(significant));
}

std::optional<bool> bool_value(const ConfigValue& v) {
  if (v.is_bool()) return v.as_bool();
  if (v.kind() == ConfigValue::Kind::integer && (v.as_integer() == 0 || v.as_integer() == 1)) return v.as_integer() == 1;
  if (!v.is_string()) return std::nullopt;
  // transformers.utils.generic.strtobool (training_args.py imports it for string flags).
  const std::string s = lower(trimmed(v.as_string()));
  if (s == "y" || s == "yes" || s == "t" || s == "true" || s == "on" || s == "1") return true;
  if (s == "n" || s == "no" || s == "f" || s == "false" || s == "off" || s == "0") return false;
  return std::nullopt;
}

std::optional<std::string> string_value(const ConfigValue& v) {
  if (v.is_string()) return v.as_string();
  return std::nullopt;
}

bool is_auto(const ConfigValue& v) { return v.is_string() && lower(v.as_string()) == "auto"; }

std::string gpu_count_not_given(const std::vector<std::pair<std::string, std::int64_t>>& degrees) {
  std::int64_t least = 1;
  std::string product;
  for (const auto& [name, n] : degrees) {
    least *= n;
    if (n > 1) product += (product.empty() ? "" : " x ") + name + " " + std::to_string(n);
  }
  const std::string n = std::to_string(least);
  return "the run needs at least " + n + (least == 1 ? " GPU" : " GPUs") + (product.empty() ? "" : " (" + product + ")") +
         "; an estimate of this document alone takes " + n + " (one data-parallel rank, so nothing is sharded across ranks), and the page "
         "keeps the GPU count its form holds: give the launch line or the GPU count for the run's own";
}

}  // namespace trainmem::import_detail
