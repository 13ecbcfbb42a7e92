// See tokenizer_13a.h: a port of sacreBLEU's Tokenizer13a + TokenizerRegexp.
//
// The four regexes are applied by hand rather than with std::regex: each matches one
// or two characters of fixed classes, so a left-to-right scan that emits the
// replacement and skips past a match reproduces re.sub exactly, and is much faster.
// The scan works on UTF-8 bytes. That is equivalent to Python's code-point matching
// because every class that must match a *specific* character is ASCII ([.,], [0-9],
// '-', the punctuation ranges); `[^0-9]` then matches any byte of a multi-byte
// character, and since bytes 0x80–0xFF never start a match, splitting such a character
// between "emitted" and "matched" changes nothing in the output.
#include "experiments/metrics/tokenizer_13a.h"

#include "experiments/metrics/unicode_text.h"

namespace ablate::experiments::metrics {
namespace {

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(s.size());
  std::size_t start = 0;
  for (std::size_t at; (at = s.find(from, start)) != std::string::npos; start = at + from.size()) {
    out.append(s, start, at - start);
    out.append(to);
  }
  out.append(s, start, std::string::npos);
  s = std::move(out);
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_period_or_comma(char c) {
  return c == '.' || c == ',';
}

// [\{-\~\[-\` -\&\(-\+\:-\@\/] from tokenizer_re.py: { | } ~  [ \ ] ^ _ `  space ! " # $ % &
// ( ) * +  : ; < = > ? @  /  — note ' , - . are not in it.
bool is_13a_symbol(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 0x7B && u <= 0x7E) || (u >= 0x5B && u <= 0x60) || (u >= 0x20 && u <= 0x26) ||
         (u >= 0x28 && u <= 0x2B) || (u >= 0x3A && u <= 0x40) || u == 0x2F;
}

// re.sub(r'(X)(Y)', <replacement of the two captured characters>, s) for one-character X, Y.
template <typename Match, typename Emit>
std::string substitute_pairs(const std::string& s, Match match, Emit emit) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  std::size_t i = 0;
  while (i < s.size()) {
    if (i + 1 < s.size() && match(s[i], s[i + 1])) {
      emit(out, s[i], s[i + 1]);
      i += 2;
    } else {
      out.push_back(s[i]);
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string tokenize_13a(std::string_view input) {
  std::string line(input);
  // Language-independent part (tokenizer_13a.py).
  replace_all(line, "<skipped>", "");
  replace_all(line, "-\n", "");
  replace_all(line, "\n", " ");
  if (line.find('&') != std::string::npos) {
    replace_all(line, "&quot;", "\"");
    replace_all(line, "&amp;", "&");
    replace_all(line, "&lt;", "<");
    replace_all(line, "&gt;", ">");
  }
  line = " " + line + " ";

  // Language-dependent part (tokenizer_re.py), in its order.
  std::string spaced;
  spaced.reserve(line.size() * 2);
  for (const char c : line) {
    if (is_13a_symbol(c)) {
      spaced.push_back(' ');
      spaced.push_back(c);
      spaced.push_back(' ');
    } else {
      spaced.push_back(c);
    }
  }
  // Period and comma unless preceded by a digit: ([^0-9])([\.,]) -> "\1 \2 ".
  spaced = substitute_pairs(
      spaced, [](char a, char b) { return !is_digit(a) && is_period_or_comma(b); },
      [](std::string& out, char a, char b) {
        out.push_back(a);
        out.push_back(' ');
        out.push_back(b);
        out.push_back(' ');
      });
  // Period and comma unless followed by a digit: ([\.,])([^0-9]) -> " \1 \2".
  spaced = substitute_pairs(
      spaced, [](char a, char b) { return is_period_or_comma(a) && !is_digit(b); },
      [](std::string& out, char a, char b) {
        out.push_back(' ');
        out.push_back(a);
        out.push_back(' ');
        out.push_back(b);
      });
  // Dash when preceded by a digit: ([0-9])(-) -> "\1 \2 ".
  spaced = substitute_pairs(
      spaced, [](char a, char b) { return is_digit(a) && b == '-'; },
      [](std::string& out, char a, char b) {
        out.push_back(a);
        out.push_back(' ');
        out.push_back(b);
        out.push_back(' ');
      });

  // ' '.join(line.split()): single spaces, none at the ends.
  std::string result;
  for (const auto& token : split_whitespace(spaced)) {
    if (!result.empty()) result.push_back(' ');
    result += token;
  }
  return result;
}

}  // namespace ablate::experiments::metrics
