#include "experiments/tasks/forecast_baselines.h"

#include <Eigen/Dense>

#include "experiments/tasks/forecast_metrics.h"

namespace ablate::experiments {

std::vector<double> naive_forecast(const std::vector<double>& history, std::int64_t horizon) {
  return std::vector<double>(std::size_t(horizon), history.back());
}

std::vector<double> seasonal_naive_forecast(const std::vector<double>& history,
                                            std::int64_t horizon, std::int64_t season) {
  const std::int64_t last = std::int64_t(history.size()) - 1;
  std::vector<double> out;
  for (std::int64_t h = 1; h <= horizon; ++h) {
    const std::int64_t periods = (h + season - 1) / season;  // ⌈h / m⌉: the latest observed season
    out.push_back(history[std::size_t(last + h - season * periods)]);
  }
  return out;
}

LinearBaseline::LinearBaseline(const SeriesTable& training, std::int64_t lookback,
                               std::int64_t horizon)
    : lookback_(lookback), horizon_(horizon) {
  const std::int64_t windows = training.steps - lookback - horizon + 1;
  for (std::int64_t s = 0; s < training.targets; ++s) {
    Eigen::MatrixXd x(windows, lookback + 1), y(windows, horizon);
    for (std::int64_t w = 0; w < windows; ++w) {
      for (std::int64_t l = 0; l < lookback; ++l) x(w, l) = training.value(w + l, s);
      x(w, lookback) = 1.0;  // the intercept
      for (std::int64_t h = 0; h < horizon; ++h) y(w, h) = training.value(w + lookback + h, s);
    }
    const Eigen::MatrixXd fit = x.completeOrthogonalDecomposition().solve(y);
    std::vector<double> weights(std::size_t((lookback + 1) * horizon));
    for (std::int64_t r = 0; r <= lookback; ++r)
      for (std::int64_t h = 0; h < horizon; ++h) weights[std::size_t(r * horizon + h)] = fit(r, h);
    weights_.push_back(std::move(weights));
  }
}

std::vector<double> LinearBaseline::forecast(std::int64_t target,
                                             const std::vector<double>& history) const {
  const std::vector<double>& w = weights_[std::size_t(target)];
  std::vector<double> out(static_cast<std::size_t>(horizon_));
  for (std::int64_t h = 0; h < horizon_; ++h) {
    double v = w[std::size_t(lookback_ * horizon_ + h)];
    for (std::int64_t l = 0; l < lookback_; ++l)
      v += w[std::size_t(l * horizon_ + h)] * history[std::size_t(l)];
    out[std::size_t(h)] = v;
  }
  return out;
}

const std::vector<std::string>& baseline_names() {
  static const std::vector<std::string> names{"naive", "seasonal_naive", "linear"};
  return names;
}

void put_baseline_metrics(Evaluation& e, const ForecastContext& context,
                          const std::vector<ForecastBatch>& windows, std::int64_t lookback,
                          std::int64_t horizon) {
  const LinearBaseline linear(context.training, lookback, horizon);
  const std::int64_t S = std::int64_t(context.metric_names.size());
  std::vector<ForecastScorer> scorers(3, ForecastScorer(context, horizon));
  for (const ForecastBatch& b : windows) {
    const std::int64_t B = b.x.shape()[0], C = b.x.shape()[2];
    for (std::int64_t i = 0; i < B; ++i) {
      std::vector<double> truth(std::size_t(horizon * S));
      for (std::size_t k = 0; k < truth.size(); ++k)
        truth[k] = b.y.at(i * horizon * S + std::int64_t(k));
      std::vector<std::vector<double>> forecasts(3, std::vector<double>(truth.size()));
      for (std::int64_t s = 0; s < S; ++s) {
        std::vector<double> history(static_cast<std::size_t>(lookback));
        for (std::int64_t l = 0; l < lookback; ++l)
          history[std::size_t(l)] = b.x.at((i * lookback + l) * C + s);
        const std::vector<double> by[3] = {
            naive_forecast(history, horizon),
            seasonal_naive_forecast(history, horizon, context.season), linear.forecast(s, history)};
        for (int k = 0; k < 3; ++k)
          for (std::int64_t h = 0; h < horizon; ++h)
            forecasts[std::size_t(k)][std::size_t(h * S + s)] = by[k][std::size_t(h)];
      }
      for (std::size_t k = 0; k < 3; ++k) scorers[k].add(forecasts[k], truth);
    }
  }
  for (std::size_t k = 0; k < 3; ++k)
    scorers[k].put(e, "baseline_" + baseline_names()[k] + "_", false);
}

}  // namespace ablate::experiments
