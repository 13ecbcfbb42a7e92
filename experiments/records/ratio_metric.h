#pragma once
// A metric that is a ratio of sums over examples with its evaluation noise (shared by
// the sequence and forecasting evaluations).
#include <cmath>
#include <string>
#include <vector>

#include "experiments/records/evaluation.h"

namespace ablate::experiments {

// A metric that is a ratio of sums over examples, Σ a_i / Σ d_i (tokens correct over
// tokens, squared error over values, ...), with the standard error of the ratio
// estimator (first-order, examples as the sampling units): evaluation sets are a
// sample of the task, and this is how far another sample of the same size would move
// the metric.
class RatioMetric {
 public:
  void add(double numerator, double denominator) {
    a_.push_back(numerator);
    d_.push_back(denominator);
    sum_a_ += numerator;
    sum_d_ += denominator;
  }
  double value() const { return sum_d_ > 0 ? sum_a_ / sum_d_ : 0.0; }
  double standard_error() const {
    const std::size_t n = a_.size();
    if (n < 2 || sum_d_ <= 0) return 0.0;
    const double r = value();
    double ss = 0;
    for (std::size_t i = 0; i < n; ++i) ss += (a_[i] - r * d_[i]) * (a_[i] - r * d_[i]);
    return std::sqrt(ss * double(n) / double(n - 1)) / sum_d_;
  }
  void put(Evaluation& e, const std::string& name) const {
    e.metrics[name] = value();
    e.standard_errors[name] = standard_error();
  }

 private:
  std::vector<double> a_, d_;
  double sum_a_ = 0, sum_d_ = 0;
};

}  // namespace ablate::experiments
