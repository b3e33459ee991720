// Reading an input document: size, NUL bytes, nesting depth, syntax and duplicate keys, each a
// field-specific error, before any field is looked at.
#include <algorithm>
#include <optional>
#include <unordered_set>

#include "documents.hpp"
#include "nonfinite_tokens.hpp"
#include "object_reader.hpp"
#include "trainmem/json_api.hpp"

namespace trainmem::json_io {

namespace {

// Where the parser is: one frame per open object or array, for the path of a duplicate key.
struct Frame {
  bool array = false;
  std::size_t index = 0;  // arrays: the element being read
  std::string key;        // objects: the key being read
  std::unordered_set<std::string> keys;
};

std::string path_to(const std::vector<Frame>& frames, const std::string& key) {
  std::string path;
  for (std::size_t i = 0; i + 1 < frames.size(); ++i)
    path = join_path(path, frames[i].array ? std::to_string(frames[i].index) : excerpt(frames[i].key, kMaxKeyInMessage));
  return join_path(path, excerpt(key, kMaxKeyInMessage));
}

}  // namespace

std::optional<json> read_document(std::string_view document, Errors& errors, const std::string& name) {
  const bool whole = name == "(document)";
  const std::string what = whole ? "the document" : excerpt(name, kMaxKeyInMessage);
  const std::string at = whole ? name : what;  // the error's field
  if (document.size() > kMaxDocumentBytes) {
    errors.push_back({error_code::document_too_large, at,
                      what + " is " + std::to_string(document.size()) + " bytes; the limit is " + std::to_string(kMaxDocumentBytes),
                      {{"bytes", static_cast<double>(document.size())}, {"limit", static_cast<double>(kMaxDocumentBytes)}}});
    return std::nullopt;
  }
  // The parser stops reading at a NUL byte and would take what came before it as the document.
  if (const std::size_t nul = document.find('\0'); nul != std::string_view::npos) {
    errors.push_back({error_code::invalid_json, at,
                      what + " contains a NUL byte at byte offset " + std::to_string(nul) + " (JSON text has none)",
                      {{"reason", "nul_byte"}, {"offset", static_cast<double>(nul)}}});
    return std::nullopt;
  }
  if (nesting_depth(document) > kMaxNestingDepth) {
    errors.push_back({error_code::invalid_json, at,
                      what + " nests arrays/objects deeper than " + std::to_string(kMaxNestingDepth) + " levels",
                      {{"reason", "too_deep"}, {"limit", static_cast<double>(kMaxNestingDepth)}}});
    return std::nullopt;
  }
  // JSON leaves duplicate keys to the reader; most keep the last one silently. Here each one is an
  // error naming its path, as a typo's twin that would otherwise decide the answer.
  std::vector<Frame> frames;
  std::vector<std::string> duplicates;
  const json::parser_callback_t watch = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start: frames.push_back({}); break;
      case json::parse_event_t::array_start:
        frames.emplace_back();
        frames.back().array = true;
        break;
      case json::parse_event_t::key: {
        Frame& f = frames.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second) duplicates.push_back(path_to(frames, f.key));
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames.pop_back();
        [[fallthrough]];
      case json::parse_event_t::value:
        if (!frames.empty() && frames.back().array) ++frames.back().index;
        break;
    }
    return true;
  };
  json doc;
  std::optional<std::size_t> syntax_byte;  // where the parser stopped (json::parse_error::byte)
  try {
    doc = json::parse(document.begin(), document.end(), watch);
  } catch (const json::parse_error& e) {
    syntax_byte = e.byte;
  } catch (const json::exception&) {  // a number beyond the range of a double
    errors.push_back({error_code::invalid_json, at, what + " is not valid JSON (a number out of range)",
                      {{"reason", "number_out_of_range"}}});
    return std::nullopt;
  }
  // Python's NaN/Infinity tokens (a config.json saved by transformers): read once more with each
  // one marked, then resolved (nonfinite_tokens.hpp); if that fails too, the first error stands.
  if (syntax_byte) {
    if (const auto marked = mark_nonfinite_tokens(document)) {
      frames.clear();
      duplicates.clear();
      try {
        doc = json::parse(marked->begin(), marked->end(), watch);
        syntax_byte.reset();
        const std::size_t before = errors.total();
        resolve_nonfinite_markers(doc, whole ? std::string() : what, errors);
        if (errors.total() > before) return std::nullopt;
      } catch (const json::exception&) {
        // The marked text is not JSON either: the first error stands.
      }
    }
  }
  if (syntax_byte) {
    // The parser's message quotes the last token read, which may be a cut multi-byte character: not echoed.
    // The byte counts from 1; line and column (in bytes) count from 1 as editors do.
    const std::size_t offset = std::min<std::size_t>(*syntax_byte == 0 ? 0 : *syntax_byte - 1, document.size());
    const std::string_view before = document.substr(0, offset);
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    const std::size_t line_start = before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
    errors.push_back({error_code::invalid_json, at,
                      what + " is not valid JSON (syntax error at line " + std::to_string(line) + ", column " +
                          std::to_string(offset - line_start + 1) + ", byte offset " + std::to_string(offset) + ")",
                      {{"reason", "syntax"}, {"line", static_cast<double>(line)}, {"column", static_cast<double>(offset - line_start + 1)}, {"offset", static_cast<double>(offset)}}});
    return std::nullopt;
  }
  for (const auto& path : duplicates) {
    const std::string field = whole ? path : what + ":" + path;
    errors.push_back({error_code::duplicate_key, field, field + " appears more than once in its object"});
  }
  if (!duplicates.empty()) return std::nullopt;
  return doc;
}

}  // namespace trainmem::json_io
