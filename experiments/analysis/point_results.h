#pragma once
// A run's sweep points with their results, as the analysis reads them: each point's
// trials (PointResults), and the run with its [report] settings (RunPoints), which
// reports/run_points.h fills from a run directory.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "experiments/analysis/preregistration_record.h"
#include "experiments/config/adaptive_design.h"
#include "experiments/config/claims_spec.h"

namespace ablate::experiments {

// A [tune] setting of a sweep point: its mean validation loss over the seeds that
// finished (diverged: infinite), which chooses the point's setting.
struct TuningSetting {
  std::string label;  // "train.lr=0.001"
  double validation_loss = 0;
  int trials = 0;
  // [tune.halving]: the rung step the setting was stopped at (0: it trained to the end),
  // and its mean best validation loss there, which ranked it.
  std::int64_t stopped_at = 0;
  double loss_at_stop = 0;
};

// One sweep point's trials, as the report read them (with [tune]: those of its chosen
// setting).
struct PointResults {
  std::string run;       // the run directory's name (several in `ablate compare`)
  std::string point_id;  // Trial::point_id
  std::string data_id;   // Trial::data_id: points with another one were tested on other data
  std::string label;     // "model.attention.qk=shared ..." ("" for an unswept run)
  std::map<std::string, std::string> values;  // swept key → value
  // Seed → metric → value, for every finished trial: the test metrics and the curve
  // metrics of validation (curve_metrics.h); and seed → that trial's standard error
  // of each test metric over the test set (its evaluation noise).
  std::map<std::uint64_t, std::map<std::string, double>> test, test_se;
  int trials = 0, diverged = 0, failed = 0, missing = 0;
  // The seeds whose trial has its result (ok or diverged: it will not run again).
  std::set<std::uint64_t> finished_seeds;
  std::string setting;  // the [tune] setting chosen ("" without [tune])
  // Per curve metric, how many trials never reached the threshold (censored).
  std::map<std::string, int> not_reached;
  std::vector<TuningSetting> settings;  // every setting searched (empty without [tune])

  // One tuned key whose chosen value is its grid's first or last: the best may lie
  // beyond the grid (the reports flag it).
  bool chose_grid_edge() const {
    return !setting.empty() && std::count(setting.begin(), setting.end(), '=') == 1 &&
           settings.size() >= 2 &&
           (setting == settings.front().label || setting == settings.back().label);
  }
};

// A run index's [sweep.adaptive] design and first block (none for a fixed design).
struct AdaptiveIndex {
  std::vector<std::uint64_t> first_seeds;
  AdaptiveDesign design;
};

// A run's sweep points with their test metrics, and its [report] settings.
struct RunPoints {
  std::string name;  // the run directory's name
  std::vector<std::string> keys;
  bool forecast = false;
  std::string task;                       // its kind: which metrics it has (test_metrics)
  std::vector<std::string> test_metrics;  // the task's, with per-length / per-context ones found
  std::vector<std::pair<std::string, std::string>> baseline;
  std::string metric;  // "" = the primary test metric
  std::optional<double> equivalence_margin;
  std::optional<double> threshold;
  bool grad_norms_at_init = false;  // summary.md's table of them (reports/telemetry_report.h)
  std::vector<std::string>
      curve_metrics;              // auc_<primary>, and steps_to_<primary>_<T> with a threshold
  std::vector<ClaimSpec> claims;  // [[report.claims]]
  // What was frozen when the run's first trial started (none for older runs), and the
  // seeds, [tune] grid and family procedure now, to compare with it.
  std::optional<Preregistration> preregistration;
  std::string seeds, tune_grid, family;
  std::vector<std::uint64_t> tune_seeds;  // tune.seeds: the tuning stage's (none: every seed)
  std::optional<AdaptiveIndex> adaptive;  // [sweep.adaptive], when the run has one
  std::vector<PointResults> points;
};

}  // namespace ablate::experiments
