#pragma once
// Distribution-free checks beside every t result (comparison.h), from the samples a
// Comparison keeps:
//
//   permutation_p   the permutation test of the same one-sided hypothesis. Paired:
//                   the sign-flip test of the mean difference, exact over all 2^n sign
//                   patterns up to n = 20 (Monte Carlo beyond, 100,000 patterns from a
//                   fixed seed). Unpaired: the test that relabels the pooled scores,
//                   exact up to 200,000 relabellings, Monte Carlo beyond. Counted as
//                   SciPy's permutation_test counts (ties within a relative 1e-14 count
//                   as at least as extreme; a Monte Carlo p is (k + 1) / (B + 1)), so an
//                   exact p equals SciPy's. Its floor is the point: with 3 seeds no
//                   one-sided p goes below 1/8, with 5 below 1/32 — a verdict the t-test
//                   gives below that rests on normality.
//   bootstrap_interval  the percentile interval of the mean difference from 10,000
//                   resamples (paired: pairs resampled; unpaired: each point's seeds),
//                   drawn by splitmix64 from a fixed seed, so a report is the same on
//                   every rerun; quantiles interpolated linearly (NumPy's default).
//                   tests/golden/make_stats_fixtures.py draws the same resamples.
//
// Both shift the difference by `bound` first, so margin tests (non-inferiority,
// equivalence) get their permutation counterparts too.
#include <cstdint>

#include "experiments/stats/comparison.h"

namespace ablate::experiments::stats {

inline constexpr int kExactSignFlipLimit = 20;               // 2^20 patterns
inline constexpr std::uint64_t kExactRelabelLimit = 200000;  // unpaired enumerations
inline constexpr int kMonteCarloResamples = 100000;
inline constexpr int kBootstrapResamples = 10000;
inline constexpr std::uint64_t kResamplingSeed = 20261203;

// The permutation test's p-value of H1 "the true difference is above `bound`"
// (`above`) or below it; 1 for a comparison without a test.
double permutation_p(const Comparison& c, double bound, bool above);

// Two-sided, as SciPy defines it: twice the smaller one-sided p (at most 1).
double permutation_p_two_sided(const Comparison& c);

// Whether permutation_p enumerates every pattern (else it is a Monte Carlo estimate).
bool permutation_is_exact(const Comparison& c);

// The percentile bootstrap interval of the difference, each bound at level `tail`
// (0.025 for a 95 % interval). A comparison without a test gets {diff, diff}.
Interval bootstrap_interval(const Comparison& c, double tail);

// splitmix64 (Steele, Lea & Flood 2014): the generator of the resamples, simple enough
// to be written again in a fixture script.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // An index in [0, n): next() mod n (the bias is below n / 2^64).
  std::size_t below(std::size_t n) { return std::size_t(next() % n); }

 private:
  std::uint64_t state_;
};

}  // namespace ablate::experiments::stats
