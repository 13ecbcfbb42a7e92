#pragma once
// UTF-8 text as the reference implementations see it: a Python 3 `str` is a sequence
// of Unicode code points, and `str.split()` / `str.strip()` with no argument treat
// exactly the characters for which `str.isspace()` is true as whitespace. sacreBLEU
// (BLEU's tokenizers and n-gram extraction, chrF's whitespace removal and word
// splitting) and jiwer (CER's strip) are written in those terms, so the metrics in
// this directory decode UTF-8 and use these helpers instead of ASCII-only rules.
#include <string>
#include <string_view>
#include <vector>

namespace ablate::experiments::metrics {

// The code points of `text`. Throws std::invalid_argument on malformed UTF-8
// (truncated or overlong sequences, surrogates, values above U+10FFFF).
std::u32string decode_utf8(std::string_view text);

// The UTF-8 encoding of `code_points` (which must be valid scalar values).
std::string encode_utf8(std::u32string_view code_points);

// Python's str.isspace() for one code point: U+0009–U+000D, U+001C–U+001F, U+0020,
// U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
bool is_python_whitespace(char32_t c);

// Python's `text.split()`: the maximal runs of non-whitespace, in order.
std::vector<std::string> split_whitespace(std::string_view text);

// Python's `text.strip()` and `text.rstrip()`.
std::string strip_whitespace(std::string_view text);
std::string rstrip_whitespace(std::string_view text);

}  // namespace ablate::experiments::metrics
