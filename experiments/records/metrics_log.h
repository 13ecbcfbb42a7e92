#pragma once
// metrics.jsonl, a trial's evaluations during training (TrialDir::metrics()): one JSON
// object a line, written by the runner after each evaluation and read by the reports
// (curves, tuning rungs, the study's telemetry) and the run record. Its one writer and
// its one reader.
//
// A line: {"step": int, "train_loss", "val_loss", "lr", "grad_norm", "seconds", each
// metric of the validation split: number (null when not finite), "grad_norms":
// {group: number}, "attention": {module: {"entropy": [..], "max_prob": [..]}},
// "norm_drift": {module: {"mean", "var"}}} — the last three with their telemetry on.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "experiments/records/evaluation.h"

namespace ablate::experiments {

// The line `e` is written as, with its newline.
std::string metrics_line(const Evaluation& e);

// One line as read back.
struct MetricsLine {
  std::int64_t step = 0;
  // The line's finite numbers by key, step excluded: val_loss, train_loss, lr,
  // grad_norm, seconds and every metric.
  std::map<std::string, double> values;
  // Per attention module, per head (with train.attention_telemetry).
  std::vector<Evaluation::AttentionStats> attention;

  std::optional<double> value(const std::string& key) const;
};

struct MetricsLog {
  std::vector<MetricsLine> lines;  // in the file's order
  int unreadable = 0;              // lines skipped: not a JSON object with an integer step
};

// A metrics.jsonl's text. A line that cannot be read costs its own values, not the
// whole log: it is counted in `unreadable` (a log from elsewhere may hold anything).
// Values that are not finite numbers are left out of `values`; an attention entry of
// the wrong shape is left out of `attention`. At most kMaxMetricsLines lines are read.
MetricsLog parse_metrics_log(std::string_view text);

// The file at `path` (empty when there is none).
MetricsLog read_metrics_log(const std::string& path);

// More evaluations than any trial makes (one per eval_every steps).
constexpr std::size_t kMaxMetricsLines = 1'000'000;

}  // namespace ablate::experiments
