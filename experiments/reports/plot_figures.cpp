#include "experiments/reports/plot_figures.h"

#include <algorithm>

#include "experiments/reports/plot_gnuplot.h"

namespace ablate::experiments {

std::string script_header(const std::string& stem, const std::string& what) {
  return "# " + gp_comment(what) + "\n" +
         "# Written by `ablate report` (rerunning it overwrites this file). To restyle, edit\n"
         "# and run from this directory: gnuplot " +
         stem +
         ".gp\n"
         "# Data: data/" +
         stem + ".dat\n\n";
}

namespace {

// Colour-blind-safe hues (Okabe & Ito) that all read on white.
constexpr const char* kSeriesRgb[8] = {"0072b2", "d55e00", "009e73", "cc79a7",
                                       "e69f00", "56b4e9", "000000", "9400d3"};

}  // namespace

std::string series_colour(std::size_t i, const std::string& alpha) {
  return "rgb '#" + (alpha == "00" ? "" : alpha) + kSeriesRgb[i % 8] + "'";
}

std::string series_style(std::size_t i) {
  return "lc " + series_colour(i) + " dt " + std::to_string(i / 8 % 5 + 1);
}

const ComparisonRow* table_row(const ComparisonReport& table, std::size_t point,
                               const std::string& metric) {
  for (const ComparisonRow& r : table.rows)
    if (r.point == point && r.metric == metric) return &r;
  return nullptr;
}

std::string key_title(const std::string& legend_key, std::size_t& lines) {
  constexpr std::size_t kWidth = 70;  // characters
  std::vector<std::string> wrapped;
  std::size_t from = 0;
  while (from < legend_key.size()) {
    std::size_t end = legend_key.find(", ", from);
    std::string part = legend_key.substr(from, end == std::string::npos ? end : end - from);
    if (!wrapped.empty() && wrapped.back().size() + 2 + part.size() <= kWidth)
      wrapped.back() += ", " + part;
    else
      wrapped.push_back(part);
    from = end == std::string::npos ? legend_key.size() : end + 2;
  }
  lines = wrapped.size();
  return wrapped.empty() ? "" : " title " + gp_lines(wrapped);
}

int height_with_key(int base, std::size_t entries) {
  return base + 22 * int(std::min<std::size_t>(entries, 30));
}

}  // namespace ablate::experiments
