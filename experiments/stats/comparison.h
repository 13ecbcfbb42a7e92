#pragma once
// The statistics of a report: a mean with its confidence interval, and the comparison
// of a sweep point with its baseline over seeds — paired t when every seed is paired,
// Welch's t otherwise — with the difference's interval, two-sided and one-sided
// p-values at any bound (the margin tests and equivalence by two one-sided tests), an
// effect size and the smallest difference the design could detect. The distributions
// are Boost.Math's (Student's t and the noncentral t); tests/golden/stats_fixtures.json
// holds SciPy's and statsmodels' numbers for the same inputs, which
// tests/experiments/stats_test.cpp compares.
//
// A comparison without a test says why (`no_test`): with no spread in the differences
// (every seed gave the same difference, or both points the same constant) the
// t statistic is not defined, and ablate reports no p-value rather than 0 or 1.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace ablate::experiments::stats {

// n, mean, sample standard deviation (n - 1) and the t-based interval of the mean.
struct MeanSummary {
  std::size_t n = 0;
  double mean = 0, sd = 0, ci_low = 0, ci_high = 0;
};
// Needs n >= 2 for an interval (with n = 1 the interval is the point, sd 0).
MeanSummary summarize(std::span<const double> x, double confidence = 0.95);

// a against b: diff = mean(a) - mean(b) (paired: the mean of a_i - b_i).
struct Comparison {
  std::string method;        // "paired_t" or "welch_t"
  std::vector<double> a, b;  // the samples (paired: a[i] with b[i]), for resampling
  std::size_t n = 0;         // pairs, or the smaller group
  double diff = 0, diff_ci_low = 0, diff_ci_high = 0;  // the interval at `confidence`
  double se = 0, t = 0, df = 0, p_value = 1;           // two-sided
  // Standardised effect size: paired, Cohen's d_z = mean(d) / sd(d); Welch, Cohen's
  // d = diff / sqrt((s_a² + s_b²) / 2).
  double effect_size = 0;
  // The |difference| a two-sided test at level 1 - confidence detects with probability
  // `power`, for this design's n and observed spread (noncentral t): a post-hoc
  // estimate, since the spread is the one observed.
  double mde = 0;
  // Why there is no test ("" when there is one); p-values, intervals and the MDE are
  // then meaningless and are not shown.
  std::string no_test;
  bool tested() const { return no_test.empty(); }
  bool paired() const { return method == "paired_t"; }
};

Comparison paired_t(std::span<const double> a, std::span<const double> b, double confidence = 0.95,
                    double power = 0.8);
Comparison welch_t(std::span<const double> a, std::span<const double> b, double confidence = 0.95,
                   double power = 0.8);

// Turns `c` into a comparison without a test, saying why (another reason than the
// spread: e.g. the two points were tested on different data).
void withhold_test(Comparison& c, std::string why);

// The one-sided t-test's p-value of H1 "the true difference is above `bound`"
// (`above`), or below it. 1 without a test.
double one_sided_p(const Comparison& c, double bound, bool above);

// Two one-sided tests of |true difference| < margin: the larger of the two one-sided
// p-values. Equivalent at level alpha when below it — the (1 - 2 alpha) interval then
// lies inside ±margin.
double equivalence_p(const Comparison& c, double margin);

// The interval diff ± t(1 - tail) se: each bound one-sided at level `tail`
// (tail = (1 - confidence) / 2 gives the two-sided interval).
struct Interval {
  double low = 0, high = 0;
};
Interval t_interval(const Comparison& c, double tail);

// The |difference| the test detects with probability `power`: two-sided at level
// `alpha`, or one-sided at `alpha` when `one_sided`.
double detectable_difference(const Comparison& c, double alpha, double power, bool one_sided);

// The noncentrality at which a level-alpha t-test with df degrees of freedom
// (two-sided, or one-sided in the upper tail) rejects with probability `power`: the
// detectable difference is it times the standard error. Remembered per thread.
double detectable_noncentrality(double df, double alpha, double power, bool one_sided);

// Holm's step-down adjustment (family-wise error), in the input's order.
std::vector<double> holm(std::span<const double> p_values);

}  // namespace ablate::experiments::stats
