#include "experiments/stats/group_sequential_design.h"

#include "experiments/stats/t_boundaries.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <string>

namespace ablate::experiments::stats {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Studies simulated for a plan's operating characteristics: ±0.003 on a power of 0.8.
constexpr int kOperatingPaths = 20000;
constexpr std::uint64_t kOperatingSeed = 56;

// One one-sided test: rejected when sign × (mean − shift) / se reaches the boundary.
struct OneSided {
  double shift;
  int sign;
};
// A verdict is reached when every test of one of its routes is rejected.
using Route = std::vector<OneSided>;
struct Routes {
  std::vector<Route> agree, disagree;
};

Routes routes_of(const Question& q) {
  const double d = q.margin.value_or(0), m = q.min_effect.value_or(0);
  if (!q.expect) {
    Routes r{{{{0, 1}}, {{0, -1}}}, {}};
    if (q.margin) r.agree.push_back({{-d, 1}, {d, -1}});
    return r;
  }
  switch (*q.expect) {
    case Expectation::better:
      return {{{{m, 1}}}, {{{m, -1}}}};
    case Expectation::worse:
      return {{{{-m, -1}}}, {{{-m, 1}}}};
    case Expectation::not_worse:
      return {{{{-d, 1}}}, {{{-d, -1}}}};
    case Expectation::not_better:
      return {{{{d, -1}}}, {{{d, 1}}}};
    case Expectation::equivalent:
      return {{{{-d, 1}, {d, -1}}}, {{{d, 1}}, {{-d, -1}}}};
  }
  return {};
}

// The key of a cached computation: its inputs' bytes.
template <class... T>
std::string key_of(std::span<const double> a, std::span<const double> b, T... scalars) {
  std::string k;
  auto put = [&k](const void* p, std::size_t n) { k.append(static_cast<const char*>(p), n); };
  (put(&scalars, sizeof scalars), ...);
  put(a.data(), a.size_bytes());
  k.push_back('|');
  put(b.data(), b.size_bytes());
  return k;
}

std::mutex cache_mutex;

// The drift at which the plan's efficacy boundaries at `level` have 80 % power.
double futility_drift(const GroupSequentialPlan& plan, double level, bool two_sided) {
  static std::map<std::string, double> cache;
  const std::string key = key_of(plan.looks, {}, plan.spending, level, two_sided);
  {
    const std::lock_guard lock(cache_mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  const std::vector<double> e =
      efficacy_boundaries(plan.spending, level, two_sided, plan.looks, plan.looks.back());
  const double theta = drift_for_power(plan.looks, e, 1 - kFutilityBeta);
  const std::lock_guard lock(cache_mutex);
  return cache.emplace(key, theta).first->second;
}

struct Summary {
  double n = 0, mean = 0, sd = 0, scale = 0;
};
Summary summary_of(std::span<const double> x) {
  Summary s;
  s.n = double(x.size());
  for (double v : x) s.mean += v, s.scale = std::max(s.scale, std::abs(v));
  s.mean /= s.n;
  double ss = 0;
  for (double v : x) ss += (v - s.mean) * (v - s.mean);
  s.sd = std::sqrt(ss / (s.n - 1));
  return s;
}

}  // namespace

std::vector<double> planned_looks(int first, int block, int budget) {
  std::vector<double> looks{double(std::min(first, budget))};
  while (looks.back() < budget) looks.push_back(std::min(looks.back() + block, double(budget)));
  return looks;
}

LookBounds bounds_at(const GroupSequentialPlan& plan, double level, bool two_sided,
                     std::span<const double> looks) {
  static std::map<std::string, LookBounds> cache;
  const std::string key = key_of(plan.looks, looks, plan.spending, plan.futility, level, two_sided);
  {
    const std::lock_guard lock(cache_mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  const double budget = plan.looks.back();
  LookBounds out{t_efficacy_boundaries(plan.spending, level, two_sided, looks, budget).back(),
                 -kInf};
  if (plan.futility && looks.back() < budget) {
    // β-spending on the normal scale, carried to the look's t distribution: futility is
    // non-binding, so its boundary's precision costs no error.
    const std::vector<double> e =
        efficacy_boundaries(plan.spending, level, two_sided, looks, budget);
    const double b = futility_boundaries(plan.spending, kFutilityBeta,
                                         futility_drift(plan, level, two_sided), looks, budget, e)
                         .back();
    out.futility = t_of_z(b, looks.back() - 1);
  }
  const std::lock_guard lock(cache_mutex);
  return cache.emplace(key, out).first->second;
}

void update_part_group_sequential(PartState& part, std::span<const double> gains, const Question& q,
                                  double agree_level, double disagree_level,
                                  const GroupSequentialPlan& plan, int round) {
  if (part.status != PartStatus::open) return;
  part.n = double(gains.size());
  part.mean = part.sd = 0;
  part.level = agree_level;
  part.agree_futile = part.disagree_futile = false;
  part.no_sequence.clear();
  if (gains.size() < 2) {
    part.no_sequence = "fewer than 2 pairs";
    return;
  }
  const Summary s = summary_of(gains);
  part.mean = s.mean;
  part.sd = s.sd;
  // Equal gains in every pair: no t statistic; more seeds decide (as for the sequence).
  if (s.sd <= 1e-12 * s.scale || s.sd == 0) {
    part.no_sequence = "no spread in the gains";
    return;
  }
  if (part.looks.empty() || s.n > part.looks.back()) part.looks.push_back(s.n);
  const bool difference = !q.expect;
  const LookBounds agree = bounds_at(plan, agree_level, difference, part.looks);
  const LookBounds disagree =
      difference ? LookBounds{kInf, kInf} : bounds_at(plan, disagree_level, false, part.looks);
  const double se = s.sd / std::sqrt(s.n);
  auto z = [&](const OneSided& t) { return t.sign * (s.mean - t.shift) / se; };
  auto reached = [&](const std::vector<Route>& routes, double c) {
    return std::any_of(routes.begin(), routes.end(), [&](const Route& r) {
      return std::all_of(r.begin(), r.end(), [&](const OneSided& t) { return z(t) >= c; });
    });
  };
  auto futile = [&](const std::vector<Route>& routes, double b) {
    return std::all_of(routes.begin(), routes.end(), [&](const Route& r) {
      return std::any_of(r.begin(), r.end(), [&](const OneSided& t) { return z(t) < b; });
    });
  };
  const Routes routes = routes_of(q);
  if (reached(routes.agree, agree.efficacy))
    part.status = PartStatus::agrees;
  else if (reached(routes.disagree, disagree.efficacy))
    part.status = PartStatus::disagrees;
  const double c = part.status == PartStatus::disagrees ? disagree.efficacy : agree.efficacy;
  part.low = s.mean - c * se;
  part.high = s.mean + c * se;
  if (part.status != PartStatus::open) part.decided_round = round;
  part.agree_futile = plan.futility && futile(routes.agree, agree.futility);
  part.disagree_futile = plan.futility && futile(routes.disagree, disagree.futility);
}

OperatingPoint planned_operating_point(const GroupSequentialPlan& plan, double level,
                                       bool two_sided, double effect) {
  std::vector<double> efficacy, futility;
  for (std::size_t k = 1; k <= plan.looks.size(); ++k) {
    const LookBounds b = bounds_at(plan, level, two_sided, std::span(plan.looks).first(k));
    efficacy.push_back(b.efficacy);
    futility.push_back(b.futility);
  }
  return simulated_operating_point(plan.looks, efficacy, futility, two_sided, effect,
                                   kOperatingPaths, kOperatingSeed);
}

}  // namespace ablate::experiments::stats
