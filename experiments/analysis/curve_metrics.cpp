#include "experiments/analysis/curve_metrics.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ablate::experiments {

Curve read_curve(const std::string& metrics_jsonl, const std::string& key) {
  Curve curve;
  std::istringstream in(metrics_jsonl);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const nlohmann::json e = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (e.is_discarded() || !e.contains(key) || !e[key].is_number() || !e.contains("step"))
      continue;
    const double v = e[key].get<double>();
    if (std::isfinite(v)) curve.emplace_back(e["step"].get<std::int64_t>(), v);
  }
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
