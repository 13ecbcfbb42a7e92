#include "experiments/config/halving_reader.h"

#include <optional>
#include <set>
#include <sstream>

#include "experiments/config/setting_keys.h"

namespace ablate::experiments {

HalvingSchedule read_halving_schedule(TomlReader& reader) {
  HalvingSchedule schedule;
  const toml::node* rungs = reader.node("rungs");
  const toml::array* list = rungs ? rungs->as_array() : nullptr;
  if (!list || list->empty()) {
    reader.problem("rungs", std::string(rungs ? "must be" : "is required:") +
                                " a non-empty list of fractions of train.steps, increasing, each "
                                "in (0, 1) (e.g. rungs = [0.25, 0.5])");
  } else {
    for (const toml::node& r : *list) {
      const std::optional<double> f = r.is_floating_point()
                                          ? std::optional<double>(r.as_floating_point()->get())
                                          : std::nullopt;
      if (!f || !(*f > 0 && *f < 1)) {
        reader.problem("rungs",
                       "each rung is a fraction of train.steps in (0, 1), written as a "
                       "float (0.25, not 1/4 or 25)");
        break;
      }
      if (!schedule.rungs.empty() && !(*f > schedule.rungs.back())) {
        reader.problem("rungs",
                       "must increase: each rung ranks the settings later than the one "
                       "before");
        break;
      }
      schedule.rungs.push_back(*f);
    }
  }
  read_setting_keys(reader, schedule);
  return schedule;
}

void check_halving_rungs(const Experiment& e, const std::string& path,
                         const PositionIndex& positions, std::vector<ConfigProblem>& problems) {
  if (!e.halving) return;
  std::set<std::string> said;
  auto [line, column] = positions.find("tune.halving.rungs");
  for (const Trial& t : e.trials) {
    const std::int64_t steps = t.config.train.steps, every = t.config.train.eval_every;
    const std::vector<std::int64_t> at = rung_steps(*e.halving, steps, every);
    std::string message;
    for (std::size_t i = 0; i < at.size() && message.empty(); ++i) {
      std::ostringstream text;
      if (at[i] >= steps)
        text << "rung " << e.halving->rungs[i] << " rounds to step " << at[i]
             << ", the last of train.steps = " << steps << " (evaluations every " << every
             << "): it would stop nothing; use a smaller fraction or evaluate more often";
      else if (i > 0 && at[i] == at[i - 1])
        text << "rungs " << e.halving->rungs[i - 1] << " and " << e.halving->rungs[i]
             << " both round to step " << at[i] << " of train.steps = " << steps
             << " (evaluations every " << every
             << "); space them at least one evaluation apart or evaluate more often";
      message = text.str();
    }
    if (!message.empty() && said.insert(message).second)
      problems.push_back({path, line, column, "tune.halving.rungs", message});
  }
}

std::string halving_preview(const Experiment& e) {
  std::ostringstream out;
  out << "halving: " << halving_text(*e.halving);
  if (e.trials.empty()) return out.str();
  const TrainSpec& train = e.trials.front().config.train;
  const std::vector<std::int64_t> at = rung_steps(*e.halving, train.steps, train.eval_every);
  std::set<std::string> settings;
  for (const Trial& t : e.trials) settings.insert(t.tune_label());
  out << " — at steps";
  for (std::size_t i = 0; i < at.size(); ++i) out << (i ? ", " : " ") << at[i];
  out << " of " << train.steps << ": " << settings.size() << " settings a point";
  std::size_t running = settings.size();
  for (std::size_t i = 0; i < at.size(); ++i) {
    running = settings_kept(e.halving->keep, running);
    out << ", then " << running;
  }
  out << " to the end (on tune.seeds only; the sweep's seeds run the chosen setting in full)";
  return out.str();
}

}  // namespace ablate::experiments
