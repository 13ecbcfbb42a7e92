#pragma once
// Trains and evaluates one trial, and writes its record into `dir`:
//   config.toml      the resolved configuration (what the id hashes)
//   metrics.jsonl    one JSON object per evaluation
//   summary.json     status (ok | diverged | failed), params, steps, final and best
//                    validation metrics, the test metrics of the selected model with
//                    their standard errors, wall time, speed, peak RSS, seeds, code
//                    version
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
#include <map>
#include <string>

#include "nn/attention/multi_head_attention.h"
#include "experiments/config/experiment.h"

namespace ablate::experiments {

struct Evaluation {
  std::int64_t step = 0;
  double train_loss = 0;   // mean over the steps since the previous evaluation
  double loss = 0;         // on the split evaluated: validation during training, test at the end
  double lr = 0;
  double grad_norm = 0;    // global norm at the last step before the evaluation
  // token_accuracy, sequence_accuracy | mse, mae, mae_h1.., mase, smape, mae_<series>..,
  // and on test baseline_<name>_<metric>
  std::map<std::string, double> metrics;
  // The evaluation noise of "loss" and each overall metric: its standard error over
  // the split's examples (evaluation.h).
  std::map<std::string, double> standard_errors;
  double seconds = 0;      // since the trial started
  // Gradient norm per module group (dotted-name prefix of depth 3, e.g.
  // "encoder.layers.0") at the last step before the evaluation.
  std::vector<std::pair<std::string, double>> grad_norms;
  // With train.attention_telemetry: per attention module, per head, the mean entropy
  // (nats) and mean max probability of its attention rows since the last evaluation.
  struct AttentionStats {
    std::string module;
    std::vector<double> entropy, max_prob;
  };
  std::vector<AttentionStats> attention;
  // With train.norm_telemetry: per BatchNorm module, the mean distance of its batch
  // statistics from its running statistics over the training batches since the last
  // evaluation (nn/norms/batch_statistics_drift.h).
  struct NormDrift {
    std::string module;
    double mean = 0, var = 0;
  };
  std::vector<NormDrift> norm_drift;
};

// The gradient of the first training batch at the initial weights, before clipping
// and before any update: Xiong et al. 2020 explain post-LN's need of warm-up by its
// large gradients near the output at initialisation.
struct InitialGradients {
  bool recorded = false;  // false until step 1 has a gradient (or when its loss diverged)
  double global = 0;
  std::vector<std::pair<std::string, double>> groups;  // nn::grad_norms_by_module(model, 3)
};

struct TrialOutcome {
  std::string status;  // ok | diverged | failed
  std::string error;   // for failed (and the reason for diverged)
  std::int64_t steps = 0;
  std::int64_t resumed_from_step = 0;  // steps restored from a saved state (0 = ran through)
  std::int64_t diverged_at = 0;
  bool stopped_early = false;
  Evaluation final, best;  // validation: the last evaluation, the lowest loss
  Evaluation test;         // the test split with the model of `best` (when tested)
  bool tested = false;
  InitialGradients init_gradients;
  // With train.norm_telemetry: per BatchNorm module, its drift over every training batch.
  std::vector<Evaluation::NormDrift> norm_drift_training;
  std::int64_t params = 0;
  double wall_seconds = 0, steps_per_second = 0, peak_rss_mib = 0;
  // Which attention path training and validation took, summed over the model's
  // attention modules; the first reason one was not fused names its module.
  nn::AttentionPathRecord attention_path;
};

// Progress callback: (step, train loss) every few steps, from the trial's thread.
using TrialProgress = std::function<void(std::int64_t step, double loss)>;
// Called from the trial's thread after each save of its resume state, with the file's
// path (an MPI rank sends it on to rank 0).
using StateSaved = std::function<void(const std::string& path)>;

// Continues from dir/resume.safetensors when it holds a state of this trial.
TrialOutcome run_trial(const Trial& trial, const std::string& base_dir, const std::string& dir,
                       const TrialProgress& progress = {}, const StateSaved& state_saved = {});

// The version string compiled into the binary (git describe at configure time).
const char* code_version();

}  // namespace ablate::experiments
