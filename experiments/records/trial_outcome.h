#pragma once
// What one trial ended with (summary.json's content): plain data, filled by the trial
// runner, written and read by the run's records.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "experiments/records/evaluation.h"
#include "nn/attention/attention_path_record.h"

namespace ablate::experiments {

// The gradient of the first training batch at the initial weights, before clipping
// and before any update: Xiong et al. 2020 explain post-LN's need of warm-up by its
// large gradients near the output at initialisation.
struct InitialGradients {
  bool recorded = false;  // false until step 1 has a gradient (or when its loss diverged)
  double global = 0;
  std::vector<std::pair<std::string, double>> groups;  // nn::grad_norms_by_module(model, 3)
  // The first batch's training loss at the initial weights (the loss those gradients
  // are of): the "loss at initialization" of an LR sensitivity (analysis/lr_sensitivity.h).
  std::optional<double> loss;
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

}  // namespace ablate::experiments
