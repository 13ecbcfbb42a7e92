#pragma once
// How the text tasks (text_pairs, g2p, lm) cut text into tokens.
#include <string>
#include <vector>

#include "nn/options.h"

namespace ablate::experiments {

// The `tokens` option of a text task: "char" (code points) or "whitespace" (runs between
// spaces), declared once for every task that offers it.
nn::OptionSpec tokens_option();

// Unicode code points, each as its UTF-8 bytes (a continuation byte joins the code
// point before it; invalid UTF-8 is not repaired, its bytes stay tokens).
std::vector<std::string> code_point_tokens(const std::string& text);
// Runs of characters other than ' ' (and tab, for text that has tabs).
std::vector<std::string> whitespace_tokens(const std::string& text);
// ASCII letters lowercased; every other byte unchanged (multi-byte UTF-8 stays intact).
std::string ascii_lowercase(std::string text);

}  // namespace ablate::experiments
