// The forecasting half of the Evaluator: held-out MSE and MAE, overall (windows as the
// units of the standard error) and per horizon step.
#include <cmath>

#include "experiments/runner/evaluation.h"
#include "experiments/runner/ratio_metric.h"

namespace ablate::experiments {

Evaluation Evaluator::evaluate_forecast(Split split) {
  Tape& tape = Tape::current();
  NoGradGuard no_grad;
  auto cached = windows_.find(split);
  if (cached == windows_.end())
    cached = windows_.emplace(split, task_.forecast_evaluation_batches(split, config_.train.validation_batch)).first;
  std::int64_t H = task_.horizon();
  std::vector<double> se(std::size_t(H), 0.0), ae(std::size_t(H), 0.0);
  RatioMetric mse_metric, mae_metric;  // windows as the units
  std::int64_t count = 0;  // values per horizon step
  for (const ForecastBatch& b : cached->second) {
    Tensor pred = model_.regressor->forward(constant(b.x)).value();
    std::int64_t B = b.y.shape()[0], S = b.y.shape()[2];
    for (std::int64_t i = 0; i < B; ++i) {
      double window_se = 0, window_ae = 0;
      for (std::int64_t h = 0; h < H; ++h)
        for (std::int64_t s = 0; s < S; ++s) {
          std::int64_t k = (i * H + h) * S + s;
          double d = pred.at(k) - b.y.at(k);
          se[std::size_t(h)] += d * d;
          ae[std::size_t(h)] += std::abs(d);
          window_se += d * d;
          window_ae += std::abs(d);
        }
      mse_metric.add(window_se, double(H * S));
      mae_metric.add(window_ae, double(H * S));
    }
    count += B * S;
    tape.reset();
  }
  Evaluation e;
  for (std::int64_t h = 0; h < H; ++h) {
    e.metrics["mse_h" + std::to_string(h + 1)] = count ? se[std::size_t(h)] / double(count) : 0.0;
    e.metrics["mae_h" + std::to_string(h + 1)] = count ? ae[std::size_t(h)] / double(count) : 0.0;
  }
  mse_metric.put(e, "mse");
  mae_metric.put(e, "mae");
  e.loss = e.metrics["mse"];
  e.standard_errors["loss"] = e.standard_errors["mse"];
  return e;
}

}  // namespace ablate::experiments
