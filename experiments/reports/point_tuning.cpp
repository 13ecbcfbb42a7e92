#include "experiments/reports/point_tuning.h"

#include <algorithm>
#include <cmath>

namespace ablate::experiments {

using json = nlohmann::json;

std::map<std::map<std::string, std::string>, Tuning> tune_points(const RunRows& run) {
  std::map<std::map<std::string, std::string>, std::map<std::string, std::vector<double>>> losses;
  std::map<std::map<std::string, std::string>, std::vector<std::string>> order;
  // A two-stage [tune]'s second stage: the setting each point ran on the sweep's seeds.
  std::map<std::map<std::string, std::string>, std::string> second_stage;
  for (const TrialRow& r : run.rows) {
    // A two-stage [tune] chooses on its tuning seeds only (the others ran one setting).
    if (!run.tune_seeds.empty() && !run.tuning_row(r)) {
      second_stage.emplace(r.point, r.tune_label);
      continue;
    }
    auto& settings = order[r.point];
    if (std::find(settings.begin(), settings.end(), r.tune_label) == settings.end())
      settings.push_back(r.tune_label);
    std::vector<double>& l = losses[r.point][r.tune_label];
    const std::string status = r.summary.is_null() ? "missing" : r.summary.value("status", "");
    if (status == "diverged")
      l.push_back(INFINITY);
    else if (const auto loss = summary_number(r.summary, "best", "val_loss");
             status == "ok" && loss)
      l.push_back(*loss);
  }
  std::map<std::map<std::string, std::string>, Tuning> out;
  for (const auto& [point, labels] : order) {
    Tuning& t = out[point];
    double best = INFINITY;
    bool have = false;
    for (const std::string& label : labels) {
      const std::vector<double>& l = losses[point][label];
      double mean = l.empty() ? NAN : 0.0;
      for (double v : l) mean += v / double(l.size());
      t.settings.push_back({label, mean, int(l.size())});
      if (!l.empty() && (!have || mean < best)) {  // ties keep the earlier setting
        best = mean;
        t.chosen = label;
        have = true;
      }
    }
    if (!have) t.chosen = labels.front();  // nothing finished yet
  }
  // Points of a partial rerun (`run --only-ids`) without their tuning trials: reported
  // at the setting their second-stage trials ran.
  for (const auto& [point, label] : second_stage)
    if (!out.count(point)) out[point].chosen = label;
  return out;
}

json chosen_settings_only(const RunRows& run) {
  if (run.tune_keys.empty()) return run.index;
  const auto tuning = tune_points(run);
  json index = run.index;
  json kept = json::array();
  for (const TrialRow& r : run.rows)
    if (auto t = tuning.find(r.point);
        !run.tuning_row(r) && (t == tuning.end() || t->second.chosen == r.tune_label))
      for (const json& entry : run.index["trials"])
        if (entry.value("id", "") == r.id) kept.push_back(entry);
  index["trials"] = kept;
  return index;
}

}  // namespace ablate::experiments
