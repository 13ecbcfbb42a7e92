#include "experiments/reports/forecast_baselines_report.h"

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "experiments/analysis/mean_std.h"
#include "experiments/io/atomic_file.h"
#include "experiments/io/json_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/records/trial_summary.h"
#include "experiments/reports/run_points.h"
#include "experiments/tasks/forecast_baselines.h"

namespace ablate::experiments {

namespace {

using json = nlohmann::json;

// The metrics the section shows: model units first, then the data's units.
const std::vector<std::string>& shown_metrics() {
  static const std::vector<std::string> m{"mse", "mae", "mase", "smape"};
  return m;
}

}  // namespace

std::string forecast_baselines_section(const std::string& run_dir, const RunPoints& run) {
  if (!run.forecast) return "";
  const json index = read_json_file(RunDir(run_dir).trial_index());
  // Per data_id, the baselines (from its first finished trial); per point, the trials'
  // values at the point's chosen [tune] setting.
  std::map<std::string, std::map<std::string, double>> baselines;
  std::vector<std::map<std::string, std::vector<double>>> model(run.points.size());
  for (const json& t : index["trials"]) {
    const std::string summary_path = RunDir(run_dir).trial(t["id"].get<std::string>()).summary();
    if (!std::filesystem::exists(summary_path)) continue;
    TrialSummary summary;
    try {
      summary = trial_summary_from_json(read_json_file(summary_path));
    } catch (const std::exception&) {
      continue;
    }
    if (summary.status != "ok" || !summary.test || in_tuning_stage(index, t)) continue;
    // Finite values only (summary.json writes NaN and infinity as strings).
    std::map<std::string, double> test;
    for (const auto& [k, v] : summary.test->metrics)
      if (std::isfinite(v)) test[k] = v;
    const std::string data_id = t.value("data_id", "");
    if (!baselines.count(data_id))
      for (const std::string& b : baseline_names())
        for (const std::string& m : shown_metrics()) {
          const std::string key = "baseline_" + b + "_" + m;
          if (test.count(key)) baselines[data_id][key] = test[key];
        }
    for (std::size_t p = 0; p < run.points.size(); ++p)
      if (run.points[p].point_id == t.value("point_id", "") &&
          (run.points[p].setting.empty() || run.points[p].setting == t.value("tune_label", "")))
        for (const std::string& m : shown_metrics())
          if (test.count(m)) model[p][m].push_back(test[m]);
  }
  bool any = false;
  for (const auto& entry : baselines) any = any || !entry.second.empty();
  if (!any) return "";

  std::ostringstream md;
  md << "\n## Baselines\n\nTest metrics of the naive, seasonal naive and linear (least squares "
        "from the lookback "
        "window) forecasts on the same test windows as the models, beside each point's mean over "
        "seeds "
        "(experiments/tasks/README.md, forecast). mse and mae are in the model's units (z-scored "
        "with normalize); "
        "mase and smape are in the data's units, averaged over the target series; lower is "
        "better.\n\n| forecast |";
  for (const std::string& m : shown_metrics()) md << " " << m << " |";
  md << "\n|---|";
  for (std::size_t i = 0; i < shown_metrics().size(); ++i) md << "---|";
  md << "\n";
  for (const auto& [data_id, values] : baselines)
    for (const std::string& b : baseline_names()) {
      md << "| baseline " << b << (baselines.size() > 1 ? " (data " + data_id + ")" : "") << " |";
      for (const std::string& m : shown_metrics()) {
        const auto it = values.find("baseline_" + b + "_" + m);
        md << " " << (it == values.end() ? std::string() : format_mean({it->second})) << " |";
      }
      md << "\n";
    }
  for (std::size_t p = 0; p < run.points.size(); ++p) {
    md << "| " << (run.points[p].label.empty() ? "model" : run.points[p].label) << " |";
    for (const std::string& m : shown_metrics())
      md << " " << format_mean(model[p].count(m) ? model[p].at(m) : std::vector<double>{}) << " |";
    md << "\n";
  }
  return md.str();
}

}  // namespace ablate::experiments
