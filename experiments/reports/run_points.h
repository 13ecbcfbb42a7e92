#pragma once
// A run's sweep points with their test and curve metrics (RunPoints, report.h), from
// the run as read (run_rows.h).
#include <string>

#include "experiments/reports/report.h"
#include "experiments/reports/run_rows.h"

namespace ablate::experiments {

// The sweep points with their trials' test metrics, in trial order; with [tune], each
// point's trials of its chosen setting.
RunPoints points_of(const RunRows& run, const std::string& run_name);

// The run directory's name, also for a path that ends in '/'.
std::string run_name(const std::string& run_dir);

}  // namespace ablate::experiments
