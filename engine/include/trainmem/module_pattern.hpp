// A module-name pattern as PEFT writes it: Python `re` syntax, matched whole (re.fullmatch), for
// lora.target_modules / exclude_modules given as a string and the keys of rank_pattern
// (PEFT v0.17.0 src/peft/utils/other.py: match_target_against_key, get_pattern_key).
//
// The pattern compiles to a Thompson automaton and is matched by simulating every state at once
// (Thompson 1968; Cox, "Regular Expression Matching Can Be Simple And Fast", 2007): time is
// O(pattern x name) whatever the pattern, so no pattern a link can carry blows up. Supported: literals,
// `.`, escapes (\d \w \s and their negations, escaped punctuation), classes `[...]` with ranges and
// negation, groups `(...)` and `(?:...)`, `|`, `* + ?` and `{m}`, `{m,}`, `{m,n}` (lazy forms match
// the same names), `^` at the start and `$` at the end. Back-references and look-arounds cannot be
// matched without backtracking and are refused with the reason.
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainmem {

class ModulePattern {
 public:
  // Longest accepted pattern (characters) and compiled program (states).
  static constexpr std::size_t kMaxPatternLength = 512;
  static constexpr std::size_t kMaxStates = 20000;

  // The compiled pattern, or nullopt with `error` saying what is wrong and where.
  static std::optional<ModulePattern> compile(std::string_view pattern, std::string& error);

  // True when the whole of `name` matches (Python re.fullmatch).
  bool full_match(std::string_view name) const;
  // States of the compiled program: matching a name costs at most its length x this.
  std::size_t size() const { return states_.size(); }

 private:
  enum class Op : std::uint8_t { byte_set, split, match };
  struct State {
    Op op = Op::match;
    std::uint32_t next = 0, alt = 0;  // byte_set: next; split: both
    std::uint32_t set = 0;            // byte_set: index into sets_
  };
  friend class ModulePatternCompiler;
  std::vector<State> states_;
  std::vector<std::bitset<256>> sets_;
  std::uint32_t start_ = 0;
};

}  // namespace trainmem
