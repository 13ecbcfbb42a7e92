#pragma once
// How far a BatchNorm's batch statistics stray from its running statistics — what
// Shen et al. 2020 (PowerNorm, arXiv 2003.07845, §3 and Fig. 2) measure to show that
// NLP batches fluctuate far more than vision batches: per training batch, the "average
// Euclidean distance" (1/d)·‖μ_B − μ‖₂ of the means and (1/d)·‖σ²_B − σ²‖₂ of the
// variances over the d features, μ and σ² the running statistics as they were before
// this batch updated them (what evaluation would have normalised the batch with).
// σ²_B is the batch's unbiased variance, n/(n−1) times the biased one it normalises
// with: the quantity the running variance averages, so a batch exactly like the ones
// before it is at distance 0 (the paper does not say which; with its 4K-token batches
// the two differ by 0.025%).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "autograd/ops.h"
#include "nn/module.h"

namespace ablate::nn {

struct StatisticsDistance {
  double mean = 0, var = 0;
};

// One batch's distance (statistics as batch_norm reports them) from running statistics [d].
StatisticsDistance batch_statistics_distance(const BatchStatistics& batch,
                                             const Tensor& running_mean, const Tensor& running_var);

// Distances summed over training batches.
struct DistanceSums {
  double mean_sum = 0, var_sum = 0;
  std::int64_t batches = 0;
  void add(const StatisticsDistance& d);
  StatisticsDistance average() const;  // NaN with no batches
};

// What a BatchNorm module accumulates while recording (off until switched on: the
// copies of the running statistics cost a little on every step).
struct BatchStatisticsDrift {
  bool recording = false;
  DistanceSums interval;  // since the caller last reset it (ablate: the last evaluation)
  DistanceSums training;  // every training batch since recording began
  void record(const StatisticsDistance& d) {
    interval.add(d);
    training.add(d);
  }
};

// Every module under root that measures the drift (BatchNorm; other norms have no
// batch statistics), by dotted name, in module order.
std::vector<std::pair<std::string, BatchStatisticsDrift*>> batch_statistics_drift_modules(
    Module& root);

}  // namespace ablate::nn
