// The built-in schedules. Each is a few lines of arithmetic, so they share a file.
#include "nn/optim/schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace ablate::nn {

double Schedule::lr(std::int64_t step) const {
  if (step < 1)
    throw std::invalid_argument("schedule: steps count from 1, got step " + std::to_string(step));
  return lr_at(step);
}

namespace {

// The base learning rate is the optimizer's "lr"; every schedule but noam needs it.
void check_base_lr(const std::string& component, double base_lr) {
  if (!std::isfinite(base_lr) || base_lr < 0)
    throw std::invalid_argument(component +
                                ": the base learning rate must be finite and >= 0, got " +
                                option_to_string(base_lr));
}

// lr = base_lr at every step.
class ConstantSchedule : public Schedule {
 public:
  explicit ConstantSchedule(double base_lr) : base_lr_(base_lr) {}

 private:
  double lr_at(std::int64_t) const override { return base_lr_; }
  double base_lr_;
};

// lr = base_lr · min(1, step / warmup): a linear ramp reaching base_lr at step = warmup,
// then constant. warmup = 0 is the constant schedule.
class LinearWarmupSchedule : public Schedule {
 public:
  LinearWarmupSchedule(double base_lr, std::int64_t warmup) : base_lr_(base_lr), warmup_(warmup) {}

 private:
  double lr_at(std::int64_t step) const override {
    if (step >= warmup_) return base_lr_;
    return base_lr_ * double(step) / double(warmup_);
  }
  double base_lr_;
  std::int64_t warmup_;
};

// "Attention Is All You Need" §5.3:
//   lr = factor · d_model^-0.5 · min(step^-0.5, step · warmup^-1.5)
// rising linearly to its peak factor · (d_model · warmup)^-0.5 at step = warmup, then
// decaying as step^-0.5. The paper's formula sets the scale itself, so the base
// learning rate is ignored — unless scale_to_lr, which rescales the same shape so the
// peak equals base_lr: lr = base_lr · min(sqrt(warmup / step), step / warmup) (then
// factor and d_model cancel).
class NoamSchedule : public Schedule {
 public:
  NoamSchedule(double factor, std::int64_t d_model, std::int64_t warmup, bool scale_to_lr,
               double base_lr)
      : warmup_(double(warmup)),
        scale_(scale_to_lr ? base_lr * std::sqrt(warmup_) : factor / std::sqrt(double(d_model))) {}

 private:
  double lr_at(std::int64_t step) const override {
    const double s = double(step);
    return scale_ * std::min(1.0 / std::sqrt(s), s * std::pow(warmup_, -1.5));
  }
  double warmup_;
  double scale_;  // factor · d_model^-0.5, or base_lr · sqrt(warmup) when scale_to_lr
};

// Linear warm-up to base_lr over `warmup` steps, then half a cosine down to min_lr at
// total_steps (and min_lr after it):
//   step <= warmup:  base_lr · step / warmup
//   otherwise:       p = min(1, (step - warmup) / (total_steps - warmup))
//                    min_lr + (base_lr - min_lr) · (1 + cos(π·p)) / 2
class CosineSchedule : public Schedule {
 public:
  CosineSchedule(double base_lr, double min_lr, std::int64_t warmup, std::int64_t total_steps)
      : base_lr_(base_lr), min_lr_(min_lr), warmup_(warmup), total_steps_(total_steps) {}

 private:
  double lr_at(std::int64_t step) const override {
    if (step <= warmup_) return base_lr_ * double(step) / double(warmup_);
    const double p = std::min(1.0, double(step - warmup_) / double(total_steps_ - warmup_));
    return min_lr_ + (base_lr_ - min_lr_) * 0.5 * (1 + std::cos(std::numbers::pi * p));
  }
  double base_lr_, min_lr_;
  std::int64_t warmup_, total_steps_;
};

void register_schedules(ScheduleRegistry& r) {
  r.add(
      {"constant",
       "the base learning rate at every step",
       {},
       [](const Options&, double base_lr, std::int64_t, std::int64_t) -> std::unique_ptr<Schedule> {
         check_base_lr("schedule 'constant'", base_lr);
         return std::make_unique<ConstantSchedule>(base_lr);
       }});

  r.add({"linear_warmup",
         "linear warm-up to the base learning rate, then constant",
         {{"warmup", std::int64_t(4000), "steps to reach the base learning rate", 0.0}},
         [](const Options& o, double base_lr, std::int64_t,
            std::int64_t) -> std::unique_ptr<Schedule> {
           check_base_lr("schedule 'linear_warmup'", base_lr);
           return std::make_unique<LinearWarmupSchedule>(base_lr, o.get_int("warmup"));
         }});

  r.add({"noam",
         "factor·d_model^-0.5·min(step^-0.5, step·warmup^-1.5) (Vaswani et al. 2017, §5.3); "
         "ignores the base learning rate unless scale_to_lr",
         {{"warmup", std::int64_t(4000), "step of the peak learning rate", 1.0},
          {"factor", 1.0, "multiplies the paper's formula", 0.0},
          {"scale_to_lr", false,
           "rescale so the peak (at step = warmup) equals the base learning rate"}},
         [](const Options& o, double base_lr, std::int64_t,
            std::int64_t d_model) -> std::unique_ptr<Schedule> {
           const bool scale_to_lr = o.get_bool("scale_to_lr");
           if (scale_to_lr) check_base_lr("schedule 'noam'", base_lr);
           if (d_model < 1)
             throw std::invalid_argument("schedule 'noam': d_model must be >= 1, got " +
                                         std::to_string(d_model));
           return std::make_unique<NoamSchedule>(o.get_float("factor"), d_model,
                                                 o.get_int("warmup"), scale_to_lr, base_lr);
         }});

  r.add({"cosine",
         "linear warm-up, then cosine decay to min_lr at the last step",
         {{"warmup", std::int64_t(0), "steps of linear warm-up to the base learning rate", 0.0},
          {"min_lr", 0.0, "learning rate at the last step (at most the base learning rate)", 0.0}},
         [](const Options& o, double base_lr, std::int64_t total_steps,
            std::int64_t) -> std::unique_ptr<Schedule> {
           check_base_lr("schedule 'cosine'", base_lr);
           const std::int64_t warmup = o.get_int("warmup");
           const double min_lr = o.get_float("min_lr");
           std::vector<OptionIssue> issues;
           if (warmup >= total_steps)
             issues.push_back({"warmup", "option 'warmup' = " + std::to_string(warmup) +
                                             " must be below the total steps (" +
                                             std::to_string(total_steps) + ") to leave a decay"});
           if (min_lr > base_lr)
             issues.push_back({"min_lr", "option 'min_lr' = " + option_to_string(min_lr) +
                                             " must not exceed the base learning rate " +
                                             option_to_string(base_lr)});
           if (!issues.empty()) throw OptionError("schedule 'cosine'", std::move(issues));
           return std::make_unique<CosineSchedule>(base_lr, min_lr, warmup, total_steps);
         }});
}

}  // namespace

ScheduleRegistry& schedule_registry() {
  static ScheduleRegistry registry = [] {
    ScheduleRegistry r("schedule");
    register_schedules(r);
    return r;
  }();
  return registry;
}

}  // namespace ablate::nn
