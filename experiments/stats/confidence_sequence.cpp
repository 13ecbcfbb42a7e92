#include "experiments/stats/confidence_sequence.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace ablate::experiments::stats {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

double t_mixture_e_value(double t, double n, double g) {
  if (!(n >= 2) || !(g > 0))
    throw std::invalid_argument("t_mixture_e_value: needs n >= 2 and g > 0");
  if (std::isinf(t)) return kInf;
  const double nu = n - 1, spread = 1 + n * g;
  // In logs: (1 + t²/ν) grows without bound with |t|, so the ratio is formed there.
  const double log_e =
      -0.5 * std::log(spread) +
      0.5 * (nu + 1) * (std::log1p(t * t / nu) - std::log1p(t * t / (nu * spread)));
  return std::exp(log_e);
}

double t_sequence_radius_factor(double n, double alpha, double g) {
  if (!(n >= 2) || !(alpha > 0 && alpha < 1) || !(g > 0))
    throw std::invalid_argument("t_sequence_radius_factor: needs n >= 2, 0 < alpha < 1, g > 0");
  const double nu = n - 1, spread = 1 + n * g;
  const double k = std::exp((std::log(spread) - 2 * std::log(alpha)) / (nu + 1));
  const double denominator = 1 - k / spread;
  if (denominator <= 0) return kInf;
  return std::sqrt(nu * (k - 1) / denominator);
}

MeanSequence t_confidence_sequence(std::span<const double> x, double alpha, double g) {
  if (x.size() < 2) throw std::invalid_argument("t_confidence_sequence: needs at least 2 values");
  MeanSequence s;
  s.n = double(x.size());
  for (double v : x) s.mean += v;
  s.mean /= s.n;
  double ss = 0;
  for (double v : x) ss += (v - s.mean) * (v - s.mean);
  s.sd = std::sqrt(ss / (s.n - 1));
  const double factor = t_sequence_radius_factor(s.n, alpha, g);
  const double radius = s.sd == 0 ? 0 : factor * s.sd / std::sqrt(s.n);
  s.low = s.mean - radius;
  s.high = s.mean + radius;
  const double t = s.sd == 0 ? (s.mean == 0 ? 0 : kInf) : s.mean / (s.sd / std::sqrt(s.n));
  s.e_value_zero = t_mixture_e_value(t, s.n, g);
  return s;
}

}  // namespace ablate::experiments::stats
