#pragma once
// The group-sequential design of an adaptive sweep ([sweep.adaptive] design =
// "group_sequential", config/adaptive_design.h): a part (a point against its baseline on
// one metric) is tested at each pre-planned look — the first block, then every block,
// up to the budget — by one-sided t-tests whose boundaries spend the part's level over
// the looks (group_sequential.h). Each expectation asks the tests of sequential_design.h
// ("gain" positive = better, δ a margin, m a min_effect):
//
//   question       agrees when rejected                 disagrees when rejected
//   better         gain ≤ m  (m = 0 without min_effect)  gain ≥ m
//   worse          gain ≥ −m                             gain ≤ −m
//   not_worse δ    gain ≤ −δ                             gain ≥ −δ
//   not_better δ   gain ≥ +δ                             gain ≤ +δ
//   equivalent δ   both gain ≤ −δ and gain ≥ +δ (TOST)   gain ≤ +δ, or gain ≥ −δ
//   difference     gain = 0, two-sided (better/worse); with a margin also TOST
//
// A test of "gain ≤ s" at look k rejects when t = (mean − s) / (sd/√n) reaches the t-scale
// boundary F_{n−1}^{-1}(Φ(c_k)). The tests that agree use the part's agree level (the
// difference question's two-sided one), those that disagree its disagree level (a claim
// over k points shares its disagree level by Bonferroni, while agreeing needs every
// point — intersection–union — at the full level).
//
// Futility is non-binding β-spending (β = 0.2, same spending function) under the effect
// the budget detects with 80 % power: a test whose statistic falls below its futility
// boundary cannot be expected to reach its verdict within the budget. A part whose
// agreeing and disagreeing tests are all futile gets no more seeds; the efficacy
// boundaries ignore futility, so its stop costs no error.
//
// The part's interval at a look is the repeated confidence interval mean ± c_t sd/√n at
// its level (Jennison and Turnbull, ch. 9): it covers the truth at every look at once
// with probability ≥ 1 − 2 × level, so it keeps its coverage after a stop chosen by the
// data, and it lies beyond a bound exactly when the test of that bound rejects.
#include <span>
#include <vector>

#include "experiments/stats/group_sequential.h"
#include "experiments/stats/sequential_design.h"

namespace ablate::experiments::stats {

// The type II error the futility boundaries spend, and the power that fixes their drift.
inline constexpr double kFutilityBeta = 0.2;

struct GroupSequentialPlan {
  Spending spending = Spending::power;
  bool futility = true;
  std::vector<double> looks;  // the planned pairs at each look; the last is the budget
};

// First block f, blocks of b, budget N: f, f + b, …, N.
std::vector<double> planned_looks(int first, int block, int budget);

// The boundaries (Z scale) at the last of `looks` — a part's looks so far — for tests at
// `level` (two-sided: `level` in total): efficacy (+∞ where the look spends nothing) and
// futility (−∞ without, and at the budget). Cached per plan, level and looks.
struct LookBounds {
  double efficacy, futility;
};
LookBounds bounds_at(const GroupSequentialPlan& plan, double level, bool two_sided,
                     std::span<const double> looks);

// The part after the look at its `gains` (every pair so far, oriented), at `round`.
void update_part_group_sequential(PartState& part, std::span<const double> gains, const Question& q,
                                  double agree_level, double disagree_level,
                                  const GroupSequentialPlan& plan, int round);

// The plan at `level` for one test (two-sided for the difference question), at a true
// standardised effect (mean gain / sd) beyond its bound: how often it decides, stops for
// futility, and the pairs it uses on average (the normal approximation the boundaries
// are computed with).
OperatingPoint planned_operating_point(const GroupSequentialPlan& plan, double level,
                                       bool two_sided, double effect);

}  // namespace ablate::experiments::stats
