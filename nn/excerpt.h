#pragma once
// A piece of input echoed in an error message, cut to a fixed length. Input can be
// megabytes without a newline (a text line, a checkpoint header, a JSON value nested
// a million deep); a message is read by a person and must stay short, printable and
// one line, whatever the bytes.
#include <cstddef>
#include <string>
#include <string_view>

namespace ablate {

// At most `max_bytes` bytes of `text` (a UTF-8 sequence is never split), with control
// bytes, DEL and bytes that are not valid UTF-8 written as \xNN (so a NUL or a newline
// cannot end or break the message) — then, when anything was cut,
// "… (N bytes in all)". Linear in the bytes it shows, never in the input's size.
std::string excerpt(std::string_view text, std::size_t max_bytes = 80);

}  // namespace ablate
