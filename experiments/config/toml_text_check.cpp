#include "experiments/config/toml_text_check.h"

#include <cstdint>
#include <cstdio>

namespace ablate::experiments {

namespace {

// A lexer that knows only where strings and comments are.
class TextScanner {
 public:
  TextScanner(const std::string& text, const std::string& file) : t_(text), file_(file) {}

  std::optional<ConfigProblem> scan() {
    if (starts_with("\xEF\xBB\xBF")) i_ = 3;  // a UTF-8 byte order mark, which TOML++ skips
    while (i_ < t_.size()) {
      const char c = t_[i_];
      if (c == '#') {
        skip_until_newline();
      } else if (starts_with("\"\"\"")) {
        advance(3);
        if (auto p = multi_line_basic_string()) return p;
      } else if (starts_with("'''")) {
        advance(3);
        skip_past("'''");
      } else if (c == '"' || c == '\'') {
        advance(1);
        single_line_string(c);
      } else if (byte(i_) >= 0x80) {
        return problem("non-ASCII character " + character_at(i_) +
                       " outside a string or comment; TOML allows them only inside strings "
                       "and comments");
      } else {
        advance(1);
      }
    }
    return std::nullopt;
  }

 private:
  std::uint8_t byte(std::size_t at) const { return std::uint8_t(t_[at]); }
  bool starts_with(const char* s) const { return t_.compare(i_, std::char_traits<char>::length(s), s) == 0; }

  // Moves n bytes on, keeping line and column (in characters, like the parser's).
  void advance(std::size_t n) {
    for (; n > 0 && i_ < t_.size(); --n, ++i_) {
      if (t_[i_] == '\n') {
        ++line_;
        column_ = 1;
      } else if ((byte(i_) & 0xC0) != 0x80) {  // not a UTF-8 continuation byte
        ++column_;
      }
    }
  }
  void skip_until_newline() {
    while (i_ < t_.size() && t_[i_] != '\n') advance(1);
  }
  void skip_past(const char* closing) {
    while (i_ < t_.size() && !starts_with(closing)) advance(1);
    advance(3);
    while (i_ < t_.size() && t_[i_] == closing[0]) advance(1);  // up to 2 more quotes belong to the string
  }
  // "..." or '...': ends at its quote or, unterminated, at the line's end (the parser
  // reports that).
  void single_line_string(char quote) {
    while (i_ < t_.size() && t_[i_] != quote && t_[i_] != '\n') advance(t_[i_] == '\\' && quote == '"' ? 2 : 1);
    if (i_ < t_.size() && t_[i_] == quote) advance(1);
  }
  std::optional<ConfigProblem> multi_line_basic_string() {
    while (i_ < t_.size() && !starts_with("\"\"\"")) {
      if (t_[i_] != '\\') {
        advance(1);
        continue;
      }
      // After a backslash TOML++ tests each character for whitespace: spaces or tabs,
      // and — when they run to the line's end (a line-ending backslash) — the line
      // breaks and whitespace after it. The first other character is the one at risk.
      advance(1);
      while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t')) advance(1);
      if (starts_with("\n") || starts_with("\r\n"))
        while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r'))
          advance(1);
      if (i_ < t_.size() && byte(i_) >= 0x80)
        return problem("non-ASCII character " + character_at(i_) +
                       " right after a backslash in a multi-line string; the TOML library "
                       "cannot read this form safely — put an ASCII character first or drop "
                       "the backslash");
      if (i_ < t_.size() && t_[i_] != '\n' && t_[i_] != '\r') advance(1);  // the escaped character
    }
    skip_past("\"\"\"");
    return std::nullopt;
  }

  // "'×' (U+00D7)" for valid UTF-8, else "byte 0xFF".
  std::string character_at(std::size_t at) const {
    const std::uint8_t b = byte(at);
    const std::size_t length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 0;
    char buffer[32];
    std::uint32_t code = length == 2 ? b & 0x1F : length == 3 ? b & 0x0F : b & 0x07;
    bool valid = length > 0 && at + length <= t_.size() && b < 0xF5;
    for (std::size_t k = 1; valid && k < length; ++k) {
      valid = (byte(at + k) & 0xC0) == 0x80;
      code = (code << 6) | (byte(at + k) & 0x3F);
    }
    if (!valid) {
      std::snprintf(buffer, sizeof buffer, "byte 0x%02X", unsigned(b));
      return buffer;
    }
    std::snprintf(buffer, sizeof buffer, "' (U+%04X)", unsigned(code));
    std::string quoted = "'";
    quoted.append(t_, at, length);
    return quoted.append(buffer);
  }

  ConfigProblem problem(const std::string& message) const {
    return {file_, std::int64_t(line_), std::int64_t(column_), "", message};
  }

  const std::string& t_;
  const std::string& file_;
  std::size_t i_ = 0, line_ = 1, column_ = 1;
};

}  // namespace

std::optional<ConfigProblem> toml_text_problem(const std::string& text, const std::string& file) {
  return TextScanner(text, file).scan();
}

}  // namespace ablate::experiments
