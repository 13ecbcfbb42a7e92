#include "experiments/reports/plots.h"

#include <filesystem>

#include "experiments/io/atomic_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/plot_figures.h"
#include "experiments/reports/plot_gnuplot.h"
#include "experiments/reports/plot_run.h"

namespace ablate::experiments {

std::vector<std::string> write_plots(const std::string& run_dir, const nlohmann::json& trial_index,
                                     const RunPoints& points, const ComparisonReport& table) {
  PlotRun run = load_plot_run(run_dir, trial_index);
  std::vector<Figure> figures;
  for (std::vector<Figure> built :
       {loss_curve_figures(run), metric_vs_key_figures(points, table), horizon_figures(run),
        by_length_figures(points, table), attention_figures(run, run_dir)})
    for (Figure& f : built) figures.push_back(std::move(f));
  if (figures.empty()) return {};

  std::string dir = RunDir(run_dir).plots();
  std::filesystem::create_directories(dir + "/data");
  std::vector<std::string> images;
  for (const Figure& f : figures) {
    write_file_atomically(dir + "/data/" + f.stem + ".dat", f.data);
    write_file_atomically(dir + "/" + f.stem + ".gp", f.script);
    render_plot(dir, f.stem);
    // Relative to the run directory (summary.md's links): the SVG, smaller than the
    // PNG for lines and sharp at any size, or for a heatmap the PNG.
    images.push_back(std::string(RunDir::kPlots) + "/" + f.stem + (f.raster ? ".png" : ".svg"));
  }
  return images;
}

}  // namespace ablate::experiments
