// Attention heatmaps: for one trial of the best sweep point, the selected model's
// attention weights on the first validation example (attention.json, written by the
// trial runner), one figure per attention module with a panel per head. Each panel has
// its colour scale; masked cells (plot_attention_mask.h) are drawn grey with a cross,
// a colour the scale does not have, so a mask is not read as a learned weight of 0.
// The title says which trial is drawn and why; nothing is written below the panels,
// where it would collide with the axis labels.
#include <algorithm>
#include <filesystem>
#include <sstream>

#include "experiments/io/atomic_file.h"
#include "experiments/io/json_file.h"
#include "experiments/records/run_dir.h"
#include "experiments/reports/plot_attention_mask.h"
#include "experiments/reports/plot_figures.h"
#include "experiments/reports/plot_gnuplot.h"

namespace ablate::experiments {

// The trial whose attention is shown: the first finished trial of the point with the
// best mean primary metric at the last validation evaluation (ties: the earlier point).
// Validation, not test: which model to look at is not chosen on the test set. The
// record (run_record.cpp) keeps this trial's attention.json, so a rebuilt report draws
// the same trial.
const PlotTrial* attention_trial(const PlotRun& run) {
  const PlotTrial* best = nullptr;
  double best_value = 0;
  for (const PlotPoint& p : run.points) {
    std::vector<double> v;
    for (const PlotTrial& t : p.trials)
      if (t.final.count(run.primary)) v.push_back(t.final.at(run.primary));
    if (v.empty() || p.trials.empty()) continue;
    double mean = mean_of(v);
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

// The matrix of each head, one block per head; then, when the module masks anything,
// a last block with the masked cells as "key query" lines.
std::string heatmap_data(const nlohmann::json& heads, const AttentionMask& mask) {
  std::ostringstream data;
  for (std::size_t h = 0; h < heads.size(); ++h) {
    data << (h ? "\n\n" : "") << "# head " << h << ": weight[query][key], a row per query\n";
    for (const nlohmann::json& row : heads[h]) {
      for (std::size_t k = 0; k < row.size(); ++k)
        data << (k ? " " : "") << gp_number(row[k].get<double>());
      data << "\n";
    }
  }
  if (mask.any()) {
    data << "\n\n# masked cells (every head): key query\n";
    for (std::size_t q = 0; q < mask.masked.size(); ++q)
      for (std::size_t k = 0; k < mask.masked[q].size(); ++k)
        if (mask.masked[q][k]) data << k << " " << q << "\n";
  }
  return data.str();
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
  const ShortKeys names(run.keys);
  const std::string point = names.label(trial->point);
  const std::string legend_key = names.legend_key();
  const std::string which = "trial " + trial->id + " (seed " + std::to_string(trial->seed) + ")" +
                            (point.empty() ? "" : " of " + point) +
                            (legend_key.empty() ? "" : "   (" + legend_key + ")");
  const std::string why = "the first seed of the point with the best mean validation " +
                          run.primary + " (last evaluation)";
  for (const nlohmann::json& m : a.value("modules", nlohmann::json::array())) {
    std::string name = m["name"];
    const nlohmann::json& heads = m["weights"];
    if (heads.empty()) continue;
    std::string stem = "attention_" + name;
    std::replace(stem.begin(), stem.end(), '.', '_');
    const AttentionMask mask = attention_mask(m, a);
    const nlohmann::json& queries = a[m.value("queries", "source")];
    const nlohmann::json& keys = a[m.value("keys", "source")];
    std::string masked;
    for (const std::string& r : mask.reasons) masked += (masked.empty() ? "" : "; ") + r;
    std::vector<std::string> title{name + ": attention weights on the first validation example",
                                   which, why};
    if (mask.any()) title.push_back("grey with a cross: masked (" + masked + ")");
    const std::size_t panels = heads.size();
    const std::string source = gp_string("data/" + stem + ".dat");
    std::ostringstream body;
    // Fixed margins (screen fractions) leave the title lines above the panels and the
    // key labels below them; each panel's colour box sits in the gap to its right.
    body << "set multiplot layout 1," << panels << " title " << gp_lines(title) << " margins 0.07, "
         << gp_number(1.0 - 0.12 / double(panels)) << ", 0.16, " << (mask.any() ? "0.72" : "0.76")
         << " spacing 0.17, 0.1\n"
         << "set palette defined (0 '#ffffd9', 0.25 '#c7e9b4', 0.5 '#41b6c4', 0.75 '#225ea8', "
            "1 '#081d58')\n"
         << "set cbrange [0:1]\nset colorbox\nset cblabel 'attention weight'\nset cbtics 0.25\n"
         << "set xtics " << tics(keys) << " rotate by 90 right\nset ytics " << tics(queries)
         << "\nset xrange [-0.5:" << keys.size() << "-0.5]\nset yrange [" << queries.size()
         << "-0.5:-0.5]\nset xlabel 'key'\nset ylabel 'query'\nset size ratio -1\n";
    for (std::size_t h = 0; h < panels; ++h) {
      // The query label once, left of the first panel: between panels it would collide
      // with the colour box's label.
      body << (h == 1 ? "unset ylabel\n" : "") << "set title 'head " << h << "'\nplot " << source
           << " index " << h << " matrix with image notitle";
      if (mask.any())
        body << ", \\\n     " << source << " index " << panels
             << " using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' "
                "notitle, \\\n     "
             << source << " index " << panels
             << " using 1:2 with points pt 2 ps 1.2 lc rgb '#525252' notitle";
      body << "\n";
    }
    body << "unset multiplot\n";
    std::string script =
        script_header(stem, "Attention weights of " + name + " on the first validation example") +
        gp_render_each(stem, int(std::max<std::size_t>(900, 480 * panels + 120)), 600, body.str());
    figures.push_back({stem, heatmap_data(heads, mask), script, /*raster=*/true});
  }
  return figures;
}

}  // namespace ablate::experiments
