// See unicode_text.h: UTF-8 decoding and Python's notion of whitespace.
#include "experiments/metrics/unicode_text.h"

#include <cstddef>
#include <stdexcept>

namespace ablate::experiments::metrics {
namespace {

[[noreturn]] void malformed(std::size_t at) {
  throw std::invalid_argument("malformed UTF-8 at byte " + std::to_string(at));
}

// Decodes the code point starting at text[i] and advances i past it.
char32_t next_code_point(std::string_view text, std::size_t& i) {
  const std::size_t start = i;
  const auto lead = static_cast<unsigned char>(text[i]);
  if (lead < 0x80) {
    ++i;
    return lead;
  }
  std::size_t length = 0;
  char32_t value = 0;
  char32_t smallest = 0;  // below this the sequence is overlong
  if ((lead & 0xE0) == 0xC0) {
    length = 2, value = lead & 0x1F, smallest = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, value = lead & 0x0F, smallest = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, value = lead & 0x07, smallest = 0x10000;
  } else {
    malformed(start);
  }
  if (text.size() - start < length) malformed(start);
  for (std::size_t k = 1; k < length; ++k) {
    const auto byte = static_cast<unsigned char>(text[start + k]);
    if ((byte & 0xC0) != 0x80) malformed(start);
    value = (value << 6) | (byte & 0x3F);
  }
  if (value < smallest || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF))
    malformed(start);
  i = start + length;
  return value;
}

}  // namespace

std::u32string decode_utf8(std::string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) out.push_back(next_code_point(text, i));
  return out;
}

std::string encode_utf8(std::u32string_view code_points) {
  std::string out;
  out.reserve(code_points.size());
  for (const char32_t c : code_points) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (c >> 12)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (c >> 18)));
      out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

bool is_python_whitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

std::vector<std::string> split_whitespace(std::string_view text) {
  std::vector<std::string> words;
  std::size_t word_start = std::string_view::npos;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t at = i;
    const bool space = is_python_whitespace(next_code_point(text, i));
    if (space && word_start != std::string_view::npos) {
      words.emplace_back(text.substr(word_start, at - word_start));
      word_start = std::string_view::npos;
    } else if (!space && word_start == std::string_view::npos) {
      word_start = at;
    }
  }
  if (word_start != std::string_view::npos) words.emplace_back(text.substr(word_start));
  return words;
}

namespace {
// [begin, end) of `text` without leading (if `left`) and trailing whitespace.
std::string strip(std::string_view text, bool left) {
  std::size_t begin = text.size(), end = 0;  // empty unless a non-space is found
  bool leading = true;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t at = i;
    if (!is_python_whitespace(next_code_point(text, i))) {
      if (leading) begin = at, leading = false;
      end = i;
    }
  }
  if (leading) return {};
  if (!left) begin = 0;
  return std::string(text.substr(begin, end - begin));
}
}  // namespace

std::string strip_whitespace(std::string_view text) {
  return strip(text, true);
}
std::string rstrip_whitespace(std::string_view text) {
  return strip(text, false);
}

}  // namespace ablate::experiments::metrics
