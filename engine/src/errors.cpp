#include "trainmem/errors.hpp"

#include <algorithm>
#include <cctype>

#include "trainmem/work_meter.hpp"

namespace trainmem {

namespace {
std::size_t edit_distance(const std::string& a, const std::string& b) {
  work_meter::add((a.size() + 1) * (b.size() + 1));
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

std::string excerpt(const std::string& text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t cut = max_bytes >= 3 ? max_bytes - 3 : 0;
  // UTF-8 continuation bytes are 10xxxxxx: back up to the first byte of the character.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

namespace {

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "Llama-3.1_8B" -> {"llama", "3", "1", "8b"}
std::vector<std::string> parts(const std::string& s) {
  std::vector<std::string> out(1);
  for (char c : lowercase(s)) {
    if (c == '-' || c == '_' || c == '.' || c == '/' || c == ' ') {
      if (!out.back().empty()) out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

// Every part of `inner` is one of `outer`'s.
bool holds_parts(const std::vector<std::string>& outer, const std::vector<std::string>& inner) {
  if (inner.empty()) return false;
  for (const auto& p : inner)
    if (std::find(outer.begin(), outer.end(), p) == outer.end()) return false;
  return true;
}

// The parts without separators: {"rtx", "4090", "24gb"} -> "rtx409024gb".
std::string squashed(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += p;
  return out;
}

}  // namespace

CatalogMatch closest_catalog_id(const std::string& word, const std::vector<std::string>& ids,
                                const std::vector<std::string>& aliases) {
  constexpr std::size_t kLongestWord = 128;  // a Hugging Face id fits; longer input gets no suggestion
  if (word.size() > kLongestWord || word.empty()) return {};
  const std::string lower = lowercase(word);
  for (std::size_t i = 0; i < ids.size() && i < aliases.size(); ++i)
    if (!aliases[i].empty() && lowercase(aliases[i]) == lower) return {ids[i], {}};
  const std::vector<std::string> wanted = parts(word);
  const std::string flat = squashed(wanted);
  std::vector<std::string> extending;  // ids holding every part of the word
  std::string extended, prefixed;      // the best id of each other kind so far
  std::size_t extended_parts = 0;
  for (const auto& id : ids) {
    const std::vector<std::string> have = parts(id);
    if (holds_parts(have, wanted)) extending.push_back(id);
    if (holds_parts(wanted, have) && have.size() > extended_parts) extended = id, extended_parts = have.size();
    if (!flat.empty() && squashed(have).compare(0, flat.size(), flat) == 0 && (prefixed.empty() || id.size() < prefixed.size()))
      prefixed = id;
  }
  if (extending.size() == 1) return {extending.front(), {}};
  if (extending.size() > 1) {
    std::sort(extending.begin(), extending.end(),
              [](const std::string& a, const std::string& b) { return a.size() != b.size() ? a.size() < b.size() : a < b; });
    return {"", extending};
  }
  if (!extended.empty()) return {extended, {}};
  if (!prefixed.empty()) return {prefixed, {}};
  return {closest_match(word, ids), {}};
}

namespace {

// "\"a\", \"b\" and 3 more": the candidates a message and its params list.
std::string listed_candidates(const std::vector<std::string>& candidates) {
  constexpr std::size_t kListed = 8;
  std::string out;
  for (std::size_t i = 0; i < candidates.size() && i < kListed; ++i) out += (i ? ", \"" : "\"") + candidates[i] + "\"";
  if (candidates.size() > kListed) out += " and " + std::to_string(candidates.size() - kListed) + " more";
  return out;
}

}  // namespace

std::string CatalogMatch::message_tail() const {
  if (!candidates.empty()) return "; it names several: " + listed_candidates(candidates);
  return id.empty() ? "" : "; did you mean \"" + id + "\"?";
}

Params CatalogMatch::params(const std::string& word) const {
  Params out{{"value", excerpt(word)}};
  if (!candidates.empty()) out.values.emplace_back("candidates", listed_candidates(candidates));
  if (!id.empty()) out.values.emplace_back("suggestion", id);
  return out;
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  // Nobody mistypes a name into 64 bytes: longer words get no suggestion (and cost nothing).
  constexpr std::size_t kLongestWord = 64;
  std::string best;
  if (word.size() > kLongestWord) return best;
  // Up to 3 edits (a third of a long word), and fewer than the word's length: "k0" is no typo of "gpu".
  const std::size_t most_edits = std::min(std::max<std::size_t>(3, word.size() / 3), word.size() - (word.empty() ? 0 : 1));
  std::size_t best_distance = most_edits + 1;
  for (const auto& c : candidates) {
    // The distance is at least the difference in length.
    const std::size_t gap = word.size() > c.size() ? word.size() - c.size() : c.size() - word.size();
    if (gap >= best_distance) continue;
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace trainmem
