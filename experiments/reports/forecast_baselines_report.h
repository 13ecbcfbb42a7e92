#pragma once
// summary.md's "Baselines" section for a forecasting run: the naive, seasonal naive and
// linear forecasts' test metrics (stored in every trial's summary.json as
// baseline_<name>_<metric>, the same for every trial on the same data) beside each
// sweep point's mean over seeds of the same metrics.
#include <string>

#include "experiments/analysis/point_results.h"

namespace ablate::experiments {

// "" for a sequence run, or a forecasting run whose trials hold no baselines (older runs).
std::string forecast_baselines_section(const std::string& run_dir, const RunPoints& run);

}  // namespace ablate::experiments
