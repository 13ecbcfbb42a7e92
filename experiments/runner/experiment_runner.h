#pragma once
// Runs an experiment: its sweep as planned (sweep_runner.h), a two-stage [tune]
// (tuned_sweep.h) or an adaptive design (adaptive_sweep.h), then writes the reports.
#include "experiments/config/experiment.h"
#include "experiments/runner/sweep_runner.h"

namespace ablate::experiments {

RunSummary run_experiment(const Experiment& experiment, const RunOptions& options);

}  // namespace ablate::experiments
