#pragma once
// results.csv (report.h): one row per trial, timings last.
#include <string>

#include "experiments/reports/run_rows.h"

namespace ablate::experiments {

std::string results_csv(const RunRows& run);

}  // namespace ablate::experiments
