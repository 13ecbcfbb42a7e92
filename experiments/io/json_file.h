#pragma once
// Reading ablate's own JSON files (trials.json, summary.json, attention.json, a resume
// state's progress) when they may come from elsewhere — a run directory handed over,
// a file edited by hand. nlohmann parses without recursion, but copying, comparing or
// serialising a value recurses once per level of nesting: a valid file nested a
// million deep would overflow the stack wherever the reader copies a value. So the
// nesting is bounded before anything is parsed, and every error names the file and
// shows at most an excerpt of the input (never a dump of it).
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ablate::experiments {

// Deeper than anything ablate writes (attention.json, the deepest, has 6 levels).
constexpr int kMaxJsonDepth = 64;

// `text` parsed; throws std::runtime_error "<what>: ..." when it is not JSON or nests
// deeper than kMaxJsonDepth.
nlohmann::json parse_json(std::string_view text, const std::string& what);

// The file at `path` parsed, with errors naming it (as parse_json).
nlohmann::json read_json_file(const std::string& path);

// The file parsed, or a discarded value (is_discarded()) when it is unreadable, not
// JSON or too deep: for readers that skip a bad file rather than fail.
nlohmann::json parse_json_or_discarded(const std::string& path);

// A nlohmann exception from reading a parsed file (a missing key, a wrong type) as
// std::runtime_error naming the file, with the message cut to a fixed length.
[[noreturn]] void throw_naming_file(const std::string& path, const std::exception& e);

}  // namespace ablate::experiments
