#include "experiments/runner/tuned_sweep.h"

#include <filesystem>
#include <map>
#include <set>

#include "experiments/analysis/point_tuning.h"
#include "experiments/config/trial_grid.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/report.h"
#include "experiments/reports/run_rows.h"
#include "experiments/reports/trial_index.h"
#include "experiments/runner/halving_stage.h"

namespace ablate::experiments {

namespace fs = std::filesystem;

int tuning_trials_waiting(const Experiment& e, const std::string& run_dir) {
  const RunDir run(run_dir);
  int waiting = 0;
  for (const Trial& t : e.trials) waiting += !trial_finished(run.trial(t.id).path());
  return waiting;
}

std::optional<Experiment> second_stage(const Experiment& e, const std::string& run_dir) {
  if (!fs::exists(RunDir(run_dir).trials()) || tuning_trials_waiting(e, run_dir) > 0)
    return std::nullopt;
  const auto tuning = tune_points(read_run(run_dir, trial_index_json(e)));
  Experiment second = e;
  second.chosen_from = e.trials;
  second.trials.clear();
  std::set<std::string> done;  // points expanded (the tuning stage has one trial per seed)
  for (const Trial& t : e.trials) {
    const std::map<std::string, std::string> point(t.point.begin(), t.point.end());
    auto chosen = tuning.find(point);
    if (chosen == tuning.end() || chosen->second.chosen != t.tune_label()) continue;
    if (!done.insert(t.point_id).second) continue;
    for (std::uint64_t seed : e.seeds) second.trials.push_back(reseeded(t, seed));
  }
  return second;
}

namespace {

// A stage's counts, and what it says of itself (the later stage's stands).
void add_counts(RunSummary& total, const RunSummary& stage) {
  total.total += stage.total;
  total.skipped += stage.skipped;
  add_outcome_counts(total, stage);
  total.not_in_experiment = stage.not_in_experiment;
  total.stopped_by = stage.stopped_by;
  total.rounds = stage.rounds;
  total.adaptive_note = stage.adaptive_note;
}

// The tuning stage: its trials still to run (all with --force), then the second stage;
// with [tune.halving], rung by rung (halving_stage.h).
RunSummary run_tuning_stage(const Experiment& e, const RunOptions& options,
                            const RoundRunner& run_round) {
  if (e.halving) return run_halving_stage(e, options, run_round);
  SweepPlan plan = plan_sweep(e, options);
  if (!plan.pending.empty()) run_round(e, plan, options, "tuning stage");
  return plan.summary;  // its locks released: the second stage takes them anew
}

}  // namespace

RunSummary run_tuned(const Experiment& e, const RunOptions& options, const RoundRunner& run_round) {
  RunSummary total;
  total.run_dir = run_dir_of(e, options);
  std::optional<Experiment> second = second_stage(e, total.run_dir);
  // With [tune.halving] the stage is always walked through, rung by rung: cheap when
  // done, and it continues a stopped setting that a changed schedule now keeps.
  if (second && !options.force && !e.halving) {
    // The tuning stage is done: its trials count as already done.
    total.total = total.skipped = int(e.trials.size());
  } else {
    add_counts(total, run_tuning_stage(e, options, run_round));
    if (!total.stopped_by) second = second_stage(e, total.run_dir);
    if (!second) {
      if (!total.stopped_by)
        total.adaptive_note =
            "tuning stage: " + std::to_string(tuning_trials_waiting(e, total.run_dir)) +
            " trials without a result; each point's setting is chosen, and "
            "the sweep's seeds run, once they have one";
      write_reports(total.run_dir);
      return total;
    }
  }
  // A forced run reran the tuning stage; the second stage's trials run again once too.
  if (second->adaptive) {
    add_counts(total, run_adaptive(*second, options, run_round));
    return total;
  }
  SweepPlan plan = plan_sweep(*second, options);
  if (!plan.pending.empty()) run_round(*second, plan, options, "chosen settings");
  add_counts(total, plan.summary);
  write_reports(total.run_dir);
  return total;
}

}  // namespace ablate::experiments
