#include "experiments/reports/run_points.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "experiments/analysis/curve_metrics.h"
#include "experiments/analysis/lr_sensitivity.h"
#include "experiments/analysis/point_tuning.h"
#include "experiments/config/report_spec.h"
#include "experiments/io/atomic_file.h"
#include "experiments/io/json_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/claims_report.h"
#include "experiments/reports/preregistration.h"
#include "experiments/reports/run_rows.h"

namespace ablate::experiments {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The [report] settings trials.json holds, and what was frozen before the run.
void read_report_settings(const RunRows& run, RunPoints& out) {
  const json report = run.index.value("report", json::object());
  const json baseline = report.value("baseline", json::object());
  for (auto& [k, v] : baseline.items()) out.baseline.emplace_back(k, v.get<std::string>());
  out.metric = report.value("metric", "");
  if (report.contains("equivalence_margin"))
    out.equivalence_margin = report["equivalence_margin"].get<double>();
  if (report.contains("threshold")) out.threshold = report["threshold"].get<double>();
  out.grad_norms_at_init = report.value("grad_norms_at_init", false);
  out.claims = claims_from_json(report.value("claims", json::array()));
  out.preregistration = read_preregistration(run.dir);
  out.seeds = seeds_text(run.index);
  out.tune_grid = tune_grid_text(run.index);
  out.family = family_text(run.index);
  out.tune_seeds.assign(run.tune_seeds.begin(), run.tune_seeds.end());
  out.adaptive = adaptive_of_index(run.index);
}

// The point of the trial `r`, added at the end of out.points when it is the first of
// its point's.
PointResults& point_of_row(RunPoints& out, const RunRows& run, const TrialRow& r, const Tuning& t) {
  auto it = std::find_if(out.points.begin(), out.points.end(),
                         [&](const PointResults& p) { return p.values == r.point; });
  if (it != out.points.end()) return *it;
  PointResults p;
  p.run = out.name;
  p.point_id = r.point_id;
  p.data_id = r.data_id;
  p.label = r.label;
  p.values = r.point;
  p.setting = t.chosen;
  if (!run.tune_keys.empty()) p.settings = t.settings;
  out.points.push_back(std::move(p));
  return out.points.back();
}

// The test metrics of a finished trial, and their standard errors.
void add_test_metrics(PointResults& point, const TrialRow& r,
                      const std::vector<std::string>& metrics) {
  const json& test = r.summary["test"];
  for (const std::string& m : metrics) {
    if (test.contains(m) && test[m].is_number()) point.test[r.seed][m] = test[m].get<double>();
    const json se = test.value("standard_errors", json::object());
    if (se.contains(m) && se[m].is_number()) point.test_se[r.seed][m] = se[m].get<double>();
  }
}

// The curve metrics of a finished trial, from its validation curve of `curve_key`
// (metrics.jsonl); false when it recorded none.
bool add_curve_metrics(PointResults& point, const TrialRow& r, const RunRows& run,
                       const RunPoints& out, const std::string& curve_key,
                       const std::string& primary) {
  const Curve curve = read_curve(read_file(RunDir(run.dir).trial(r.id).metrics()), curve_key);
  if (curve.empty()) return false;
  const std::int64_t train_steps =
      r.summary.value("train_steps", r.summary.value("steps", std::int64_t(0)));
  if (double auc = curve_auc(curve, train_steps); std::isfinite(auc))
    point.test[r.seed][out.curve_metrics[0]] = auc;
  if (out.threshold) {
    StepsToThreshold s =
        steps_to_threshold(curve, *out.threshold, higher_is_better(primary), train_steps);
    point.test[r.seed][out.curve_metrics[1]] = s.steps;
    if (!s.reached) ++point.not_reached[out.curve_metrics[1]];
  }
  return true;
}

}  // namespace

RunPoints points_of(const RunRows& run, const std::string& run_name) {
  RunPoints out;
  out.name = run_name;
  out.keys = run.keys;
  out.forecast = run.forecast;
  out.task = run.task;
  out.test_metrics = run.test_metrics;
  read_report_settings(run, out);
  const std::string primary = primary_metric(out.metric, run.task);
  // The curve metrics follow the primary metric's validation curve.
  const std::string curve_key = primary == "loss" ? "val_loss" : primary;
  out.curve_metrics = curve_metric_names(primary, out.threshold);
  const auto tuning = tune_points(run);
  bool any_curve = false;
  for (const TrialRow& r : run.rows) {
    // A point whose tuning stage has not run yet has no entry: nothing of it to report.
    auto chosen = tuning.find(r.point);
    if (chosen == tuning.end() || run.tuning_row(r)) continue;
    const Tuning& t = chosen->second;
    if (r.tune_label != t.chosen) continue;
    PointResults& point = point_of_row(out, run, r, t);
    ++point.trials;
    const std::string status = r.summary.is_null() ? "missing" : r.summary.value("status", "");
    if (status == "missing")
      ++point.missing;
    else if (status == "failed")
      ++point.failed;
    else if (status == "diverged")
      ++point.diverged;
    if (status == "ok" || status == "diverged") point.finished_seeds.insert(r.seed);
    if (status != "ok" || !r.summary.contains("test")) continue;
    add_test_metrics(point, r, run.test_metrics);
    any_curve |= add_curve_metrics(point, r, run, out, curve_key, primary);
  }
  // No trial recorded a validation curve (a record derived from results.csv): no curve
  // metrics, rather than rows of "too few seeds".
  if (!any_curve) out.curve_metrics.clear();
  add_lr_sensitivity(run, run.index.value("report", json::object()).value("lr_sensitivity", ""),
                     out);
  return out;
}

std::string run_name(const std::string& run_dir) {
  return fs::absolute(run_dir).lexically_normal().filename().string().empty()
             ? fs::absolute(run_dir).lexically_normal().parent_path().filename().string()
             : fs::absolute(run_dir).lexically_normal().filename().string();
}

// A run directory may come from elsewhere: a value of the wrong type in trials.json or
// a summary.json is an error naming the run, not an escaped nlohmann exception.
RunPoints read_run_points(const std::string& run_dir) {
  try {
    return points_of(read_run(run_dir), run_name(run_dir));
  } catch (const nlohmann::json::exception& e) {
    throw_naming_file(run_dir + " (trials.json or a trial's summary.json)", e);
  }
}

std::vector<TrialRef> chosen_trials(const json& index, const PointResults& point) {
  std::vector<TrialRef> out;
  for (const json& t : index["trials"])
    if (t.value("point_id", "") == point.point_id && t.value("tune_label", "") == point.setting &&
        !in_tuning_stage(index, t))
      out.push_back({t["id"].get<std::string>(), t["seed"].get<std::uint64_t>()});
  return out;
}

bool in_tuning_stage(const json& index, const json& trial) {
  if (!index.contains("tuning")) return false;
  const json seeds = index["tuning"].value("seeds", json::array());
  return std::find(seeds.begin(), seeds.end(), trial.value("seed", json())) != seeds.end();
}

}  // namespace ablate::experiments
