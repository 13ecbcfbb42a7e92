#pragma once
// How the comparison reports write numbers and CSV fields: full precision in the CSV
// files (they are data), four significant digits in summary.md's tables.
#include <string>

#include "experiments/stats/comparison.h"

namespace ablate::experiments {

std::string exact_number(double v);  // %.10g; "nan"
std::string short_number(double v);  // %.4g; "nan"
std::string p_text(double p);        // 0.0123, or 1.2e-05 below 1e-4
// "+0.012 [0.004, 0.02]": a comparison's difference with its interval.
std::string difference_text(const stats::Comparison& c);
// Quoted (quotes doubled) when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& s);

}  // namespace ablate::experiments
