#pragma once
// Problems found in an experiment file. Validation collects every problem before
// anything runs, and each names the file, line, column and key path:
//   experiments/studies/attention.toml:14:7: model.heads: d_model = 64 is not divisible by heads =
//   5
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ablate::experiments {

struct ConfigProblem {
  std::string file;
  std::int64_t line = 0, column = 0;  // 0 when unknown (e.g. a missing key)
  std::string key;                    // dotted path, "" for the file as a whole
  std::string message;
  std::string str() const;
};

// Thrown with every problem of a file; what() lists them, one per line.
class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(std::vector<ConfigProblem> problems);
  const std::vector<ConfigProblem>& problems() const { return problems_; }

 private:
  std::vector<ConfigProblem> problems_;
};

}  // namespace ablate::experiments
