#pragma once
// The statistics of a report: a mean with its confidence interval, and the comparison
// of a sweep point with its baseline over seeds — paired t when every seed is paired,
// Welch's t otherwise — with the difference's interval, a two-sided p-value, an effect
// size, the smallest difference the design could detect, Holm's adjustment over a
// table, and equivalence by two one-sided tests. The distributions are Boost.Math's
// (Student's t and the noncentral t); tests/golden/stats_fixtures.json holds SciPy's
// numbers for the same inputs, which tests/experiments/stats_test.cpp compares.
#include <cstddef>
#include <optional>
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
  std::string method;  // "paired_t" or "welch_t"
  std::size_t n = 0;   // pairs, or the smaller group
  double diff = 0, diff_ci_low = 0, diff_ci_high = 0;
  double t = 0, df = 0, p_value = 1;
  // Standardised effect size: paired, Cohen's d_z = mean(d) / sd(d); Welch, Cohen's
  // d = diff / sqrt((s_a² + s_b²) / 2).
  double effect_size = 0;
  // The |difference| a two-sided test at level 1 - confidence detects with probability
  // `power`, for this design's n and observed spread (noncentral t).
  double mde = 0;
};

Comparison paired_t(std::span<const double> a, std::span<const double> b, double confidence = 0.95,
                    double power = 0.8);
Comparison welch_t(std::span<const double> a, std::span<const double> b, double confidence = 0.95,
                   double power = 0.8);

// One one-sided test at a margin: H0 true difference <= -margin (`above`: the test
// that it lies above -margin), or H0 true difference >= +margin (`above` false: that
// it lies below +margin). Non-inferiority is the one whose H0 is "worse by the margin
// or more".
double one_sided_margin_p(const Comparison& c, double margin, bool above);

// Two one-sided tests of |true difference| < margin: the larger of the two one-sided
// p-values (paired or Welch, as `c.method`). Equivalent at level alpha when below it.
double equivalence_p(const Comparison& c, double margin);

// Holm's step-down adjustment (family-wise error), in the input's order.
std::vector<double> holm(std::span<const double> p_values);

// The verdict word of a comparison: `better` / `worse` when the adjusted p-value is
// below alpha (in the direction the metric prefers), else `equivalent within ±δ` when
// a margin is given and the equivalence test passes, else `no detectable difference
// (±MDE)`.
std::string verdict(const Comparison& c, double p_adjusted, bool higher_is_better,
                    std::optional<double> margin = std::nullopt, double alpha = 0.05);

}  // namespace ablate::experiments::stats
