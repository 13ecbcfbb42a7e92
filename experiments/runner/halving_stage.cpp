#include "experiments/runner/halving_stage.h"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "experiments/analysis/point_tuning.h"
#include "experiments/io/json_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/run_rows.h"
#include "experiments/reports/trial_index.h"
#include "experiments/runner/trial_runner.h"

namespace ablate::experiments {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Point = std::map<std::string, std::string>;

// One sweep point's tuning trials, by setting in trial order.
struct PointTrials {
  std::vector<std::string> labels;
  std::vector<std::vector<const Trial*>> trials;  // trials[setting]
};

std::map<Point, PointTrials> tuning_trials_by_point(const Experiment& e) {
  std::map<Point, PointTrials> out;
  for (const Trial& t : e.trials) {
    PointTrials& p = out[Point(t.point.begin(), t.point.end())];
    auto at = std::find(p.labels.begin(), p.labels.end(), t.tune_label());
    if (at == p.labels.end()) {
      p.labels.push_back(t.tune_label());
      p.trials.emplace_back();
      at = p.labels.end() - 1;
    }
    p.trials[std::size_t(at - p.labels.begin())].push_back(&t);
  }
  return out;
}

// Per trial id, the rung step its setting was stopped at by the first `rungs` rungs (0:
// still running); nothing when one of those rungs cannot be decided yet.
std::optional<std::map<std::string, std::int64_t>> stops_after(const Experiment& e,
                                                               const std::string& run_dir,
                                                               std::size_t rungs) {
  const RunRows run = read_run(run_dir, trial_index_json(e));
  std::map<std::string, std::int64_t> out;
  for (const auto& [point, p] : tuning_trials_by_point(e)) {
    const TrainSpec& train = p.trials.front().front()->config.train;
    std::vector<std::int64_t> steps = rung_steps(*e.halving, train.steps, train.eval_every);
    steps.resize(rungs);
    const HalvingDecision d =
        decide_halving(point_tuning_curves(run, point, p.labels), steps, e.halving->keep);
    if (d.rungs_decided < rungs) return std::nullopt;
    for (std::size_t s = 0; s < p.labels.size(); ++s)
      for (const Trial* t : p.trials[s]) out[t->id] = d.stopped_at[s];
  }
  return out;
}

// The trials of the settings still running, paused at rung `rung` (none past the last).
Experiment rung_stage(const Experiment& e, const std::map<std::string, std::int64_t>& stops,
                      std::size_t rung) {
  Experiment stage = e;
  stage.trials.clear();
  for (const Trial& t : e.trials) {
    if (stops.at(t.id) > 0) continue;
    Trial running = t;
    if (rung < e.halving->rungs.size())
      running.pause_at_step =
          rung_step(e.halving->rungs[rung], t.config.train.steps, t.config.train.eval_every);
    stage.trials.push_back(std::move(running));
  }
  return stage;
}

// A trial halving stopped at rung `rung` or before whose setting the schedule now keeps
// (changed after the data: pre-registration shows it) is not finished: it continues
// from the state it kept.
void unprune(const Experiment& e, const std::string& run_dir,
             const std::map<std::string, std::int64_t>& stops, std::size_t rung) {
  const RunDir run(run_dir);
  for (const Trial& t : e.trials) {
    const TrialDir dir = run.trial(t.id);
    if (stops.at(t.id) > 0 || !trial_finished(dir.path())) continue;
    const json summary = read_json_file(dir.summary());
    const std::int64_t decided =
        rung_step(e.halving->rungs[rung], t.config.train.steps, t.config.train.eval_every);
    if (summary.value("status", "") == "pruned" && summary.value("steps", 0) <= decided)
      fs::remove(dir.summary());
  }
}

// Finishes the unfinished trials of the settings the rung stopped, at its step.
void prune(const Experiment& e, const std::string& run_dir,
           const std::map<std::string, std::int64_t>& stops, RunSummary& summary) {
  const RunDir run(run_dir);
  for (const Trial& t : e.trials) {
    const std::string dir = run.trial(t.id).path();
    if (stops.at(t.id) == 0 || trial_finished(dir)) continue;
    Trial stopped = t;
    stopped.pause_at_step = stops.at(t.id);
    stopped.prune_at_pause = true;
    const TrialOutcome o = run_trial(stopped, e.base_dir, dir);
    count_outcome(summary, o.status, 0);
  }
}

}  // namespace

RunSummary run_halving_stage(const Experiment& e, const RunOptions& options,
                             const RoundRunner& run_round) {
  RunSummary total;
  total.run_dir = run_dir_of(e, options);
  total.total = int(e.trials.size());
  std::map<std::string, std::int64_t> stops;
  for (const Trial& t : e.trials) stops[t.id] = 0;
  const std::size_t rungs = e.halving->rungs.size();
  // --force starts the trials again at the first rung only: later rungs continue them.
  RunOptions continuing = options;
  continuing.force = false;
  for (std::size_t rung = 0; rung <= rungs; ++rung) {
    Experiment stage = rung_stage(e, stops, rung);
    SweepPlan plan = plan_sweep(stage, rung == 0 ? options : continuing);
    if (rung == 0) {
      total.skipped = plan.summary.skipped;
      total.not_in_experiment = plan.summary.not_in_experiment;
    }
    if (!plan.pending.empty())
      run_round(stage, plan, rung == 0 ? options : continuing,
                rung < rungs ? "tuning stage, rung " + std::to_string(rung + 1) + " of " +
                                   std::to_string(rungs)
                             : "tuning stage, the settings kept");
    add_outcome_counts(total, plan.summary);
    total.stopped_by = plan.summary.stopped_by;
    if (total.stopped_by || rung == rungs) break;
    const auto decided = stops_after(e, total.run_dir, rung + 1);
    if (!decided) break;  // a trial has not reached the rung (another shard's, or failed)
    stops = *decided;
    unprune(e, total.run_dir, stops, rung);
    prune(e, total.run_dir, stops, total);
  }
  return total;
}

}  // namespace ablate::experiments
