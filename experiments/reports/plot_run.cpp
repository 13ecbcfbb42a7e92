#include "experiments/reports/plot_run.h"
#include "experiments/records/metrics_log.h"

#include "experiments/config/report_spec.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "experiments/io/atomic_file.h"
#include "experiments/io/json_file.h"
#include "experiments/records/run_dir.h"

namespace ablate::experiments {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// NaN and infinity reach the files as null or as strings ("nan", "inf"); both are
// "no value" for a plot.
bool finite_number(const json& v) {
  return v.is_number() && std::isfinite(v.get<double>());
}

// The summary, or null when it is missing, unreadable or not an "ok" trial.
json ok_summary(const std::string& path) {
  if (!fs::exists(path)) return nullptr;
  try {
    json s = read_json_file(path);
    if (s.is_object() && s.value("status", "") == "ok") return s;
  } catch (const std::exception&) {
  }
  return nullptr;
}

// The validation and training loss of each evaluation, in step order.
void read_curves(const std::string& path, PlotTrial& trial) {
  // A line that cannot be read costs one point of one curve, not the whole report.
  for (const MetricsLine& m : read_metrics_log(path).lines)
    for (auto [key, curve] :
         {std::pair{"val_loss", &trial.val_loss}, std::pair{"train_loss", &trial.train_loss}})
      if (const std::optional<double> v = m.value(key)) curve->emplace_back(m.step, *v);
  for (Curve* curve : {&trial.val_loss, &trial.train_loss})
    std::stable_sort(curve->begin(), curve->end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
}

// The finite numbers of one of the summary's metric objects ("final", "best", "test").
std::map<std::string, double> numbers(const json& summary, const char* part) {
  std::map<std::string, double> out;
  if (summary.contains(part) && summary[part].is_object())
    for (auto it = summary[part].begin(); it != summary[part].end(); ++it)
      if (finite_number(it.value())) out[it.key()] = it.value().get<double>();
  return out;
}

}  // namespace

PlotRun load_plot_run(const std::string& run_dir, const json& trial_index) {
  PlotRun run;
  if (trial_index.contains("swept_keys") && trial_index["swept_keys"].is_array())
    run.keys = trial_index["swept_keys"].get<std::vector<std::string>>();
  run.forecast = trial_index.value("family", "seq2seq") == "forecast";
  run.primary =
      test_metrics(trial_index.value("task", std::string(run.forecast ? "forecast" : ""))).front();
  run.higher_is_better = higher_is_better(run.primary);
  if (!trial_index.contains("trials") || !trial_index["trials"].is_array()) return run;

  std::vector<std::map<std::string, std::string>> point_values;  // parallel to run.points
  for (const json& t : trial_index["trials"]) {
    PlotTrial trial;
    trial.id = t.value("id", "");
    if (trial.id.empty()) continue;
    if (t.contains("seed") && t["seed"].is_number_unsigned()) trial.seed = t["seed"];
    if (t.contains("point") && t["point"].is_object())
      for (auto& [k, v] : t["point"].items())
        if (v.is_string()) trial.point[k] = v.get<std::string>();
    const TrialDir dir = RunDir(run_dir).trial(trial.id);
    json summary = ok_summary(dir.summary());
    if (summary.is_null()) continue;
    read_curves(dir.metrics(), trial);
    trial.final = numbers(summary, "final");
    trial.selected = numbers(summary, "best");
    trial.test = numbers(summary, "test");
    if (trial.val_loss.empty() && trial.final.empty()) continue;

    auto it = std::find(point_values.begin(), point_values.end(), trial.point);
    if (it == point_values.end()) {
      point_values.push_back(trial.point);
      std::string label = t.value("label", "");
      run.points.push_back({label.empty() ? "all trials" : label, trial.point, {}});
      it = point_values.end() - 1;
    }
    run.points[std::size_t(it - point_values.begin())].trials.push_back(std::move(trial));
  }
  return run;
}

}  // namespace ablate::experiments
