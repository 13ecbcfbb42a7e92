#include "experiments/reports/plot_figures.h"

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

std::string series_style(std::size_t i) {
  return "lc " + std::to_string(i % 8 + 1) + " dt " + std::to_string(i / 8 % 5 + 1);
}

}  // namespace ablate::experiments
