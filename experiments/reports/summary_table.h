#pragma once
// summary.md up to its appended sections and plots (report.h): the title, the
// comparisons, the validation table of every sweep point, what computed the trials and
// which are missing.
#include <string>

#include "experiments/reports/comparison_report.h"
#include "experiments/reports/run_rows.h"

namespace ablate::experiments {

std::string summary_table(const RunRows& run, const ComparisonReport& comparisons);

}  // namespace ablate::experiments
