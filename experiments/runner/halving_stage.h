#pragma once
// A two-stage [tune]'s tuning stage under [tune.halving] (config/halving_schedule.h),
// rung by rung: the settings still running train to the rung's step and pause there
// (Trial::pause_at_step: their resume state saved), the rung is decided
// (analysis/successive_halving.h) and the trials of the settings it stops are finished
// there as "pruned"; the rest continue from their resume states to the next rung, and
// after the last to the end. The decisions are replayed from the trials' curves, never
// stored, so a run killed anywhere and run again reaches the same ones; a rung is
// decided only once every trial of every setting still running has reached it (a
// shard whose part is done while another's is not stops there, and continues when run
// again).
#include <string>

#include "experiments/runner/adaptive_sweep.h"
#include "experiments/runner/sweep_runner.h"

namespace ablate::experiments {

// Runs `e`'s tuning trials (e.halving set) with `run_round`; the summary counts each
// trial once, its last outcome (ok, diverged, failed or pruned).
RunSummary run_halving_stage(const Experiment& e, const RunOptions& options,
                             const RoundRunner& run_round);

}  // namespace ablate::experiments
