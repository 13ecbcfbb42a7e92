#pragma once
// [report]: how a run's reports compare its sweep points (experiments/reports/
// comparisons.h). Not part of any trial's identity: it changes what is computed from
// the results, never the results.
//
//   [report]
//   baseline = { "model.attention.qk" = "separate" }  # default: every axis's first value
//   equivalence_margin = 0.01   # |difference| below which two points count as equivalent
//   metric = "sequence_accuracy"  # the primary test metric (default: the task's)
//   threshold = 0.9             # validation value of it whose first reach is counted
//                               # in steps (analysis/curve_metrics.h)
//   grad_norms_at_init = true   # summary.md's table of the gradient norms at
//                               # initialisation (reports/telemetry_report.h); long
//   lr_sensitivity = "train.lr" # the metric lr_sensitivity over this [tune] key's
//                               # settings (analysis/lr_sensitivity.h)
//   [[report.claims]]           # a published finding and its computed verdict
//                               # (config/claims_spec.h)
//
// Each point is compared with its baseline: the point with the values `baseline`
// names and the point's own values for every other swept key. Naming one key of a
// [sweep.zip] group moves the whole group to that entry.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "experiments/config/claims_spec.h"
#include "experiments/config/config_error.h"
#include "experiments/config/toml_reader.h"

namespace ablate::experiments {

struct ReportSpec {
  // Swept key → the value a point is compared against (as point labels show it),
  // zip groups completed. Keys not listed keep each point's own value.
  std::vector<std::pair<std::string, std::string>> baseline;
  std::optional<double> equivalence_margin;
  std::string metric;  // "" = the task family's primary metric
  std::optional<double> threshold;
  bool grad_norms_at_init = false;
  // A [tune] key (e.g. "train.lr") whose settings every seed runs: adds the test
  // metric lr_sensitivity per point and seed (analysis/lr_sensitivity.h), which claims
  // may name. "" = none.
  std::string lr_sensitivity;
  std::vector<ClaimSpec> claims;
};

// The derived metric `[report] lr_sensitivity` adds (analysis/lr_sensitivity.h).
inline constexpr const char* kLrSensitivity = "lr_sensitivity";

// The test metrics of a task kind ("copy", "g2p", "forecast", ...), the primary one
// first: g2p per, wer, ...; text_pairs sequence_accuracy, cer, wer, bleu, chrf, ...;
// forecasting mse, mae, loss; the other sequence tasks sequence_accuracy,
// token_accuracy, loss.
const std::vector<std::string>& test_metrics(const std::string& task_kind);
// The metric comparisons lead with: [report] metric, else the task's first test metric.
std::string primary_metric(const std::string& report_metric, const std::string& task_kind);
// Accuracies, BLEU and chrF are better higher; losses, error rates and steps_to_* lower.
bool higher_is_better(const std::string& metric);
// The values a metric can take — accuracies [0, 1], BLEU and chrF [0, 100], sMAPE
// [0, 200], perplexity [1, ∞), every other loss, error rate and steps_to_* [0, ∞); a
// per-length, per-context or auc_ variant its base metric's; of metrics.jsonl's curves,
// train_loss, val_loss, lr and grad_norm [0, ∞) — so that intervals of a mean (the
// tables', the plots', report.html's curve bands) are clipped to it instead of leaving it.
struct MetricRange {
  double low = 0, high = 0;
};
MetricRange metric_range(const std::string& metric);
// The curve metrics of a run whose primary metric is `primary` (analysis/curve_metrics.h):
// auc_<primary>, and steps_to_<primary>_<T> with a threshold T (six significant digits).
std::vector<std::string> curve_metric_names(const std::string& primary,
                                            std::optional<double> threshold);
// "validation" for the curve metrics (auc_*, steps_to_*), else "test".
std::string metric_split(const std::string& metric);
}  // namespace ablate::experiments
