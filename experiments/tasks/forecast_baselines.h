#pragma once
// The baselines every forecasting model is shown next to, each forecasting one target
// series from its own lookback window (the model's units; all three are equivariant
// under the z-scoring, so their errors in original units are those of the same
// forecasts made on the raw series):
//   naive: the last value, at every horizon step;
//   seasonal naive: the value one period back, ŷ_{T+h} = y_{T+h−m⌈h/m⌉} (m = season);
//   linear: ŷ_{T+h} = b_h + Σ_l w_{h,l} y_{T−L+1+l}, a least-squares fit per target and
//     horizon step over every training window (DLinear's "Linear", one per series).
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/records/evaluation.h"
#include "experiments/tasks/forecast_context.h"
#include "experiments/tasks/task.h"

namespace ablate::experiments {

// history: the lookback window of one series, oldest first. Both return `horizon` values.
std::vector<double> naive_forecast(const std::vector<double>& history, std::int64_t horizon);
std::vector<double> seasonal_naive_forecast(const std::vector<double>& history,
                                            std::int64_t horizon,
                                            std::int64_t season);  // 1 ≤ season ≤ history.size()

class LinearBaseline {
 public:
  // Fits, for each target s of `training`, the (lookback + 1) × horizon weights W_s
  // minimising Σ_windows ‖[x, 1] W_s − y‖² over every window (start 0 .. steps −
  // lookback − horizon) of its training steps: x the lookback values, y the next
  // horizon values. Solved by Eigen's complete orthogonal decomposition, which gives the
  // minimum-norm solution when the windows do not determine W_s (a collinear series).
  LinearBaseline(const SeriesTable& training, std::int64_t lookback, std::int64_t horizon);
  std::vector<double> forecast(std::int64_t target, const std::vector<double>& history) const;

 private:
  std::int64_t lookback_, horizon_;
  std::vector<std::vector<double>> weights_;  // per target, [(lookback + 1) × horizon] row-major
};

// The three baselines scored on `windows` (x's first context.metric_names.size()
// channels are the targets) with the metrics of ForecastScorer, under the keys
// baseline_naive_<metric>, baseline_seasonal_naive_<metric> and baseline_linear_<metric>.
void put_baseline_metrics(Evaluation& e, const ForecastContext& context,
                          const std::vector<ForecastBatch>& windows, std::int64_t lookback,
                          std::int64_t horizon);

// The baselines' names in metric keys, in the order reports show them.
const std::vector<std::string>& baseline_names();  // naive, seasonal_naive, linear

}  // namespace ablate::experiments
