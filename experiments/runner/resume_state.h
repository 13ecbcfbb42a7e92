#pragma once
// A trial's resumable state, saved at a step boundary when the run is asked to stop
// (SIGINT, SIGTERM) and every train.resume_every steps, so that a stopped or killed
// trial continues where it was instead of starting again:
//   <trial>/resume.safetensors
//     tensors:  the model's parameters and buffers, the optimizer's slots and step,
//               and the copy of the model validation selected ("extra.selected.*")
//     metadata: the resolved config and code version it belongs to, and "progress":
//               the loop's counters and sums, the evaluations so far (metrics.jsonl
//               as written), the batch generator and the model's random streams, the
//               attention telemetry accumulated since the last evaluation, the
//               BatchNorm drift sums (norm_telemetry.h), the initial gradient norms
// Every double is stored by its bit pattern, so a resumed trial computes exactly what
// an uninterrupted one would: its metrics.jsonl, summary.json and checkpoint are
// bit-identical, timings and resumed_from_step aside.
#include <cstdint>
#include <optional>
#include <string>

#include "experiments/config/experiment.h"
#include "experiments/records/evaluation.h"
#include "experiments/records/trial_outcome.h"
#include "nn/module.h"
#include "nn/optim/optimizer.h"

namespace ablate::experiments {

// What the training loop carries from one step to the next besides the model, the
// optimizer and the generators.
struct TrainingProgress {
  std::int64_t step = 0;  // steps completed
  double loss_sum = 0;    // training loss since the last evaluation
  std::int64_t loss_count = 0;
  double best_val = 0;  // best validation loss so far (+inf before the first)
  std::int64_t evals_without_gain = 0;
  Evaluation final, best;
  // The parameters and buffers at the best validation loss so far (nn::copy_state):
  // what the test set evaluates and the checkpoint holds.
  std::vector<std::pair<std::string, Tensor>> selected;
  std::string metrics_log;  // metrics.jsonl as written so far
  InitialGradients init_gradients;
  double seconds = 0;  // training time before this state was saved
};

// Writes the state atomically (an earlier state stays until the new one is complete).
void save_resume_state(const std::string& path, const Trial& trial, nn::Module& model,
                       const nn::Optimizer& optimizer, const Generator& batches,
                       const TrainingProgress& progress);

// Restores a state saved for this trial by this build into model, optimizer and
// batches. Returns nothing when there is no file; also nothing, with the reason in
// *ignored, when the file is unreadable or belongs to another config or code version
// (the trial then starts from step 0). Nothing is changed unless it returns a value.
std::optional<TrainingProgress> load_resume_state(const std::string& path, const Trial& trial,
                                                  nn::Module& model, nn::Optimizer& optimizer,
                                                  Generator& batches, std::string* ignored);

}  // namespace ablate::experiments
