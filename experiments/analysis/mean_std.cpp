#include "experiments/analysis/mean_std.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace ablate::experiments {

MeanStd mean_std(const std::vector<double>& v) {
  MeanStd m;
  m.n = int(v.size());
  if (v.empty()) return m;
  for (double x : v) m.mean += x;
  m.mean /= double(v.size());
  if (v.size() > 1) {
    for (double x : v) m.std += (x - m.mean) * (x - m.mean);
    m.std = std::sqrt(m.std / double(v.size() - 1));
  }
  return m;
}

std::string format(const MeanStd& m) {
  if (m.n == 0) return "—";
  std::ostringstream s;
  s << std::setprecision(4) << m.mean;
  if (m.n > 1) s << " ± " << std::setprecision(2) << m.std;
  return s.str();
}

std::string format_mean(const std::vector<double>& v) {
  if (v.empty()) return "";
  std::ostringstream s;
  s << std::setprecision(4) << mean_std(v).mean;
  return s.str();
}

}  // namespace ablate::experiments
