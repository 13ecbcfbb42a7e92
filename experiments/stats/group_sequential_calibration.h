#pragma once
// Calibration of the group-sequential design, the adaptive sweep's default, by simulation
// (`ablate selftest stats`, before the confidence sequence's table of
// adaptive_calibration.h). A family of questions on synthetic paired gains of known truth
// is run round by round exactly as the runner runs it (analysis/adaptive_schedule.cpp):
// start_family, then decide_family_round once a look — a first block of 5 or 10 seeds,
// then 5 a round up to a budget of 40, α = 0.05, power-family spending (ρ = 2) with
// futility — with a block more for every part that part_needs_seeds, until none does. The
// rates that must hold are tallied as the fixed design's are (calibration.h): false
// decisions at most α for every claim kind at its null or margin (better and worse at 0,
// not_worse at −δ, not_better at +δ, equivalent at ±δ, better by a min_effect at that
// gain, the difference question at 0), a claim over 3 points (intersection–union to
// agree, Bonferroni to disagree), families of 3 and 7 questions (the graphical procedure's
// recycling), with normal, heavy-tailed (t, 3 df), skewed (a centred exponential: shown,
// not judged, beside the fixed design's t-test on the same gains) and discrete gains; the repeated
// confidence interval's coverage after the stop; and the targets of the design: power at least 0.80
// at a true gain of 0.5 sd and at most 17 seeds on average at 1 sd. A second table shows power and
// seeds at 0.5, 1 and 2 sd beside the seeds of a fixed design of equal power.
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/stats/adaptive_calibration.h"
#include "experiments/stats/calibration.h"
#include "experiments/stats/sequential_family.h"

namespace ablate::experiments::stats {

// One simulated question of a family: what it asks, and each part's paired gains (the
// budget's worth, in seed order, drawn before the design looks at them).
struct SimulatedQuestion {
  Question question;
  std::vector<std::vector<double>> gains;  // per part
};

// A family after the design: the questions as the last round left them, and the pairs
// each part used.
struct SimulatedFamily {
  std::vector<FamilyQuestion> questions;
  std::vector<std::vector<int>> seeds;  // per question, per part
};

// The runner's default design for `design`'s rounds: group-sequential, power-family
// spending, futility, looks planned_looks(first_block, block, max_seeds), α.
SequentialDesign default_sequential_design(const AdaptiveDesign& design);

// The family run as the adaptive sweep runs it: round r asks decide_family_round of every
// part's first seeds; a part that part_needs_seeds gets `block` more (up to the budget);
// the run ends when no part gets more.
SimulatedFamily run_family(const std::vector<SimulatedQuestion>& questions,
                           const SequentialDesign& sequential, const AdaptiveDesign& design);

// A true gain of the difference question (normal gains): how often the design decided
// "better" by the budget, the seeds it used, and the seeds of a fixed design of that power.
struct GroupSequentialPowerRow {
  int first_block = 5;
  double effect = 0;  // the true mean gain in sd; 0 is the A/A study
  // Decided "better" (the A/A study: "better" or "worse", at most α); at 0.5 sd with the
  // first block of 5 judged against the target power, else shown.
  CalibrationRow decided;
  double mean_seeds = 0, seeds_low = 0, seeds_high = 0;  // the mean and its 95 % interval
  std::string seeds_bound;  // "≤ 17" at 1 sd with the first block of 5, else "" (shown)
  bool seeds_pass = true;   // the interval reaches the bound
  double futile = 0, open_at_budget = 0;  // shares stopped for futility, open at the budget
  int fixed_seeds = 0;  // fixed_design_seeds at the power reached (0 for the A/A study)
};

struct GroupSequentialCalibration {
  AdaptiveDesign design;  // blocks of 5, budget 40, α = 0.05 (first blocks 5 and 10)
  Calibration decisions;  // false decisions (≤ α) and coverage, every row its datasets
  std::vector<GroupSequentialPowerRow> power;  // per first block: A/A, then growing effects
  bool passes() const;
  std::string markdown() const;  // both tables, as docs/reference/adaptive.md shows them
};

// `datasets` simulated studies per scenario (fewer for the families of 7), from `seed`.
GroupSequentialCalibration calibrate_group_sequential(int datasets, std::uint64_t seed);

}  // namespace ablate::experiments::stats
