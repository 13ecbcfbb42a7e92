// The forecasting baselines and metrics against closed forms on tiny series: on a
// linear trend the naive error is the slope times the step ahead and the linear fit is
// exact; on a series of period m the seasonal naive forecast is exact (MASE 0); MASE
// divides by the training part's seasonal naive MAE; sMAPE is the M4 definition.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "experiments/tasks/forecast_baselines.h"
#include "experiments/tasks/forecast_metrics.h"

using namespace ablate;
using namespace ablate::experiments;

namespace {

SeriesTable one_series(const std::function<double(std::int64_t)>& f, std::int64_t steps) {
  SeriesTable t;
  t.steps = steps;
  t.series = t.targets = 1;
  t.names = {"y"};
  for (std::int64_t i = 0; i < steps; ++i) t.values.push_back(f(i));
  return t;
}

// Rolling-origin windows of one series: every origin in [first, last], as one batch.
ForecastBatch windows_of(const std::function<double(std::int64_t)>& f, std::int64_t first,
                         std::int64_t last, std::int64_t lookback, std::int64_t horizon) {
  const std::int64_t b = last - first + 1;
  Tensor x = Tensor::empty({b, lookback, 1}, DType::f32),
         y = Tensor::empty({b, horizon, 1}, DType::f32);
  for (std::int64_t i = 0; i < b; ++i) {
    for (std::int64_t l = 0; l < lookback; ++l)
      x.data<float>()[i * lookback + l] = float(f(first + i - lookback + l));
    for (std::int64_t h = 0; h < horizon; ++h)
      y.data<float>()[i * horizon + h] = float(f(first + i + h));
  }
  return {x, y};
}

ForecastContext context_of(const SeriesTable& training, std::int64_t season,
                           double mase_denominator) {
  ForecastContext c = identity_context(1);
  c.metric_names = {"y"};
  c.season = season;
  c.mase_denominator = {mase_denominator};
  c.training = training;
  return c;
}

}  // namespace

TEST_CASE("forecast baselines: naive and seasonal naive repeat the last value and the last season",
          "[forecast]") {
  const std::vector<double> history{1, 2, 3, 4, 5};
  CHECK(naive_forecast(history, 3) == std::vector<double>{5, 5, 5});
  // Season 2: steps 1, 2 repeat the last two (4, 5); step 3 repeats them again.
  CHECK(seasonal_naive_forecast(history, 3, 2) == std::vector<double>{4, 5, 4});
  CHECK(seasonal_naive_forecast(history, 2, 1) == std::vector<double>{5, 5});
  CHECK(seasonal_naive_forecast(history, 6, 5) == std::vector<double>{1, 2, 3, 4, 5, 1});
}

TEST_CASE(
    "forecast baselines on a linear trend: naive error is slope × step, seasonal naive slope × "
    "m⌈h/m⌉, "
    "linear exact",
    "[forecast]") {
  const auto trend = [](std::int64_t t) { return 2.0 * double(t) + 5.0; };
  const SeriesTable training = one_series(trend, 40);
  // MASE's denominator: the training part's seasonal naive MAE is |slope| × m = 4.
  CHECK(seasonal_naive_mae(training, 0, 40, 2) == Approx(4.0));
  const ForecastContext c = context_of(training, 2, 4.0);
  Evaluation e;
  put_baseline_metrics(e, c, {windows_of(trend, 40, 45, 4, 3)}, 4, 3);
  // Naive: errors 2, 4, 6 at every origin.
  CHECK(e.metrics["baseline_naive_mae"] == Approx(4.0));
  CHECK(e.metrics["baseline_naive_mse"] == Approx((4.0 + 16.0 + 36.0) / 3));
  CHECK(e.metrics["baseline_naive_mase"] == Approx(1.0));
  CHECK(e.metrics["baseline_naive_rmse_y"] == Approx(std::sqrt(56.0 / 3)));
  CHECK(e.standard_errors["baseline_naive_mae"] ==
        Approx(0.0).margin(1e-12));  // the same at every origin
  // Seasonal naive, m = 2: errors 4, 4, 8.
  CHECK(e.metrics["baseline_seasonal_naive_mae"] == Approx(16.0 / 3));
  CHECK(e.metrics["baseline_seasonal_naive_mase"] == Approx(4.0 / 3));
  // sMAPE = 200/(n h) Σ |y − ŷ| / (|y| + |ŷ|), here with y = 2(o + h − 1) + 5 and ŷ = 2(o − 1) + 5.
  double smape = 0;
  for (int o = 40; o <= 45; ++o)
    for (int h = 1; h <= 3; ++h)
      smape += 200.0 * 2 * h / ((2.0 * (o + h - 1) + 5) + (2.0 * (o - 1) + 5));
  CHECK(e.metrics["baseline_naive_smape"] == Approx(smape / 18));
  CHECK(e.metrics["baseline_naive_smape_y"] == Approx(smape / 18));
  // Linear with an intercept represents a trend exactly (the windows are collinear: the
  // minimum-norm solution still forecasts exactly).
  CHECK(e.metrics["baseline_linear_mae"] == Approx(0.0).margin(1e-6));
  CHECK(e.metrics["baseline_linear_mase"] == Approx(0.0).margin(1e-6));
}

TEST_CASE("forecast baselines on a period-m series: seasonal naive is exact, MASE and sMAPE 0",
          "[forecast]") {
  const double pattern[4] = {1, 3, 2, 5};
  const auto periodic = [&](std::int64_t t) { return pattern[t % 4]; };
  const SeriesTable training = one_series(periodic, 30);
  // Its training part is exact for the seasonal naive forecast: MASE would divide by 0,
  // so the denominator here is given (the task refuses such a target).
  CHECK(seasonal_naive_mae(training, 0, 30, 4) == 0.0);
  const ForecastContext c = context_of(training, 4, 1.5);
  Evaluation e;
  put_baseline_metrics(e, c, {windows_of(periodic, 30, 40, 4, 6)}, 4, 6);
  CHECK(e.metrics["baseline_seasonal_naive_mae"] == 0.0);
  CHECK(e.metrics["baseline_seasonal_naive_mase"] == 0.0);
  CHECK(e.metrics["baseline_seasonal_naive_smape"] == 0.0);
  CHECK(e.metrics["baseline_naive_mae"] > 0.5);
  // The linear fit on lookback 4 can represent the period too.
  CHECK(e.metrics["baseline_linear_mae"] == Approx(0.0).margin(1e-5));
}

TEST_CASE("forecast baselines: the linear fit recovers a linear recursion at every horizon step",
          "[forecast]") {
  // y_t = 1.8 y_{t-1} − 0.96 y_{t-2} + 1 (a slowly damped oscillation) is affine in the two values
  // before, so each horizon step is an affine function of the lookback window: the fit is exact.
  std::vector<double> z{5.0, 2.0};
  for (int t = 2; t < 80; ++t)
    z.push_back(1.8 * z[std::size_t(t - 1)] - 0.96 * z[std::size_t(t - 2)] + 1.0);
  const SeriesTable training = one_series([&](std::int64_t t) { return z[std::size_t(t)]; }, 60);
  const LinearBaseline linear(training, 3, 4);
  const std::vector<double> history{z[70], z[71], z[72]};
  const std::vector<double> forecast = linear.forecast(0, history);
  for (std::size_t h = 0; h < 4; ++h) CHECK(forecast[h] == Approx(z[73 + h]).epsilon(1e-6));
}

TEST_CASE(
    "forecast metrics: original units undo the z-scoring, MASE divides MAE by the denominator, "
    "sMAPE 0/0 is 0",
    "[forecast]") {
  CHECK(smape_term(1.0, 3.0) == Approx(100.0));
  CHECK(smape_term(-2.0, 2.0) == Approx(200.0));
  CHECK(smape_term(0.0, 0.0) == 0.0);
  ForecastContext c = identity_context(2);
  c.metric_names = {"a", "b"};
  c.scale = {10.0, 1.0};
  c.offset = {100.0, 0.0};
  c.mase_denominator = {2.0, 4.0};
  ForecastScorer scorer(c, 1);
  // One window, one step: a is off by 0.1 model units (1 original unit), b by 2.
  scorer.add({0.1, 2.0}, {0.0, 0.0});
  Evaluation e;
  scorer.put(e, "", true);
  CHECK(e.metrics["mae_a"] == Approx(1.0));
  CHECK(e.metrics["rmse_a"] == Approx(1.0));
  CHECK(e.metrics["mae_b"] == Approx(2.0));
  CHECK(e.metrics["mase_a"] == Approx(0.5));
  CHECK(e.metrics["mase_b"] == Approx(0.5));
  CHECK(e.metrics["mase"] == Approx(0.5));
  CHECK(e.metrics["mae"] == Approx((0.1 + 2.0) / 2));  // model units
  CHECK(e.metrics["mae_h1"] == Approx((0.1 + 2.0) / 2));
  // a: y = 100, ŷ = 101; b: y = 0, ŷ = 2 → 200.
  CHECK(e.metrics["smape_a"] == Approx(200.0 / 201));
  CHECK(e.metrics["smape_b"] == Approx(200.0));
  CHECK(e.metrics["smape"] == Approx((200.0 / 201 + 200.0) / 2));
}
