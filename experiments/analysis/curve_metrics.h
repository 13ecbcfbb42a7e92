#pragma once
// Secondary metrics of a trial's validation curve (metrics.jsonl), so that sample
// efficiency is not confused with final quality:
//   auc_<metric>            the mean of the validation metric over training: the area
//                           under its curve (linear between evaluations, held at the
//                           last value after an early stop) from the first evaluation
//                           to the configured last step, divided by that span;
//   steps_to_<metric>_<T>   the first evaluation step at which it reaches T
//                           ([report] threshold; ≥ T for accuracies, ≤ T otherwise). A
//                           trial that never reaches it counts as its training length
//                           (a lower bound: censored), and the report says how many.
// Computed by reports from what is on disk, so a [report] threshold changes no trial.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ablate::experiments {

// (step, value) pairs of one validation metric, in step order.
using Curve = std::vector<std::pair<std::int64_t, double>>;

// The curve of `key` ("val_loss", "sequence_accuracy", ...) in a metrics.jsonl text;
// evaluations without a finite value are skipped.
Curve read_curve(const std::string& metrics_jsonl, const std::string& key);

// NaN for an empty curve.
double curve_auc(const Curve& curve, std::int64_t train_steps);

struct StepsToThreshold {
  double steps = 0;
  bool reached = false;
};
StepsToThreshold steps_to_threshold(const Curve& curve, double threshold, bool higher_is_better,
                                    std::int64_t train_steps);

}  // namespace ablate::experiments
