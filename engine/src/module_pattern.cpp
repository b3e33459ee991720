#include "trainmem/module_pattern.hpp"

#include <memory>

namespace trainmem {

namespace {

// Pattern syntax tree.
struct Node {
  enum class Kind { set, concat, alternation, repeat } kind = Kind::concat;
  std::bitset<256> set;
  std::vector<std::unique_ptr<Node>> children;
  int min = 0, max = -1;  // repeat bounds; max -1: unbounded
};
using NodePtr = std::unique_ptr<Node>;

NodePtr make(Node::Kind kind) {
  auto n = std::make_unique<Node>();
  n->kind = kind;
  return n;
}

std::bitset<256> range(unsigned char lo, unsigned char hi) {
  std::bitset<256> s;
  for (unsigned c = lo; c <= hi; ++c) s.set(c);
  return s;
}

class Parser {
 public:
  Parser(std::string_view p, std::string& error) : p_(p), error_(error) {}

  NodePtr parse() {
    NodePtr n = alternation();
    if (ok() && pos_ < p_.size()) fail("unbalanced ')'");
    return ok() ? std::move(n) : nullptr;
  }

 private:
  bool ok() const { return error_.empty(); }
  bool at_end() const { return pos_ >= p_.size(); }
  void fail(const std::string& why) {
    if (ok()) error_ = why + " at position " + std::to_string(pos_);
  }

  NodePtr alternation() {
    NodePtr first = concatenation();
    if (at_end() || p_[pos_] != '|') return first;
    NodePtr alt = make(Node::Kind::alternation);
    alt->children.push_back(std::move(first));
    while (ok() && !at_end() && p_[pos_] == '|') {
      ++pos_;
      alt->children.push_back(concatenation());
    }
    return alt;
  }

  NodePtr concatenation() {
    NodePtr cat = make(Node::Kind::concat);
    while (ok() && !at_end() && p_[pos_] != '|' && p_[pos_] != ')') {
      NodePtr atom_node = repeat();
      if (atom_node) cat->children.push_back(std::move(atom_node));
    }
    return cat;
  }

  // {m}, {m,}, {m,n}, {,n}; false (position unchanged) when the braces are not a quantifier, which
  // Python then reads as literal characters.
  bool braces(int& min, int& max) {
    std::size_t i = pos_ + 1;
    auto number = [&](int& out) {
      const std::size_t from = i;
      long v = 0;
      while (i < p_.size() && p_[i] >= '0' && p_[i] <= '9' && v <= 100000) v = v * 10 + (p_[i++] - '0');
      out = static_cast<int>(v);
      return i > from;
    };
    int lo = 0, hi = -1;
    const bool has_lo = number(lo);
    if (i < p_.size() && p_[i] == '}') {
      if (!has_lo) return false;
      hi = lo;
    } else if (i < p_.size() && p_[i] == ',') {
      ++i;
      if (!number(hi)) hi = -1;
      if (i >= p_.size() || p_[i] != '}') return false;
    } else {
      return false;
    }
    pos_ = i + 1;
    min = lo;
    max = hi;
    if (max >= 0 && max < min) fail("min repeat greater than max repeat");
    return true;
  }

  NodePtr repeat() {
    NodePtr a = atom();
    while (ok() && a && !at_end()) {
      int min = 0, max = -1;
      const char c = p_[pos_];
      if (c == '*') {
        ++pos_;
      } else if (c == '+') {
        ++pos_;
        min = 1;
      } else if (c == '?') {
        ++pos_;
        max = 1;
      } else if (c != '{' || !braces(min, max)) {
        break;
      }
      if (!at_end() && p_[pos_] == '?') ++pos_;  // lazy: the same names match in full
      if (!at_end() && (p_[pos_] == '+' || p_[pos_] == '*' || p_[pos_] == '{')) {
        if (p_[pos_] != '{' || braces(min, max)) return fail("multiple repeat"), nullptr;
      }
      NodePtr r = make(Node::Kind::repeat);
      r->min = min;
      r->max = max;
      r->children.push_back(std::move(a));
      a = std::move(r);
    }
    return a;
  }

  NodePtr set_node(const std::bitset<256>& s) {
    NodePtr n = make(Node::Kind::set);
    n->set = s;
    return n;
  }

  // One escape after a backslash, as a byte set (into `out`); false for an anchor (\A, \Z).
  bool escape(std::bitset<256>& out, bool in_class) {
    if (at_end()) return fail("bad escape (end of pattern)"), true;
    const char c = p_[pos_++];
    const auto digits = range('0', '9');
    const auto word = range('a', 'z') | range('A', 'Z') | digits | range('_', '_');
    std::bitset<256> space;
    for (char s : {' ', '\t', '\n', '\r', '\f', '\v'}) space.set(static_cast<unsigned char>(s));
    switch (c) {
      case 'd': out = digits; return true;
      case 'D': out = ~digits; return true;
      case 'w': out = word; return true;
      case 'W': out = ~word; return true;
      case 's': out = space; return true;
      case 'S': out = ~space; return true;
      case 'n': out.set('\n'); return true;
      case 't': out.set('\t'); return true;
      case 'r': out.set('\r'); return true;
      case 'f': out.set('\f'); return true;
      case 'v': out.set('\v'); return true;
      case 'A':
      case 'Z':
        if (in_class) fail("bad escape \\" + std::string(1, c) + " in a class");
        return false;
      case 'b':
      case 'B':
        fail("word-boundary assertions (\\b, \\B) are not supported");
        return true;
      default:
        break;
    }
    if (c >= '0' && c <= '9') {
      fail("back-references cannot be matched without backtracking");
      return true;
    }
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      fail(std::string("bad escape \\") + c);
      return true;
    }
    out.set(static_cast<unsigned char>(c));
    return true;
  }

  NodePtr char_class() {
    std::bitset<256> s;
    bool negate = false;
    if (!at_end() && p_[pos_] == '^') {
      negate = true;
      ++pos_;
    }
    bool first = true;
    while (ok()) {
      if (at_end()) return fail("unterminated character set"), nullptr;
      char c = p_[pos_];
      if (c == ']' && !first) {
        ++pos_;
        break;
      }
      first = false;
      std::bitset<256> item;
      int lo = -1;
      ++pos_;
      if (c == '\\') {
        escape(item, true);
        if (item.count() == 1)
          for (int b = 0; b < 256; ++b)
            if (item.test(b)) lo = b;
      } else {
        lo = static_cast<unsigned char>(c);
        item.set(lo);
      }
      if (lo >= 0 && pos_ + 1 < p_.size() && p_[pos_] == '-' && p_[pos_ + 1] != ']') {
        ++pos_;
        int hi = static_cast<unsigned char>(p_[pos_++]);
        if (hi == '\\') {
          std::bitset<256> e;
          escape(e, true);
          hi = -1;
          if (e.count() == 1)
            for (int b = 0; b < 256; ++b)
              if (e.test(b)) hi = b;
          if (hi < 0) return fail("bad character range"), nullptr;
        }
        if (hi < lo) return fail("bad character range"), nullptr;
        item = range(static_cast<unsigned char>(lo), static_cast<unsigned char>(hi));
      }
      s |= item;
    }
    return set_node(negate ? ~s : s);
  }

  NodePtr atom() {
    const char c = p_[pos_];
    if (c == '(') {
      ++pos_;
      if (!at_end() && p_[pos_] == '?') {
        if (pos_ + 1 < p_.size() && p_[pos_ + 1] == ':') {
          pos_ += 2;
        } else if (pos_ + 2 < p_.size() && p_[pos_ + 1] == 'P' && p_[pos_ + 2] == '<') {
          const std::size_t close = p_.find('>', pos_);
          if (close == std::string_view::npos) return fail("unterminated group name"), nullptr;
          pos_ = close + 1;
        } else {
          return fail("look-arounds, inline flags and other (?...) groups are not supported"), nullptr;
        }
      }
      NodePtr inner = alternation();
      if (at_end() || p_[pos_] != ')') return fail("missing ')'"), nullptr;
      ++pos_;
      return inner;
    }
    if (c == ')') return fail("unbalanced ')'"), nullptr;
    if (c == '*' || c == '+' || c == '?') return fail("nothing to repeat"), nullptr;
    ++pos_;
    if (c == '[') return char_class();
    if (c == '.') {
      std::bitset<256> s;
      s.set();
      s.reset('\n');
      return set_node(s);
    }
    if (c == '^' && pos_ == 1) return make(Node::Kind::concat);
    if (c == '$' && pos_ == p_.size()) return make(Node::Kind::concat);
    if (c == '^' || c == '$') return fail("'^' and '$' are supported only at the ends"), nullptr;
    if (c == '\\') {
      std::bitset<256> s;
      if (!escape(s, false)) {
        const bool start = pos_ == 2, end = pos_ == p_.size();
        if (!(start && p_[1] == 'A') && !(end && p_[pos_ - 1] == 'Z'))
          return fail("\\A and \\Z are supported only at the ends"), nullptr;
        return make(Node::Kind::concat);
      }
      return set_node(s);
    }
    std::bitset<256> s;
    s.set(static_cast<unsigned char>(c));
    return set_node(s);
  }

  std::string_view p_;
  std::string& error_;
  std::size_t pos_ = 0;
};

}  // namespace

// Compiles a syntax tree backwards: each node is built knowing the state that follows it.
class ModulePatternCompiler {
 public:
  explicit ModulePatternCompiler(ModulePattern& out) : out_(out) {}

  bool full() const { return out_.states_.size() > ModulePattern::kMaxStates; }

  std::uint32_t add(ModulePattern::Op op, std::uint32_t next = 0, std::uint32_t alt = 0, std::uint32_t set = 0) {
    out_.states_.push_back({op, next, alt, set});
    return static_cast<std::uint32_t>(out_.states_.size() - 1);
  }

  std::uint32_t compile(const Node& n, std::uint32_t next) {
    if (full()) return next;
    switch (n.kind) {
      case Node::Kind::set:
        out_.sets_.push_back(n.set);
        return add(ModulePattern::Op::byte_set, next, 0, static_cast<std::uint32_t>(out_.sets_.size() - 1));
      case Node::Kind::concat:
        for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) next = compile(**it, next);
        return next;
      case Node::Kind::alternation: {
        std::uint32_t start = compile(*n.children.back(), next);
        for (auto it = n.children.rbegin() + 1; it != n.children.rend(); ++it) {
          const std::uint32_t branch = compile(**it, next);
          start = add(ModulePattern::Op::split, branch, start);
        }
        return start;
      }
      case Node::Kind::repeat: {
        const Node& child = *n.children.front();
        std::uint32_t cont = next;
        if (n.max < 0) {
          // child* : a split that loops through the child.
          const std::uint32_t loop = add(ModulePattern::Op::split, 0, next);
          out_.states_[loop].next = compile(child, loop);
          cont = loop;
        } else {
          // (child(child(...)?)?)? : each optional copy either runs the child or skips to the end.
          for (int i = n.min; i < n.max && !full(); ++i) {
            const std::uint32_t body = compile(child, cont);
            cont = add(ModulePattern::Op::split, body, next);
          }
        }
        for (int i = 0; i < n.min && !full(); ++i) cont = compile(child, cont);
        return cont;
      }
    }
    return next;
  }

 private:
  ModulePattern& out_;
};

std::optional<ModulePattern> ModulePattern::compile(std::string_view pattern, std::string& error) {
  error.clear();
  if (pattern.size() > kMaxPatternLength) {
    error = "the pattern has " + std::to_string(pattern.size()) + " characters; the limit is " +
            std::to_string(kMaxPatternLength);
    return std::nullopt;
  }
  Parser parser(pattern, error);
  NodePtr tree = parser.parse();
  if (!tree) return std::nullopt;
  ModulePattern p;
  ModulePatternCompiler c(p);
  const std::uint32_t match = c.add(Op::match);
  p.start_ = c.compile(*tree, match);
  if (c.full()) {
    error = "the pattern's repetitions expand beyond " + std::to_string(kMaxStates) + " states";
    return std::nullopt;
  }
  return p;
}

bool ModulePattern::full_match(std::string_view name) const {
  // Thompson simulation: the set of states alive after each byte (no backtracking).
  std::vector<std::uint32_t> current, next;
  std::vector<std::uint32_t> seen(states_.size(), 0);
  std::uint32_t generation = 1;
  std::vector<std::uint32_t> stack;
  auto add = [&](std::vector<std::uint32_t>& list, std::uint32_t s) {
    stack.push_back(s);
    while (!stack.empty()) {
      const std::uint32_t i = stack.back();
      stack.pop_back();
      if (seen[i] == generation) continue;
      seen[i] = generation;
      const State& st = states_[i];
      if (st.op == Op::split) {
        stack.push_back(st.alt);
        stack.push_back(st.next);
      } else {
        list.push_back(i);
      }
    }
  };
  add(current, start_);
  for (const char ch : name) {
    ++generation;
    next.clear();
    const auto byte = static_cast<unsigned char>(ch);
    for (const std::uint32_t i : current) {
      const State& st = states_[i];
      if (st.op == Op::byte_set && sets_[st.set].test(byte)) add(next, st.next);
    }
    current.swap(next);
    if (current.empty()) return false;
  }
  for (const std::uint32_t i : current)
    if (states_[i].op == Op::match) return true;
  return false;
}

}  // namespace trainmem
