#include "experiments/io/json_file.h"

#include <algorithm>
#include <stdexcept>

#include "experiments/io/atomic_file.h"
#include "nn/excerpt.h"

namespace ablate::experiments {

namespace {

// The deepest nesting of arrays and objects in `text`, outside strings: a linear scan
// that stops at the first level past `limit`. Malformed text is the parser's to refuse.
int nesting_depth(std::string_view text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if ((deepest = std::max(deepest, ++depth)) > limit) return deepest;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

nlohmann::json parse_json(std::string_view text, const std::string& what) {
  if (nesting_depth(text, kMaxJsonDepth) > kMaxJsonDepth)
    throw std::runtime_error(what + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                             " levels (ablate writes at most 6): not a file ablate wrote");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(what + ": not valid JSON: " + excerpt(e.what(), 200));
  }
}

nlohmann::json read_json_file(const std::string& path) {
  return parse_json(read_file(path), path);
}

nlohmann::json parse_json_or_discarded(const std::string& path) {
  try {
    return read_json_file(path);
  } catch (const std::runtime_error&) {
    return nlohmann::json::value_t::discarded;
  }
}

void throw_naming_file(const std::string& path, const std::exception& e) {
  throw std::runtime_error(path + ": not as ablate writes it: " + excerpt(e.what(), 200));
}

}  // namespace ablate::experiments
