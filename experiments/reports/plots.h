#pragma once
// Plots of a run through gnuplot (Debian's gnuplot-nox), under <run_dir>/plots/:
//   val_loss                  validation loss against step per sweep point (mean over
//                             seeds, min-max band); log y when it spans > 2 decades
//   <primary>_vs_<key>        final primary metric (sequence_accuracy | mse) against
//                             each swept key: every trial and the mean ± std per value
//   mae_by_horizon            forecasting only: final MAE at each horizon per point
// Each as <stem>.svg and <stem>.png, drawn by <stem>.gp from data/<stem>.dat; a user
// can edit the .gp and rerun it from plots/. Only finished ("ok") trials are drawn
// (see plot_run.h). Returns the PNG paths relative to run_dir, for summary.md; empty
// when there is nothing to plot. Throws std::runtime_error naming the script, with
// gnuplot's stderr, if gnuplot is missing or fails.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ablate::experiments {

std::vector<std::string> write_plots(const std::string& run_dir, const nlohmann::json& trial_index,
                                     std::size_t trials);

}  // namespace ablate::experiments
