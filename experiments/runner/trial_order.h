#pragma once
// Which trials run where and in what order, for sweeps split over shards (job arrays)
// or MPI ranks. Pure functions of the trial list, so every machine that expands the
// same file computes the same split.
#include <cstddef>
#include <vector>

#include "experiments/config/experiment.h"

namespace ablate::experiments {

// Predicted relative cost of a trial: multiply-adds per step × steps. Enough to order
// and balance trials, not a time estimate.
double predicted_cost(const TrialConfig& c);

// Indices (into `trials`) in longest-first order: predicted cost descending, file
// order among equals.
std::vector<std::size_t> longest_first(const std::vector<Trial>& trials);

// Indices of shard k (1-based) of n, in file order. Trials are dealt longest-first,
// each to the shard with the least predicted work so far (the lowest-numbered on a
// tie), so shards are balanced by work, not just by count.
std::vector<std::size_t> shard_trials(const std::vector<Trial>& trials, int k, int n);

}  // namespace ablate::experiments
