#pragma once
// How much memory one training step of a trial needs, from its config alone — checked
// before anything runs (model_factory.h), so a config that cannot fit is refused with
// its numbers instead of dying with a bare std::bad_alloc (or the kernel's OOM killer)
// once it has started. A lower bound in spirit: it counts what a step must hold at
// once, not the allocator's overheads, so it refuses only what surely cannot fit.
#include <cstdint>
#include <string>

#include "experiments/records/trial_config.h"
#include "experiments/tasks/task.h"

namespace ablate::experiments {

struct MemoryEstimate {
  double parameters = 0;   // bytes: weights, gradients and two optimizer moments (Adam's)
  double activations = 0;  // bytes a training step keeps for its backward, attention maps aside
  double attention = 0;  // bytes of attention maps: batch × heads × length² per attention module
  double evaluation = 0;  // bytes of an evaluation's forward (no gradient, one layer at a time)
  double total() const;   // parameters + the larger of training's and evaluation's share
};

// For a config whose model.max_len is resolved and whose model has at most
// `parameters` parameters (an upper bound is fine).
MemoryEstimate estimate_memory(const TrialConfig& config, const Task& task, double parameters);

// The machine's physical memory in bytes (sysconf), or 0 when it cannot be told.
double physical_memory_bytes();

// "" when the estimate fits in `limit_bytes`, else the message: the estimate, its parts
// with the numbers behind them, the limit, and what to lower.
std::string memory_problem(const TrialConfig& config, const MemoryEstimate& estimate,
                           double limit_bytes);

}  // namespace ablate::experiments
