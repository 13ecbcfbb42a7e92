#pragma once
// Token strings ↔ ids for the sequence tasks. Every vocabulary starts with the shared
// special ids (<pad> <bos> <eos>), then the task's own specials (text_pairs adds
// <unk>), then the ordinary tokens in the order given — callers pass them sorted so
// that ids never depend on the order in which data happened to be read.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ablate::experiments {

class Vocabulary {
 public:
  Vocabulary() = default;
  Vocabulary(const std::vector<std::string>& task_specials, const std::vector<std::string>& tokens);

  std::int64_t size() const { return std::int64_t(tokens_.size()); }
  // The id of an ordinary token (specials are not looked up by name: the text "<pad>"
  // in a user's data is an ordinary token with an id of its own).
  std::optional<std::int32_t> find(const std::string& token) const;
  // Throws std::out_of_range naming the token (a bug: callers map unknowns themselves).
  std::int32_t id(const std::string& token) const;
  // "<id 42?>" for ids outside the vocabulary, so reports of bad predictions still print.
  std::string token(std::int32_t id) const;
  // The tokens of a row of ids joined by `separator`: leading BOS skipped, stopping at
  // the first EOS or PAD.
  std::string join(const std::int32_t* ids, std::int64_t n, const std::string& separator) const;

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, std::int32_t> ids_;
};

}  // namespace ablate::experiments
