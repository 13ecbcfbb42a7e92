#pragma once
// What the plots draw, read back from a run directory: the finished trials of each
// sweep point with their loss curves, final and validation-selected metrics. (The
// test metrics' means and intervals come from the comparison rows, report.h.)
//
// Only trials whose summary.json says "ok" are drawn, the same trials summary.md
// averages over: failed trials have no results, and a diverged seed would drag a
// point's mean curve and band off the scale while the table leaves it out. Trials not
// finished yet (no summary.json) are left out too, so a report of a running sweep
// plots only what is final.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace ablate::experiments {

using Curve = std::vector<std::pair<std::int64_t, double>>;  // (step, value), finite only

struct PlotTrial {
  std::string id;
  std::uint64_t seed = 0;
  std::map<std::string, std::string> point;  // swept key -> value as written
  Curve val_loss, train_loss;                // per evaluation (metrics.jsonl)
  std::map<std::string, double> final;       // the last evaluation's, finite numbers only
  std::map<std::string, double> selected;    // validation's at the step it selected ("best")
  std::map<std::string, double> test;        // test metrics, finite numbers only
};

struct PlotPoint {
  std::string label;                          // the trials' label, "all trials" when unswept
  std::map<std::string, std::string> values;  // swept key -> value as written
  std::vector<PlotTrial> trials;              // in trials.json order
};

struct PlotRun {
  std::vector<std::string> keys;  // swept keys, in trials.json order
  bool forecast = false;
  std::string primary;  // the task's primary metric (per, sequence_accuracy, bpc, mse, ...)
  bool higher_is_better = true;
  std::vector<PlotPoint> points;  // first-appearance order; only points with a finished trial
};

PlotRun load_plot_run(const std::string& run_dir, const nlohmann::json& trial_index);

// The trial whose attention maps the plots draw (plot_attention.cpp: the first trial of
// the point with the best mean primary metric), or null.
const PlotTrial* attention_trial(const PlotRun& run);

}  // namespace ablate::experiments
