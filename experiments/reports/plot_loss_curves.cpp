// val_loss and train_loss: per sweep point, every seed's curve as a thin faint line in
// the point's colour and the mean over its seeds bold. Every seed is drawn, not a band:
// a band over seeds hides which seed is the outlier, and several points' bands overlap
// into a wash.
#include <algorithm>
#include <cmath>
#include <map>

#include "experiments/reports/plot_figures.h"
#include "experiments/reports/plot_gnuplot.h"

namespace ablate::experiments {

namespace {

struct LossCurve {
  std::string stem;            // file name
  Curve PlotTrial::*curve;     // which of a trial's curves
  std::string title, meaning;  // the figure's title; what a value is
};

std::vector<Figure> curve_figure(const PlotRun& run, const LossCurve& which) {
  const ShortKeys names(run.keys);
  const std::string& stem = which.stem;
  std::string data = "# " + which.title + " against step (" + which.meaning +
                     "); per sweep point, two blocks (gnuplot: index 2p and 2p+1):\n"
                     "#   index 2p:   step mean seeds (the mean over the seeds evaluated at that "
                     "step; fewer than the point's total where a seed stopped early)\n"
                     "#   index 2p+1: step value, one line per seed (separated by a blank line)\n";
  std::string plot;
  std::size_t block = 0;
  double lo = INFINITY, hi = -INFINITY;
  for (const PlotPoint& p : run.points) {
    // Seeds usually evaluate at the same steps; where they do not, each step
    // averages the seeds that have it.
    std::map<std::int64_t, std::vector<double>> at;
    std::string seeds;
    for (const PlotTrial& t : p.trials) {
      const Curve& curve = t.*which.curve;
      if (curve.empty()) continue;
      seeds += std::string(seeds.empty() ? "" : "\n") + "# seed " + std::to_string(t.seed) +
               " (trial " + t.id + ")\n";
      for (const auto& [step, loss] : curve) {
        at[step].push_back(loss);
        seeds += std::to_string(step) + " " + gp_number(loss) + "\n";
        lo = std::min(lo, loss);
        hi = std::max(hi, loss);
      }
    }
    if (at.empty()) continue;
    const std::string label = run.keys.empty() ? p.label : names.label(p.values);
    data += std::string(block ? "\n\n" : "") + "# point " + std::to_string(block) + ": " +
            gp_comment(p.label) + ", mean over seeds\n";
    for (const auto& [step, losses] : at)
      data += std::to_string(step) + " " + gp_number(mean_of(losses)) + " " +
              std::to_string(losses.size()) + "\n";
    data += "\n\n# point " + std::to_string(block) + ": each seed\n" + seeds;
    const std::string source = block ? "''" : gp_string("data/" + stem + ".dat");
    const bool lines = at.size() > 1;
    plot += std::string(block ? ", \\\n     " : "plot ") + source + " index " +
            std::to_string(2 * block + 1) +
            (lines ? " using 1:2 with lines lw 1 lc " : " using 1:2 with points pt 7 ps 0.5 lc ") +
            series_colour(block, "b0") + " notitle, \\\n     '' index " +
            std::to_string(2 * block) +
            (lines ? " using 1:2 with lines lw 3 " : " using 1:2 with points pt 7 ps 1.2 ") +
            series_style(block) + " title " + gp_string(label);
    ++block;
  }
  if (block == 0) return {};

  std::size_t key_lines = 0;
  const std::string legend_key = names.legend_key();
  std::string body =
      "set title " +
      gp_lines({which.title + " (" + which.meaning + ")",
                "thin lines: each seed; bold line: the mean over the point's seeds"}) +
      "\nset xlabel 'step'\nset ylabel " + gp_string(stem) + "\n" +
      "set grid\nset key outside below maxrows 30" + key_title(legend_key, key_lines) + "\n";
  // Spanning more than two decades, a linear axis would flatten everything after the
  // first evaluations.
  if (lo > 0 && hi / lo > 100) body += "set logscale y\n";
  body += plot + "\n";
  const std::size_t entries = block + key_lines;
  return {{stem, data,
           script_header(stem, which.title + " against step per sweep point and seed.") +
               gp_render(stem, 900, height_with_key(500, entries), body)}};
}

}  // namespace

std::vector<Figure> loss_curve_figures(const PlotRun& run) {
  std::vector<Figure> figures;
  for (const LossCurve& which :
       {LossCurve{"val_loss", &PlotTrial::val_loss, "Validation loss",
                  "validation split, at each evaluation"},
        LossCurve{"train_loss", &PlotTrial::train_loss, "Training loss",
                  "mean over the training steps since the previous evaluation"}})
    for (Figure& f : curve_figure(run, which)) figures.push_back(std::move(f));
  return figures;
}

}  // namespace ablate::experiments
