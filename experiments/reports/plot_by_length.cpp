// <metric>_by_length: how the headline test metric changes with the test length (a
// symbolic task tested on lengths of its own: <metric>_len<L>) or with the evaluation
// context (a language model: <metric> at its training context T, <metric>_ctx<L> at
// 2T, 4T, ...), one line per sweep point: the mean over seeds with its 95% interval,
// both from the point's comparisons.csv row of that metric, and each seed's value.
#include <algorithm>
#include <map>

#include "experiments/config/report_spec.h"
#include "experiments/reports/plot_figures.h"
#include "experiments/reports/plot_gnuplot.h"

namespace ablate::experiments {

namespace {

// L → the metric measured at length (or context) L, from the run's test metrics.
std::map<std::int64_t, std::string> length_metrics(const RunPoints& run, const std::string& metric,
                                                   const std::string& kind) {
  std::map<std::int64_t, std::string> out;
  const std::string prefix = metric + kind;
  for (const std::string& m : run.test_metrics)
    if (m.size() > prefix.size() && m.compare(0, prefix.size(), prefix) == 0 &&
        m.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
      out[std::stoll(m.substr(prefix.size()))] = m;
  // A language model's base metric is at the training context, half the shortest longer one.
  if (kind == "_ctx" && !out.empty()) out[out.begin()->first / 2] = metric;
  return out;
}

}  // namespace

std::vector<Figure> by_length_figures(const RunPoints& run, const ComparisonReport& table) {
  const std::string& metric = table.metric;
  std::string kind;
  std::map<std::int64_t, std::string> lengths;
  for (const char* k : {"_len", "_ctx"})
    if (kind.empty() && !(lengths = length_metrics(run, metric, k)).empty()) kind = k;
  if (kind.empty()) return {};
  const bool context = kind == "_ctx";
  const ShortKeys names(run.keys);
  const std::string stem = metric + "_by_" + (context ? "context" : "length");
  std::string data = "# Test " + metric + " by " +
                     (context ? "evaluation context" : "test length") +
                     "; per sweep point, two blocks (gnuplot: index 2p and 2p+1):\n"
                     "#   index 2p:   length mean ci_low ci_high seeds (comparisons.csv's row "
                     "of the metric at that length: mean and 95% interval over seeds)\n"
                     "#   index 2p+1: length value, one line per seed\n";
  std::string plot;
  std::size_t block = 0;
  for (std::size_t i = 0; i < run.points.size(); ++i) {
    const PointResults& p = run.points[i];
    std::string means, seeds;
    for (const auto& [length, m] : lengths) {
      const ComparisonRow* row = table_row(table, i, m);
      if (!row || row->summary.n == 0) continue;
      means += std::to_string(length) + " " + gp_number(row->summary.mean) + " " +
               gp_number(row->summary.ci_low) + " " + gp_number(row->summary.ci_high) + " " +
               std::to_string(row->summary.n) + "\n";
      for (const auto& [seed, metrics] : p.test)
        if (auto v = metrics.find(m); v != metrics.end())
          seeds += std::to_string(length) + " " + gp_number(v->second) + "\n";
    }
    if (means.empty()) continue;
    const std::string label = run.keys.empty() ? "all trials" : names.label(p.values);
    data += std::string(block ? "\n\n" : "") + "# point " + std::to_string(block) + ": " +
            gp_comment(p.label.empty() ? "all trials" : p.label) + "\n" + means + "\n\n# point " +
            std::to_string(block) + ": each seed\n" + seeds;
    plot += std::string(block ? ", \\\n     " : "plot ") +
            (block ? "''" : gp_string("data/" + stem + ".dat")) + " index " +
            std::to_string(2 * block + 1) + " using 1:2 with points pt 7 ps 0.5 lc " +
            series_colour(block, "a0") + " notitle, \\\n     '' index " +
            std::to_string(2 * block) + " using 1:2:3:4 with yerrorlines lw 2 pt 7 " +
            series_style(block) + " title " + gp_string(label);
    ++block;
  }
  if (block == 0) return {};
  const std::int64_t lo = lengths.begin()->first, hi = lengths.rbegin()->first;
  const std::string xlabel = context
                                 ? "evaluation context (tokens; the first is the training context)"
                                 : "test length (source tokens)";
  std::size_t key_lines = 0;
  const std::string legend_key = names.legend_key();
  std::string body =
      "set title " +
      gp_lines({"Test " + metric + " by " + (context ? "context" : "length") + " (" +
                    (higher_is_better(metric) ? "higher" : "lower") + " is better)",
                "test split, validation-selected step: mean and 95% interval over seeds",
                "(as in comparisons.csv); dots: each seed's value"}) +
      "\nset xlabel " + gp_string(xlabel) + "\nset ylabel " + gp_string("test " + metric) + "\n" +
      (context ? "set logscale x 2\n" : "") + "set xrange [" +
      gp_number(double(lo) * (context ? 0.8 : 1.0) - (context ? 0 : 0.5)) + ":" +
      gp_number(double(hi) * (context ? 1.25 : 1.0) + (context ? 0 : 0.5)) + "]\n" +
      "set grid\nset key outside below" + key_title(legend_key, key_lines) + "\n" + plot + "\n";
  const std::size_t entries = block + key_lines;
  return {{stem, data,
           script_header(stem, "Test " + metric + " by " +
                                   (context ? "evaluation context" : "test length") +
                                   " per sweep point, from comparisons.csv.") +
               gp_render(stem, 800, height_with_key(520, entries), body)}};
}

}  // namespace ablate::experiments
