// Command lines and shell scripts as the launch commands of a training run: the words each command
// runs with, after the script's own variable assignments are applied (bash word rules: quotes,
// escapes, line continuations, comments, $NAME / ${NAME} / ${NAME:-default} / ${ARRAY[@]}).
// Nothing is executed: command substitution, arithmetic and variables the script does not set are
// left as written and flagged, never guessed.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace trainmem::import_detail {

struct ShellWord {
  std::string text;
  bool unresolved = false;  // holds an expansion the script does not define
  std::string unresolved_what;  // e.g. "$NNODES"
};

struct ShellCommand {
  std::vector<ShellWord> words;
  int line = 0;  // 1-based line where the command starts
  // The environment the command's program sees from the script: its own leading NAME=value words
  // and the variables the script exported before it (a launcher script such as torchtitan's
  // run_train.sh reads NGPU from there).
  std::map<std::string, ShellWord> environment;
};

struct ShellScript {
  std::vector<ShellCommand> commands;  // assignments removed; leading VAR=value of a command dropped
  std::vector<int> conditions;         // lines of if/elif/while/until: not evaluated, every branch applied
  std::string error;                   // unterminated quote, or limits exceeded
  int error_line = 0;
};

// Bounded by the input: at most this many words and bytes after expansion.
inline constexpr std::size_t kMaxShellWords = 100000;
inline constexpr std::size_t kMaxShellBytes = 4 << 20;

ShellScript split_shell_script(const std::string& text);

}  // namespace trainmem::import_detail
