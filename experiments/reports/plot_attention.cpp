// Attention heatmaps: for one trial of the best sweep point, the final model's
// attention weights on the first validation example (attention.json, written by the
// trial runner), one figure per attention module with a panel per head.
#include <algorithm>
#include <filesystem>
#include <sstream>

#include "experiments/io/atomic_file.h"
#include "experiments/io/json_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/plot_figures.h"
#include "experiments/reports/plot_gnuplot.h"

namespace ablate::experiments {

// The trial whose attention is shown: the first trial of the point with the best
// mean primary metric (ties: the earlier point).
const PlotTrial* attention_trial(const PlotRun& run) {
  const PlotTrial* best = nullptr;
  double best_value = 0;
  for (const PlotPoint& p : run.points) {
    std::vector<double> v;
    for (const PlotTrial& t : p.trials)
      if (t.final.count(run.primary)) v.push_back(t.final.at(run.primary));
    if (v.empty() || p.trials.empty()) continue;
    double mean = stats(v).mean;
    if (!best || (run.higher_is_better ? mean > best_value : mean < best_value)) {
      best = &p.trials.front();
      best_value = mean;
    }
  }
  return best;
}

namespace {

std::string tics(const nlohmann::json& tokens) {
  std::ostringstream s;
  s << "(";
  for (std::size_t i = 0; i < tokens.size(); ++i)
    s << (i ? ", " : "") << gp_string(tokens[i].get<std::string>()) << " " << i;
  s << ")";
  return s.str();
}

}  // namespace

std::vector<Figure> attention_figures(const PlotRun& run, const std::string& run_dir) {
  std::vector<Figure> figures;
  if (run.forecast) return figures;
  const PlotTrial* trial = attention_trial(run);
  if (!trial) return figures;
  std::string path = RunDir(run_dir).trial(trial->id).attention();
  if (!std::filesystem::exists(path)) return figures;
  nlohmann::json a;
  try {
    a = read_json_file(path);
  } catch (const std::exception&) {
    return figures;  // an unreadable map is not worth failing the report for
  }
  std::string label;
  for (const auto& [k, v] : trial->point) label += (label.empty() ? "" : " ") + k + "=" + v;
  for (const nlohmann::json& m : a.value("modules", nlohmann::json::array())) {
    std::string name = m["name"];
    const nlohmann::json& heads = m["weights"];
    if (heads.empty()) continue;
    std::string stem = "attention_" + name;
    std::replace(stem.begin(), stem.end(), '.', '_');
    std::ostringstream data;
    for (std::size_t h = 0; h < heads.size(); ++h) {
      if (h) data << "\n\n";
      for (const nlohmann::json& row : heads[h]) {
        for (std::size_t k = 0; k < row.size(); ++k)
          data << (k ? " " : "") << gp_number(row[k].get<double>());
        data << "\n";
      }
    }
    const nlohmann::json& queries = a[m.value("queries", "source")];
    const nlohmann::json& keys = a[m.value("keys", "source")];
    std::ostringstream body;
    // The point's values go in a footer line: in the title they would not fit.
    body << "set multiplot layout 1," << heads.size() << " title "
         << gp_string(name + "   (trial " + trial->id + ")") << "\n"
         << (label.empty()
                 ? ""
                 : "set label 1 " + gp_string(label) + " at screen 0.5, screen 0.015 center\n")
         << "set palette defined (0 '#ffffff', 1 '#08306b')\nset cbrange [0:1]\nunset colorbox\n"
         << "set xtics " << tics(keys) << " rotate by 90 right\nset ytics " << tics(queries) << "\n"
         << "set yrange [] reverse\nset xlabel 'key'\nset ylabel 'query'\nset size ratio -1\n";
    for (std::size_t h = 0; h < heads.size(); ++h)
      body << "set title 'head " << h << "'\nplot 'data/" << stem << ".dat' index " << h
           << " matrix with image notitle\n";
    body << "unset multiplot\n";
    std::string script =
        script_header(stem, "Attention weights of " + name + " on the first validation example") +
        gp_render_each(stem, int(std::max<std::size_t>(820, 360 * heads.size() + 80)), 500,
                       body.str());
    figures.push_back({stem, data.str(), script});
  }
  return figures;
}

}  // namespace ablate::experiments
