#pragma once
// An experiment file's text rewritten to 7-bit ASCII before TOML++ parses it.
//
// Why: Debian 12's TOML++ 3.3.0 classifies non-ASCII code points with generated
// tables, and whole ranges of them (U+00A1–U+0499, U+2DAE–U+31A7, U+FB46–U+FEFE) fall
// through to TOML_UNREACHABLE — undefined behaviour — whenever the parser asks whether
// one is whitespace, which it does in many places (marzer/tomlplusplus#190; fixed
// upstream, not in Debian 12). Refusing such characters one parser context at a time
// kept being outrun by the fuzzer, so the parser is never shown one at all: every
// byte it reads is ASCII, and its unicode tables are never consulted.
//
// What changes, per lexical context (TOML allows non-ASCII only in strings and
// comments, so nothing valid is lost):
//   - basic strings ("…", """…""", and quoted keys): each non-ASCII code point becomes
//     its escape \uXXXX or \UXXXXXXXX, which TOML++ decodes back to the same UTF-8;
//   - literal strings ('…', '''…''') have no escapes, so one that holds a non-ASCII
//     code point is rewritten as the equivalent basic string (its \ and " escaped);
//   - comments: each non-ASCII code point becomes '?' (comments are discarded);
//   - anywhere else, a backslash directly followed by a non-ASCII code point (an
//     invalid escape), and invalid UTF-8 anywhere: a ConfigError naming line:column.
// Only code points inside a line are rewritten, never a line break, so line numbers
// are unchanged; `columns` maps the rewritten text's columns back to the original's.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ablate::experiments {

// The original column (in code points, as TOML++ counts) of each column of the
// rewritten text, for the lines where they differ.
class SourceColumns {
 public:
  std::int64_t original(std::int64_t line, std::int64_t column) const;
  // Records that column k+1 of `line` in the rewritten text came from original[k].
  void set(std::int64_t line, std::vector<std::int64_t> original);

 private:
  std::map<std::int64_t, std::vector<std::int64_t>> lines_;
};

struct AsciiToml {
  std::string text;  // bytes < 0x80 only; the same lines as the original
  SourceColumns columns;
};

// `text` as above; throws ConfigError ("file:line:column: ...") for what cannot be
// rewritten.
AsciiToml ascii_toml(const std::string& text, const std::string& file);

}  // namespace ablate::experiments
