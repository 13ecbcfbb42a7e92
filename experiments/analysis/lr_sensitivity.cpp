#include "experiments/analysis/lr_sensitivity.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "experiments/config/report_spec.h"

namespace ablate::experiments {

namespace {

// ℓ(η) capped at ℓ0 for one trial; none when it cannot be read (missing, failed, no
// init_loss, no final validation loss).
std::optional<double> capped_final_loss(const nlohmann::json& summary) {
  if (summary.is_null() || !summary.contains("init_loss") || !summary["init_loss"].is_number())
    return std::nullopt;
  const double initial = summary["init_loss"].get<double>();
  const std::string status = summary.value("status", "");
  if (status == "diverged") return initial;
  if (status != "ok") return std::nullopt;
  const nlohmann::json final = summary.value("final", nlohmann::json::object());
  if (!final.contains("val_loss") || !final["val_loss"].is_number()) return std::nullopt;
  const double loss = final["val_loss"].get<double>();
  return std::isfinite(loss) ? std::min(loss, initial) : initial;
}

}  // namespace

void add_lr_sensitivity(const RunRows& run, const std::string& key, RunPoints& points) {
  if (key.empty()) return;
  // point values → seed → the key's setting → min(ℓ, ℓ0)
  std::map<std::map<std::string, std::string>,
           std::map<std::uint64_t, std::map<std::string, double>>>
      losses;
  std::map<std::map<std::string, std::string>, std::set<std::string>> settings;
  std::map<std::map<std::string, std::string>, std::set<std::uint64_t>> incomplete;
  for (const TrialRow& r : run.rows) {
    const auto value = r.tune.find(key);
    if (value == r.tune.end()) continue;
    settings[r.point].insert(value->second);
    if (std::optional<double> l = capped_final_loss(r.summary))
      losses[r.point][r.seed][value->second] = *l;
    else
      incomplete[r.point].insert(r.seed);
  }
  for (PointResults& p : points.points)
    for (const auto& [seed, by_setting] : losses[p.values]) {
      if (incomplete[p.values].count(seed) || by_setting.size() != settings[p.values].size())
        continue;
      double best = INFINITY, sum = 0;
      for (const auto& [setting, l] : by_setting) best = std::min(best, l);
      for (const auto& [setting, l] : by_setting) sum += l - best;
      p.test[seed][kLrSensitivity] = sum / double(by_setting.size());
    }
  if (std::find(points.test_metrics.begin(), points.test_metrics.end(), kLrSensitivity) ==
      points.test_metrics.end())
    points.test_metrics.push_back(kLrSensitivity);
}

}  // namespace ablate::experiments
