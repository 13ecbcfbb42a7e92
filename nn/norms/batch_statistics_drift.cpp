#include "nn/norms/batch_statistics_drift.h"

#include <cmath>
#include <stdexcept>

#include "nn/norms/norm.h"

namespace ablate::nn {

StatisticsDistance batch_statistics_distance(const BatchStatistics& batch,
                                             const Tensor& running_mean,
                                             const Tensor& running_var) {
  const std::size_t d = batch.mean.size();
  if (d == 0 || batch.variance.size() != d || std::size_t(running_mean.numel()) != d ||
      std::size_t(running_var.numel()) != d || batch.rows < 2)
    throw std::invalid_argument(
        "batch_statistics_distance: statistics of mismatched widths or fewer than 2 rows");
  const double unbiased = double(batch.rows) / double(batch.rows - 1);
  double mean_sq = 0, var_sq = 0;
  for (std::size_t j = 0; j < d; ++j) {
    const double dm = batch.mean[j] - running_mean.at(std::int64_t(j));
    const double dv = batch.variance[j] * unbiased - running_var.at(std::int64_t(j));
    mean_sq += dm * dm;
    var_sq += dv * dv;
  }
  return {std::sqrt(mean_sq) / double(d), std::sqrt(var_sq) / double(d)};
}

void DistanceSums::add(const StatisticsDistance& d) {
  mean_sum += d.mean;
  var_sum += d.var;
  ++batches;
}

StatisticsDistance DistanceSums::average() const {
  if (batches == 0) return {NAN, NAN};
  return {mean_sum / double(batches), var_sum / double(batches)};
}

std::vector<std::pair<std::string, BatchStatisticsDrift*>> batch_statistics_drift_modules(
    Module& root) {
  std::vector<std::pair<std::string, BatchStatisticsDrift*>> out;
  for (auto& [name, m] : root.named_modules())
    if (auto* norm = dynamic_cast<Norm*>(m))
      if (BatchStatisticsDrift* drift = norm->batch_statistics_drift())
        out.emplace_back(name, drift);
  return out;
}

}  // namespace ablate::nn
