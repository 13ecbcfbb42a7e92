#pragma once
// Learning-rate schedules, the "schedule" axis: constant | linear_warmup | noam | cosine.
// The training loop asks lr(step) before each optimizer step; steps count from 1.
#include <cstdint>

#include "nn/registry.h"

namespace ablate::nn {

class Schedule {
 public:
  virtual ~Schedule() = default;
  // The learning rate of update number `step` (>= 1; throws std::invalid_argument below).
  double lr(std::int64_t step) const;

 protected:
  virtual double lr_at(std::int64_t step) const = 0;
};

// Factories receive the optimizer's base learning rate, the run's total number of
// steps and the model width (the Noam formula scales with d_model^-0.5).
using ScheduleRegistry =
    Registry<Schedule, double /*base_lr*/, std::int64_t /*total_steps*/, std::int64_t /*d_model*/>;
ScheduleRegistry& schedule_registry();

}  // namespace ablate::nn
