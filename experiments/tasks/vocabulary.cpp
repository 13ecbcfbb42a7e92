#include "experiments/tasks/vocabulary.h"

#include <stdexcept>

#include "experiments/tasks/task.h"

namespace ablate::experiments {

Vocabulary::Vocabulary(const std::vector<std::string>& task_specials,
                       const std::vector<std::string>& tokens) {
  tokens_ = {"<pad>", "<bos>", "<eos>"};
  tokens_.insert(tokens_.end(), task_specials.begin(), task_specials.end());
  const std::size_t first_ordinary = tokens_.size();
  tokens_.insert(tokens_.end(), tokens.begin(), tokens.end());
  // Only ordinary tokens are found by name: specials have fixed ids, and a user's data
  // may well contain the text "<pad>" or "<unk>" as an ordinary token (the TSV fuzzer
  // found this; it used to throw "listed twice").
  for (std::size_t i = first_ordinary; i < tokens_.size(); ++i)
    if (!ids_.emplace(tokens_[i], std::int32_t(i)).second)
      throw std::logic_error("vocabulary: token '" + tokens_[i] + "' listed twice");
}

std::optional<std::int32_t> Vocabulary::find(const std::string& token) const {
  auto it = ids_.find(token);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

std::int32_t Vocabulary::id(const std::string& token) const {
  if (auto i = find(token)) return *i;
  throw std::out_of_range("vocabulary: no token '" + token + "'");
}

std::string Vocabulary::token(std::int32_t id) const {
  if (id >= 0 && id < size()) return tokens_[std::size_t(id)];
  return "<id " + std::to_string(id) + "?>";
}

std::string Vocabulary::join(const std::int32_t* ids, std::int64_t n,
                             const std::string& separator) const {
  std::string out;
  std::int64_t i = 0;
  if (n > 0 && ids[0] == kBos) i = 1;
  for (bool first = true; i < n && ids[i] != kEos && ids[i] != kPad; ++i, first = false) {
    if (!first) out += separator;
    out += token(ids[i]);
  }
  return out;
}

}  // namespace ablate::experiments
