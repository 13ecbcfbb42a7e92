#include "nn/excerpt.h"

#include <cstdio>

namespace ablate {
namespace {

// Length of the valid UTF-8 sequence starting at s[i] (2–4 bytes), or 0 if there is none
// (overlong forms, surrogates and code points beyond U+10FFFF are not valid).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b0 = byte(i);
  std::size_t n = b0 >= 0xC2 && b0 <= 0xDF ? 2 : b0 >= 0xE0 && b0 <= 0xEF ? 3 : b0 >= 0xF0 && b0 <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  unsigned char b1 = byte(i + 1);
  if (b0 == 0xE0 && b1 < 0xA0) return 0;  // overlong
  if (b0 == 0xED && b1 > 0x9F) return 0;  // surrogate
  if (b0 == 0xF0 && b1 < 0x90) return 0;  // overlong
  if (b0 == 0xF4 && b1 > 0x8F) return 0;  // beyond U+10FFFF
  return n;
}

}  // namespace

std::string excerpt(std::string_view text, std::size_t max_bytes) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    unsigned char b = static_cast<unsigned char>(text[i]);
    std::size_t n = b >= 0x20 && b < 0x7F ? 1 : b >= 0x80 ? utf8_sequence_length(text, i) : 0;
    std::size_t shown = n ? n : 4;  // an escaped byte is shown as \xNN
    if (out.size() + shown > max_bytes) break;
    if (n) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", unsigned(b));
      out += escaped;
      i += 1;
    }
  }
  if (i < text.size()) out += "… (" + std::to_string(text.size()) + " bytes in all)";
  return out;
}

}  // namespace ablate
