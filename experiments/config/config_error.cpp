#include "experiments/config/config_error.h"

#include <algorithm>
#include <sstream>

namespace ablate::experiments {

std::string ConfigProblem::str() const {
  std::ostringstream s;
  s << file;
  if (line > 0) s << ":" << line << ":" << column;
  s << ": ";
  if (!key.empty()) s << key << ": ";
  s << message;
  return s.str();
}

namespace {
std::string join(std::vector<ConfigProblem> problems) {
  std::stable_sort(problems.begin(), problems.end(),
                   [](const ConfigProblem& a, const ConfigProblem& b) {
                     return a.line != b.line ? a.line < b.line : a.column < b.column;
                   });
  std::ostringstream s;
  for (std::size_t i = 0; i < problems.size(); ++i) s << (i ? "\n" : "") << problems[i].str();
  return s.str();
}
}  // namespace

ConfigError::ConfigError(std::vector<ConfigProblem> problems)
    : std::runtime_error(join(problems)), problems_(std::move(problems)) {}

}  // namespace ablate::experiments
