#include "experiments/config/ascii_toml.h"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "experiments/config/config_error.h"

namespace ablate::experiments {

std::int64_t SourceColumns::original(std::int64_t line, std::int64_t column) const {
  auto it = lines_.find(line);
  if (it == lines_.end() || it->second.empty() || column < 1) return column;
  const std::vector<std::int64_t>& map = it->second;
  if (column <= std::int64_t(map.size())) return map[std::size_t(column - 1)];
  return map.back() + (column - std::int64_t(map.size()));  // past the line's end
}

void SourceColumns::set(std::int64_t line, std::vector<std::int64_t> original) {
  lines_[line] = std::move(original);
}

namespace {

struct CodePoint {
  std::uint32_t value = 0;
  std::size_t length = 1;  // bytes
};

// One pass over the text: a lexer that knows only where strings and comments are
// (all that decides what a non-ASCII code point may become), writing the ASCII text
// and, per line, the original column of every column written.
class Rewriter {
 public:
  Rewriter(const std::string& text, const std::string& file) : in_(text), file_(file) {}

  AsciiToml run() {
    if (in_.compare(0, 3, "\xEF\xBB\xBF") == 0)
      i_ = 3;  // a byte order mark, which TOML++ skips too
    while (i_ < in_.size()) {
      if (at("#")) {
        comment();
      } else if (at("\"\"\"")) {
        copy(3);
        basic_string(true);
      } else if (at("'''")) {
        literal_string(true);
      } else if (at("\"")) {
        copy(1);
        basic_string(false);
      } else if (at("'")) {
        literal_string(false);
      } else if (byte(i_) >= 0x80) {
        CodePoint c = decode(i_);
        fail(i_,
             "non-ASCII character " + describe(i_, c) +
                 " outside a string or comment; TOML allows them only inside strings and comments");
      } else {
        copy(1);
      }
    }
    end_line();
    return std::move(out_);
  }

 private:
  std::uint8_t byte(std::size_t at) const { return std::uint8_t(in_[at]); }
  bool at(std::string_view s) const { return in_.compare(i_, s.size(), s) == 0; }

  // ---- reading: UTF-8, validated as TOML requires
  CodePoint decode(std::size_t at) const {
    const std::uint8_t b = byte(at);
    if (b < 0x80) return {b, 1};
    if (b < 0xC0) fail(at, invalid_utf8(at, 1, "a continuation byte with no lead byte"));
    if (b < 0xC2) fail(at, invalid_utf8(at, 2, "an overlong encoding"));
    if (b >= 0xF8) fail(at, invalid_utf8(at, 1, "a byte that never occurs in UTF-8"));
    CodePoint c;
    c.length = b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    c.value = b & (0x7Fu >> c.length);
    for (std::size_t k = 1; k < c.length; ++k) {
      if (at + k >= in_.size() || (byte(at + k) & 0xC0) != 0x80)
        fail(at, invalid_utf8(at, k, "a sequence cut short"));
      c.value = (c.value << 6) | (byte(at + k) & 0x3Fu);
    }
    if ((c.length == 3 && c.value < 0x800) || (c.length == 4 && c.value < 0x10000))
      fail(at, invalid_utf8(at, c.length, "an overlong encoding"));
    if (c.value >= 0xD800 && c.value <= 0xDFFF)
      fail(at, invalid_utf8(at, c.length, "a UTF-16 surrogate, not a character"));
    if (c.value > 0x10FFFF) fail(at, invalid_utf8(at, c.length, "beyond U+10FFFF"));
    return c;
  }
  std::string invalid_utf8(std::size_t at, std::size_t length, const char* what) const {
    std::string bytes;
    char hex[8];
    for (std::size_t k = 0; k < length && at + k < in_.size(); ++k) {
      std::snprintf(hex, sizeof hex, "%s0x%02X", k ? " " : "", unsigned(byte(at + k)));
      bytes += hex;
    }
    return "invalid UTF-8 (" + bytes + ": " + what + "); TOML files must be UTF-8";
  }
  // "'é' (U+00E9)"
  std::string describe(std::size_t at, CodePoint c) const {
    char code[16];
    std::snprintf(code, sizeof code, "' (U+%04X)", unsigned(c.value));
    std::string quoted(1, '\'');
    return quoted.append(in_, at, c.length).append(code);
  }

  // ---- writing
  // Writes `ascii` in place of the code point at i_ and moves past it.
  void replace(std::string_view ascii, std::size_t length) {
    for (char ch : ascii) {
      out_.text += ch;
      line_map_.push_back(column_);
      moved_ = moved_ || line_map_.back() != std::int64_t(line_map_.size());
    }
    i_ += length;
    ++column_;
  }
  // Copies n ASCII bytes (line breaks included) unchanged.
  void copy(std::size_t n) {
    for (; n > 0 && i_ < in_.size(); --n) {
      if (in_[i_] == '\n') {
        out_.text += '\n';
        ++i_;
        end_line();
      } else {
        replace(std::string_view(&in_[i_], 1), 1);
      }
    }
  }
  void end_line() {
    if (moved_) out_.columns.set(line_, std::move(line_map_));
    line_map_.clear();
    moved_ = false;
    ++line_;
    column_ = 1;
  }
  // The code point at i_ as a basic string's escape.
  void escape_code_point() {
    CodePoint c = decode(i_);
    char escape[16];
    std::snprintf(escape, sizeof escape, c.value > 0xFFFF ? "\\U%08X" : "\\u%04X",
                  unsigned(c.value));
    replace(escape, c.length);
  }

  // ---- contexts
  // "…" or """…""" after its opening quotes, up to and including the closing ones. An
  // unterminated single-line string ends at its line's end (TOML++ then reports it).
  void basic_string(bool multi_line) {
    while (i_ < in_.size()) {
      if (multi_line && at("\"\"\"")) {
        while (at("\"")) copy(1);  // up to two more quotes belong to the string
        return;
      }
      if (!multi_line && (at("\"") || at("\n"))) {
        if (at("\"")) copy(1);
        return;
      }
      if (at("\\")) {
        escape_sequence(multi_line);
      } else if (byte(i_) >= 0x80) {
        escape_code_point();
      } else {
        copy(1);
      }
    }
  }
  // A backslash in a basic string and what it escapes. Only a non-ASCII character
  // right after it needs care: rewriting that one as \uXXXX would turn an invalid
  // escape into a valid \\ — so it is an error, as TOML says. After a line-ending
  // backslash the line break and whitespace it trims are copied, and the string goes on.
  void escape_sequence(bool multi_line) {
    const std::size_t backslash = i_;
    if (backslash + 1 < in_.size() && byte(backslash + 1) >= 0x80) {
      CodePoint c = decode(backslash + 1);
      fail(backslash, "'\\' followed by " + describe(backslash + 1, c) +
                          " is not an escape; TOML's escapes are \\b \\t \\n \\f \\r \\\" \\\\ "
                          "\\uXXXX and \\UXXXXXXXX");
    }
    copy(1);
    if (i_ < in_.size() && !at("\n") && !(multi_line && at("\r\n"))) copy(1);
  }

  // '…' or '''…''' from its opening quotes. Unchanged when it is ASCII; otherwise the
  // same string written as a basic string, which can escape.
  void literal_string(bool multi_line) {
    const std::size_t quotes = multi_line ? 3 : 1;
    std::size_t end = i_ + quotes;  // the closing quotes, or the line's / text's end
    bool ascii = true;
    while (end < in_.size()) {
      if (multi_line ? in_.compare(end, 3, "'''") == 0 : in_[end] == '\'' || in_[end] == '\n')
        break;
      ascii = ascii && byte(end) < 0x80;
      ++end;
    }
    std::size_t closing = 0;  // quotes after the content
    while (end + closing < in_.size() && in_[end + closing] == '\'') ++closing;
    if (!multi_line) closing = std::min<std::size_t>(closing, 1);
    if (ascii) {
      copy(end + closing - i_);
      return;
    }
    if (multi_line && closing > 5)
      fail(end,
           "a multi-line literal string may end with at most two quotes before its closing '''");
    for (std::size_t k = 0; k < quotes; ++k) replace("\"", 1);
    while (i_ < end) {
      if (at("\\"))
        replace("\\\\", 1);
      else if (at("\""))
        replace("\\\"", 1);
      else if (byte(i_) >= 0x80)
        escape_code_point();
      else
        copy(1);
    }
    if (closing == 0) return;  // unterminated: TOML++ reports it
    copy(closing - quotes);    // quotes that belong to the content ('' before ''')
    for (std::size_t k = 0; k < quotes; ++k) replace("\"", 1);
  }

  // # … to the line's end.
  void comment() {
    while (i_ < in_.size() && !at("\n")) {
      if (byte(i_) >= 0x80)
        replace("?", decode(i_).length);
      else
        copy(1);
    }
  }

  // ---- errors: line and column of the byte at `at` (in code points, as TOML++ counts)
  [[noreturn]] void fail(std::size_t at, const std::string& message) const {
    std::int64_t line = line_, column = column_;
    for (std::size_t k = i_; k < at; ++k) {
      if (in_[k] == '\n') {
        ++line;
        column = 1;
      } else if ((byte(k) & 0xC0) != 0x80) {
        ++column;
      }
    }
    throw ConfigError({{file_, line, column, "", message}});
  }

  const std::string& in_;
  const std::string& file_;
  std::size_t i_ = 0;
  std::int64_t line_ = 1, column_ = 1;  // of in_[i_]
  AsciiToml out_;
  std::vector<std::int64_t> line_map_;  // the original column of each column written on this line
  bool moved_ = false;                  // some column of this line differs from its original
};

}  // namespace

AsciiToml ascii_toml(const std::string& text, const std::string& file) {
  return Rewriter(text, file).run();
}

}  // namespace ablate::experiments
