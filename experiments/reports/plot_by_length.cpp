// <primary>_by_length: how the primary test metric changes with the test length (a
// symbolic task tested on lengths of its own: <primary>_len<L>) or with the evaluation
// context (a language model: <primary> at its training context T, <primary>_ctx<L> at
// 2T, 4T, ...), one line per sweep point, the mean over its seeds.
#include <algorithm>
#include <map>

#include "experiments/reports/plot_figures.h"
#include "experiments/reports/plot_gnuplot.h"

namespace ablate::experiments {

namespace {

// L → the trial's value, for keys <primary><kind><L>.
std::map<std::int64_t, double> by_length(const PlotTrial& t, const std::string& primary,
                                         const std::string& kind) {
  std::map<std::int64_t, double> out;
  const std::string prefix = primary + kind;
  for (const auto& [key, value] : t.test)
    if (key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0 &&
        key.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
      out[std::stoll(key.substr(prefix.size()))] = value;
  // A language model's base metric is at the training context, half the shortest longer one.
  if (kind == "_ctx" && !out.empty() && t.test.count(primary))
    out[out.begin()->first / 2] = t.test.at(primary);
  return out;
}

}  // namespace

std::vector<Figure> by_length_figures(const PlotRun& run) {
  std::string kind;
  for (const PlotPoint& p : run.points)
    for (const PlotTrial& t : p.trials)
      for (const char* k : {"_len", "_ctx"})
        if (kind.empty() && !by_length(t, run.primary, k).empty()) kind = k;
  if (kind.empty()) return {};
  const bool context = kind == "_ctx";
  const std::string stem = run.primary + "_by_" + (context ? "context" : "length");
  std::string data =
      "# Test " + run.primary + " by " + (context ? "evaluation context" : "test length") +
      ", one block per sweep point (gnuplot: index i).\n# Columns: length mean seeds\n";
  std::string plot;
  std::size_t block = 0;
  std::int64_t lo = 0, hi = 0;
  for (const PlotPoint& p : run.points) {
    std::map<std::int64_t, std::vector<double>> at;
    for (const PlotTrial& t : p.trials)
      for (const auto& [length, value] : by_length(t, run.primary, kind))
        at[length].push_back(value);
    if (at.empty()) continue;
    lo = block ? std::min(lo, at.begin()->first) : at.begin()->first;
    hi = block ? std::max(hi, at.rbegin()->first) : at.rbegin()->first;
    data += std::string(block ? "\n\n" : "") + "# point " + std::to_string(block) + ": " +
            gp_comment(p.label) + "\n";
    for (const auto& [length, values] : at) {
      Stats s = stats(values);
      data += std::to_string(length) + " " + gp_number(s.mean) + " " + std::to_string(s.n) + "\n";
    }
    plot += std::string(block ? ", \\\n     " : "plot ") +
            (block ? "''" : gp_string("data/" + stem + ".dat")) + " index " +
            std::to_string(block) + " using 1:2 with linespoints lw 2 pt 7 " + series_style(block) +
            " title " + gp_string(p.label);
    ++block;
  }
  const std::string xlabel = context
                                 ? "evaluation context (tokens; the first is the training context)"
                                 : "test length (source tokens)";
  std::string body = "set title " +
                     gp_string("Test " + run.primary + " by " + (context ? "context" : "length") +
                               " (mean over seeds)") +
                     "\nset xlabel " + gp_string(xlabel) + "\nset ylabel " +
                     gp_string(run.primary) + "\n" + (context ? "set logscale x 2\n" : "") +
                     "set xrange [" +
                     gp_number(double(lo) * (context ? 0.8 : 1.0) - (context ? 0 : 0.5)) + ":" +
                     gp_number(double(hi) * (context ? 1.25 : 1.0) + (context ? 0 : 0.5)) + "]\n" +
                     "set grid\nset key outside below height 1\n" + plot + "\n";
  int height = 500 + 24 * int(std::min<std::size_t>(block, 30));
  return {{stem, data,
           script_header(stem, "Test " + run.primary + " by " +
                                   (context ? "evaluation context" : "test length") +
                                   " per sweep point.") +
               gp_render(stem, 800, height, body)}};
}

}  // namespace ablate::experiments
