#include "experiments/stats/group_sequential.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace ablate::experiments::stats {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Jennison and Turnbull's grid parameter r (§19.2.1; gsDesign's default): 6r − 1 points.
constexpr int kGridR = 18;
// Below this an increment of error is nothing to spend: the boundary is +infinity.
constexpr double kNothing = 1e-15;

double normal_pdf(double x) {
  return std::exp(-0.5 * x * x) / std::sqrt(2 * std::numbers::pi);
}
double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::numbers::sqrt2);
}
double normal_upper(double x) {
  return 0.5 * std::erfc(x / std::numbers::sqrt2);
}
double normal_quantile(double p) {
  return boost::math::quantile(boost::math::normal(), p);
}

// Z_k's sub-density on the continuation region, as masses (density × Simpson weight) on
// a grid: what has not stopped by look k.
struct Continuation {
  double information = 0;  // I_k; 0 before the first look
  std::vector<double> z, mass;
};

// Jennison and Turnbull's grid on [lo, hi] for a look whose Z has mean `mean`: the base
// points inside, the ends, and the midpoints between (Simpson's rule on each pair).
void add_piece(double mean, double lo, double hi, std::vector<double>& z, std::vector<double>& w) {
  const double r = kGridR, reach = 3 + 4 * std::log(r);
  lo = std::max(lo, mean - reach);
  hi = std::min(hi, mean + reach);
  if (!(lo < hi)) return;
  std::vector<double> x{lo};
  for (int i = 1; i <= 6 * kGridR - 1; ++i) {
    const double v = i < kGridR        ? -3 - 4 * std::log(r / i)
                     : i <= 5 * kGridR ? -3 + 3 * (i - r) / (2 * r)
                                       : 3 + 4 * std::log(r / (6 * r - i));
    if (mean + v > lo && mean + v < hi) x.push_back(mean + v);
  }
  x.push_back(hi);
  for (std::size_t j = 0; j + 1 < x.size(); ++j) {
    const double d = x[j + 1] - x[j];
    z.insert(z.end(), {x[j], (x[j] + x[j + 1]) / 2, x[j + 1]});
    w.insert(w.end(), {d / 6, 4 * d / 6, d / 6});
  }
}

// The density of Z at `z` and look information `info` from the previous look's
// continuation (or from nothing at the first look), for drift θ.
double density(const Continuation& c, double info, double theta, double z) {
  if (c.information == 0) return normal_pdf(z - theta * std::sqrt(info));
  const double delta = info - c.information, sd = std::sqrt(delta);
  const double scale = std::sqrt(info) / sd, root_prev = std::sqrt(c.information);
  // Only previous values within 9 sd of the kernel's centre add anything (e^(−40.5)
  // beside 1): the grid is sorted, so they are one run of it.
  const double centre = (z * std::sqrt(info) - theta * delta) / root_prev,
               reach = 9 * sd / root_prev;
  const auto first = std::lower_bound(c.z.begin(), c.z.end(), centre - reach);
  const auto last = std::upper_bound(first, c.z.end(), centre + reach);
  double sum = 0;
  for (auto i = std::size_t(first - c.z.begin()); i < std::size_t(last - c.z.begin()); ++i)
    sum += c.mass[i] * normal_pdf((z * std::sqrt(info) - c.z[i] * root_prev - theta * delta) / sd);
  return sum * scale;
}

// The total mass of what went on (for a first look, everything).
double remaining(const Continuation& c) {
  if (c.information == 0) return 1;
  double m = 0;
  for (double v : c.mass) m += v;
  return m;
}

// P(Z at `info` ≥ x), or ≤ x with `below`, for what has not stopped before.
double tail(const Continuation& c, double info, double theta, double x, bool below) {
  if (std::isinf(x)) return (x > 0) == below ? remaining(c) : 0.0;
  auto one = [below](double u) { return below ? normal_cdf(u) : normal_upper(u); };
  if (c.information == 0) return one(x - theta * std::sqrt(info));
  const double delta = info - c.information, sd = std::sqrt(delta),
               root_prev = std::sqrt(c.information);
  double sum = 0;
  for (std::size_t i = 0; i < c.z.size(); ++i)
    sum += c.mass[i] * one((x * std::sqrt(info) - c.z[i] * root_prev - theta * delta) / sd);
  return sum;
}

// The continuation after a look at `info` with region `r` (the futility hole removed).
Continuation advance(const Continuation& c, double info, double theta, const LookRegion& r,
                     double hole_low, double hole_high) {
  Continuation next;
  next.information = info;
  std::vector<double> w;
  const double mean = theta * std::sqrt(info);
  if (hole_low < hole_high) {
    add_piece(mean, r.lower, std::min(r.upper, hole_low), next.z, w);
    add_piece(mean, std::max(r.lower, hole_high), r.upper, next.z, w);
  } else {
    add_piece(mean, r.lower, r.upper, next.z, w);
  }
  next.mass.resize(next.z.size());
  for (std::size_t i = 0; i < next.z.size(); ++i)
    next.mass[i] = w[i] * density(c, info, theta, next.z[i]);
  return next;
}

void check_information(std::span<const double> information) {
  for (std::size_t k = 0; k < information.size(); ++k)
    if (!(information[k] > 0) || (k && !(information[k] > information[k - 1])))
      throw std::invalid_argument("group-sequential looks: the information must increase strictly");
}

// The c with f(c) = target for f decreasing in c, on [lo, hi] (bisection to 1e-10).
template <class F>
double solve_decreasing(F f, double target, double lo, double hi) {
  if (f(lo) <= target) return lo;
  if (f(hi) >= target) return hi;
  for (int i = 0; i < 200 && hi - lo > 1e-10; ++i) {
    const double mid = (lo + hi) / 2;
    (f(mid) > target ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// Error spent by each look of equally spaced boundaries `bounds` (two-sided), in total.
double two_sided_error(std::span<const double> bounds) {
  std::vector<double> info;
  std::vector<LookRegion> regions;
  for (std::size_t k = 0; k < bounds.size(); ++k) {
    info.push_back(double(k + 1));
    regions.push_back({-bounds[k], bounds[k]});
  }
  return exit_probabilities(info, regions, 0).total();
}

}  // namespace

const char* spending_key(Spending s) {
  return s == Spending::pocock ? "pocock" : s == Spending::power ? "power" : "obrien_fleming";
}

const char* spending_name(Spending s) {
  return s == Spending::pocock  ? "Pocock-type"
         : s == Spending::power ? "power-family (ρ = 2)"
                                : "O'Brien–Fleming-type";
}

double spent_error(Spending s, double total, double t) {
  t = std::clamp(t, 0.0, 1.0);
  if (t == 0) return 0;
  if (s == Spending::pocock) return total * std::log1p((std::numbers::e - 1) * t);
  if (s == Spending::power) return total * t * t;
  return 2 * normal_upper(normal_quantile(1 - total / 2) / std::sqrt(t));
}

double Exits::total() const {
  double sum = 0;
  for (double v : above) sum += v;
  for (double v : below) sum += v;
  return sum;
}

Exits exit_probabilities(std::span<const double> information, std::span<const LookRegion> regions,
                         double theta) {
  check_information(information);
  Exits out;
  Continuation c;
  for (std::size_t k = 0; k < information.size(); ++k) {
    const double info = information[k];
    out.above.push_back(tail(c, info, theta, regions[k].upper, false));
    out.below.push_back(tail(c, info, theta, regions[k].lower, true));
    c = advance(c, info, theta, regions[k], kInf, -kInf);
  }
  return out;
}

std::vector<double> efficacy_boundaries(Spending s, double alpha, bool two_sided,
                                        std::span<const double> information,
                                        double max_information) {
  check_information(information);
  std::vector<double> bounds;
  Continuation c;
  double spent_before = 0;
  for (double info : information) {
    const double spent = spent_error(s, alpha, info / max_information);
    const double increment = spent - spent_before;
    spent_before = spent;
    double bound = kInf;
    if (increment > kNothing) {
      auto error = [&](double x) {
        return tail(c, info, 0, x, false) + (two_sided ? tail(c, info, 0, -x, true) : 0.0);
      };
      bound = solve_decreasing(error, increment, two_sided ? 0.0 : -10.0, 40.0);
    }
    bounds.push_back(bound);
    c = advance(c, info, 0, {two_sided ? -bound : -kInf, bound}, kInf, -kInf);
  }
  return bounds;
}

double pocock_constant(int looks, double alpha) {
  auto error = [&](double x) {
    return two_sided_error(std::vector<double>(std::size_t(looks), x));
  };
  return solve_decreasing(error, alpha, 0.5, 6.0);
}

double obrien_fleming_constant(int looks, double alpha) {
  auto error = [&](double x) {
    std::vector<double> bounds;
    for (int k = 1; k <= looks; ++k) bounds.push_back(x * std::sqrt(double(looks) / k));
    return two_sided_error(bounds);
  };
  return solve_decreasing(error, alpha, 0.5, 6.0);
}

std::vector<double> futility_boundaries(Spending s, double beta, double theta1,
                                        std::span<const double> information, double max_information,
                                        std::span<const double> efficacy) {
  check_information(information);
  std::vector<double> bounds;
  Continuation c;
  double spent_before = 0;
  for (std::size_t k = 0; k < information.size(); ++k) {
    const double info = information[k];
    double bound = -kInf;
    if (info < max_information) {
      const double spent = spent_error(s, beta, info / max_information);
      const double increment = spent - spent_before;
      spent_before = spent;
      if (increment > kNothing) {
        // Falling below b grows with b: solve on −b, which decreases.
        auto below = [&](double minus_b) { return tail(c, info, theta1, -minus_b, true); };
        bound = -solve_decreasing(below, increment, -std::min(efficacy[k], 40.0), 40.0);
      }
    }
    bound = std::min(bound, efficacy[k]);
    bounds.push_back(bound);
    c = advance(c, info, theta1, {-kInf, efficacy[k]}, -kInf, bound);
  }
  return bounds;
}

double drift_for_power(std::span<const double> information, std::span<const double> efficacy,
                       double power) {
  std::vector<LookRegion> regions;
  for (double c : efficacy) regions.push_back({-kInf, c});
  // On the probit scale the power is nearly linear in θ (exactly so for one look), so the
  // Illinois variant of regula falsi needs a handful of recursions, not bisection's 40.
  auto gap = [&](double theta) {
    const Exits e = exit_probabilities(information, regions, theta);
    double reject = 0;
    for (double v : e.above) reject += v;
    return normal_quantile(std::clamp(reject, 1e-300, 1 - 1e-16)) - normal_quantile(power);
  };
  double a = 0, b = 12 / std::sqrt(information.back()), fa = gap(a), fb = gap(b);
  if (fa >= 0) return a;
  if (fb <= 0) return b;
  for (int side = 0, i = 0; i < 100 && b - a > 1e-9; ++i) {
    const double c = b - fb * (b - a) / (fb - fa), fc = gap(c);
    if (fc == 0) return c;
    if ((fc < 0) == (fa < 0)) {
      a = c, fa = fc;
      if (side == -1) fb /= 2;
      side = -1;
    } else {
      b = c, fb = fc;
      if (side == 1) fa /= 2;
      side = 1;
    }
  }
  return (a + b) / 2;
}

OperatingPoint operating_point(std::span<const double> information,
                               std::span<const double> efficacy, std::span<const double> futility,
                               bool two_sided, double theta) {
  check_information(information);
  OperatingPoint out;
  Continuation c;
  double stopped = 0;
  for (std::size_t k = 0; k < information.size(); ++k) {
    const double info = information[k], e = efficacy[k], f = futility[k];
    const LookRegion region{two_sided ? -e : -kInf, e};
    double reject = tail(c, info, theta, e, false), futile = 0;
    if (two_sided) {
      reject += tail(c, info, theta, -e, true);
      if (f > 0) futile = tail(c, info, theta, f, true) - tail(c, info, theta, -f, true);
    } else {
      futile = tail(c, info, theta, f, true);
    }
    out.reject += reject;
    out.futile += futile;
    out.expected_information += (reject + futile) * info;
    stopped += reject + futile;
    c = two_sided ? advance(c, info, theta, region, -f, f)
                  : advance(c, info, theta, region, -kInf, f);
  }
  out.expected_information += (1 - stopped) * information.back();
  return out;
}

double z_of_t(double t, double nu) {
  if (std::isinf(t)) return t;
  const boost::math::students_t dist(nu);
  // The smaller tail keeps precision far out.
  return t > 0 ? -normal_quantile(std::max(boost::math::cdf(complement(dist, t)), 1e-300))
               : normal_quantile(std::max(boost::math::cdf(dist, t), 1e-300));
}

double t_of_z(double z, double nu) {
  if (std::isinf(z) || z > 37 || z < -37) return z > 0 ? kInf : -kInf;
  const boost::math::students_t dist(nu);
  return z > 0 ? boost::math::quantile(complement(dist, normal_upper(z)))
               : boost::math::quantile(dist, normal_cdf(z));
}

}  // namespace ablate::experiments::stats
