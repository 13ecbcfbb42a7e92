#include "experiments/stats/comparison.h"

#include <algorithm>
#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <tuple>

namespace ablate::experiments::stats {

namespace {

namespace bm = boost::math;

double mean_of(std::span<const double> x) {
  return std::accumulate(x.begin(), x.end(), 0.0) / double(x.size());
}

double variance_of(std::span<const double> x, double mean) {
  double s = 0;
  for (double v : x) s += (v - mean) * (v - mean);
  return x.size() > 1 ? s / double(x.size() - 1) : 0.0;
}

double t_quantile(double df, double p) {
  return bm::quantile(bm::students_t(df), p);
}

// Two-sided p-value of t with df degrees of freedom.
double two_sided_p(double t, double df) {
  return 2 * bm::cdf(bm::complement(bm::students_t(df), std::abs(t)));
}

// The noncentrality at which a level-alpha t-test with df degrees of freedom (two-sided,
// or one-sided in the upper tail) rejects with probability `power`; the MDE is it times
// the standard error.
double solve_noncentrality(double df, double alpha, double power, bool one_sided) {
  const double crit = t_quantile(df, 1 - (one_sided ? alpha : alpha / 2));
  auto power_at = [&](double ncp) {
    bm::non_central_t d(df, ncp);
    return bm::cdf(bm::complement(d, crit)) + (one_sided ? 0.0 : bm::cdf(d, -crit));
  };
  double lo = 0, hi = 1;
  while (power_at(hi) < power) hi *= 2;
  // Bisection to full double precision: power rises with the noncentrality.
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    double mid = (lo + hi) / 2;
    (power_at(mid) < power ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace

// The same, remembered per thread: it depends on the design alone (df is n - 1 for
// every paired comparison of n seeds), and each solution costs dozens of noncentral t
// tails — most of a report's or a calibration run's time before.
double detectable_noncentrality(double df, double alpha, double power, bool one_sided) {
  thread_local std::map<std::tuple<double, double, double, bool>, double> solved;
  const auto key = std::make_tuple(df, alpha, power, one_sided);
  if (auto it = solved.find(key); it != solved.end()) return it->second;
  if (solved.size() > 4096) solved.clear();  // Welch's fractional df: bounded
  return solved[key] = solve_noncentrality(df, alpha, power, one_sided);
}

namespace {

// The largest |value| of the samples: the scale below which a spread is rounding.
double scale_of(std::span<const double> a, std::span<const double> b) {
  double m = 0;
  for (double v : a) m = std::max(m, std::abs(v));
  for (double v : b) m = std::max(m, std::abs(v));
  return m;
}

// A spread this small relative to the values is the rounding of equal numbers (0.805 -
// 0.8 and 0.855 - 0.85 differ in their last bits): treated as none, so that a metric
// that moved by one test example in every seed is not "significant at p = 1e-15".
constexpr double kRoundingSpread = 1e-12;

std::string number_text(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%+.6g", v);
  return s;
}

void require_sizes(std::span<const double> a, std::span<const double> b, bool paired) {
  if (paired ? a.size() != b.size() || a.size() < 2 : a.size() < 2 || b.size() < 2)
    throw std::invalid_argument(paired ? "paired t: needs two equally long samples of at least 2"
                                       : "Welch t: needs two samples of at least 2 each");
}

}  // namespace

MeanSummary summarize(std::span<const double> x, double confidence) {
  MeanSummary s;
  s.n = x.size();
  if (x.empty()) return s;
  s.mean = mean_of(x);
  s.sd = std::sqrt(variance_of(x, s.mean));
  if (s.n < 2) {
    s.ci_low = s.ci_high = s.mean;
    return s;
  }
  const double half =
      t_quantile(double(s.n - 1), 0.5 + confidence / 2) * s.sd / std::sqrt(double(s.n));
  s.ci_low = s.mean - half;
  s.ci_high = s.mean + half;
  return s;
}

Comparison paired_t(std::span<const double> a, std::span<const double> b, double confidence,
                    double power) {
  require_sizes(a, b, true);
  std::vector<double> d(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  Comparison c;
  c.method = "paired_t";
  c.a.assign(a.begin(), a.end());
  c.b.assign(b.begin(), b.end());
  c.n = d.size();
  c.df = double(c.n - 1);
  c.diff = mean_of(d);
  const double sd = std::sqrt(variance_of(d, c.diff));
  c.se = sd / std::sqrt(double(c.n));
  if (!(sd > kRoundingSpread * scale_of(a, b))) {
    withhold_test(c, "all " + std::to_string(c.n) + " paired seeds differ by the same " +
                         number_text(c.diff) +
                         ": with no spread in the differences there is no test");
    return c;
  }
  const double half = t_quantile(c.df, 0.5 + confidence / 2) * c.se;
  c.diff_ci_low = c.diff - half;
  c.diff_ci_high = c.diff + half;
  c.t = c.diff / c.se;
  c.p_value = two_sided_p(c.t, c.df);
  c.effect_size = c.diff / sd;
  c.mde = detectable_noncentrality(c.df, 1 - confidence, power, false) * c.se;
  return c;
}

Comparison welch_t(std::span<const double> a, std::span<const double> b, double confidence,
                   double power) {
  require_sizes(a, b, false);
  Comparison c;
  c.method = "welch_t";
  c.a.assign(a.begin(), a.end());
  c.b.assign(b.begin(), b.end());
  c.n = std::min(a.size(), b.size());
  const double ma = mean_of(a), mb = mean_of(b), va = variance_of(a, ma), vb = variance_of(b, mb);
  const double na = double(a.size()), nb = double(b.size());
  const double qa = va / na, qb = vb / nb;
  c.se = std::sqrt(qa + qb);
  c.diff = ma - mb;
  if (!(std::sqrt(std::max(va, vb)) > kRoundingSpread * scale_of(a, b))) {
    c.df = na + nb - 2;
    withhold_test(c, "each point gave one score on every seed (" + number_text(ma) + " and " +
                         number_text(mb) + "): with no spread there is no test");
    return c;
  }
  // Welch–Satterthwaite degrees of freedom.
  c.df = (qa + qb) * (qa + qb) / (qa * qa / (na - 1) + qb * qb / (nb - 1));
  const double half = t_quantile(c.df, 0.5 + confidence / 2) * c.se;
  c.diff_ci_low = c.diff - half;
  c.diff_ci_high = c.diff + half;
  c.t = c.diff / c.se;
  c.p_value = two_sided_p(c.t, c.df);
  c.effect_size = c.diff / std::sqrt((va + vb) / 2);
  c.mde = detectable_noncentrality(c.df, 1 - confidence, power, false) * c.se;
  return c;
}

// What a comparison without a test reports: no p-value, no interval, no MDE.
void withhold_test(Comparison& c, std::string why) {
  c.no_test = std::move(why);
  c.diff_ci_low = c.diff_ci_high = c.diff;
  c.t = c.p_value = c.mde = c.effect_size = std::numeric_limits<double>::quiet_NaN();
}

double one_sided_p(const Comparison& c, double bound, bool above) {
  if (!c.tested()) return 1.0;
  bm::students_t d(c.df);
  const double t = (c.diff - bound) / c.se;
  return above ? bm::cdf(bm::complement(d, t)) : bm::cdf(d, t);
}

double equivalence_p(const Comparison& c, double margin) {
  return std::max(one_sided_p(c, -margin, true), one_sided_p(c, margin, false));
}

Interval t_interval(const Comparison& c, double tail) {
  if (!c.tested()) return {c.diff, c.diff};
  const double half = t_quantile(c.df, 1 - tail) * c.se;
  return {c.diff - half, c.diff + half};
}

double detectable_difference(const Comparison& c, double alpha, double power, bool one_sided) {
  if (!c.tested()) return std::numeric_limits<double>::quiet_NaN();
  return detectable_noncentrality(c.df, alpha, power, one_sided) * c.se;
}

std::vector<double> holm(std::span<const double> p) {
  const std::size_t m = p.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t i, std::size_t j) { return p[i] < p[j]; });
  std::vector<double> adjusted(m);
  double running = 0;
  for (std::size_t k = 0; k < m; ++k) {
    running = std::max(running, std::min(1.0, double(m - k) * p[order[k]]));
    adjusted[order[k]] = running;
  }
  return adjusted;
}

}  // namespace ablate::experiments::stats
