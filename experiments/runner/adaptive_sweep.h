#pragma once
// An adaptive sweep ([sweep.adaptive], config/adaptive_design.h) run round by round:
// the first block of seeds, then the rounds its results call for
// (analysis/adaptive_schedule.h), until no point needs more seeds. Each round is an
// ordinary sweep of the trials so far (finished ones skipped), so everything a sweep
// guarantees holds in each: resume after kill -9 (the rounds are replayed from the
// results, so a resumed run reaches the same round with the same trials), --jobs,
// shards and MPI ranks, bit-identical trials.
//
// Shards of an adaptive sweep meet at the end of every round: a shard whose slice is
// done waits while another shard that holds its lock has trials of the round left, and
// goes on with the next round once they finish. When the round needs trials no running
// shard will run (a shard not started yet, or one on another machine whose results
// are still to be merged), it stops and says so; running it again, after the merge,
// continues where the results leave off.
#include <functional>
#include <string>
#include <vector>

#include "experiments/analysis/adaptive_schedule.h"
#include "experiments/runner/sweep_runner.h"

namespace ablate::experiments {

// Runs one round's plan: locally on threads (run_planned), or over MPI ranks.
using RoundRunner =
    std::function<void(const Experiment&, SweepPlan&, const RunOptions&, const std::string&)>;

// Runs `e` (which has an adaptive design) round by round with `run_round`, then writes
// the reports. The summary counts the trials of every round this call ran.
RunSummary run_adaptive(const Experiment& e, const RunOptions& options,
                        const RoundRunner& run_round = run_planned);

// The trials of the schedule's current round: every point of `e` (first-block trials
// in `e.trials`) with the seeds the schedule gives it, in e's point order, seeds
// innermost.
std::vector<Trial> scheduled_trials(const Experiment& e, const RunPoints& run,
                                    const AdaptiveSchedule& schedule);

// Every trial `e`'s design can run: each point at every seed up to its adaptive budget
// (and with tune.seeds, the tuning stage, then every setting at those seeds) —
// `ablate check --budget`; the reproduce tier checks committed trials against them.
std::vector<Trial> budget_trials(const Experiment& e);

// The schedule of the run directory's results for `e` (round 0 when it has none), and
// the trials of its current round: what --dry-run shows.
struct CurrentRound {
  AdaptiveSchedule schedule;
  std::vector<Trial> trials;
};
CurrentRound current_round(const Experiment& e, const std::string& run_dir);

}  // namespace ablate::experiments
