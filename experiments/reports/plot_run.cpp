#include "experiments/reports/plot_run.h"

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

std::vector<std::pair<std::int64_t, double>> read_curve(const std::string& path) {
  std::vector<std::pair<std::int64_t, double>> curve;
  if (!fs::exists(path)) return curve;
  std::istringstream lines(read_file(path));
  std::string line;
  while (std::getline(lines, line)) {
    // A line we cannot read costs one point of one curve, not the whole report.
    json e = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!e.is_object() || !e.contains("step") || !e["step"].is_number_integer()) continue;
    if (!e.contains("val_loss") || !finite_number(e["val_loss"])) continue;
    curve.emplace_back(e["step"].get<std::int64_t>(), e["val_loss"].get<double>());
  }
  std::stable_sort(curve.begin(), curve.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return curve;
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
    if (t.contains("point") && t["point"].is_object())
      for (auto& [k, v] : t["point"].items())
        if (v.is_string()) trial.point[k] = v.get<std::string>();
    const TrialDir dir = RunDir(run_dir).trial(trial.id);
    json summary = ok_summary(dir.summary());
    if (summary.is_null()) continue;
    trial.curve = read_curve(dir.metrics());
    if (summary.contains("final") && summary["final"].is_object())
      for (auto& [k, v] : summary["final"].items())
        if (finite_number(v)) trial.final[k] = v.get<double>();
    if (summary.contains("test") && summary["test"].is_object())
      for (auto it = summary["test"].begin(); it != summary["test"].end(); ++it)
        if (finite_number(it.value())) trial.test[it.key()] = it.value().get<double>();
    if (trial.curve.empty() && trial.final.empty()) continue;

    auto it = std::find(point_values.begin(), point_values.end(), trial.point);
    if (it == point_values.end()) {
      point_values.push_back(trial.point);
      std::string label = t.value("label", "");
      run.points.push_back({label.empty() ? "all trials" : label, {}});
      it = point_values.end() - 1;
    }
    run.points[std::size_t(it - point_values.begin())].trials.push_back(std::move(trial));
  }
  return run;
}

}  // namespace ablate::experiments
