#include "experiments/analysis/point_tuning.h"
#include "experiments/records/metrics_log.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include "experiments/analysis/successive_halving.h"
#include "experiments/records/run_dir.h"

namespace ablate::experiments {

using json = nlohmann::json;

namespace {

using Point = std::map<std::string, std::string>;

// A tuning trial's validation curve (its metrics.jsonl) as a rung sees it.
TuningCurve tuning_curve(const std::string& run_dir, const TrialRow& r) {
  TuningCurve curve;
  for (const MetricsLine& m : read_metrics_log(RunDir(run_dir).trial(r.id).metrics()).lines)
    if (const std::optional<double> v = m.value("val_loss"))
      curve.val_loss.emplace_back(m.step, *v);
  const std::string status = r.summary.is_null() ? "" : r.summary.value("status", "");
  curve.finished = status == "ok" || status == "diverged" || status == "pruned";
  if (status == "diverged") curve.diverged_at = r.summary.value("diverged_at", std::int64_t(1));
  return curve;
}

// Marks the settings `run.halving` stopped (decided from the recorded curves).
void apply_halving(const RunRows& run, const Point& point, const std::vector<std::string>& labels,
                   Tuning& t) {
  std::int64_t train_steps = 0;
  for (const TrialRow& r : run.rows)
    if (r.point == point && run.tuning_row(r) && !r.summary.is_null())
      train_steps = r.summary.value("train_steps", train_steps);
  const std::vector<SettingCurves> curves = point_tuning_curves(run, point, labels);
  const HalvingDecision d = decide_halving(
      curves, recorded_rung_steps(*run.halving, curves, train_steps), run.halving->keep);
  for (std::size_t i = 0; i < t.settings.size(); ++i)
    if ((t.settings[i].stopped_at = d.stopped_at[i]) > 0)
      t.settings[i].loss_at_stop = setting_loss_at(curves[i], d.stopped_at[i]);
}

}  // namespace

std::vector<SettingCurves> point_tuning_curves(const RunRows& run, const Point& point,
                                               const std::vector<std::string>& labels) {
  std::vector<SettingCurves> out;
  for (const std::string& label : labels) out.push_back({label, {}});
  for (const TrialRow& r : run.rows) {
    auto s = std::find(labels.begin(), labels.end(), r.tune_label);
    if (r.point == point && run.tuning_row(r) && s != labels.end())
      out[std::size_t(s - labels.begin())].trials.push_back(tuning_curve(run.dir, r));
  }
  return out;
}

std::map<Point, Tuning> tune_points(const RunRows& run) {
  std::map<Point, std::map<std::string, std::vector<double>>> losses;
  std::map<Point, std::vector<std::string>> order;
  // A two-stage [tune]'s second stage: the setting each point ran on the sweep's seeds.
  std::map<Point, std::string> second_stage;
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
  std::map<Point, Tuning> out;
  for (const auto& [point, labels] : order) {
    Tuning& t = out[point];
    for (const std::string& label : labels) {
      const std::vector<double>& l = losses[point][label];
      double mean = l.empty() ? NAN : 0.0;
      for (double v : l) mean += v / double(l.size());
      t.settings.push_back({label, mean, int(l.size())});
    }
    if (run.halving) apply_halving(run, point, labels, t);
    double best = INFINITY;
    bool have = false;
    for (const TuningSetting& s : t.settings)
      // A setting halving stopped is never chosen: its trials did not finish.
      if (s.trials > 0 && s.stopped_at == 0 && (!have || s.validation_loss < best)) {
        best = s.validation_loss;  // ties keep the earlier setting
        t.chosen = s.label;
        have = true;
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
