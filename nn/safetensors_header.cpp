#include "nn/safetensors_header.h"

#include <set>
#include <stdexcept>
#include <vector>

#include "nn/excerpt.h"

namespace ablate::nn {

namespace {

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(path + ": " + what);
}

// The keys seen so far in each object still open, to find one given twice.
struct OpenObject {
  std::string name;  // the key it is the value of ("" for the header itself)
  std::set<std::string> keys;
};

}  // namespace

json parse_safetensors_header(const std::string& path, const std::string& text) {
  if (std::size_t nul = text.find('\0'); nul != std::string::npos)
    fail(path, "the header holds a NUL byte at offset " + std::to_string(nul) + " of its " +
                   std::to_string(text.size()) +
                   " bytes (a header is JSON, padded with spaces only; is the file damaged?)");
  std::vector<OpenObject> open;
  std::string last_key;
  // Called by the parser for every event; throwing here ends the parse at once, so a
  // deeply nested value is never built.
  auto check = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth >= kMaxSafetensorsHeaderDepth)
          fail(path, "the header nests deeper than " + std::to_string(kMaxSafetensorsHeaderDepth) +
                         " levels (a safetensors header nests 3: the object, an entry, its shape)");
        if (event == json::parse_event_t::object_start) open.push_back({last_key, {}});
        break;
      case json::parse_event_t::key:
        last_key = parsed.get<std::string>();
        if (!open.back().keys.insert(last_key).second) {
          // (std::string first: GCC 12 warns falsely (-Wrestrict) on a literal + a temporary.)
          const std::string key = excerpt(last_key), object = excerpt(open.back().name);
          if (open.size() == 1)
            fail(path, std::string("the header names '") + key +
                           "' twice (a reader would silently keep only one of them)");
          fail(path, std::string("'") + object + "' gives the key '" + key +
                         "' twice (a reader would silently keep only one of them)");
        }
        break;
      case json::parse_event_t::object_end:
        open.pop_back();
        break;
      default:
        break;
    }
    return true;
  };
  try {
    return json::parse(text, check);    // also rejects text that is not UTF-8
  } catch (const json::exception& e) {  // parse_error, and out_of_range for 1e99999 (fuzzer)
    // nlohmann's message ends with the token last read, which can be the whole header.
    fail(path, std::string("header is not valid JSON (") + excerpt(e.what(), 160) + ")");
  }
}

}  // namespace ablate::nn
