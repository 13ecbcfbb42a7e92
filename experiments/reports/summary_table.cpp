#include "experiments/reports/summary_table.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "experiments/analysis/mean_std.h"
#include "experiments/analysis/point_tuning.h"
#include "experiments/reports/comparison_tables.h"
#include "experiments/reports/computation_note.h"
#include "experiments/reports/provenance_note.h"

namespace ablate::experiments {

using json = nlohmann::json;

namespace {

// A sweep point's last validation metrics over its trials at the chosen [tune] setting.
struct ValidationPoint {
  std::map<std::string, std::string> values;
  std::string label;
  std::vector<double> val_loss;
  std::map<std::string, std::vector<double>> metric;
  int trials = 0, diverged = 0, failed = 0;
};

// In trial order, then sorted best first by the primary metric's mean.
std::vector<ValidationPoint> validation_points(const RunRows& run) {
  std::vector<ValidationPoint> points;
  const auto tuning = tune_points(run);
  for (const TrialRow& r : run.rows) {
    // Each point at its chosen [tune] setting, on the seeds that judge it.
    if (run.tuning_row(r) || r.tune_label != tuning.at(r.point).chosen) continue;
    auto it = std::find_if(points.begin(), points.end(),
                           [&](const ValidationPoint& p) { return p.values == r.point; });
    if (it == points.end()) {
      points.push_back({r.point, r.label, {}, {}, 0, 0, 0});
      it = points.end() - 1;
    }
    ++it->trials;
    if (r.summary.is_null()) continue;
    std::string status = r.summary.value("status", "");
    if (status == "failed") {
      ++it->failed;
      continue;
    }
    if (status == "diverged") {
      ++it->diverged;
      continue;
    }
    if (const auto loss = summary_number(r.summary, "final", "val_loss"))
      it->val_loss.push_back(*loss);
    for (const std::string& m : run.metrics)
      if (const auto value = summary_number(r.summary, "final", m)) it->metric[m].push_back(*value);
  }
  auto primary_mean = [&](const ValidationPoint& p) {
    MeanStd m =
        mean_std(p.metric.count(run.primary) ? p.metric.at(run.primary) : std::vector<double>{});
    return m.n ? m.mean : (run.higher_is_better ? -INFINITY : INFINITY);
  };
  std::stable_sort(points.begin(), points.end(),
                   [&](const ValidationPoint& a, const ValidationPoint& b) {
                     return run.higher_is_better ? primary_mean(a) > primary_mean(b)
                                                 : primary_mean(a) < primary_mean(b);
                   });
  return points;
}

// The Validation section: what it shows, then the table.
std::string validation_section(const RunRows& run, const std::vector<ValidationPoint>& points) {
  const std::vector<std::string>& keys = run.keys;
  const std::vector<std::string>& metrics = run.metrics;
  const ReportSummary& report = run.report;
  std::ostringstream md;
  md << "\n## Validation\n\nThe last evaluation's validation metrics, mean ± std over seeds "
        "(sample std), sorted by "
     << run.primary << " (" << (run.higher_is_better ? "higher" : "lower") << " is better). "
     << report.finished << " of " << report.expected << " trials finished";
  if (report.failed) md << ", " << report.failed << " failed";
  if (report.missing) md << ", " << report.missing << " missing";
  md << ". Validation chose each trial's model (lowest validation loss); the test metrics above "
        "are that "
        "model's.\n\n|";
  for (const std::string& k : keys) md << " " << k << " |";
  md << " seeds | val_loss |";
  for (const std::string& m : metrics) md << " " << m << " |";
  md << "\n|";
  for (std::size_t i = 0; i < keys.size() + 2 + metrics.size(); ++i) md << "---|";
  md << "\n";
  for (const ValidationPoint& p : points) {
    md << "|";
    for (const std::string& k : keys)
      md << " " << (p.values.count(k) ? p.values.at(k) : "") << " |";
    md << " " << seeds_cell(int(p.val_loss.size()), p.trials, p.diverged, p.failed, 0) << " | "
       << format(mean_std(p.val_loss)) << " |";
    for (const std::string& m : metrics)
      md << " " << format(mean_std(p.metric.count(m) ? p.metric.at(m) : std::vector<double>{}))
         << " |";
    md << "\n";
  }
  return md.str();
}

}  // namespace

std::string summary_table(const RunRows& run, const ComparisonReport& comparisons) {
  const json& index = run.index;
  std::ostringstream md;
  md << "# " << index.value("name", "") << "\n\n";
  if (!index.value("description", "").empty()) md << index.value("description", "") << "\n\n";
  md << comparisons.markdown;
  md << validation_section(run, validation_points(run));
  md << computation_note(run);
  md << provenance_note(run);
  if (run.report.missing) {
    md << "\nMissing trials (no summary.json yet):";
    for (const std::string& id : run.report.missing_ids) md << " " << id;
    md << "\n";
  }
  return md.str();
}

}  // namespace ablate::experiments
