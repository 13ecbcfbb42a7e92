#pragma once
// The report's figures as text: each is a data file and a gnuplot script that reads
// it (from data/<stem>.dat) and renders <stem>.svg and <stem>.png. Building them is
// pure, so the same run always gives byte-identical files; plots.cpp writes and runs them.
#include <string>
#include <vector>

#include "experiments/reports/comparison_report.h"
#include "experiments/reports/plot_labels.h"
#include "experiments/reports/plot_run.h"

namespace ablate::experiments {

struct Figure {
  std::string stem;    // file name without extension, also the data file's name
  std::string data;    // data/<stem>.dat, whitespace-separated, blocks for `index`
  std::string script;  // <stem>.gp
  // A heatmap: summary.md shows its PNG, not its SVG, which draws a rectangle per cell
  // and is several times larger (a results folder commits the image summary.md shows).
  bool raster = false;
};

// Validation loss and training loss against step: a thin faint line per seed in its
// point's colour, the mean over the point's seeds bold. Nothing when no finished trial
// has a curve.
std::vector<Figure> loss_curve_figures(const PlotRun& run);

// The headline table's metric against each swept key's values (categorical): one
// marker per sweep point with the mean and 95% interval of its comparisons.csv row,
// the points that share the other keys' values joined as one series, and each seed's
// value as a faint dot.
std::vector<Figure> metric_vs_key_figures(const RunPoints& points, const ComparisonReport& table);

// Forecasting only: validation MAE at each horizon (mae_h1..mae_hH) at the step
// validation selected, per sweep point: the seeds' values and their mean.
std::vector<Figure> horizon_figures(const PlotRun& run);

// Length generalisation: the primary test metric against the test length
// (<primary>_len<L>) or, for language models, the evaluation context (<primary> at
// the training context T, <primary>_ctx<L> beyond), one line per sweep point: the mean
// over seeds with its comparisons.csv interval where the table has one. Nothing when
// the trials have no such metrics.
std::vector<Figure> by_length_figures(const RunPoints& points, const ComparisonReport& table);

// Attention heatmaps of one trial of the best sweep point (sequence tasks): one figure
// per attention module, a panel per head with its colour scale, masked cells marked,
// from trials/<id>/attention.json.
std::vector<Figure> attention_figures(const PlotRun& run, const std::string& run_dir);

// ---- shared by the figure builders

// The mean of `v` (0 for none).
inline double mean_of(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / double(v.size());
}

// The opening lines of every script: what it draws and how to rerun it.
std::string script_header(const std::string& stem, const std::string& what);

// Line colour and dash of the i-th series: 8 colours, then dashed, so more than 8
// sweep points stay distinguishable.
std::string series_style(std::size_t i);
// The i-th series' colour as a gnuplot literal; `alpha` "00" is opaque, "ff" invisible
// (gnuplot's #AARRGGBB), for faint per-seed lines and dots in the series' colour.
std::string series_colour(std::size_t i, const std::string& alpha = "00");

// The comparisons.csv row of `point` (an index into RunPoints::points) and `metric`,
// or null.
const ComparisonRow* table_row(const ComparisonReport& table, std::size_t point,
                               const std::string& metric);

// " title <legend key>" for `set key`, wrapped at its commas to lines a legend below
// an 800-pixel plot shows whole; "" without one. `lines` is set to its line count.
std::string key_title(const std::string& legend_key, std::size_t& lines);

// Room below a plot for a legend of `entries` lines ("set key outside below").
int height_with_key(int base, std::size_t entries);

}  // namespace ablate::experiments
