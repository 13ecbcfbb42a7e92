// mae_by_horizon (forecasting): how the error grows with the number of steps ahead,
// one line per sweep point, from the final evaluation's mae_h1..mae_hH.
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
  while (t.final.count(mae_at(h + 1))) ++h;
  return h;
}

}  // namespace

std::vector<Figure> horizon_figures(const PlotRun& run) {
  if (!run.forecast) return {};
  const std::string stem = "mae_by_horizon";
  std::string data =
      "# Final MAE per forecast horizon, one block per sweep point (gnuplot: index i).\n"
      "# Columns: horizon mean_mae seeds (mean over the point's seeds)\n";
  std::string plot;
  std::size_t block = 0, most = 0;
  for (const PlotPoint& p : run.points) {
    std::vector<std::vector<double>> at;  // at[h - 1]: the seeds' mae_h
    for (const PlotTrial& t : p.trials) {
      std::size_t hs = horizons(t);
      if (at.size() < hs) at.resize(hs);
      for (std::size_t h = 1; h <= hs; ++h) at[h - 1].push_back(t.final.at(mae_at(h)));
    }
    if (at.empty()) continue;
    most = std::max(most, at.size());
    data += std::string(block ? "\n\n" : "") + "# point " + std::to_string(block) + ": " +
            gp_comment(p.label) + "\n";
    for (std::size_t h = 1; h <= at.size(); ++h) {
      Stats s = stats(at[h - 1]);
      data += std::to_string(h) + " " + gp_number(s.mean) + " " + std::to_string(s.n) + "\n";
    }
    plot += std::string(block ? ", \\\n     " : "plot ") +
            (block ? "''" : gp_string("data/" + stem + ".dat")) + " index " +
            std::to_string(block) + " using 1:2 with linespoints lw 2 pt 7 " + series_style(block) +
            " title " + gp_string(p.label);
    ++block;
  }
  if (block == 0) return {};
  std::string body =
      "set title 'Final MAE by forecast horizon (mean over seeds)'\n"
      "set xlabel 'horizon (steps ahead)'\nset ylabel 'MAE'\n"
      "set xrange [0.5:" +
      gp_number(double(most) + 0.5) + "]\n" +
      "set xtics 1\nset grid\nset key outside below height 1\n" + plot + "\n";
  int height = 500 + 24 * int(std::min<std::size_t>(block, 30));  // room for the key below
  return {{stem, data,
           script_header(stem, "Final MAE per forecast horizon per sweep point.") +
               gp_render(stem, 800, height, body)}};
}

}  // namespace ablate::experiments
