#include "experiments/runner/adaptive_sweep.h"

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "experiments/analysis/design_verdicts.h"
#include "experiments/config/trial_grid.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/report.h"
#include "experiments/reports/run_points.h"
#include "experiments/reports/run_rows.h"
#include "experiments/reports/trial_index.h"
#include "experiments/runner/run_lock.h"
#include "experiments/runner/stop_signal.h"

namespace ablate::experiments {

namespace fs = std::filesystem;

namespace {

// Every point of `e` (first-block trials in `e.trials`) at the first `seeds_of(point
// id)` seeds of `sequence`, in e's point order, seeds innermost.
std::vector<Trial> trials_at_seeds(const Experiment& e, const std::vector<std::uint64_t>& sequence,
                                   const std::function<int(const std::string&)>& seeds_of) {
  std::vector<Trial> out;
  std::set<std::string> done;  // points already expanded (e.trials has one per first seed)
  for (const Trial& t : e.trials) {
    if (!done.insert(t.point_id).second) continue;
    const int seeds = seeds_of(t.point_id);
    for (int k = 0; k < seeds; ++k) out.push_back(reseeded(t, sequence[std::size_t(k)]));
  }
  return out;
}

}  // namespace

std::vector<Trial> scheduled_trials(const Experiment& e, const RunPoints& run,
                                    const AdaptiveSchedule& s) {
  std::map<std::string, int> seeds_of;  // point id → seeds
  for (std::size_t p = 0; p < run.points.size(); ++p) seeds_of[run.points[p].point_id] = s.seeds[p];
  return trials_at_seeds(e, s.seed_sequence, [&](const std::string& point) {
    auto n = seeds_of.find(point);
    return n == seeds_of.end() ? int(e.seeds.size()) : n->second;
  });
}

std::vector<Trial> budget_trials(const Experiment& e) {
  const int seeds = e.adaptive ? int(e.adaptive->max_seeds) : int(e.seeds.size());
  const std::vector<std::uint64_t> sequence =
      e.adaptive ? adaptive_seed_sequence(e.seeds, seeds) : e.seeds;
  std::vector<Trial> out = trials_at_seeds(e, sequence, [&](const std::string&) { return seeds; });
  // A two-stage [tune] (tuned_sweep.h): its tuning stage, and then any point's setting
  // may be the chosen one (each setting is a point id of its own, so all are above).
  if (!e.tune_seeds.empty()) out.insert(out.begin(), e.trials.begin(), e.trials.end());
  return out;
}

CurrentRound current_round(const Experiment& e, const std::string& run_dir) {
  CurrentRound r;
  Experiment so_far = e;  // the trials indexed so far: the first block, then each round's
  for (;;) {
    const RunPoints run = points_of(read_run(run_dir, trial_index_json(so_far)), run_name(run_dir));
    r.schedule = replay_schedule(run);
    r.trials = scheduled_trials(e, run, r.schedule);
    // The allocation grows only once every trial indexed so far has its result, so the
    // loop ends at the first round with trials to run (or when no point needs more).
    if (r.trials.size() == so_far.trials.size()) return r;
    so_far.trials = r.trials;
  }
}

namespace {

// Whether another shard of the sweep is running: it holds its shard lock.
bool other_shard_running(const RunDir& run, const RunOptions& o) {
  for (int k = 1; k <= o.shards; ++k) {
    if (k == o.shard) continue;
    try {
      RunLock probe(run.path(), run.shard_lock(k, o.shards), false);
    } catch (const std::runtime_error&) {
      return true;
    }
  }
  return false;
}

// A shard whose slice of the round is done: waits while other shards run and the
// round still lacks results. The round as it stands then.
CurrentRound wait_for_shards(const Experiment& e, const RunOptions& o, const RunDir& run,
                             CurrentRound round) {
  while (!round.schedule.complete && !stop_signal() && other_shard_running(run, o)) {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    CurrentRound now = current_round(e, run.path());
    if (now.trials.size() != round.trials.size() || now.schedule.complete) return now;
    round = std::move(now);
  }
  return round;
}

// "round 2, 3 points given seeds" (open points and their baselines): what the progress
// line shows before its counts.
std::string round_label(const AdaptiveSchedule& s) {
  int open = 0;
  for (int last : s.last_round) open += last == s.round;
  return "round " + std::to_string(s.round) +
         (s.round > 0 ? ", " + std::to_string(open) + " points given seeds" : "");
}

}  // namespace

RunSummary run_adaptive(const Experiment& e, const RunOptions& options,
                        const RoundRunner& run_round) {
  RunSummary total;
  total.run_dir = run_dir_of(e, options);
  std::vector<std::unique_ptr<RunLock>> held;  // the first round's locks, for every round
  std::set<std::string> ran;                   // --force reruns a trial once, not every round
  // The round to run: replayed once here, then carried over from each round's end.
  CurrentRound round = current_round(e, total.run_dir);
  for (;;) {
    Experiment current = e;
    current.trials = round.trials;
    SweepPlan plan = plan_sweep(current, options, held.empty());
    if (held.empty()) held = std::move(plan.locks);
    std::erase_if(plan.pending, [&](const Trial* t) { return ran.count(t->id) > 0; });
    for (const Trial* t : plan.pending) ran.insert(t->id);
    const bool nothing_to_run = plan.pending.empty();
    if (!nothing_to_run) run_round(current, plan, options, round_label(round.schedule));
    add_outcome_counts(total, plan.summary);
    // A shard's slice is dealt anew each round: it counts what it covers now and
    // every trial it ran on the way.
    std::set<std::string> covered(ran);
    for (const Trial* t : plan.slice) covered.insert(t->id);
    total.total = int(covered.size());
    total.not_in_experiment = plan.summary.not_in_experiment;
    total.stopped_by = plan.summary.stopped_by;
    if (total.stopped_by) break;
    CurrentRound after = current_round(e, total.run_dir);
    // A shard with nothing of the round left to run waits for the others' results —
    // unless they arrived already and the next round has trials for it.
    if (nothing_to_run && options.shards > 0 && after.trials.size() == round.trials.size())
      after = wait_for_shards(e, options, RunDir(total.run_dir), std::move(after));
    total.rounds = after.schedule.round;
    total.adaptive_note = schedule_status(after.schedule);
    if (after.schedule.complete) break;
    // The round has trials without a result that this process ran already (they
    // failed) or leaves to another shard: stop rather than spin.
    if (nothing_to_run && after.trials.size() == round.trials.size()) break;
    round = std::move(after);
  }
  total.skipped = total.total - int(ran.size());
  write_reports(total.run_dir);
  return total;
}

}  // namespace ablate::experiments
