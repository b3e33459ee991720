#include "shell_words.hpp"

#include <cctype>
#include <map>
#include <optional>
#include <set>

namespace trainmem::import_detail {

namespace {

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A token before expansion: its pieces keep whether they were quoted, since only unquoted
// expansions split into several words (bash "word splitting").
struct Piece {
  std::string text;
  bool quoted = false;      // inside '...' or "..."
  bool expansion = false;   // text is an expansion to resolve ($NAME, ${...})
};
struct Token {
  std::vector<Piece> pieces;
  bool operator_token = false;  // ; && || | & ( ) or a newline
  std::string op;
  int line = 0;
};

class Lexer {
 public:
  explicit Lexer(const std::string& text) : s_(text) {}

  std::vector<Token> tokens() {
    std::vector<Token> out;
    while (i_ < s_.size() && error_.empty()) {
      const char c = s_[i_];
      if (const std::size_t n = continuation()) { i_ += n; ++line_; continue; }
      if (c == ' ' || c == '\t' || c == '\r') { ++i_; continue; }
      if (c == '#') { while (i_ < s_.size() && s_[i_] != '\n') ++i_; continue; }
      if (c == '\n') { push_op(out, "\n"); ++i_; ++line_; continue; }
      if (c == ';' || c == '(' || c == ')') { push_op(out, std::string(1, c)); ++i_; continue; }
      if (c == '&' || c == '|') {
        std::string op(1, c);
        if (peek(1) == c) op += c;
        push_op(out, op);
        i_ += op.size();
        continue;
      }
      out.push_back(word());
    }
    return out;
  }
  const std::string& error() const { return error_; }
  int error_line() const { return error_line_; }

 private:
  char peek(std::size_t ahead) const { return i_ + ahead < s_.size() ? s_[i_ + ahead] : '\0'; }
  // The length of a line continuation at i_: a backslash before the line feed, or before carriage
  // return + line feed in a file saved with Windows line ends (a lone carriage return is read as a
  // blank); 0 if none.
  std::size_t continuation() const {
    if (s_[i_] != '\\') return 0;
    if (peek(1) == '\n') return 2;
    return peek(1) == '\r' && peek(2) == '\n' ? 3 : 0;
  }
  void push_op(std::vector<Token>& out, const std::string& op) {
    Token t;
    t.operator_token = true;
    t.op = op;
    t.line = line_;
    out.push_back(t);
  }
  void fail(const std::string& message) {
    if (error_.empty()) { error_ = message; error_line_ = line_; }
  }
  static void add(Token& t, const std::string& text, bool quoted, bool expansion) {
    if (!expansion && !t.pieces.empty() && !t.pieces.back().expansion && t.pieces.back().quoted == quoted) {
      t.pieces.back().text += text;
      return;
    }
    t.pieces.push_back({text, quoted, expansion});
  }
  // $NAME, ${...}, $(...), $1: the raw expansion text, consumed.
  std::string expansion() {
    const std::size_t start = i_;
    ++i_;  // $
    if (i_ < s_.size() && s_[i_] == '{') {
      while (i_ < s_.size() && s_[i_] != '}') { if (s_[i_] == '\n') ++line_; ++i_; }
      if (i_ >= s_.size()) { fail("unterminated ${ in a variable expansion"); return s_.substr(start); }
      ++i_;
    } else if (i_ < s_.size() && s_[i_] == '(') {
      int depth = 0;
      for (; i_ < s_.size(); ++i_) {
        if (s_[i_] == '\n') ++line_;
        if (s_[i_] == '(') ++depth;
        if (s_[i_] == ')' && --depth == 0) break;
      }
      if (i_ >= s_.size()) { fail("unterminated $( in a command substitution"); return s_.substr(start); }
      ++i_;
    } else if (i_ < s_.size() && is_name_start(s_[i_])) {
      while (i_ < s_.size() && is_name_char(s_[i_])) ++i_;
    } else if (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '@' || s_[i_] == '*' || s_[i_] == '#' || s_[i_] == '?')) {
      ++i_;
    } else {
      return "$";  // a lone dollar sign is literal
    }
    return s_.substr(start, i_ - start);
  }
  Token word() {
    Token t;
    t.line = line_;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')') {
        // "NAME=(" starts an array assignment: the parenthesis is an operator of its own.
        break;
      }
      if (c == '\\') {
        if (const std::size_t n = continuation()) { i_ += n; ++line_; continue; }
        add(t, std::string(1, peek(1)), true, false);
        i_ += 2;
        continue;
      }
      if (c == '\'') {
        const std::size_t end = s_.find('\'', i_ + 1);
        if (end == std::string::npos) { fail("unterminated single quote"); i_ = s_.size(); break; }
        for (std::size_t k = i_ + 1; k < end; ++k) if (s_[k] == '\n') ++line_;
        add(t, s_.substr(i_ + 1, end - i_ - 1), true, false);
        i_ = end + 1;
        continue;
      }
      if (c == '"') {
        ++i_;
        bool closed = false;
        t.pieces.push_back({"", true, false});  // "" is an (empty) word of its own
        while (i_ < s_.size()) {
          const char d = s_[i_];
          if (d == '"') { closed = true; ++i_; break; }
          if (d == '\\' && (peek(1) == '"' || peek(1) == '\\' || peek(1) == '$' || peek(1) == '`')) {
            add(t, std::string(1, peek(1)), true, false);
            i_ += 2;
            continue;
          }
          if (const std::size_t n = continuation()) { i_ += n; ++line_; continue; }
          if (d == '$') { add(t, expansion(), true, true); continue; }
          if (d == '\n') ++line_;
          add(t, std::string(1, d), true, false);
          ++i_;
        }
        if (!closed) { fail("unterminated double quote"); break; }
        continue;
      }
      if (c == '$') { add(t, expansion(), false, true); continue; }
      if (c == '`') {
        const std::size_t end = s_.find('`', i_ + 1);
        if (end == std::string::npos) { fail("unterminated backquote"); i_ = s_.size(); break; }
        add(t, s_.substr(i_, end - i_ + 1), false, true);
        i_ = end + 1;
        continue;
      }
      add(t, std::string(1, c), false, false);
      ++i_;
    }
    return t;
  }

  const std::string& s_;
  std::size_t i_ = 0;
  int line_ = 1;
  std::string error_;
  int error_line_ = 0;
};

// Variables as the script sets them: scalars and arrays.
struct Variable {
  std::vector<ShellWord> values;  // one for a scalar; a value may hold an unresolved expansion
  bool array = false;
};

void append_word(ShellWord& to, const ShellWord& from) {
  to.text += from.text;
  if (from.unresolved && !to.unresolved) {
    to.unresolved = true;
    to.unresolved_what = from.unresolved_what;
  }
}

class Expander {
 public:
  // Expands one token into words; unresolved expansions stay as written.
  std::vector<ShellWord> expand(const Token& t) {
    std::vector<ShellWord> words(1);
    bool any_quoted = false;
    // "${ARR[@]}" of an empty array makes no word, as bash expands it (not an empty one, as "" does).
    bool empty_array = false;
    for (const Piece& p : t.pieces) {
      any_quoted = any_quoted || p.quoted;
      empty_array = empty_array || (p.quoted && p.expansion && p.text.size() > 4 && p.text.compare(p.text.size() - 4, 4, "[@]}") == 0 &&
                                    [&] { const auto v = lookup(p.text); return v && v->empty(); }());
      if (!p.expansion) {
        words.back().text += p.text;
        continue;
      }
      std::optional<std::vector<ShellWord>> values = lookup(p.text);
      if (!values) {
        words.back().text += p.text;
        words.back().unresolved = true;
        if (words.back().unresolved_what.empty()) words.back().unresolved_what = p.text;
        continue;
      }
      if (p.quoted) {
        // "${ARR[@]}" keeps one word per element; "$VAR" stays one word.
        for (std::size_t k = 0; k < values->size(); ++k) {
          if (k > 0) words.emplace_back();
          append_word(words.back(), (*values)[k]);
        }
        continue;
      }
      // Unquoted: split on blanks. A value holding an unresolved expansion marks the words that
      // hold its unexpanded text ($NAME, $(...), `...`), not the words around them.
      bool first = true;
      for (const auto& value : *values) {
        const std::string& v = value.text;
        std::size_t pos = 0;
        const bool leading_blank = !v.empty() && std::isspace(static_cast<unsigned char>(v[0]));
        if (!first || leading_blank) {
          if (!words.back().text.empty() || words.back().unresolved) words.emplace_back();
        }
        first = false;
        bool pending_break = false, marked = false;
        std::string piece;  // this value's characters in the current word
        auto flush = [&] {
          if (value.unresolved && piece.find_first_of("$`") != std::string::npos && !words.back().unresolved) {
            words.back().unresolved = true;
            words.back().unresolved_what = piece.find(value.unresolved_what) != std::string::npos ? value.unresolved_what : piece;
            marked = true;
          }
          piece.clear();
        };
        while (pos < v.size()) {
          if (std::isspace(static_cast<unsigned char>(v[pos]))) { pending_break = true; ++pos; continue; }
          if (pending_break && (!words.back().text.empty() || words.back().unresolved)) {
            flush();
            words.emplace_back();
          }
          pending_break = false;
          piece += v[pos];
          words.back().text += v[pos++];
        }
        flush();
        if (value.unresolved && !marked && !words.back().unresolved) {
          words.back().unresolved = true;
          words.back().unresolved_what = value.unresolved_what;
        }
        if (pending_break) words.emplace_back();
      }
    }
    // Unquoted expansions that were empty produce no word ("$EMPTY" produces an empty one).
    std::vector<ShellWord> out;
    for (auto& w : words)
      if (!w.text.empty() || w.unresolved || (any_quoted && !empty_array && words.size() == 1)) out.push_back(std::move(w));
    return out;
  }

  void set(const std::string& name, Variable v) { vars_[name] = std::move(v); }
  // A scalar variable's value (an array's first element), if the script set it.
  std::optional<ShellWord> scalar(const std::string& name) const {
    const auto it = vars_.find(name);
    if (it == vars_.end()) return std::nullopt;
    return it->second.values.empty() ? ShellWord{} : it->second.values.front();
  }
  std::size_t bytes() const {
    std::size_t n = 0;
    for (const auto& [k, v] : vars_) for (const auto& s : v.values) n += s.text.size() + k.size();
    return n;
  }

 private:
  // $NAME, ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME[@]}, ${NAME[*]}, ${NAME[i]}.
  static std::vector<ShellWord> text(const std::string& t) { return {ShellWord{t, false, ""}}; }

  std::optional<std::vector<ShellWord>> lookup(const std::string& e) {
    if (e == "$") return text("$");
    std::string body;
    if (e.size() > 2 && e[1] == '{') body = e.substr(2, e.size() - 3);
    else if (e.size() > 1 && is_name_start(e[1])) body = e.substr(1);
    else return std::nullopt;  // $(...), `...`, $1, $@: not known without running
    std::size_t n = 0;
    while (n < body.size() && is_name_char(body[n])) ++n;
    const std::string name = body.substr(0, n);
    const std::string rest = body.substr(n);
    if (name.empty()) return std::nullopt;
    auto it = vars_.find(name);
    if (rest.empty()) {
      if (it == vars_.end()) return std::nullopt;
      if (it->second.values.empty()) return text("");
      return std::vector<ShellWord>{it->second.values.front()};
    }
    if (rest == "[@]" || rest == "[*]") {
      if (it == vars_.end()) return std::nullopt;
      return it->second.values;
    }
    if (rest.size() > 2 && rest.front() == '[' && rest.back() == ']') {
      if (it == vars_.end()) return std::nullopt;
      const std::string index = rest.substr(1, rest.size() - 2);
      if (index.empty() || index.size() > 6 || index.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
      const std::size_t k = std::stoul(index);
      if (k >= it->second.values.size()) return text("");
      return std::vector<ShellWord>{it->second.values[k]};
    }
    const bool colon = rest.rfind(":-", 0) == 0;
    if (colon || rest.rfind("-", 0) == 0) {
      const bool unset_or_empty = it == vars_.end() || (colon && (it->second.values.empty() || it->second.values.front().text.empty()));
      if (unset_or_empty) {
        // The default is a word of its own: quotes around it are removed (${N:-"1"} is 1).
        std::string d = rest.substr(colon ? 2 : 1);
        if (d.size() >= 2 && (d.front() == '"' || d.front() == '\'') && d.back() == d.front() &&
            d.find(d.front(), 1) == d.size() - 1)
          d = d.substr(1, d.size() - 2);
        return text(d);
      }
      return std::vector<ShellWord>{it->second.values.front()};
    }
    return std::nullopt;  // other parameter expansions (${#x}, ${x/a/b}, ...)
  }

  std::map<std::string, Variable> vars_;
};

// "NAME=" at the start of a word: the name, else empty.
std::string assignment_name(const Token& t) {
  if (t.operator_token || t.pieces.empty() || t.pieces.front().quoted || t.pieces.front().expansion) return "";
  const std::string& head = t.pieces.front().text;
  const std::size_t eq = head.find('=');
  if (eq == std::string::npos || eq == 0 || !is_name_start(head[0])) return "";
  std::size_t plus = head[eq - 1] == '+' ? 1 : 0;  // NAME+=value
  for (std::size_t k = 0; k + plus < eq; ++k)
    if (!is_name_char(head[k])) return "";
  return head.substr(0, eq + 1);  // keeps "+=" or "=" for the caller
}

// The value part of an assignment token (the text after '=').
Token assignment_value(const Token& t, std::size_t prefix) {
  Token v = t;
  v.pieces.front().text = v.pieces.front().text.substr(prefix);
  return v;
}

}  // namespace

ShellScript split_shell_script(const std::string& text) {
  ShellScript out;
  Lexer lexer(text);
  const std::vector<Token> tokens = lexer.tokens();
  if (!lexer.error().empty()) {
    out.error = lexer.error();
    out.error_line = lexer.error_line();
    return out;
  }
  Expander vars;
  std::size_t words_total = 0;
  ShellCommand current;
  bool in_assignments = true;  // leading VAR=value words of a command
  bool exporting = false;      // the assignments follow "export"
  std::set<std::string> exported;
  auto finish = [&] {
    if (!current.words.empty()) out.commands.push_back(std::move(current));
    current = ShellCommand{};
    in_assignments = true;
    exporting = false;
  };
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    const Token& t = tokens[k];
    if (t.operator_token) {
      if (t.op == "(" || t.op == ")") continue;  // subshells and groups: their words still count
      finish();
      continue;
    }
    const std::string assign = in_assignments ? assignment_name(t) : "";
    if (!assign.empty()) {
      const bool append = assign.size() >= 2 && assign[assign.size() - 2] == '+';
      const std::string name = assign.substr(0, assign.size() - (append ? 2 : 1));
      Variable v;
      const bool array_start = t.pieces.size() == 1 && t.pieces.front().text == assign &&
                               k + 1 < tokens.size() && tokens[k + 1].operator_token && tokens[k + 1].op == "(";
      if (array_start) {
        v.array = true;
        k += 2;
        for (; k < tokens.size() && !(tokens[k].operator_token && tokens[k].op == ")"); ++k) {
          if (tokens[k].operator_token) continue;  // newlines inside ( ... )
          for (auto& w : vars.expand(tokens[k])) v.values.push_back(w);
        }
      } else {
        ShellWord value;
        bool first = true;
        for (auto& w : vars.expand(assignment_value(t, assign.size()))) {
          if (!first) value.text += " ";
          first = false;
          append_word(value, w);
        }
        v.values.push_back(value);
      }
      if (append) {
        // NAME+=value and NAME+=( ... ): append to what the script set before.
        Expander probe = vars;
        Token ref;
        ref.pieces.push_back({"${" + name + "[@]}", true, true});
        auto before = probe.expand(ref);
        std::vector<ShellWord> joined;
        for (auto& w : before) if (!(w.unresolved && w.unresolved_what == "${" + name + "[@]}")) joined.push_back(w);
        if (v.array) joined.insert(joined.end(), v.values.begin(), v.values.end());
        else if (!joined.empty()) append_word(joined.back(), v.values.front());
        else joined = v.values;
        v.values = joined;
        v.array = v.array || joined.size() > 1;
      }
      // Only a command made of assignments sets variables for the rest of the script; a command's
      // leading VAR=value applies to that command alone (and never matters to what it is passed).
      bool command_follows = false;
      for (std::size_t j = k + 1; j < tokens.size() && !tokens[j].operator_token; ++j)
        if (assignment_name(tokens[j]).empty()) { command_follows = true; break; }
      if (!command_follows) vars.set(name, v);
      else current.environment[name] = v.values.empty() ? ShellWord{} : v.values.front();
      if (exporting) exported.insert(name);
      if (vars.bytes() > kMaxShellBytes) {
        out.error = "variables expand beyond " + std::to_string(kMaxShellBytes) + " bytes";
        out.error_line = t.line;
        return out;
      }
      continue;
    }
    if (in_assignments && current.words.empty()) {
      current.line = t.line;
      for (const auto& name : exported)
        if (auto value = vars.scalar(name); value && !current.environment.count(name)) current.environment[name] = *value;
    }
    in_assignments = false;
    // export / declare / local NAME=value: assignments too.
    if (current.words.empty() && !t.pieces.empty() && !t.pieces.front().quoted) {
      const std::string& w = t.pieces.front().text;
      if (t.pieces.size() == 1 && (w == "export" || w == "declare" || w == "local" || w == "readonly")) {
        in_assignments = true;
        exporting = w == "export";
        continue;
      }
      // Reserved words that start a compound command (bash "Shell Grammar": if/then/elif/else,
      // while/until/do, { and !): the command after them may assign. No condition is evaluated,
      // so the assignments of every branch apply, in order; the script says where.
      if (t.pieces.size() == 1 && (w == "if" || w == "then" || w == "elif" || w == "else" || w == "while" || w == "until" ||
                                   w == "do" || w == "{" || w == "!")) {
        if (w == "if" || w == "elif" || w == "while" || w == "until") out.conditions.push_back(t.line);
        in_assignments = true;
        continue;
      }
    }
    for (auto& w : vars.expand(t)) {
      current.words.push_back(std::move(w));
      if (++words_total > kMaxShellWords) {
        out.error = "more than " + std::to_string(kMaxShellWords) + " words after expansion";
        out.error_line = t.line;
        return out;
      }
    }
  }
  finish();
  return out;
}

}  // namespace trainmem::import_detail
