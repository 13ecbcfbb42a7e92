#pragma once
// A two-stage [tune] (tune.seeds, Experiment::tune_seeds) run stage by stage. The
// tuning stage runs every setting of every sweep point on the tuning seeds; once each
// of its trials has a result, each point's setting is chosen by mean validation loss
// (analysis/point_tuning.h) and the sweep's seeds run that setting only — a fixed design,
// or the adaptive rounds (adaptive_sweep.h). The choice is replayed from the tuning
// trials' results, never stored, so a resumed, forced, sharded or MPI run reaches the
// same second stage; the test split plays no part in it.
//
// Shards: the second stage starts only when the whole tuning stage has its results. A
// shard whose slice of the tuning stage is done while others' is not stops and says so;
// running it again once they have finished continues with the second stage.
#include <optional>
#include <string>

#include "experiments/runner/adaptive_sweep.h"
#include "experiments/runner/sweep_runner.h"

namespace ablate::experiments {

// The second stage of `e` (whose `trials` are the tuning stage's): each point's trial
// at its chosen setting, at every seed of sweep.seeds (the first block, with an
// adaptive design), with the tuning trials in `chosen_from`. None while a tuning trial
// of `run_dir` has no result (ok or diverged).
std::optional<Experiment> second_stage(const Experiment& e, const std::string& run_dir);

// How many tuning trials of `e` in `run_dir` have no result yet.
int tuning_trials_waiting(const Experiment& e, const std::string& run_dir);

// Runs `e` (with tune.seeds) stage by stage with `run_round`, then writes the reports.
// The summary counts the trials of both stages.
RunSummary run_tuned(const Experiment& e, const RunOptions& options,
                     const RoundRunner& run_round = run_planned);

}  // namespace ablate::experiments
