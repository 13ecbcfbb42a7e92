#pragma once
// Strict UTF-8 (RFC 3629), one sequence at a time: what the text readers check their
// input against and what excerpt() shows unescaped.
#include <cstddef>
#include <string_view>

namespace ablate {

// Length of the valid multi-byte UTF-8 sequence starting at s[i] (2–4 bytes), or 0 if
// there is none there (an ASCII byte, a lone continuation byte, a sequence cut short,
// overlong forms, surrogates, code points beyond U+10FFFF).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

}  // namespace ablate
