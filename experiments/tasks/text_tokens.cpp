#include "experiments/tasks/text_tokens.h"

namespace ablate::experiments {

nn::OptionSpec tokens_option() {
  return {"tokens",     std::string("char"), "tokenization",
          std::nullopt, std::nullopt,        {"char", "whitespace"}};
}

std::vector<std::string> code_point_tokens(const std::string& text) {
  std::vector<std::string> out;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80 || out.empty())
      out.emplace_back(1, char(c));
    else
      out.back() += char(c);
  return out;
}

std::vector<std::string> whitespace_tokens(const std::string& text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while ((i = text.find_first_not_of(" \t", i)) != std::string::npos) {
    std::size_t end = std::min(text.find_first_of(" \t", i), text.size());
    out.push_back(text.substr(i, end - i));
    i = end;
  }
  return out;
}

std::string ascii_lowercase(std::string text) {
  for (char& c : text)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return text;
}

}  // namespace ablate::experiments
