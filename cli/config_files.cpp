#include "config_files.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <regex>
#include <sstream>
#include <unordered_set>
#include <vector>

#include <toml++/toml.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "trainmem/json_api.hpp"

namespace trainmem::cli {

namespace {

// Files nest a few levels; deeper structures are refused (as JSON documents are).
constexpr int kMaxDepth = 64;
// Aliases can repeat a subtree many times ("billion laughs"): the values built are bounded, and so
// are the bytes of their text (one long string repeated by 250,000 aliases would be gigabytes).
constexpr std::size_t kMaxValues = 1000000;
constexpr std::size_t kMaxTextBytes = 64 << 20;

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string without_underscores(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
  return s;
}

// Sexagesimal "1:30:05" -> 5405 (PyYAML construct_yaml_int / construct_yaml_float).
double base60(const std::string& digits) {
  double value = 0;
  std::stringstream parts(digits);
  std::string part;
  while (std::getline(parts, part, ':')) value = value * 60 + std::stod(part);
  return value;
}

ConfigValue yaml_int(const std::string& text) {
  std::string v = without_underscores(text);
  int sign = 1;
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
    sign = v[0] == '-' ? -1 : 1;
    v = v.substr(1);
  }
  double value = 0;
  if (v == "0") value = 0;
  else if (v.rfind("0b", 0) == 0) { for (char c : v.substr(2)) value = value * 2 + (c - '0'); }
  // Digit by digit, as the other bases: no digits ("0x_") or more than 64 bits never throw.
  else if (v.rfind("0x", 0) == 0) { for (char c : v.substr(2)) value = value * 16 + std::stoi(std::string(1, c), nullptr, 16); }
  else if (v[0] == '0') { for (char c : v.substr(1)) value = value * 8 + (c - '0'); }
  else if (v.find(':') != std::string::npos) value = base60(v);
  else { for (char c : v) value = value * 10 + (c - '0'); }
  value *= sign;
  if (std::fabs(value) <= 9007199254740992.0) return static_cast<std::int64_t>(value);
  return value;  // beyond 2^53: kept as a number, as JSON readers would
}

ConfigValue yaml_float(const std::string& text) {
  std::string v = without_underscores(text);
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // .inf and .nan have no JSON form: kept as written (both edges do the same).
  if (v.find("inf") != std::string::npos || v.find("nan") != std::string::npos) return text;
  double sign = 1;
  if (v[0] == '-' || v[0] == '+') {
    sign = v[0] == '-' ? -1 : 1;
    v = v.substr(1);
  }
  // strtod, not stod: a number below the smallest double reads as 0 (or subnormal), as PyYAML's
  // float() reads it, where stod throws; one beyond the largest is infinite, kept as written as .inf.
  const double value = v.find(':') != std::string::npos
                           ? base60(v.substr(0, v.find('.'))) + std::strtod(("0" + v.substr(v.find('.'))).c_str(), nullptr)
                           : std::strtod(v.c_str(), nullptr);
  if (!std::isfinite(value)) return text;
  return sign * value;
}

// A parser's error where it stopped in a file: "file:line:column: what", with the position as
// its params (message_codes.hpp), from which the page words it; `key` names a repeated key.
FieldError parse_error_at(const char* code, const std::string& file, int line, int column, const std::string& what,
                  const std::string& key = "") {
  Params p{{"file", file}, {"line", static_cast<double>(line)}, {"column", static_cast<double>(column)}};
  if (!key.empty()) p.values.emplace_back("key", key);
  return {code, file, file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what, std::move(p)};
}

struct Builder {
  std::size_t values = 0;
  std::size_t text_bytes = 0;
  std::string error;
  const char* failure_code = error_code::invalid_yaml;
  int error_line = 0, error_column = 0;
  std::string duplicate;  // the repeated key, for duplicate_key

  std::optional<ConfigValue> build(const YAML::Node& node, int depth) {
    if (depth > kMaxDepth) return fail(node, "nests deeper than " + std::to_string(kMaxDepth) + " levels");
    if (++values > kMaxValues) return fail(node, "expands to more than " + std::to_string(kMaxValues) + " values (aliases)");
    switch (node.Type()) {
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined: return ConfigValue(nullptr);
      case YAML::NodeType::Scalar: {
        if ((text_bytes += node.Scalar().size()) > kMaxTextBytes)
          return fail(node, "expands to more than " + std::to_string(kMaxTextBytes) + " bytes of text (aliases)");
        const std::string& tag = node.Tag();
        if (tag == "!" || tag == "tag:yaml.org,2002:str") return ConfigValue(node.Scalar());  // quoted or !!str
        return yaml11_plain_scalar(node.Scalar());
      }
      case YAML::NodeType::Sequence: {
        ConfigValue::Array a;
        for (const auto& e : node) {
          auto v = build(e, depth + 1);
          if (!v) return std::nullopt;
          a.push_back(std::move(*v));
        }
        return ConfigValue(std::move(a));
      }
      case YAML::NodeType::Map: {
        ObjectBuilder o;
        // Merge keys (<<) first: the mapping's own keys override merged ones (PyYAML flatten_mapping).
        for (const auto& kv : node) {
          if (kv.first.IsScalar() && kv.first.Scalar() == "<<" && kv.first.Tag() == "?") {
            std::vector<YAML::Node> sources;
            if (kv.second.IsSequence()) for (const auto& e : kv.second) sources.push_back(e);
            else sources.push_back(kv.second);
            for (const auto& src : sources) {
              auto merged = build(src, depth + 1);
              if (!merged) return std::nullopt;
              if (!merged->is_object()) return fail(kv.second, "a merge key (<<) needs a mapping");
              for (auto& [k, v] : merged->as_object())
                if (!o.contains(k)) o.set(k, std::move(v));
            }
          }
        }
        std::unordered_set<std::string> own;
        for (const auto& kv : node) {
          if (kv.first.IsScalar() && kv.first.Scalar() == "<<" && kv.first.Tag() == "?") continue;
          if (!kv.first.IsScalar()) return fail(kv.first, "a mapping key must be a scalar");
          // Keys: PyYAML turns plain 1 or true into int/bool keys; JSON keys are text either way.
          const std::string& key = kv.first.Scalar();
          if ((text_bytes += key.size()) > kMaxTextBytes)
            return fail(kv.first, "expands to more than " + std::to_string(kMaxTextBytes) + " bytes of text (aliases)");
          // PyYAML keeps the last of a repeated key silently; here it is an error naming the key, as
          // in every other input (docs/api.md "Limits").
          if (!own.insert(key).second)
            return fail(kv.first, "the key \"" + excerpt(key, 64) + "\" appears more than once in its mapping", error_code::duplicate_key, key);
          auto v = build(kv.second, depth + 1);
          if (!v) return std::nullopt;
          o.set(key, std::move(*v));
        }
        return o.take();
      }
    }
    return ConfigValue(nullptr);
  }

  std::optional<ConfigValue> fail(const YAML::Node& at, const std::string& message, const char* code = error_code::invalid_yaml,
                                  const std::string& key = "") {
    if (error.empty()) {
      error = message;
      duplicate = excerpt(key, 64);
      failure_code = code;
      error_line = at.Mark().line + 1;
      error_column = at.Mark().column + 1;
    }
    return std::nullopt;
  }
};

ConfigValue from_toml(const toml::node& n) {
  if (const auto* t = n.as_table()) {
    ObjectBuilder o;  // a TOML table's keys are unique (toml++ refuses a repeat)
    for (const auto& [k, v] : *t) o.set(std::string(k.str()), from_toml(v));
    return o.take();
  }
  if (const auto* a = n.as_array()) {
    ConfigValue::Array out;
    for (const auto& e : *a) out.push_back(from_toml(e));
    return ConfigValue(std::move(out));
  }
  if (const auto* s = n.as_string()) return ConfigValue(s->get());
  if (const auto* i = n.as_integer()) return ConfigValue(static_cast<std::int64_t>(i->get()));
  if (const auto* f = n.as_floating_point()) {
    const double d = f->get();
    if (!std::isfinite(d)) return ConfigValue(std::isnan(d) ? "nan" : d > 0 ? "inf" : "-inf");
    return ConfigValue(d);
  }
  if (const auto* b = n.as_boolean()) return ConfigValue(b->get());
  // Dates and times: their TOML text.
  std::ostringstream text;
  n.visit([&](const auto& v) { text << v; });
  return ConfigValue(text.str());
}

// Offset of the first byte that does not belong to a well-formed UTF-8 sequence (Unicode 15,
// Table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF); none when the text is UTF-8.
std::optional<std::size_t> first_invalid_utf8(const std::string& text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) { ++i; continue; }
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) length = 2;
    else if (c == 0xE0) { length = 3; low = 0xA0; }
    else if (c == 0xED) { length = 3; high = 0x9F; }
    else if (c >= 0xE1 && c <= 0xEF) length = 3;
    else if (c == 0xF0) { length = 4; low = 0x90; }
    else if (c == 0xF4) { length = 4; high = 0x8F; }
    else if (c >= 0xF1 && c <= 0xF3) length = 4;
    else return i;
    if (i + length > n || s[i + 1] < low || s[i + 1] > high) return i;
    for (std::size_t k = 2; k < length; ++k)
      if (s[i + k] < 0x80 || s[i + k] > 0xBF) return i;
    i += length;
  }
  return std::nullopt;
}

}  // namespace

ConfigValue yaml11_plain_scalar(const std::string& s) {
  // PyYAML 6.0 yaml/resolver.py implicit resolvers, in the order they are tried.
  static const std::regex kBool("^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$");
  static const std::regex kFloat(
      "^(?:[-+]?(?:[0-9][0-9_]*)\\.[0-9_]*(?:[eE][-+][0-9]+)?"
      "|\\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
      "|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*"
      "|[-+]?\\.(?:inf|Inf|INF)"
      "|\\.(?:nan|NaN|NAN))$");
  static const std::regex kInt(
      "^(?:[-+]?0b[0-1_]+"
      "|[-+]?0[0-7_]+"
      "|[-+]?(?:0|[1-9][0-9_]*)"
      "|[-+]?0x[0-9a-fA-F_]+"
      "|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$");
  static const std::regex kNull("^(?:~|null|Null|NULL|)$");
  if (std::regex_match(s, kNull)) return nullptr;
  if (std::regex_match(s, kBool)) {
    const char c = s[0];
    return c == 'y' || c == 'Y' || c == 't' || c == 'T' || (s.size() == 2 && (s == "on" || s == "On" || s == "ON"));
  }
  if (s.size() <= 64 && std::regex_match(s, kInt)) return yaml_int(s);
  if (s.size() <= 64 && std::regex_match(s, kFloat)) return yaml_float(s);
  return s;  // timestamps stay text, as a JSON writer would render them
}

namespace {
// The 1-based column of the first character of 1-based `line` that is neither a space nor a tab
// (1 for a line of blanks or one past the end of the text).
int first_non_blank_column(const std::string& text, int line) {
  std::size_t start = 0;
  for (int l = 1; l < line && start != std::string::npos; ++l) {
    start = text.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start == std::string::npos) return 1;
  std::size_t i = start;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  return i < text.size() && text[i] != '\n' && text[i] != '\r' ? static_cast<int>(i - start) + 1 : 1;
}
}  // namespace

namespace {
// Where each document's first node starts, read with yaml-cpp's event parser: the mark of the first
// event of a document (its root node).
class FirstNodeMark : public YAML::EventHandler {
 public:
  YAML::Mark mark = YAML::Mark::null_mark();
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { note(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { note(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { note(m); }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override { note(m); }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override { note(m); }
  void OnMapEnd() override {}

 private:
  bool seen_ = false;
  void note(const YAML::Mark& m) {
    if (!seen_) mark = m;
    seen_ = true;
  }
};

// The first nodes of the stream's first documents, at most `limit` of them. yaml-cpp 0.7 (Debian 12)
// stalls on a token no node can start with (a comma outside brackets: `,` or `"",`): each
// HandleNextDocument then reports one more empty document at the same place without reading on, so
// its LoadAll never ends (jbeder/yaml-cpp issue #1040, fixed by pull request #1319 after 0.8.0).
// Two documents in a row that start at the same place are that stall: `stalled_at` is set to it.
std::vector<YAML::Mark> first_document_marks(const std::string& text, std::size_t limit, std::optional<YAML::Mark>& stalled_at) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  std::vector<YAML::Mark> marks;
  while (marks.size() < limit) {
    FirstNodeMark document;
    if (!parser.HandleNextDocument(document)) break;
    if (!marks.empty() && document.mark.pos == marks.back().pos) {
      stalled_at = document.mark;
      break;
    }
    marks.push_back(document.mark);
  }
  return marks;
}
}  // namespace

std::optional<ConfigValue> parse_yaml(const std::string& text, const std::string& name, Errors& errors) {
  try {
    // One document, as PyYAML's safe_load reads (it refuses a stream of several, "expected a single
    // document in the stream"); yaml-cpp's Load would take the first and drop the rest in silence.
    // Three documents tell a stall apart from a second document; then Load reads the first one.
    std::optional<YAML::Mark> stalled_at;
    const std::vector<YAML::Mark> documents = first_document_marks(text, 3, stalled_at);
    if (stalled_at) {
      const int line = stalled_at->line + 1;
      errors.push_back(parse_error_at(error_code::invalid_yaml, name, line, first_non_blank_column(text, line),
                                      "no YAML value can start here (a comma outside brackets, or text after the document's value): the parser cannot read on"));
      return std::nullopt;
    }
    if (documents.size() > 1) {
      const int line = documents[1].line + 1;
      errors.push_back(parse_error_at(error_code::invalid_yaml, name, line, first_non_blank_column(text, line),
                                      "the stream holds a second YAML document (after a \"---\" line, or a value after the first one ends): a config file holds one, as PyYAML's safe_load requires"));
      return std::nullopt;
    }
    const YAML::Node root = documents.empty() ? YAML::Node() : YAML::Load(text);
    Builder b;
    auto v = b.build(root, 0);
    if (!v) {
      errors.push_back(parse_error_at(b.failure_code, name, b.error_line, b.error_column, b.error, b.duplicate));
      return std::nullopt;
    }
    return v;
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own recursion guard (depthguard.h) words this as "bad file": it is nesting, far
    // beyond kMaxDepth; the page words npm yaml's stack overflow the same way.
    errors.push_back(parse_error_at(error_code::invalid_yaml, name, e.mark.line + 1, e.mark.column + 1,
                                 "nests deeper than " + std::to_string(kMaxDepth) + " levels (the parser stops here)"));
    return std::nullopt;
  } catch (const YAML::Exception& e) {
    // yaml-cpp and the page's npm yaml stop on the same line but point at different characters of
    // it: both name the line's first character that is not a blank (docs/import.md).
    const int line = e.mark.line + 1;
    errors.push_back(parse_error_at(error_code::invalid_yaml, name, line, first_non_blank_column(text, line), e.msg));
    return std::nullopt;
  }
}

std::optional<ConfigValue> parse_toml(const std::string& text, const std::string& name, Errors& errors) {
  try {
    const toml::table table = toml::parse(text, name);
    return from_toml(table);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    errors.push_back(parse_error_at(error_code::invalid_toml, name, static_cast<int>(where.line), static_cast<int>(where.column),
                                 std::string(e.description())));
    return std::nullopt;
  }
}

namespace {
void emit(YAML::Emitter& out, const ConfigValue& v) {
  switch (v.kind()) {
    case ConfigValue::Kind::null: out << YAML::Null; break;
    case ConfigValue::Kind::boolean: out << (v.as_bool() ? "true" : "false"); break;
    case ConfigValue::Kind::integer: out << v.as_integer(); break;
    case ConfigValue::Kind::number: out << v.summary(); break;
    case ConfigValue::Kind::string:
      // A string that PyYAML would read as something else ("NO", "yes", "1e5" is safe, "1.0" is not) is quoted.
      if (!yaml11_plain_scalar(v.as_string()).is_string()) out << YAML::DoubleQuoted << v.as_string();
      else out << v.as_string();
      break;
    case ConfigValue::Kind::array:
      out << YAML::BeginSeq;
      for (const auto& e : v.as_array()) emit(out, e);
      out << YAML::EndSeq;
      break;
    case ConfigValue::Kind::object:
      out << YAML::BeginMap;
      for (const auto& [k, e] : v.as_object()) {
        out << YAML::Key << k << YAML::Value;
        emit(out, e);
      }
      out << YAML::EndMap;
      break;
  }
}
}  // namespace

std::string emit_yaml(const ConfigValue& value) {
  YAML::Emitter out;
  emit(out, value);
  return std::string(out.c_str()) + "\n";
}

std::optional<ConfigFile> load_config_file(const std::string& name, const std::string& text, Errors& errors) {
  if (text.size() > kMaxDocumentBytes) {
    errors.push_back({error_code::document_too_large, name,
                      name + " is " + std::to_string(text.size()) + " bytes; the limit is " + std::to_string(kMaxDocumentBytes),
                      {{"bytes", static_cast<double>(text.size())}, {"limit", static_cast<double>(kMaxDocumentBytes)}}});
    return std::nullopt;
  }
  // JSON (RFC 8259 §8.1), TOML 1.0 and the Python readers of YAML files and command lines take UTF-8
  // text; a file in another encoding is refused where its first bad byte is.
  if (const auto bad = first_invalid_utf8(text)) {
    std::size_t line = 1, line_start = 0;
    for (std::size_t i = 0; i < *bad; ++i)
      if (text[i] == '\n') { ++line; line_start = i + 1; }
    const std::size_t column = *bad - line_start + 1;
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[*bad]));
    FieldError e = parse_error_at(error_code::invalid_encoding, name, static_cast<int>(line), static_cast<int>(column),
                                  std::string("byte ") + byte + " is not UTF-8; save the file as UTF-8");
    e.params.values.emplace_back("byte", byte);
    errors.push_back(std::move(e));
    return std::nullopt;
  }
  ConfigFile f;
  f.name = name;
  // An empty file, whatever its kind, is not parsed: the import names it as empty.
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    f.text = text;
    return f;
  }
  std::optional<ConfigValue> content;
  const bool yaml = ends_with(name, ".yaml") || ends_with(name, ".yml"), toml = ends_with(name, ".toml");
  // A parser may stop at a NUL byte and read what came before it as the whole file (JSON files are
  // checked by parse_json_config, command lines by the import).
  if (const auto nul = text.find('\0'); (yaml || toml) && nul != std::string::npos) {
    errors.push_back({yaml ? error_code::invalid_yaml : error_code::invalid_toml, name,
                      name + " contains a NUL byte at byte offset " + std::to_string(nul) + " (a text file has none)"});
    return std::nullopt;
  }
  if (yaml) content = parse_yaml(text, name, errors);
  else if (toml) content = parse_toml(text, name, errors);
  else if (ends_with(name, ".json")) content = parse_json_config(text, name, errors);
  else {
    f.text = text;
    return f;
  }
  if (!content) return std::nullopt;
  f.content = std::move(*content);
  return f;
}

}  // namespace trainmem::cli
