// The forecasting half of the Evaluator: on a held-out split, the model's MSE and MAE
// (model units, overall and per horizon step) and per target series in the data's
// units (MAE, RMSE, MASE, sMAPE) — experiments/tasks/forecast_metrics.h. On test,
// the naive, seasonal naive and linear baselines on the same windows with the same
// metrics (baseline_<name>_<metric>), so every trial's record holds what it is to be
// compared with.
#include <algorithm>
#include <cmath>

#include "experiments/runner/evaluation.h"
#include "experiments/runner/stop_signal.h"
#include "experiments/tasks/forecast_baselines.h"
#include "experiments/tasks/forecast_metrics.h"

namespace ablate::experiments {

namespace {

constexpr std::int64_t kForecastExamples = 4;

// Window i of batch b (x [B, lookback, inputs], whose first S channels are the targets),
// with the model's forecast of it.
Evaluator::ForecastExample forecast_example(const ForecastBatch& b, const Tensor& pred,
                                            std::int64_t i, std::int64_t window) {
  const std::int64_t L = b.x.shape()[1], inputs = b.x.shape()[2];
  const std::int64_t H = b.y.shape()[1], S = b.y.shape()[2];
  Evaluator::ForecastExample e;
  e.window = window;
  e.history.assign(std::size_t(S), {});
  e.truth.assign(std::size_t(S), {});
  e.forecast.assign(std::size_t(S), {});
  for (std::int64_t s = 0; s < S; ++s) {
    for (std::int64_t t = 0; t < L; ++t) e.history[s].push_back(b.x.at((i * L + t) * inputs + s));
    for (std::int64_t h = 0; h < H; ++h) {
      e.truth[s].push_back(b.y.at((i * H + h) * S + s));
      e.forecast[s].push_back(pred.at((i * H + h) * S + s));
    }
  }
  return e;
}

}  // namespace

Evaluation Evaluator::evaluate_forecast(Split split) {
  Tape& tape = Tape::current();
  NoGradGuard no_grad;
  auto cached = windows_.find(split);
  if (cached == windows_.end())
    cached = windows_
                 .emplace(split,
                          task_.forecast_evaluation_batches(split, config_.train.validation_batch))
                 .first;
  const std::int64_t H = task_.horizon(), S = task_.series();
  const ForecastContext fallback = identity_context(S);
  const ForecastContext& context = task_.forecast_context() ? *task_.forecast_context() : fallback;
  ForecastScorer scorer(context, H);
  // The test windows report.html shows: kForecastExamples of them, evenly spaced.
  std::int64_t windows = 0, window = 0;
  for (const ForecastBatch& b : cached->second) windows += b.y.shape()[0];
  const std::int64_t spacing = std::max<std::int64_t>(1, windows / kForecastExamples);
  if (split == Split::test) test_forecasts_.clear();
  for (const ForecastBatch& b : cached->second) {
    throw_if_stopped();  // a stop must not wait for the rest of the split
    Tensor pred = model_.regressor->forward(constant(b.x)).value();
    const std::int64_t B = b.y.shape()[0];
    std::vector<double> forecast(std::size_t(H * S)), truth(std::size_t(H * S));
    for (std::int64_t i = 0; i < B; ++i) {
      for (std::int64_t k = 0; k < H * S; ++k) {
        forecast[std::size_t(k)] = pred.at(i * H * S + k);
        truth[std::size_t(k)] = b.y.at(i * H * S + k);
      }
      scorer.add(forecast, truth);
      if (split == Split::test && window % spacing == 0 &&
          std::int64_t(test_forecasts_.size()) < kForecastExamples)
        test_forecasts_.push_back(forecast_example(b, pred, i, window));
      ++window;
    }
    tape.reset();
  }
  Evaluation e;
  scorer.put(e, "", true);
  if (split == Split::test && task_.forecast_context())
    put_baseline_metrics(e, context, cached->second, task_.lookback(), H);
  e.loss = e.metrics["mse"];
  e.standard_errors["loss"] = e.standard_errors["mse"];
  return e;
}

}  // namespace ablate::experiments
