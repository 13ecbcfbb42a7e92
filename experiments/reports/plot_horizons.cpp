// mae_by_horizon (forecasting): how the error grows with the number of steps ahead,
// one line per sweep point (the mean over seeds, each seed a faint line), from
// mae_h1..mae_hH of the validation evaluation at the step validation selected — the
// model the test table reports. The test set has no per-horizon errors, so this is the
// validation split, and the title says so.
#include <algorithm>

#include "experiments/reports/plot_figures.h"
#include "experiments/reports/plot_gnuplot.h"

namespace ablate::experiments {

namespace {

std::string mae_at(std::size_t h) {
  return "mae_h" + std::to_string(h);
}

// mae_h1, mae_h2, ... up to the first gap.
std::size_t horizons(const PlotTrial& t) {
  std::size_t h = 0;
  while (t.selected.count(mae_at(h + 1))) ++h;
  return h;
}

}  // namespace

std::vector<Figure> horizon_figures(const PlotRun& run) {
  if (!run.forecast) return {};
  const ShortKeys names(run.keys);
  const std::string stem = "mae_by_horizon";
  std::string data =
      "# Validation MAE per forecast horizon at the step validation selected; per sweep point,\n"
      "# two blocks (gnuplot: index 2p and 2p+1):\n"
      "#   index 2p:   horizon mean_mae seeds (the mean over the point's seeds)\n"
      "#   index 2p+1: horizon mae, one line per seed (separated by a blank line)\n";
  std::string plot;
  std::size_t block = 0, most = 0;
  for (const PlotPoint& p : run.points) {
    std::vector<std::vector<double>> at;  // at[h - 1]: the seeds' mae_h
    std::string seeds;
    for (const PlotTrial& t : p.trials) {
      std::size_t hs = horizons(t);
      if (hs == 0) continue;
      if (at.size() < hs) at.resize(hs);
      seeds += std::string(seeds.empty() ? "" : "\n") + "# seed " + std::to_string(t.seed) +
               " (trial " + t.id + ")\n";
      for (std::size_t h = 1; h <= hs; ++h) {
        at[h - 1].push_back(t.selected.at(mae_at(h)));
        seeds += std::to_string(h) + " " + gp_number(t.selected.at(mae_at(h))) + "\n";
      }
    }
    if (at.empty()) continue;
    most = std::max(most, at.size());
    data += std::string(block ? "\n\n" : "") + "# point " + std::to_string(block) + ": " +
            gp_comment(p.label) + ", mean over seeds\n";
    for (std::size_t h = 1; h <= at.size(); ++h) {
      data += std::to_string(h) + " " + gp_number(mean_of(at[h - 1])) + " " +
              std::to_string(at[h - 1].size()) + "\n";
    }
    data += "\n\n# point " + std::to_string(block) + ": each seed\n" + seeds;
    const std::string label = run.keys.empty() ? p.label : names.label(p.values);
    plot += std::string(block ? ", \\\n     " : "plot ") +
            (block ? "''" : gp_string("data/" + stem + ".dat")) + " index " +
            std::to_string(2 * block + 1) + " using 1:2 with lines lw 1 lc " +
            series_colour(block, "b0") + " notitle, \\\n     '' index " +
            std::to_string(2 * block) + " using 1:2 with linespoints lw 2 pt 7 " +
            series_style(block) + " title " + gp_string(label);
    ++block;
  }
  if (block == 0) return {};
  std::size_t key_lines = 0;
  const std::string legend_key = names.legend_key();
  std::string body =
      "set title " +
      gp_lines({"Validation MAE by forecast horizon (lower is better)",
                "validation split, at the step validation selected (the test set has no "
                "per-horizon MAE); thin lines: each seed; bold: the mean over seeds"}) +
      "\nset xlabel 'horizon (steps ahead)'\nset ylabel 'validation MAE'\n"
      "set xrange [0.5:" +
      gp_number(double(most) + 0.5) + "]\n" + "set xtics 1\nset grid\nset key outside below" +
      key_title(legend_key, key_lines) + "\n" + plot + "\n";
  const std::size_t entries = block + key_lines;
  return {{stem, data,
           script_header(stem, "Validation MAE per forecast horizon per sweep point.") +
               gp_render(stem, 800, height_with_key(500, entries), body)}};
}

}  // namespace ablate::experiments
