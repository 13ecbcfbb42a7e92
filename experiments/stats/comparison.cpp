#include "experiments/stats/comparison.h"

#include <algorithm>
#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>

namespace ablate::experiments::stats {

namespace {

namespace bm = boost::math;

double mean_of(std::span<const double> x) { return std::accumulate(x.begin(), x.end(), 0.0) / double(x.size()); }

double variance_of(std::span<const double> x, double mean) {
  double s = 0;
  for (double v : x) s += (v - mean) * (v - mean);
  return x.size() > 1 ? s / double(x.size() - 1) : 0.0;
}

double t_quantile(double df, double p) { return bm::quantile(bm::students_t(df), p); }

// Two-sided p-value of t with df degrees of freedom.
double two_sided_p(double t, double df) {
  if (!std::isfinite(t)) return std::isnan(t) ? 1.0 : 0.0;
  return 2 * bm::cdf(bm::complement(bm::students_t(df), std::abs(t)));
}

// The noncentrality at which a two-sided level-alpha t-test with df degrees of freedom
// rejects with probability `power`; the MDE is it times the standard error.
double detectable_noncentrality(double df, double alpha, double power) {
  const double crit = t_quantile(df, 1 - alpha / 2);
  auto power_at = [&](double ncp) {
    bm::non_central_t d(df, ncp);
    return bm::cdf(bm::complement(d, crit)) + bm::cdf(d, -crit);
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
  const double half = t_quantile(double(s.n - 1), 0.5 + confidence / 2) * s.sd / std::sqrt(double(s.n));
  s.ci_low = s.mean - half;
  s.ci_high = s.mean + half;
  return s;
}

Comparison paired_t(std::span<const double> a, std::span<const double> b, double confidence, double power) {
  require_sizes(a, b, true);
  std::vector<double> d(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  Comparison c;
  c.method = "paired_t";
  c.n = d.size();
  c.df = double(c.n - 1);
  c.diff = mean_of(d);
  const double sd = std::sqrt(variance_of(d, c.diff)), se = sd / std::sqrt(double(c.n));
  const double half = t_quantile(c.df, 0.5 + confidence / 2) * se;
  c.diff_ci_low = c.diff - half;
  c.diff_ci_high = c.diff + half;
  c.t = c.diff / se;
  c.p_value = se > 0 ? two_sided_p(c.t, c.df) : (c.diff == 0 ? 1.0 : 0.0);
  c.effect_size = sd > 0 ? c.diff / sd : 0.0;
  c.mde = detectable_noncentrality(c.df, 1 - confidence, power) * se;
  return c;
}

Comparison welch_t(std::span<const double> a, std::span<const double> b, double confidence, double power) {
  require_sizes(a, b, false);
  Comparison c;
  c.method = "welch_t";
  c.n = std::min(a.size(), b.size());
  const double ma = mean_of(a), mb = mean_of(b), va = variance_of(a, ma), vb = variance_of(b, mb);
  const double na = double(a.size()), nb = double(b.size());
  const double qa = va / na, qb = vb / nb, se = std::sqrt(qa + qb);
  // Welch–Satterthwaite degrees of freedom.
  c.df = se > 0 ? (qa + qb) * (qa + qb) / (qa * qa / (na - 1) + qb * qb / (nb - 1)) : na + nb - 2;
  c.diff = ma - mb;
  const double half = t_quantile(c.df, 0.5 + confidence / 2) * se;
  c.diff_ci_low = c.diff - half;
  c.diff_ci_high = c.diff + half;
  c.t = c.diff / se;
  c.p_value = se > 0 ? two_sided_p(c.t, c.df) : (c.diff == 0 ? 1.0 : 0.0);
  const double pooled_sd = std::sqrt((va + vb) / 2);
  c.effect_size = pooled_sd > 0 ? c.diff / pooled_sd : 0.0;
  c.mde = detectable_noncentrality(c.df, 1 - confidence, power) * se;
  return c;
}

double one_sided_margin_p(const Comparison& c, double margin, bool above) {
  // The standard error of the comparison, recovered from its t statistic.
  const double se = c.t != 0 ? c.diff / c.t : 0.0;
  if (!(se > 0)) return (above ? c.diff > -margin : c.diff < margin) ? 0.0 : 1.0;
  bm::students_t d(c.df);
  return above ? bm::cdf(bm::complement(d, (c.diff + margin) / se))  // H0: diff <= -margin
               : bm::cdf(d, (c.diff - margin) / se);                 // H0: diff >= +margin
}

double equivalence_p(const Comparison& c, double margin) {
  return std::max(one_sided_margin_p(c, margin, true), one_sided_margin_p(c, margin, false));
}

std::vector<double> holm(std::span<const double> p) {
  const std::size_t m = p.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return p[i] < p[j]; });
  std::vector<double> adjusted(m);
  double running = 0;
  for (std::size_t k = 0; k < m; ++k) {
    running = std::max(running, std::min(1.0, double(m - k) * p[order[k]]));
    adjusted[order[k]] = running;
  }
  return adjusted;
}

std::string verdict(const Comparison& c, double p_adjusted, bool higher_is_better, std::optional<double> margin,
                    double alpha) {
  char text[96];
  if (p_adjusted < alpha) return (c.diff > 0) == higher_is_better ? "better" : "worse";
  if (margin && equivalence_p(c, *margin) < alpha) {
    std::snprintf(text, sizeof text, "equivalent within ±%.3g", *margin);
    return text;
  }
  std::snprintf(text, sizeof text, "no detectable difference (±%.3g)", c.mde);
  return text;
}

}  // namespace ablate::experiments::stats
