#pragma once
// The forecasting metrics of a held-out split, for the model and for each baseline
// alike: squared and absolute error in the model's units (overall and per horizon
// step), and per target series in the data's own units — MAE, RMSE, MASE and sMAPE.
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/records/ratio_metric.h"
#include "experiments/tasks/forecast_context.h"

namespace ablate::experiments {

// The in-sample MAE of the seasonal naive forecast with period m over steps [0, n) of
// column s: (1 / (n − m)) Σ_{t=m}^{n−1} |y_t − y_{t−m}| (MASE's denominator, Hyndman
// and Koehler 2006). Needs n > m.
double seasonal_naive_mae(const SeriesTable& data, std::int64_t s, std::int64_t n, std::int64_t m);

// One term of sMAPE (the M4 competition's), in percent: 200 |y − ŷ| / (|y| + |ŷ|); 0
// when y = ŷ = 0 (a perfect forecast of zero), where the formula is 0/0.
double smape_term(double y, double forecast);

// Accumulates windows of forecasts against the truth and puts the metrics into an
// Evaluation. Windows are the units of every standard error.
class ForecastScorer {
 public:
  ForecastScorer(const ForecastContext& context, std::int64_t horizon);

  // forecast and truth: one window, [horizon, targets] row-major, in the model's units.
  void add(const std::vector<double>& forecast, const std::vector<double>& truth);

  // Keys, each after `prefix`:
  //   mse, mae: over every value, model units (z-scored with normalize = true);
  //   mse_h<k>, mae_h<k>: per horizon step k = 1..horizon (with per_horizon);
  //   mase: mean over values of |y − ŷ| / d_s (d_s: the target's mase_denominator);
  //   smape: mean of smape_term over values, original units;
  //   per target <n>: mae_<n>, rmse_<n> (original units), mase_<n>, smape_<n>.
  void put(Evaluation& e, const std::string& prefix, bool per_horizon) const;

 private:
  const ForecastContext& context_;
  std::int64_t horizon_, targets_;
  std::vector<double> se_h_, ae_h_;  // sums per horizon step
  std::int64_t windows_ = 0;
  RatioMetric mse_, mae_, mase_, smape_;
  std::vector<RatioMetric> target_mae_, target_mse_, target_mase_, target_smape_;
};

// The context of a task that gives none (a plugin's forecasting task): targets named
// series1.., model units as original units, no MASE.
ForecastContext identity_context(std::int64_t targets);

}  // namespace ablate::experiments
