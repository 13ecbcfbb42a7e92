#include "experiments/stats/resampling.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace ablate::experiments::stats {

namespace {

// SciPy's tolerance: null statistics within a relative 1e-14 of the observed one count
// as ties (so theoretically equal sums that rounding split are not lost).
double tie_tolerance(double observed) {
  return std::max(1e-14, std::abs(1e-14 * observed));
}

// Counts of null statistics at least as extreme as `observed`, each way.
struct Tally {
  std::uint64_t at_least = 0, at_most = 0, total = 0;
  void add(double statistic, double observed, double tolerance) {
    at_least += statistic >= observed - tolerance;
    at_most += statistic <= observed + tolerance;
    ++total;
  }
};

// The mean difference shifted by `bound`: d_i - bound (paired).
std::vector<double> shifted_differences(const Comparison& c, double bound) {
  std::vector<double> e(c.a.size());
  for (std::size_t i = 0; i < e.size(); ++i) e[i] = (c.a[i] - c.b[i]) - bound;
  return e;
}

double mean_of(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += v;
  return s / double(x.size());
}

Tally sign_flip_tally(const std::vector<double>& e) {
  const std::size_t n = e.size();
  const double observed = mean_of(e), tolerance = tie_tolerance(observed);
  Tally tally;
  auto statistic = [&](auto&& negated) {
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += negated(i) ? -e[i] : e[i];
    return s / double(n);
  };
  if (n <= std::size_t(kExactSignFlipLimit)) {
    for (std::uint64_t mask = 0; mask < (std::uint64_t(1) << n); ++mask)
      tally.add(statistic([mask](std::size_t i) { return (mask >> i) & 1; }), observed, tolerance);
  } else {
    SplitMix64 rng(kResamplingSeed);
    std::vector<bool> negated(n);
    for (int r = 0; r < kMonteCarloResamples; ++r) {
      for (std::size_t i = 0; i < n; ++i) negated[i] = rng.next() >> 63;
      tally.add(statistic([&negated](std::size_t i) { return bool(negated[i]); }), observed,
                tolerance);
    }
  }
  return tally;
}

// C(n, k), saturating above `limit`.
std::uint64_t choose_up_to(std::size_t n, std::size_t k, std::uint64_t limit) {
  k = std::min(k, n - k);
  double c = 1;
  for (std::size_t i = 1; i <= k; ++i) {
    c = c * double(n - k + i) / double(i);
    if (c > double(limit)) return limit + 1;
  }
  return std::uint64_t(std::llround(c));
}

// Relabelling the pooled scores: the first a.size() of `pooled` (a shifted by -bound)
// against the rest; the statistic is the difference of the two means.
Tally relabel_tally(const Comparison& c, double bound) {
  std::vector<double> pooled;
  for (double v : c.a) pooled.push_back(v - bound);
  pooled.insert(pooled.end(), c.b.begin(), c.b.end());
  const std::size_t na = c.a.size(), nb = c.b.size(), total_n = pooled.size();
  auto statistic = [&](const std::vector<std::size_t>& in_a, auto&& value) {
    double sa = 0, sb = 0;
    std::vector<bool> chosen(total_n);
    for (std::size_t i : in_a) chosen[i] = true;
    for (std::size_t i = 0; i < total_n; ++i) (chosen[i] ? sa : sb) += value(i);
    return sa / double(na) - sb / double(nb);
  };
  auto at = [&pooled](std::size_t i) { return pooled[i]; };
  std::vector<std::size_t> in_a(na);
  std::iota(in_a.begin(), in_a.end(), 0);
  const double observed = statistic(in_a, at), tolerance = tie_tolerance(observed);
  Tally tally;
  if (choose_up_to(total_n, na, kExactRelabelLimit) <= kExactRelabelLimit) {
    // Every na-subset of the pooled indices, in lexicographic order.
    while (true) {
      tally.add(statistic(in_a, at), observed, tolerance);
      std::size_t i = na;
      while (i > 0 && in_a[i - 1] == total_n - na + i - 1) --i;
      if (i == 0) break;
      ++in_a[i - 1];
      for (std::size_t j = i; j < na; ++j) in_a[j] = in_a[j - 1] + 1;
    }
  } else {
    SplitMix64 rng(kResamplingSeed);
    std::vector<std::size_t> order(total_n);
    for (int r = 0; r < kMonteCarloResamples; ++r) {
      std::iota(order.begin(), order.end(), 0);
      for (std::size_t i = total_n - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
      tally.add(
          statistic(std::vector<std::size_t>(order.begin(), order.begin() + std::ptrdiff_t(na)),
                    at),
          observed, tolerance);
    }
  }
  return tally;
}

double p_from(const Tally& tally, bool above, bool exact) {
  const std::uint64_t k = above ? tally.at_least : tally.at_most;
  return exact ? double(k) / double(tally.total) : double(k + 1) / double(tally.total + 1);
}

Tally tally_of(const Comparison& c, double bound) {
  return c.paired() ? sign_flip_tally(shifted_differences(c, bound)) : relabel_tally(c, bound);
}

// NumPy's "linear" quantile, operation for operation (its _lerp), of `values` —
// reordered: only the two order statistics it needs are found (nth_element), not a
// full sort.
double linear_quantile(std::vector<double>& values, double q) {
  const double h = q * double(values.size() - 1);
  const double below = std::floor(h), t = h - below;
  const std::size_t i = std::size_t(below);
  std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(i), values.end());
  const double a = values[i];
  const double b = i + 1 < values.size()
                       ? *std::min_element(values.begin() + std::ptrdiff_t(i + 1), values.end())
                       : a;
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

}  // namespace

bool permutation_is_exact(const Comparison& c) {
  return c.paired() ? c.a.size() <= std::size_t(kExactSignFlipLimit)
                    : choose_up_to(c.a.size() + c.b.size(), c.a.size(), kExactRelabelLimit) <=
                          kExactRelabelLimit;
}

double permutation_p(const Comparison& c, double bound, bool above) {
  if (!c.tested()) return 1.0;
  return p_from(tally_of(c, bound), above, permutation_is_exact(c));
}

double permutation_p_two_sided(const Comparison& c) {
  if (!c.tested()) return 1.0;
  const Tally tally = tally_of(c, 0.0);
  const bool exact = permutation_is_exact(c);
  return std::min(1.0, 2 * std::min(p_from(tally, true, exact), p_from(tally, false, exact)));
}

Interval bootstrap_interval(const Comparison& c, double tail) {
  if (!c.tested()) return {c.diff, c.diff};
  SplitMix64 rng(kResamplingSeed);
  std::vector<double> means(kBootstrapResamples);
  const std::size_t na = c.a.size(), nb = c.b.size();
  for (double& m : means) {
    double sa = 0, sb = 0;
    if (c.paired()) {
      for (std::size_t i = 0; i < na; ++i) {
        const std::size_t k = rng.below(na);
        sa += c.a[k] - c.b[k];
      }
      m = sa / double(na);
    } else {
      for (std::size_t i = 0; i < na; ++i) sa += c.a[rng.below(na)];
      for (std::size_t i = 0; i < nb; ++i) sb += c.b[rng.below(nb)];
      m = sa / double(na) - sb / double(nb);
    }
  }
  const double low = linear_quantile(means, tail);
  return {low, linear_quantile(means, 1 - tail)};
}

}  // namespace ablate::experiments::stats
