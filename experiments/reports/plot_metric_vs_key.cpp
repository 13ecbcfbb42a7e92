// <metric>_vs_<key>: the headline table's metric against one swept key, drawn from the
// table's own numbers — each point's mean and 95% interval are its comparisons.csv row
// (test split, the step validation selected, [tune]'s chosen setting), so the plot and
// the table cannot disagree. Points that share the other keys' values form a series
// (a line), rather than being pooled across them: pooling would hide an interaction and
// give a spread the table has nowhere. The axis is categorical (values as written, in
// order of first appearance) because swept values are often names ("shared", "rope"),
// and numbers read from a TOML list are better shown as the list was written than
// re-spaced on a numeric axis.
#include <algorithm>
#include <set>

#include "experiments/config/report_spec.h"
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

// The sweep points that share the other keys' values, in order of first appearance.
struct Series {
  std::map<std::string, std::string> others;  // the other swept keys' values
  std::vector<std::size_t> points;            // indices into RunPoints::points
};

struct Axis {
  std::vector<std::string> values;  // the key's values, in order of first appearance
  std::vector<Series> series;
};

Axis axis_of(const RunPoints& run, const ComparisonReport& table, const std::string& key) {
  Axis axis;
  for (std::size_t i = 0; i < run.points.size(); ++i) {
    const PointResults& p = run.points[i];
    const ComparisonRow* row = table_row(table, i, table.metric);
    auto v = p.values.find(key);
    if (!row || row->summary.n == 0 || v == p.values.end()) continue;
    if (std::find(axis.values.begin(), axis.values.end(), v->second) == axis.values.end())
      axis.values.push_back(v->second);
    std::map<std::string, std::string> others = p.values;
    others.erase(key);
    auto s = std::find_if(axis.series.begin(), axis.series.end(),
                          [&](const Series& x) { return x.others == others; });
    if (s == axis.series.end()) s = axis.series.insert(axis.series.end(), Series{others, {}});
    s->points.push_back(i);
  }
  // A series' line runs along the axis, whatever order the sweep ran its points in.
  auto position = [&](std::size_t i) {
    return std::find(axis.values.begin(), axis.values.end(), run.points[i].values.at(key)) -
           axis.values.begin();
  };
  for (Series& s : axis.series)
    std::stable_sort(s.points.begin(), s.points.end(),
                     [&](std::size_t a, std::size_t b) { return position(a) < position(b); });
  return axis;
}

// Where series s of n sits around its value's position: side by side, so intervals of
// points with the same value do not hide each other.
double series_offset(std::size_t s, std::size_t n) {
  const double width = std::min(0.15, 0.6 / double(n));
  return (double(s) - (double(n) - 1) / 2) * width;
}

Figure figure(const RunPoints& run, const ComparisonReport& table, const std::string& key,
              const std::string& stem, const Axis& axis) {
  const std::string& metric = table.metric;
  const ShortKeys names(run.keys);
  std::vector<std::string> other_keys;
  for (const std::string& k : run.keys)
    if (k != key) other_keys.push_back(k);
  const std::string what = "test " + metric + " at the step validation selected against " + key;
  std::string data = "# " + gp_comment(what) +
                     "; x is the value's position on the axis (shifted a little per series).\n"
                     "# Per series (points sharing the other keys' values), two blocks:\n"
                     "#   index 2s:   x mean ci_low ci_high seeds (comparisons.csv's row: mean "
                     "and 95% interval over seeds, clipped to the metric's range)\n"
                     "#   index 2s+1: x value, one line per seed (the values averaged)\n";
  std::string plot;
  const std::size_t n_series = axis.series.size();
  for (std::size_t s = 0; s < n_series; ++s) {
    const Series& series = axis.series[s];
    const std::string label = names.label(series.others, other_keys);
    std::string means, seeds;
    for (std::size_t i : series.points) {
      const PointResults& p = run.points[i];
      const ComparisonRow& row = *table_row(table, i, metric);
      const std::size_t c =
          std::size_t(std::find(axis.values.begin(), axis.values.end(), p.values.at(key)) -
                      axis.values.begin());
      const double x = double(c) + series_offset(s, n_series);
      means += "# " + gp_comment(p.label) + "\n" + gp_number(x) + " " +
               gp_number(row.summary.mean) + " " + gp_number(row.summary.ci_low) + " " +
               gp_number(row.summary.ci_high) + " " + std::to_string(row.summary.n) + "\n";
      std::vector<double> values;
      for (const auto& [seed, metrics] : p.test)
        if (auto m = metrics.find(metric); m != metrics.end()) values.push_back(m->second);
      // A fixed spread, not random jitter: the same run draws the same picture.
      const double spread = std::min(0.15, 0.6 / double(n_series)) * 0.5;
      for (std::size_t j = 0; j < values.size(); ++j) {
        const double dx =
            values.size() > 1 ? spread * (double(j) / double(values.size() - 1) - 0.5) : 0.0;
        seeds += gp_number(x + dx) + " " + gp_number(values[j]) + "\n";
      }
    }
    data += std::string(s ? "\n\n" : "") + "# series " + std::to_string(s) + ": " +
            gp_comment(label.empty() ? "all points" : label) + "\n" + means + "\n\n" + "# series " +
            std::to_string(s) + ", seeds\n" + seeds;
    const std::string source = s ? "''" : gp_string("data/" + stem + ".dat");
    const std::string title = n_series == 1 ? "mean and 95% interval over seeds" : label;
    plot += std::string(s ? ", \\\n     " : "plot ") + source + " index " +
            std::to_string(2 * s + 1) + " using 1:2 with points pt 7 ps 0.5 lc " +
            series_colour(s, "a0") + " notitle, \\\n     '' index " + std::to_string(2 * s) +
            " using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 " + series_style(s) + " title " +
            gp_string(title);
  }

  std::string xtics;
  for (std::size_t c = 0; c < axis.values.size(); ++c)
    xtics += std::string(c ? ", " : "") + gp_string(axis.values[c]) + " " + std::to_string(c);
  const bool long_labels =
      axis.values.size() > 4 && std::any_of(axis.values.begin(), axis.values.end(),
                                            [](const std::string& v) { return v.size() > 8; });
  std::size_t key_lines = 0;
  const std::string legend_key = names.legend_key(other_keys);
  std::string body =
      "set title " +
      gp_lines({"Test " + metric + " by " + key + " (" +
                    (higher_is_better(metric) ? "higher" : "lower") + " is better)",
                "test split, validation-selected step: mean and 95% interval over seeds",
                "(as in comparisons.csv); dots: each seed's value"}) +
      "\nset xlabel " + gp_string(key) + "\nset ylabel " + gp_string("test " + metric) + "\n" +
      "set xrange [-0.5:" + gp_number(double(axis.values.size()) - 0.5) + "]\n" + "set xtics (" +
      xtics + ")" + (long_labels ? " rotate by -30" : "") + "\n" +
      "set grid ytics\nset key outside below maxrows 8" + key_title(legend_key, key_lines) +
      "\nset offsets 0, 0, graph 0.05, graph 0.05\n" + plot + "\n";
  const std::size_t entries = n_series + key_lines;
  return {stem, data,
          script_header(stem, "Test " + metric + " against " + key + ", from comparisons.csv.") +
              gp_render(stem, 800, height_with_key(520, std::min<std::size_t>(entries, 9)), body)};
}

}  // namespace

std::vector<Figure> metric_vs_key_figures(const RunPoints& run, const ComparisonReport& table) {
  std::vector<Figure> figures;
  std::set<std::string> stems;
  for (const std::string& key : run.keys) {
    const Axis axis = axis_of(run, table, key);
    if (axis.values.empty()) continue;
    // Two keys that differ only in characters file_safe replaces must not overwrite
    // each other's plot.
    std::string stem = table.metric + "_vs_" + file_safe(key);
    for (int n = 2; !stems.insert(stem).second; ++n)
      stem = table.metric + "_vs_" + file_safe(key) + "_" + std::to_string(n);
    figures.push_back(figure(run, table, key, stem, axis));
  }
  return figures;
}

}  // namespace ablate::experiments
