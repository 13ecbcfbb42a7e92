#pragma once
// The rules that turn a comparison's numbers into words — one place, used by
// comparisons.csv, summary.md, claims.csv and `ablate compare`. docs/reference/statistics.md
// ("How a verdict is reached") states them with a worked example each.
//
// A claim (config/claims_spec.h) asks two one-sided questions of each comparison it
// covers; "gain" below is the difference oriented so that positive is the metric's
// better direction:
//
//   expect        agrees when this is rejected    disagrees when this is rejected
//   better e      gain <= +e                      gain >= +e
//   worse e       gain >= -e  (harm <= e)         gain <= -e  (harm >= e)
//   not_worse δ   gain <= -δ  (harm >= δ)         gain >= -δ  (harm <= δ)
//   not_better δ  gain >= +δ                      gain <= +δ
//   equivalent δ  |gain| >= δ  (two one-sided     |gain| <= δ  (the one-sided test
//                 tests: the larger p)            toward the estimate: the smaller p)
//
// (e: the claim's min_effect, 0 without one) and is otherwise inconclusive. A claim
// over several comparisons (points, metrics) agrees only when every one does — an
// intersection–union test, whose p is the largest of its parts' and needs no
// adjustment within it — and disagrees when one does, with Bonferroni over its parts
// for that direction.
//
// One family per experiment file: its declared claims. Holm's step-down adjusts their
// p-values of each direction (margin tests and equivalence included); rows of the
// tables that are no claim are exploratory and keep unadjusted p-values. The same is
// done with the permutation p-values (resampling.h), and a verdict the t-test reaches
// but the permutation test at the same adjustment does not is said to rest on
// normality. A comparison without a test (no spread, too few seeds, other test data)
// gives p = 1 to both directions: never a verdict but inconclusive.
#include <optional>
#include <string>
#include <vector>

#include "experiments/stats/comparison.h"

namespace ablate::experiments::stats {

inline constexpr double kAlpha = 0.05;

enum class Expectation { better, worse, equivalent, not_worse, not_better };

// From the word an experiment file uses; throws std::invalid_argument otherwise.
Expectation expectation_from(const std::string& word);
bool needs_margin(Expectation e);

// One comparison's two questions, as raw p-values: the t-test's and the permutation
// test's. The defaults (1) are those of a comparison without a test.
struct ClaimTests {
  double agree = 1, disagree = 1;
  double agree_permutation = 1, disagree_permutation = 1;
};
// `margin` is used by equivalent / not_worse / not_better (0 for better / worse);
// `min_effect` by better / worse: the gain (or harm) asserted, 0 for any.
ClaimTests claim_tests(const Comparison& c, Expectation e, bool higher_is_better, double margin,
                       double min_effect = 0);

// A claim over several comparisons: the largest p to agree (intersection–union), and
// min(1, k × the smallest) to disagree.
ClaimTests combine_parts(const std::vector<ClaimTests>& parts);

enum class ClaimVerdict { agrees, disagrees, inconclusive };
const char* verdict_word(ClaimVerdict v);  // "agrees", "disagrees", "inconclusive"

// A family's decisions, in the order of `claims`.
struct ClaimDecision {
  double agree_adjusted = 1, disagree_adjusted = 1;  // Holm over the family
  double agree_permutation_adjusted = 1, disagree_permutation_adjusted = 1;
  ClaimVerdict verdict = ClaimVerdict::inconclusive;
  // The t-test decides; the permutation test, adjusted the same way, does not.
  bool rests_on_normality = false;
};
std::vector<ClaimDecision> decide_family(const std::vector<ClaimTests>& claims,
                                         double alpha = kAlpha);

// The verdict of an exploratory row (no claim, unadjusted): "better" / "worse" when the
// two-sided t-test is below alpha, "equivalent within ±δ" when a margin is given and
// the two one-sided tests are below it (both may hold: "better, within ±δ"), else
// "no detectable difference (±MDE)"; without a test, "inconclusive: " and why. A
// finding the two-sided permutation test does not reproduce adds "rests on normality
// (n = …)". `p_permutation`: that test's p when the caller has it already (it is
// computed otherwise, and only when needed).
std::string exploratory_verdict(const Comparison& c, bool higher_is_better,
                                std::optional<double> margin, double alpha = kAlpha,
                                std::optional<double> p_permutation = std::nullopt);

}  // namespace ablate::experiments::stats
