#pragma once
// Trains and evaluates one trial, and writes its record into `dir`:
//   config.toml      the resolved configuration (what the id hashes)
//   metrics.jsonl    one JSON object per evaluation
//   summary.json     status (ok | diverged | failed), params, steps, final and best
//                    validation metrics, the test metrics of the selected model with
//                    their standard errors, wall time, speed, peak RSS, seeds, code
//                    version, and the provenance of this process (records/provenance.h)
//   checkpoint.safetensors   (train.checkpoint = true) the selected model
//   attention.json   the selected model's attention weights on the first validation
//                    example, per module and head (sequence tasks), for heatmaps
// The selected model is the one at the evaluation with the lowest validation loss;
// the test split is evaluated once, with it, after training.
//   resume.safetensors  while unfinished: the state it continues from (resume_state.h)
// Single-threaded and deterministic: the same config gives bit-identical metrics
// whatever else runs beside it. summary.json is written last, so its presence marks
// a finished trial.
#include <atomic>
#include <functional>
#include <string>

#include "experiments/config/experiment.h"
#include "experiments/records/code_version.h"
#include "experiments/records/trial_outcome.h"

namespace ablate::experiments {

// Progress callback: (step, train loss) every few steps, from the trial's thread.
using TrialProgress = std::function<void(std::int64_t step, double loss)>;
// Called from the trial's thread after each save of its resume state, with the file's
// path (an MPI rank sends it on to rank 0).
using StateSaved = std::function<void(const std::string& path)>;

// Continues from dir/resume.safetensors when it holds a state of this trial.
TrialOutcome run_trial(const Trial& trial, const std::string& base_dir, const std::string& dir,
                       const TrialProgress& progress = {}, const StateSaved& state_saved = {});

}  // namespace ablate::experiments
