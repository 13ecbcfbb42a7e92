#pragma once
// The JSON header of a safetensors file, parsed as hostile input (nn/safetensors.h).
// Valid JSON is not enough: the format pads a header with spaces only, so a NUL byte
// is refused (nlohmann's parser would stop at it and silently ignore what follows);
// a key given twice is refused (the parser would keep one of them, so a tensor or a
// metadata value would silently vanish); and nesting deeper than a real header ever
// goes is refused before it is built, so no later step meets a value nested 100,000
// deep (the parse itself is iterative, but anything recursive over the value — a
// dump() into an error message — would overflow the stack); and a header may list at
// most kMaxSafetensorsEntries entries. The checks run in a SAX pass before the value
// is built, in time linear-logarithmic in the header's size.
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace ablate::nn {

// A safetensors header nests 3 deep: the object, a tensor's entry, its shape array.
inline constexpr int kMaxSafetensorsHeaderDepth = 8;
// Tensors (and "__metadata__") a header may list: far above any model's (the base
// reference model has ~200), far below what would keep a reader busy.
inline constexpr std::size_t kMaxSafetensorsEntries = 65536;

// Throws std::runtime_error "<path>: ..." naming what is wrong (values echoed through
// excerpt(), so bounded and printable).
nlohmann::json parse_safetensors_header(const std::string& path, const std::string& text);

}  // namespace ablate::nn
