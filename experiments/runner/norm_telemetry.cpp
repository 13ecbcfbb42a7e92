#include "experiments/runner/norm_telemetry.h"

#include "nn/norms/batch_statistics_drift.h"

namespace ablate::experiments {

namespace {

using Sums = nn::DistanceSums nn::BatchStatisticsDrift::*;

std::vector<Evaluation::NormDrift> averages(nn::Module& model, Sums sums) {
  std::vector<Evaluation::NormDrift> out;
  for (auto& [name, drift] : nn::batch_statistics_drift_modules(model)) {
    const nn::StatisticsDistance d = (drift->*sums).average();
    out.push_back({name, d.mean, d.var});
  }
  return out;
}

}  // namespace

void start_norm_telemetry(nn::Module& model) {
  for (auto& [name, drift] : nn::batch_statistics_drift_modules(model)) drift->recording = true;
}

std::vector<Evaluation::NormDrift> take_norm_drift(nn::Module& model) {
  std::vector<Evaluation::NormDrift> out = averages(model, &nn::BatchStatisticsDrift::interval);
  for (auto& [name, drift] : nn::batch_statistics_drift_modules(model)) drift->interval = {};
  return out;
}

std::vector<Evaluation::NormDrift> norm_drift_over_training(nn::Module& model) {
  return averages(model, &nn::BatchStatisticsDrift::training);
}

}  // namespace ablate::experiments
