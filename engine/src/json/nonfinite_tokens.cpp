#include "nonfinite_tokens.hpp"

#include <cctype>

namespace trainmem::json_io {

namespace {

// A string no config holds: U+0001 (written escaped, as JSON requires) and a name.
constexpr const char* kMarker = "\x01nonfinite";
constexpr const char* kMarkerJson = "\"\\u0001nonfinite\"";

bool starts_with(std::string_view text, std::size_t at, std::string_view token) {
  return text.substr(at, token.size()) == token &&
         (at + token.size() == text.size() || !std::isalnum(static_cast<unsigned char>(text[at + token.size()])));
}

void resolve(json& node, const std::string& path, bool in_hf_config, const std::string& file, Errors& errors) {
  if (node.is_string() && node.get_ref<const std::string&>() == kMarker) {
    if (in_hf_config) {
      node = nullptr;
    } else {
      const std::string where = path.empty() ? "(document)" : path;
      const std::string field = file.empty() ? where : file + ":" + where;
      errors.push_back({error_code::wrong_type, field, field + " must be a finite number, got NaN or Infinity",
                        {{"expected", "number"}, {"got", "NaN or Infinity"}}});
    }
    return;
  }
  if (node.is_object()) {
    for (auto it = node.begin(); it != node.end(); ++it)
      resolve(it.value(), join_path(path, it.key()), in_hf_config || it.key() == "hf_config", file, errors);
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) resolve(node[i], path + "[" + std::to_string(i) + "]", in_hf_config, file, errors);
  }
}

}  // namespace

std::optional<std::string> mark_nonfinite_tokens(std::string_view text) {
  std::string out;
  bool in_string = false, escaped = false, changed = false;
  char previous = 0;  // last non-space character outside strings
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      out += ch;
      if (escaped) escaped = false;
      else if (ch == '\\') escaped = true;
      else if (ch == '"') in_string = false;
      continue;
    }
    if (ch == '"') {
      in_string = true;
      previous = ch;
      out += ch;
      continue;
    }
    std::size_t token_size = 0;
    if (previous == ':' || previous == '[' || previous == ',') {
      for (std::string_view token : {"-Infinity", "Infinity", "NaN"})
        if (token_size == 0 && starts_with(text, i, token)) token_size = token.size();
    }
    if (token_size > 0) {
      out += kMarkerJson;
      i += token_size - 1;
      changed = true;
      previous = '"';
      continue;
    }
    out += ch;
    if (!std::isspace(static_cast<unsigned char>(ch))) previous = ch;
  }
  if (!changed) return std::nullopt;
  return out;
}

void resolve_nonfinite_markers(json& doc, const std::string& file, Errors& errors) { resolve(doc, "", false, file, errors); }

}  // namespace trainmem::json_io
