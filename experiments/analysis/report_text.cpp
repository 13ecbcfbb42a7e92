#include "experiments/analysis/report_text.h"

#include <cmath>
#include <cstdio>

namespace ablate::experiments {

std::string exact_number(double v) {
  if (std::isnan(v)) return "nan";
  char s[32];
  std::snprintf(s, sizeof s, "%.10g", v);
  return s;
}

std::string short_number(double v) {
  if (std::isnan(v)) return "nan";
  char s[32];
  std::snprintf(s, sizeof s, "%.4g", v);
  return s;
}

std::string p_text(double p) {
  char s[32];
  std::snprintf(s, sizeof s, p < 1e-4 ? "%.1e" : "%.4f", p);
  return s;
}

std::string difference_text(const stats::Comparison& c) {
  return std::string(c.diff > 0 ? "+" : "") + short_number(c.diff) + " [" +
         short_number(c.diff_ci_low) + ", " + short_number(c.diff_ci_high) + "]";
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace ablate::experiments
