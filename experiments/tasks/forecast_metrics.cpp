#include "experiments/tasks/forecast_metrics.h"

#include <cmath>

namespace ablate::experiments {

double seasonal_naive_mae(const SeriesTable& data, std::int64_t s, std::int64_t n, std::int64_t m) {
  double sum = 0;
  for (std::int64_t t = m; t < n; ++t) sum += std::abs(data.value(t, s) - data.value(t - m, s));
  return sum / double(n - m);
}

double smape_term(double y, double forecast) {
  const double denominator = std::abs(y) + std::abs(forecast);
  return denominator > 0 ? 200.0 * std::abs(y - forecast) / denominator : 0.0;
}

ForecastContext identity_context(std::int64_t targets) {
  ForecastContext c;
  for (std::int64_t s = 0; s < targets; ++s)
    c.metric_names.push_back("series" + std::to_string(s + 1));
  c.scale.assign(std::size_t(targets), 1.0);
  c.offset.assign(std::size_t(targets), 0.0);
  return c;
}

ForecastScorer::ForecastScorer(const ForecastContext& context, std::int64_t horizon)
    : context_(context),
      horizon_(horizon),
      targets_(std::int64_t(context.metric_names.size())),
      se_h_(std::size_t(horizon), 0.0),
      ae_h_(std::size_t(horizon), 0.0),
      target_mae_(std::size_t(targets_)),
      target_mse_(std::size_t(targets_)),
      target_mase_(std::size_t(targets_)),
      target_smape_(std::size_t(targets_)) {}

void ForecastScorer::add(const std::vector<double>& forecast, const std::vector<double>& truth) {
  const bool mase = !context_.mase_denominator.empty();
  double se = 0, ae = 0, scaled = 0, smape = 0;
  for (std::int64_t s = 0; s < targets_; ++s) {
    const std::size_t si = std::size_t(s);
    double t_se = 0, t_ae = 0, t_smape = 0;
    for (std::int64_t h = 0; h < horizon_; ++h) {
      const std::size_t k = std::size_t(h * targets_ + s);
      const double d = forecast[k] - truth[k];
      se += d * d;
      ae += std::abs(d);
      se_h_[std::size_t(h)] += d * d;
      ae_h_[std::size_t(h)] += std::abs(d);
      // Original units: z-scoring is affine, so the error only scales.
      const double y = truth[k] * context_.scale[si] + context_.offset[si];
      const double f = forecast[k] * context_.scale[si] + context_.offset[si];
      t_se += (y - f) * (y - f);
      t_ae += std::abs(y - f);
      t_smape += smape_term(y, f);
    }
    target_mse_[si].add(t_se, double(horizon_));
    target_mae_[si].add(t_ae, double(horizon_));
    target_smape_[si].add(t_smape, double(horizon_));
    smape += t_smape;
    if (mase) {
      target_mase_[si].add(t_ae / context_.mase_denominator[si], double(horizon_));
      scaled += t_ae / context_.mase_denominator[si];
    }
  }
  const double values = double(horizon_ * targets_);
  mse_.add(se, values);
  mae_.add(ae, values);
  smape_.add(smape, values);
  if (mase) mase_.add(scaled, values);
  ++windows_;
}

void ForecastScorer::put(Evaluation& e, const std::string& prefix, bool per_horizon) const {
  const bool mase = !context_.mase_denominator.empty();
  mse_.put(e, prefix + "mse");
  mae_.put(e, prefix + "mae");
  smape_.put(e, prefix + "smape");
  if (mase) mase_.put(e, prefix + "mase");
  if (per_horizon) {
    const double count = double(windows_ * targets_);  // values per horizon step
    for (std::int64_t h = 0; h < horizon_; ++h) {
      const std::string k = std::to_string(h + 1);
      e.metrics[prefix + "mse_h" + k] = count > 0 ? se_h_[std::size_t(h)] / count : 0.0;
      e.metrics[prefix + "mae_h" + k] = count > 0 ? ae_h_[std::size_t(h)] / count : 0.0;
    }
  }
  for (std::int64_t s = 0; s < targets_; ++s) {
    const std::size_t si = std::size_t(s);
    const std::string& name = context_.metric_names[si];
    target_mae_[si].put(e, prefix + "mae_" + name);
    target_smape_[si].put(e, prefix + "smape_" + name);
    if (mase) target_mase_[si].put(e, prefix + "mase_" + name);
    // RMSE = sqrt(MSE); its standard error by the delta method, se(MSE) / (2 RMSE).
    const double mse = target_mse_[si].value(), rmse = std::sqrt(mse);
    e.metrics[prefix + "rmse_" + name] = rmse;
    e.standard_errors[prefix + "rmse_" + name] =
        rmse > 0 ? target_mse_[si].standard_error() / (2 * rmse) : 0.0;
  }
}

}  // namespace ablate::experiments
