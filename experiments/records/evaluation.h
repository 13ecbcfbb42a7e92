#pragma once
// One evaluation of a trial (a line of metrics.jsonl): plain data, filled by the
// runner's evaluations and the tasks' metrics, read by the reports.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ablate::experiments {

struct Evaluation {
  std::int64_t step = 0;
  double train_loss = 0;  // mean over the steps since the previous evaluation
  double loss = 0;        // on the split evaluated: validation during training, test at the end
  double lr = 0;
  double grad_norm = 0;  // global norm at the last step before the evaluation
  // token_accuracy, sequence_accuracy | mse, mae, mae_h1.., mase, smape, mae_<series>..,
  // and on test baseline_<name>_<metric>
  std::map<std::string, double> metrics;
  // The evaluation noise of "loss" and each overall metric: its standard error over
  // the split's examples (evaluation.h).
  std::map<std::string, double> standard_errors;
  double seconds = 0;  // since the trial started
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

}  // namespace ablate::experiments
