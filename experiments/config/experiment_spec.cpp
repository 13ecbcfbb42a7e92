#include "experiments/config/experiment_spec.h"

#include "experiments/io/atomic_file.h"

namespace ablate::experiments {

std::string Experiment::text_as_run() const {
  return read_file(file) + overrides_block(overrides);
}

std::string Trial::point_label() const {
  std::string s;
  for (const auto& [k, v] : point) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

std::string Trial::tune_label() const {
  std::string s;
  for (const auto& [k, v] : tune) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

std::string Trial::seeded_label() const {
  std::string s = point_label();
  if (!tune.empty()) s += (s.empty() ? "" : " ") + tune_label();
  if (!s.empty()) s += ' ';
  return s.append("seed=").append(std::to_string(config.trial_seed));
}

}  // namespace ablate::experiments
