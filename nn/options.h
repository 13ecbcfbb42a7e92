#pragma once
// Options of a swappable component, and the schema that validates them. nn knows
// nothing of TOML: the experiments layer turns a TOML table into Options, and
// resolve_options() checks them against the component's OptionSpecs (unknown keys
// with a did-you-mean, wrong types, values out of range or not among the choices),
// filling in defaults. The experiments layer adds file, line and column.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace ablate::nn {

using OptionValue = std::variant<bool, std::int64_t, double, std::string>;

std::string option_type_name(const OptionValue& v);  // "bool", "integer", "float", "string"
std::string option_to_string(const OptionValue& v);  // TOML-like: true, 3, 0.5, "x"

struct OptionSpec {
  std::string key;
  OptionValue default_value;  // its alternative is the option's type
  std::string doc;
  std::optional<double> min = std::nullopt, max = std::nullopt;  // inclusive, for numbers
  std::vector<std::string> choices = {};                         // for strings; empty = any
  // A path to a file the trial reads (relative to the experiment file): its content's
  // SHA-256 enters the trial's identity next to the path (experiments/io/file_digest.h).
  bool names_file = false;
  // Left out of a trial's config.toml, and so of its id, while at its default: an
  // option added after results were published keeps those trials' ids (and reuse).
  bool omit_at_default = false;
};

class Options {
 public:
  Options() = default;
  Options(std::initializer_list<std::pair<const std::string, OptionValue>> values)
      : values_(values) {}

  void set(const std::string& key, OptionValue value) { values_[key] = std::move(value); }
  bool has(const std::string& key) const { return values_.count(key) != 0; }
  const std::map<std::string, OptionValue>& values() const { return values_; }

  // Typed reads of resolved options (an integer reads as a float too).
  bool get_bool(const std::string& key) const;
  std::int64_t get_int(const std::string& key) const;
  double get_float(const std::string& key) const;
  const std::string& get_string(const std::string& key) const;

 private:
  const OptionValue& at(const std::string& key) const;
  std::map<std::string, OptionValue> values_;
};

struct OptionIssue {
  std::string key;      // the option's key ("" when about the block)
  std::string message;  // "unknown option 'nomalize_keys' (did you mean 'normalize_keys'?)"
};

// Thrown by Registry::create when options do not validate.
class OptionError : public std::invalid_argument {
 public:
  OptionError(std::string component, std::vector<OptionIssue> issues);
  const std::vector<OptionIssue>& issues() const { return issues_; }

 private:
  std::vector<OptionIssue> issues_;
};

// Validates `given` against `specs` and returns them with defaults filled in. Every
// problem is appended to `issues` (nothing is thrown).
Options resolve_options(const std::vector<OptionSpec>& specs, const Options& given,
                        std::vector<OptionIssue>& issues);

// The closest candidate by edit distance, if it is close enough to be a likely typo.
std::optional<std::string> did_you_mean(const std::string& word,
                                        const std::vector<std::string>& candidates);

}  // namespace ablate::nn
