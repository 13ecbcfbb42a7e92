#include "experiments/analysis/curve_metrics.h"
#include "experiments/records/metrics_log.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ablate::experiments {

Curve read_curve(const std::string& metrics_jsonl, const std::string& key) {
  Curve curve;
  for (const MetricsLine& m : parse_metrics_log(metrics_jsonl).lines)
    if (const std::optional<double> v = m.value(key)) curve.emplace_back(m.step, *v);
  return curve;
}

double curve_auc(const Curve& curve, std::int64_t train_steps) {
  if (curve.empty()) return NAN;
  const double first = double(curve.front().first);
  const double last = std::max(double(train_steps), double(curve.back().first));
  if (last <= first) return curve.back().second;
  double area = 0;
  for (std::size_t i = 1; i < curve.size(); ++i)
    area +=
        (double(curve[i].first - curve[i - 1].first)) * (curve[i].second + curve[i - 1].second) / 2;
  area += (last - double(curve.back().first)) * curve.back().second;  // held after an early stop
  return area / (last - first);
}

StepsToThreshold steps_to_threshold(const Curve& curve, double threshold, bool higher_is_better,
                                    std::int64_t train_steps) {
  for (const auto& [step, v] : curve)
    if (higher_is_better ? v >= threshold : v <= threshold) return {double(step), true};
  return {double(train_steps), false};
}

}  // namespace ablate::experiments
