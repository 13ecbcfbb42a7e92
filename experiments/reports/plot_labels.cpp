#include "experiments/reports/plot_labels.h"

#include <algorithm>

namespace ablate::experiments {

namespace {

// The last `parts` dotted components of `key` (all of it when it has fewer).
std::string suffix(const std::string& key, std::size_t parts) {
  std::size_t start = key.size();
  for (std::size_t n = 0; n < parts; ++n) {
    if (start == 0) return key;
    std::size_t dot = key.rfind('.', start - 1);
    if (dot == std::string::npos) return key;
    start = dot;
  }
  return key.substr(start + 1);
}

}  // namespace

ShortKeys::ShortKeys(std::vector<std::string> keys) : keys_(std::move(keys)) {
  for (const std::string& key : keys_) {
    const std::size_t parts = std::size_t(std::count(key.begin(), key.end(), '.')) + 1;
    std::string name = key;
    for (std::size_t n = 1; n < parts; ++n) {
      const std::string candidate = suffix(key, n);
      // Unambiguous when no other key ends in the same components: two suffixes with
      // the same number of components are equal only if those components are.
      const bool unique = std::none_of(keys_.begin(), keys_.end(), [&](const std::string& other) {
        return other != key && suffix(other, n) == candidate;
      });
      if (unique) {
        name = candidate;
        break;
      }
    }
    names_[key] = name;
  }
}

const std::string& ShortKeys::name(const std::string& key) const {
  auto it = names_.find(key);
  return it == names_.end() ? key : it->second;
}

std::string ShortKeys::label(const std::map<std::string, std::string>& point) const {
  return label(point, keys_);
}

std::string ShortKeys::label(const std::map<std::string, std::string>& point,
                             const std::vector<std::string>& only) const {
  std::string out;
  for (const std::string& key : only)
    if (auto v = point.find(key); v != point.end())
      out += (out.empty() ? "" : " ") + name(key) + "=" + v->second;
  return out;
}

std::string ShortKeys::legend_key(const std::vector<std::string>& only) const {
  std::string out;
  for (const std::string& key : only.empty() ? keys_ : only)
    if (name(key) != key) out += (out.empty() ? "" : ", ") + name(key) + " = " + key;
  return out;
}

}  // namespace ablate::experiments
