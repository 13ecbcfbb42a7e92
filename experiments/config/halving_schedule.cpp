#include "experiments/config/halving_schedule.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

namespace ablate::experiments {

std::int64_t rung_step(double fraction, std::int64_t steps, std::int64_t eval_every) {
  const double target = fraction * double(steps);
  // Candidates: the multiples of eval_every around the target, and the last step.
  const std::int64_t below = std::max<std::int64_t>(
      eval_every, std::int64_t(std::floor(target / double(eval_every))) * eval_every);
  std::int64_t best = std::min(below, steps);
  for (std::int64_t candidate : {below + eval_every, steps}) {
    candidate = std::min(candidate, steps);
    if (std::abs(double(candidate) - target) <= std::abs(double(best) - target) && candidate > best)
      best = candidate;
  }
  return best;
}

std::vector<std::int64_t> rung_steps(const HalvingSchedule& schedule, std::int64_t steps,
                                     std::int64_t eval_every) {
  std::vector<std::int64_t> out;
  for (double f : schedule.rungs) out.push_back(rung_step(f, steps, eval_every));
  return out;
}

std::size_t settings_kept(double keep, std::size_t running) {
  const double kept = std::ceil(keep * double(running) - 1e-9);
  return std::clamp<std::size_t>(std::size_t(std::max(0.0, kept)), 1,
                                 std::max<std::size_t>(1, running));
}

std::string halving_text(const HalvingSchedule& schedule) {
  std::ostringstream out;
  out << "rungs at ";
  for (std::size_t i = 0; i < schedule.rungs.size(); ++i)
    out << (i ? ", " : "") << schedule.rungs[i];
  out << " of train.steps, keeping " << schedule.keep;
  return out.str();
}

}  // namespace ablate::experiments

namespace ablate::experiments {}  // namespace ablate::experiments
