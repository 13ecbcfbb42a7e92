#pragma once
// A check of an experiment file's text before TOML++ parses it, for what Debian's
// TOML++ 3.3.0 mishandles: a non-ASCII character where the parser looks for
// whitespace reaches __builtin_unreachable() in is_non_ascii_horizontal_whitespace()
// — undefined behaviour (marzer/tomlplusplus#190; fixed upstream by PR #305, not in
// Debian 12). Found by the experiment-file fuzzer (tests/fuzz/).
//
// Outside strings and comments a non-ASCII character is never valid TOML, so refusing
// it here loses nothing and gives a clearer message than the parser's. Inside a
// multi-line basic string only one spot is affected — the first character after a
// backslash (and the whitespace or line break it trims) — and that rare form is
// refused with its own message.
#include <optional>
#include <string>

#include "experiments/config/config_error.h"

namespace ablate::experiments {

// The first such problem in `text` (file:line:column), or nullopt.
std::optional<ConfigProblem> toml_text_problem(const std::string& text, const std::string& file);

}  // namespace ablate::experiments
