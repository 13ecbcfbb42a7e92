#include "experiments/stats/sequential_design.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <cstdio>

#include "experiments/stats/comparison.h"
#include "experiments/stats/confidence_sequence.h"

namespace ablate::experiments::stats {

namespace {

std::string short_text(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.3g", v);
  return s;
}

// Decided by the interval [low, high] of the gain: agrees, disagrees, or open.
PartStatus status_of(double low, double high, const Question& q) {
  const double d = q.margin.value_or(0), m = q.min_effect.value_or(0);
  const bool inside = q.margin && low > -d && high < d;
  if (!q.expect) return low > 0 || high < 0 || inside ? PartStatus::agrees : PartStatus::open;
  bool agrees = false, disagrees = false;
  switch (*q.expect) {
    case Expectation::better:
      agrees = low > m, disagrees = high < m;
      break;
    case Expectation::worse:
      agrees = high<-m, disagrees = low> - m;
      break;
    case Expectation::not_worse:
      agrees = low > -d, disagrees = high < -d;
      break;
    case Expectation::not_better:
      agrees = high<d, disagrees = low> d;
      break;
    case Expectation::equivalent:
      agrees = inside, disagrees = low > d || high < -d;
      break;
  }
  return agrees ? PartStatus::agrees : disagrees ? PartStatus::disagrees : PartStatus::open;
}

}  // namespace

void update_part(PartState& part, std::span<const double> gains, const Question& q, double alpha,
                 int round) {
  if (part.status != PartStatus::open) return;
  part.n = double(gains.size());
  part.mean = part.sd = 0;
  part.level = alpha;
  part.no_sequence.clear();
  if (gains.size() < 2) {
    part.no_sequence = "fewer than 2 pairs";
    return;
  }
  const MeanSequence s = t_confidence_sequence(gains, alpha, kSequencePriorVariance);
  part.mean = s.mean;
  part.sd = s.sd;
  double scale = 0;
  for (double g : gains) scale = std::max(scale, std::abs(g));
  // Equal gains in every pair (a discrete metric's one example, seed after seed):
  // the sequence would be a point, which no finite data supports. More seeds decide.
  if (s.sd <= 1e-12 * scale || s.sd == 0) {
    part.no_sequence = "no spread in the gains";
    return;
  }
  part.low = std::max(part.low, s.low);
  part.high = std::min(part.high, s.high);
  part.status = status_of(part.low, part.high, q);
  if (part.status != PartStatus::open) part.decided_round = round;
}

std::string part_verdict(const PartState& part, const Question& q) {
  if (part.status == PartStatus::open) return "";
  const std::string margin = q.margin ? short_text(*q.margin) : "";
  const bool above = part.low > 0, below = part.high < 0;
  const bool inside = q.margin && part.low > -*q.margin && part.high < *q.margin;
  if (q.expect && q.min_effect &&
      (*q.expect == Expectation::better || *q.expect == Expectation::worse)) {
    const std::string word = *q.expect == Expectation::better ? "better" : "worse";
    return word + (part.status == PartStatus::agrees ? " by at least " : " by less than ") +
           short_text(*q.min_effect);
  }
  if (!q.expect || *q.expect == Expectation::better || *q.expect == Expectation::worse) {
    std::string out = above ? "better" : below ? "worse" : "";
    if (inside) out += (out.empty() ? "equivalent within ±" : ", within ±") + margin;
    return out;
  }
  switch (*q.expect) {
    case Expectation::not_worse:
      return part.status == PartStatus::agrees ? "not worse by " + margin
                                               : "worse by more than " + margin;
    case Expectation::not_better:
      return part.status == PartStatus::agrees ? "not better by " + margin
                                               : "better by more than " + margin;
    default:
      return part.status == PartStatus::agrees ? "equivalent within ±" + margin
                                               : "differs by more than " + margin;
  }
}

PartStatus question_status(std::span<const PartState> parts) {
  if (parts.empty()) return PartStatus::open;
  bool all_agree = true;
  for (const PartState& p : parts) {
    if (p.status == PartStatus::disagrees) return PartStatus::disagrees;
    all_agree = all_agree && p.status == PartStatus::agrees;
  }
  return all_agree ? PartStatus::agrees : PartStatus::open;
}

double decided_distance(const PartState& part, const Question& q) {
  if (part.status == PartStatus::open) return 0;
  const double d = q.margin.value_or(0), m = part.mean;
  if (!q.expect) {
    // Decided above or below 0, or inside the margin: whichever it reached.
    const bool inside = q.margin && part.low > -d && part.high < d;
    const bool signed_ = part.low > 0 || part.high < 0;
    return std::max(signed_ ? std::abs(m) : 0.0, inside ? d - std::abs(m) : 0.0);
  }
  switch (*q.expect) {
    case Expectation::better:
      return std::abs(m - q.min_effect.value_or(0));
    case Expectation::worse:
      return std::abs(m + q.min_effect.value_or(0));
    case Expectation::not_worse:
      return std::abs(m + d);
    case Expectation::not_better:
      return std::abs(d - m);
    case Expectation::equivalent:
      return std::abs(d - std::abs(m));
  }
  return 0;
}

double sequential_detectable(double n, double sd, double alpha, double power) {
  if (!(n >= 2)) return std::numeric_limits<double>::infinity();
  const double factor = t_sequence_radius_factor(n, alpha, kSequencePriorVariance);
  if (std::isinf(factor)) return factor;
  const double z = boost::math::quantile(boost::math::normal(), power);
  return (factor + z) * sd / std::sqrt(n);
}

int fixed_design_seeds(double d, double alpha, double power, int cap) {
  d = std::abs(d);
  if (!(d > 0) || !std::isfinite(d)) return 0;
  auto enough = [&](int n) {
    return detectable_noncentrality(double(n - 1), alpha, power, false) / std::sqrt(double(n)) <= d;
  };
  if (!enough(cap)) return 0;
  int lo = 2, hi = cap;  // the smallest n in [lo, hi] that is enough: power grows with n
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (enough(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

}  // namespace ablate::experiments::stats
