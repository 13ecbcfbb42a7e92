#include "nn/excerpt.h"

#include <cstdio>

#include "nn/utf8.h"

namespace ablate {

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
