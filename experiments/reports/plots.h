#pragma once
// Plots of a run through gnuplot (Debian's gnuplot-nox), under <run_dir>/plots/:
//   val_loss, train_loss      loss against step per sweep point: every seed a thin faint
//                             line, the mean over seeds bold; log y past 2 decades
//   <metric>_vs_<key>         the headline table's metric (test split, validation-selected
//                             step) against each swept key: each point's mean and 95%
//                             interval from comparisons.csv, the points sharing the other
//                             keys' values joined as a series, each seed a dot
//   <metric>_by_length|context   length generalisation: the same, per test length/context
//   mae_by_horizon            forecasting: validation MAE per horizon at the selected step
//   attention_<module>        sequence tasks: one trial's attention heatmaps, a colour
//                             scale per head, masked cells marked (plot_attention.cpp)
// Legends name keys by their shortest unambiguous suffix (plot_labels.h). Each figure is
// <stem>.svg and <stem>.png, drawn by <stem>.gp from data/<stem>.dat; a user can edit
// the .gp and rerun it from plots/. Only finished ("ok") trials are drawn (see
// plot_run.h), and with [tune] only each point's chosen setting (`trial_index` as
// report.cpp filters it). Returns the images' paths relative to run_dir, for summary.md
// (the SVG, or the PNG of a heatmap: Figure::raster);
// empty when there is nothing to plot. Throws std::runtime_error naming the script,
// with gnuplot's stderr, if gnuplot is missing or fails.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "experiments/reports/comparison_report.h"

namespace ablate::experiments {

// `points` and `table` are what comparisons.csv and summary.md's headline table were
// made from: the plots of the test metric draw those numbers.
std::vector<std::string> write_plots(const std::string& run_dir, const nlohmann::json& trial_index,
                                     const RunPoints& points, const ComparisonReport& table);

}  // namespace ablate::experiments
