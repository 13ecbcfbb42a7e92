#include "experiments/config/suggestions.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <utility>

#include "nn/options.h"

namespace ablate::experiments {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The one candidate `pick` accepts (the longest when several are, for `longest`).
std::optional<std::string> only(const std::vector<std::string>& candidates,
                                const std::function<bool(std::size_t)>& pick, bool longest) {
  std::optional<std::string> found;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!pick(i)) continue;
    if (found && !longest) return std::nullopt;  // ambiguous
    if (!found || candidates[i].size() > found->size()) found = candidates[i];
  }
  return found;
}

// Whether `text` mentions `word` as a whole word, whatever the case.
bool mentions(const std::string& text, const std::string& word) {
  const std::string t = lower(text);
  for (std::size_t at = t.find(word); at != std::string::npos; at = t.find(word, at + 1)) {
    const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(t[at - 1]));
    const std::size_t end = at + word.size();
    if (starts && (end == t.size() || !std::isalnum(static_cast<unsigned char>(t[end]))))
      return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> closest_name(const std::string& word,
                                        const std::vector<std::string>& candidates,
                                        const std::vector<std::string>& descriptions) {
  if (auto typo = nn::did_you_mean(word, candidates)) return typo;
  const std::string w = lower(word);
  if (w.size() < 3) return std::nullopt;
  auto other_case = [&](std::size_t i) { return lower(candidates[i]) == w; };
  // The name with a suffix other tools write ("rmsnorm", "layer_norm", "training"), not
  // another word ("test_size" is not "test").
  auto affixed = [&](std::size_t i) {
    const std::string c = lower(candidates[i]);
    if (c.size() < 2 || c.size() >= w.size() || w.rfind(c, 0) != 0) return false;
    std::string rest = w.substr(c.size());
    std::erase_if(rest, [](char ch) { return ch == '_' || ch == '-'; });
    return rest == "norm" || rest == "normalization" || rest == "normalisation" || rest == "ing" ||
           rest == "s" || rest == "ed";
  };
  auto begun = [&](std::size_t i) { return lower(candidates[i]).rfind(w, 0) == 0; };
  auto described = [&](std::size_t i) {
    return i < descriptions.size() && mentions(descriptions[i], w);
  };
  for (auto [pick, longest] : {std::pair<std::function<bool(std::size_t)>, bool>{other_case, false},
                               {affixed, true},
                               {begun, false},
                               {described, false}})
    if (auto found = only(candidates, pick, longest)) return found;
  return std::nullopt;
}

bool is_internal_key(const std::string& key) {
  const std::string suffix = "_sha256";
  return key.size() > suffix.size() &&
         key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> listed_keys(std::vector<std::string> keys) {
  keys.erase(std::remove_if(keys.begin(), keys.end(), is_internal_key), keys.end());
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

}  // namespace ablate::experiments
