#include "experiments/runner/trial_order.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace ablate::experiments {

double predicted_cost(const TrialConfig& c) {
  const nn::TransformerConfig& m = c.model.transformer;
  double d = double(m.d_model), ff = double(m.d_ff);
  double per_layer = 4 * d * d + 2 * d * ff;  // attention projections + feed-forward
  double layers = double(m.encoder_layers) + 1.5 * double(m.decoder_layers);  // + cross-attention
  return double(c.train.steps) * double(c.train.batch) * per_layer * std::max(1.0, layers);
}

std::vector<std::size_t> longest_first(const std::vector<Trial>& trials) {
  std::vector<std::size_t> order(trials.size());
  std::vector<double> cost(trials.size());
  for (std::size_t i = 0; i < trials.size(); ++i) cost[i] = predicted_cost(trials[i].config);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
  return order;
}

std::vector<std::size_t> shard_trials(const std::vector<Trial>& trials, int k, int n) {
  if (n < 1 || k < 1 || k > n)
    throw std::invalid_argument("shard " + std::to_string(k) + "/" + std::to_string(n) +
                                ": need 1 <= K <= N");
  std::vector<double> load(std::size_t(n), 0.0);
  std::vector<std::size_t> mine;
  for (std::size_t i : longest_first(trials)) {
    std::size_t target = std::size_t(std::min_element(load.begin(), load.end()) - load.begin());
    load[target] += predicted_cost(trials[i].config);
    if (int(target) == k - 1) mine.push_back(i);
  }
  std::sort(mine.begin(), mine.end());
  return mine;
}

}  // namespace ablate::experiments
