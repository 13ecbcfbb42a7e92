#include "nn/options.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ablate::nn {

std::string option_type_name(const OptionValue& v) {
  switch (v.index()) {
    case 0:
      return "bool";
    case 1:
      return "integer";
    case 2:
      return "float";
    default:
      return "string";
  }
}

std::string option_to_string(const OptionValue& v) {
  std::ostringstream s;
  std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, bool>)
          s << (x ? "true" : "false");
        else if constexpr (std::is_same_v<X, std::string>)
          s << '"' << x << '"';
        else
          s << x;
      },
      v);
  return s.str();
}

const OptionValue& Options::at(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw std::out_of_range("option '" + key + "' is not set");
  return it->second;
}

bool Options::get_bool(const std::string& key) const {
  if (auto* b = std::get_if<bool>(&at(key))) return *b;
  throw std::invalid_argument("option '" + key + "' is not a bool");
}

std::int64_t Options::get_int(const std::string& key) const {
  if (auto* i = std::get_if<std::int64_t>(&at(key))) return *i;
  throw std::invalid_argument("option '" + key + "' is not an integer");
}

double Options::get_float(const std::string& key) const {
  const OptionValue& v = at(key);
  if (auto* d = std::get_if<double>(&v)) return *d;
  if (auto* i = std::get_if<std::int64_t>(&v)) return double(*i);
  throw std::invalid_argument("option '" + key + "' is not a number");
}

const std::string& Options::get_string(const std::string& key) const {
  if (auto* s = std::get_if<std::string>(&at(key))) return *s;
  throw std::invalid_argument("option '" + key + "' is not a string");
}

namespace {

std::string join_issues(const std::string& component, const std::vector<OptionIssue>& issues) {
  std::string s = component + ": ";
  for (std::size_t i = 0; i < issues.size(); ++i) s += (i ? "; " : "") + issues[i].message;
  return s;
}

// Optimal-string-alignment distance: insertions, deletions, substitutions and
// transpositions of neighbours ("esp" → "eps") each cost 1.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

OptionError::OptionError(std::string component, std::vector<OptionIssue> issues)
    : std::invalid_argument(join_issues(component, issues)), issues_(std::move(issues)) {}

std::optional<std::string> did_you_mean(const std::string& word,
                                        const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const std::string& c : candidates) {
    std::size_t d = edit_distance(word, c);
    if (!best || d < best_distance) best = c, best_distance = d;
  }
  // A typo, not a different word: at most a third of the letters changed.
  if (best && best_distance <= std::max<std::size_t>(1, word.size() / 3)) return best;
  return std::nullopt;
}

Options resolve_options(const std::vector<OptionSpec>& specs, const Options& given,
                        std::vector<OptionIssue>& issues) {
  std::vector<std::string> keys;
  for (const OptionSpec& s : specs) keys.push_back(s.key);
  for (const auto& [key, value] : given.values()) {
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    std::string msg = "unknown option '" + key + "'";
    if (auto m = did_you_mean(key, keys))
      msg += " (did you mean '" + *m + "'?)";
    else if (keys.empty())
      msg += " (this component takes no options)";
    else {
      msg += " (allowed:";
      for (const std::string& k : keys) msg += " " + k;
      msg += ")";
    }
    issues.push_back({key, msg});
  }
  Options out;
  for (const OptionSpec& s : specs) {
    if (!given.has(s.key)) {
      out.set(s.key, s.default_value);
      continue;
    }
    OptionValue v = given.values().at(s.key);
    bool want_float = std::holds_alternative<double>(s.default_value);
    if (want_float && std::holds_alternative<std::int64_t>(v))
      v = double(std::get<std::int64_t>(v));
    if (v.index() != s.default_value.index()) {
      issues.push_back({s.key, "option '" + s.key + "' must be a " +
                                   option_type_name(s.default_value) + ", got " +
                                   option_type_name(v) + " " + option_to_string(v)});
      continue;
    }
    if (std::holds_alternative<std::int64_t>(v) || std::holds_alternative<double>(v)) {
      double x = std::holds_alternative<double>(v) ? std::get<double>(v)
                                                   : double(std::get<std::int64_t>(v));
      bool below = s.min && !(x >= *s.min), above = s.max && !(x <= *s.max);
      if (below || above || std::isnan(x)) {
        std::ostringstream m;
        m << "option '" << s.key << "' = " << option_to_string(v) << " is out of range (allowed ";
        if (s.min && s.max)
          m << "[" << *s.min << ", " << *s.max << "]";
        else if (s.min)
          m << ">= " << *s.min;
        else if (s.max)
          m << "<= " << *s.max;
        else
          m << "a finite number";
        m << ")";
        issues.push_back({s.key, m.str()});
        continue;
      }
    }
    if (auto* str = std::get_if<std::string>(&v);
        str && !s.choices.empty() &&
        std::find(s.choices.begin(), s.choices.end(), *str) == s.choices.end()) {
      std::string msg = "option '" + s.key + "' = \"" + *str + "\" is not one of:";
      for (const std::string& c : s.choices) msg += " " + c;
      if (auto m = did_you_mean(*str, s.choices)) msg += " (did you mean '" + *m + "'?)";
      issues.push_back({s.key, msg});
      continue;
    }
    out.set(s.key, v);
  }
  return out;
}

}  // namespace ablate::nn
