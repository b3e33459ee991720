// Module-name patterns as PEFT matches them (Python re.fullmatch), without backtracking.
#include <catch2/catch.hpp>

#include "trainmem/module_pattern.hpp"

using trainmem::ModulePattern;

namespace {
bool matches(const std::string& pattern, const std::string& name) {
  std::string error;
  auto p = ModulePattern::compile(pattern, error);
  INFO(error);
  REQUIRE(p);
  return p->full_match(name);
}
std::string error_of(const std::string& pattern) {
  std::string error;
  CHECK_FALSE(ModulePattern::compile(pattern, error));
  return error;
}
}  // namespace

TEST_CASE("patterns match whole names, as re.fullmatch", "[lora][pattern]") {
  const std::string q = "model.layers.0.self_attn.q_proj";
  CHECK_FALSE(matches("q_proj", q));  // a string target_modules is not a suffix
  CHECK(matches(".*q_proj", q));
  CHECK(matches(R"(.*\.layers\.(0|1)\.self_attn\.(q|v)_proj)", q));
  CHECK_FALSE(matches(R"(.*\.layers\.(1|2)\.self_attn\.(q|v)_proj)", q));
  CHECK(matches(R"(model\.layers\.\d+\.self_attn\.[qkv]_proj)", q));
  CHECK(matches(R"(model\.layers\.\d{1,2}\.self_attn\.[^o]_proj)", q));
  CHECK_FALSE(matches(R"(model\.layers\.\d{2,3}\.self_attn\.q_proj)", q));
  CHECK(matches(R"(^model\.(?:layers|h)\.0\..*$)", q));
  CHECK(matches("(?P<block>model.layers).*", q));
  CHECK(matches("a{,2}b", "aab"));
  CHECK_FALSE(matches("a{,2}b", "aaab"));
  CHECK(matches("x{3}", "xxx"));
  CHECK(matches("a{2}", "aa"));
  CHECK(matches("a{x", "a{x"));  // braces that are not a quantifier are literal, as in Python
  CHECK(matches(".*proj", "gate_up_proj"));
  CHECK_FALSE(matches(".", "\n"));
}

TEST_CASE("a pattern that backtracking engines take exponential time on is matched in one pass", "[lora][pattern]") {
  // (a|a)*b and (a*)*b against a long run of a's: 2^n paths for a backtracking matcher, one
  // pass over the name here. The answer (no match) is what re.fullmatch gives.
  const std::string name(400, 'a');
  CHECK_FALSE(matches("(a|a)*b", name));
  CHECK_FALSE(matches("(a*)*b", name));
  CHECK(matches("(a*)*", name));
  CHECK(matches("(a|aa)+", name));
}

TEST_CASE("patterns that need backtracking, or are too long, are refused with the reason", "[lora][pattern][errors]") {
  CHECK_THAT(error_of(R"((a)\1)"), Catch::Contains("back-references"));
  CHECK_THAT(error_of("(?=q)q_proj"), Catch::Contains("look-arounds"));
  CHECK_THAT(error_of("q_proj("), Catch::Contains("missing ')'"));
  CHECK_THAT(error_of("*q"), Catch::Contains("nothing to repeat"));
  CHECK_THAT(error_of("a**"), Catch::Contains("multiple repeat"));
  CHECK_THAT(error_of("[a-"), Catch::Contains("unterminated character set"));
  CHECK_THAT(error_of(std::string(ModulePattern::kMaxPatternLength + 1, 'a')), Catch::Contains("the limit is 512"));
  CHECK_THAT(error_of("(((a{1000}){1000}){1000})"), Catch::Contains("states"));
}
