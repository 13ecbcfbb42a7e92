#include "experiments/runner/listed_trials.h"

#include <fstream>
#include <map>

#include "experiments/config/config_error.h"
#include "experiments/runner/adaptive_sweep.h"

namespace ablate::experiments {

Experiment only_listed_trials(const Experiment& e, const std::string& ids_file) {
  std::ifstream in(ids_file);
  if (!in) throw ConfigError({{ids_file, 0, 0, "", "cannot be read"}});
  const std::vector<Trial> possible =
      e.adaptive || !e.tune_seeds.empty() ? budget_trials(e) : e.trials;
  std::map<std::string, std::int64_t> wanted;  // id → its line
  std::vector<ConfigProblem> problems;
  std::string line;
  for (std::int64_t n = 1; std::getline(in, line); ++n) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const std::string id = line.substr(first, line.find_last_not_of(" \t\r") + 1 - first);
    bool known = false;
    for (const Trial& t : possible) known = known || t.id == id;
    if (!known)
      problems.push_back({ids_file, n, std::int64_t(first) + 1, "",
                          "`" + id + "` is not a trial of " + e.file +
                              " (its trials, up to any budget: ablate check " + e.file +
                              " --budget)"});
    wanted.emplace(id, n);
  }
  if (wanted.empty() && problems.empty())
    problems.push_back({ids_file, 0, 0, "", "lists no trial id"});
  if (!problems.empty()) throw ConfigError(problems);
  Experiment out = e;
  out.trials.clear();
  for (const Trial& t : possible)
    if (wanted.count(t.id)) out.trials.push_back(t);
  out.adaptive.reset();  // the listed trials, not rounds
  out.exact_trials = true;
  return out;
}

}  // namespace ablate::experiments
