#pragma once
// The report's figures as text: each is a data file and a gnuplot script that reads
// it (from data/<stem>.dat) and renders <stem>.svg and <stem>.png. Building them is
// pure, so the same run always gives byte-identical files; plots.cpp writes and runs them.
#include <cmath>
#include <string>
#include <vector>

#include "experiments/reports/plot_run.h"

namespace ablate::experiments {

struct Figure {
  std::string stem;    // file name without extension, also the data file's name
  std::string data;    // data/<stem>.dat, whitespace-separated, blocks for `index`
  std::string script;  // <stem>.gp
};

// Validation loss against step per sweep point: mean over seeds, min-max band.
// Nothing when no finished trial has a curve.
std::vector<Figure> loss_curve_figures(const PlotRun& run);

// The primary metric's final value against each swept key's values (categorical):
// every trial, and the mean ± sample std over all trials with that value.
std::vector<Figure> metric_vs_key_figures(const PlotRun& run);

// Forecasting only: final MAE at each horizon (mae_h1..mae_hH) per sweep point.
std::vector<Figure> horizon_figures(const PlotRun& run);

// Length generalisation: the primary test metric against the test length
// (<primary>_len<L>) or, for language models, the evaluation context (<primary> at
// the training context T, <primary>_ctx<L> beyond), one line per sweep point (mean over
// seeds). Nothing when the trials have no such metrics.
std::vector<Figure> by_length_figures(const PlotRun& run);

// Attention heatmaps of one trial of the best sweep point (sequence tasks): one figure
// per attention module, a panel per head, from trials/<id>/attention.json.
std::vector<Figure> attention_figures(const PlotRun& run, const std::string& run_dir);

// ---- shared by the figure builders

struct Stats {
  double mean = 0, std = 0, min = 0, max = 0;  // std: sample (n - 1), 0 for one value
  std::size_t n = 0;
};

inline Stats stats(const std::vector<double>& v) {
  Stats s;
  s.n = v.size();
  if (v.empty()) return s;
  s.min = s.max = v[0];
  for (double x : v) {
    s.mean += x;
    s.min = x < s.min ? x : s.min;
    s.max = x > s.max ? x : s.max;
  }
  s.mean /= double(v.size());
  if (v.size() > 1) {
    for (double x : v) s.std += (x - s.mean) * (x - s.mean);
    s.std = std::sqrt(s.std / double(v.size() - 1));
  }
  return s;
}

// The opening lines of every script: what it draws and how to rerun it.
std::string script_header(const std::string& stem, const std::string& what);

// Line colour and dash of the i-th series: gnuplot's 8 colours, then dashed, so more
// than 8 sweep points stay distinguishable.
std::string series_style(std::size_t i);

}  // namespace ablate::experiments
