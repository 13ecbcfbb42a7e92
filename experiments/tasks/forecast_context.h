#pragma once
// What a forecast task tells its evaluation beyond the windows: how the model's
// (z-scored) numbers map back to the data's units, the scale MASE divides by, and the
// training part the linear baseline is fitted on.
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/tasks/forecast_data.h"

namespace ablate::experiments {

struct ForecastContext {
  // Per target series: its name in metric keys (mae_<name>), and original value =
  // model value × scale + offset (the training part's standard deviation and mean with
  // normalize = true; 1 and 0 without).
  std::vector<std::string> metric_names;
  std::vector<double> scale, offset;
  // The period of the seasonal naive forecast and of MASE's denominator (1 = naive).
  std::int64_t season = 1;
  // Per target: the in-sample MAE, in original units, of the seasonal naive forecast
  // on the training part, (1 / (n - m)) Σ_{t=m}^{n-1} |y_t − y_{t−m}| (MASE's denominator).
  std::vector<double> mase_denominator;
  // The training part's target columns, in the model's units.
  SeriesTable training;
};

}  // namespace ablate::experiments
