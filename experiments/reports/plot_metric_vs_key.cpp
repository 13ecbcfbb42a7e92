// <primary>_vs_<key>: the primary metric's final value against one swept key. The
// axis is categorical (values as written, in order of first appearance) because swept
// values are often names ("shared", "rope"), and numbers read from a TOML list are
// better shown as the list was written than re-spaced on a numeric axis.
#include <algorithm>
#include <set>

#include "experiments/reports/plot_figures.h"
#include "experiments/reports/plot_gnuplot.h"

namespace ablate::experiments {

namespace {

// Keys become part of a file name: keep it to characters no shell or Markdown link
// needs quoting for.
std::string file_safe(const std::string& key) {
  std::string out;
  for (char c : key) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == '_';
    out += ok ? c : '_';
  }
  return out;
}

struct Category {
  std::string value;
  std::vector<double> trials;  // the primary metric of each trial with this value
};

Figure figure(const PlotRun& run, const std::string& key, const std::string& stem,
              const std::vector<Category>& categories) {
  std::string data = "# " + run.primary + " (final) against " + gp_comment(key) +
                     "; x is the value's position on the axis.\n"
                     "# Block 0 (index 0), one line per trial: x (spread a little per value) " +
                     run.primary +
                     "\n# Block 1 (index 1), one line per value: x mean std trials"
                     " (sample std over every trial with that value, whatever the other keys)\n";
  std::string means = "\n\n";
  std::string xtics;
  for (std::size_t c = 0; c < categories.size(); ++c) {
    const Category& cat = categories[c];
    std::size_t n = cat.trials.size();
    data += "# " + gp_comment(key) + " = " + gp_comment(cat.value) + "\n";
    for (std::size_t j = 0; j < n; ++j) {
      // A fixed spread, not random jitter: the same run draws the same picture.
      double x = double(c) + (n > 1 ? 0.3 * (double(j) / double(n - 1) - 0.5) : 0.0);
      data += gp_number(x) + " " + gp_number(cat.trials[j]) + "\n";
    }
    Stats s = stats(cat.trials);
    means += "# " + gp_comment(cat.value) + "\n" + std::to_string(c) + " " + gp_number(s.mean) +
             " " + gp_number(s.std) + " " + std::to_string(s.n) + "\n";
    xtics += std::string(c ? ", " : "") + gp_string(cat.value) + " " + std::to_string(c);
  }
  data += means;

  bool long_labels =
      categories.size() > 4 && std::any_of(categories.begin(), categories.end(),
                                           [](const Category& c) { return c.value.size() > 8; });
  std::string source = gp_string("data/" + stem + ".dat");
  std::string body =
      "set title " +
      gp_string(run.primary + " (final, " + (run.higher_is_better ? "higher" : "lower") +
                " is better) by " + key) +
      "\nset xlabel " + gp_string(key) + "\nset ylabel " + gp_string(run.primary) + "\n" +
      "set xrange [-0.5:" + gp_number(double(categories.size()) - 0.5) + "]\n" + "set xtics (" +
      xtics + ")" + (long_labels ? " rotate by -30" : "") + "\n" +
      "set grid ytics\nset key outside below height 1\nset offsets 0, 0, graph 0.05, graph 0.05\n" +
      "plot " + source +
      " index 0 using 1:2 with points pt 7 ps 0.9 lc rgb '#60377eb8' title 'trials', \\\n" +
      "     '' index 1 using 1:2:3 with yerrorbars pt 5 ps 1.3 lw 2 lc rgb '#e41a1c'" +
      " title 'mean +/- std over all trials with this value'\n";
  return {stem, data,
          script_header(stem, run.primary + " (final) against " + key + ".") +
              gp_render(stem, 800, 520, body)};
}

}  // namespace

std::vector<Figure> metric_vs_key_figures(const PlotRun& run) {
  std::vector<Figure> figures;
  std::set<std::string> stems;
  for (const std::string& key : run.keys) {
    std::vector<Category> categories;
    for (const PlotPoint& p : run.points)
      for (const PlotTrial& t : p.trials) {
        auto v = t.point.find(key);
        auto m = t.final.find(run.primary);
        if (v == t.point.end() || m == t.final.end()) continue;
        auto c = std::find_if(categories.begin(), categories.end(),
                              [&](const Category& cat) { return cat.value == v->second; });
        if (c == categories.end()) c = categories.insert(categories.end(), Category{v->second, {}});
        c->trials.push_back(m->second);
      }
    if (categories.empty()) continue;
    // Two keys that differ only in characters file_safe replaces must not overwrite
    // each other's plot.
    std::string stem = run.primary + "_vs_" + file_safe(key);
    for (int n = 2; !stems.insert(stem).second; ++n)
      stem = run.primary + "_vs_" + file_safe(key) + "_" + std::to_string(n);
    figures.push_back(figure(run, key, stem, categories));
  }
  return figures;
}

}  // namespace ablate::experiments
