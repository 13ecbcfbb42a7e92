#include "experiments/reports/by_length_report.h"

#include <iomanip>
#include <sstream>

#include "experiments/config/report_spec.h"

namespace ablate::experiments {

std::string by_length_section(const RunPoints& run) {
  const std::string primary = run.metric.empty() ? test_metrics(run.task).front() : run.metric;
  std::vector<std::string> columns;  // the metric keys, in the run's order
  std::string kind;
  for (const std::string& m : run.test_metrics)
    for (const char* k : {"_len", "_ctx"})
      if (m.rfind(primary + k, 0) == 0 && m.size() > primary.size() + 4)
        columns.push_back(m), kind = k;
  if (columns.empty()) return "";
  const bool context = kind == "_ctx";
  std::vector<std::string> headers;
  if (context) columns.insert(columns.begin(), primary);  // at the training context
  for (const std::string& c : columns)
    headers.push_back(c == primary ? "T (training)" : c.substr(primary.size() + 4));
  std::ostringstream md;
  md << "\n## Test " << primary << " by " << (context ? "context" : "length") << "\n\n"
     << "Mean over seeds per sweep point (" << (higher_is_better(primary) ? "higher" : "lower")
     << " is better), "
     << (context ? "evaluated on the same test tokens with contexts of 2, 4, ... times the "
                   "training context"
                 : "per source length of the test set; lengths outside the training range measure "
                   "generalisation")
     << ". Intervals and verdicts per " << (context ? "context" : "length")
     << ": comparisons.csv (metric " << primary << kind << "<L>). Plot: plots/" << primary << "_by_"
     << (context ? "context" : "length") << ".svg.\n\n| point |";
  for (const std::string& h : headers) md << " " << h << " |";
  md << "\n|---|";
  for (std::size_t i = 0; i < headers.size(); ++i) md << "---|";
  md << "\n";
  for (const PointResults& p : run.points) {
    md << "| " << (p.label.empty() ? "all trials" : p.label) << " |";
    for (const std::string& c : columns) {
      double sum = 0;
      int n = 0;
      for (const auto& [seed, metrics] : p.test)
        if (auto it = metrics.find(c); it != metrics.end()) sum += it->second, ++n;
      md << " ";
      if (n) md << std::setprecision(4) << sum / n;
      md << " |";
    }
    md << "\n";
  }
  return md.str() + "\n";
}

}  // namespace ablate::experiments
