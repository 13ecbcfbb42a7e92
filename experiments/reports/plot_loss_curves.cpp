// val_loss: one line per sweep point (mean over its seeds at each evaluation step)
// inside a min-max band over those seeds.
#include <algorithm>
#include <map>

#include "experiments/reports/plot_figures.h"
#include "experiments/reports/plot_gnuplot.h"

namespace ablate::experiments {

std::vector<Figure> loss_curve_figures(const PlotRun& run) {
  const std::string stem = "val_loss";
  std::string data =
      "# Validation loss against step, one block per sweep point (gnuplot: index i).\n"
      "# Columns: step mean min max seeds (seeds = trials evaluated at that step;\n"
      "# fewer than the point's total where a seed stopped early).\n";
  std::string plot;
  std::size_t block = 0;
  double lo = INFINITY, hi = -INFINITY;
  for (const PlotPoint& p : run.points) {
    // Seeds usually evaluate at the same steps; where they do not, each step
    // averages the seeds that have it.
    std::map<std::int64_t, std::vector<double>> at;
    for (const PlotTrial& t : p.trials)
      for (const auto& [step, loss] : t.curve) at[step].push_back(loss);
    if (at.empty()) continue;
    data += std::string(block ? "\n\n" : "") + "# point " + std::to_string(block) + ": " +
            gp_comment(p.label) + "\n";
    for (const auto& [step, losses] : at) {
      Stats s = stats(losses);
      lo = std::min(lo, s.min);
      hi = std::max(hi, s.max);
      data += std::to_string(step) + " " + gp_number(s.mean) + " " + gp_number(s.min) + " " +
              gp_number(s.max) + " " + std::to_string(s.n) + "\n";
    }
    std::string index = " index " + std::to_string(block);
    std::string style = series_style(block);
    std::string source = block ? "''" : gp_string("data/" + stem + ".dat");
    plot += std::string(block ? ", \\\n     " : "plot ") + source + index +
            " using 1:3:4 with filledcurves " + style + " notitle, \\\n     ''" + index +
            (at.size() > 1 ? " using 1:2 with lines lw 2 " : " using 1:2 with points pt 7 ps 1 ") +
            style + " title " + gp_string(p.label);
    ++block;
  }
  if (block == 0) return {};

  std::string body =
      "set title 'Validation loss (line: mean over seeds; band: min to max over seeds)'\n"
      "set xlabel 'step'\nset ylabel 'val_loss'\n"
      "set grid\nset key outside below height 1\n"
      "set style fill transparent solid 0.2 noborder\n";
  // Spanning more than two decades, a linear axis would flatten everything after the
  // first evaluations.
  if (lo > 0 && hi / lo > 100) body += "set logscale y\n";
  body += plot + "\n";
  int height = 500 + 24 * int(std::min<std::size_t>(block, 30));  // room for the key below
  return {{stem, data,
           script_header(stem, "Validation loss against step per sweep point.") +
               gp_render(stem, 900, height, body)}};
}

}  // namespace ablate::experiments
