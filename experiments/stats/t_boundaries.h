#pragma once
// Group-sequential boundaries for Student's t statistic (the variance unknown), by a
// seeded simulation of the null. A t statistic's joint law across looks under "mean = 0"
// does not depend on the variance for normal data, so one set of simulated paths fixes
// boundaries for every metric and scale: at each look, among the paths still going, the
// boundary is the value that the spending function's share of the paths reaches
// (ties apart, exactly that many). The "significance level" shortcut — the normal
// boundary's tail probability carried to each look's t distribution — is not exact
// with few seeds: with Pocock-type spending over looks at 5, 10, …, 40 seeds it rejects
// a true null about 5.6 % of the time at α = 5 %, against 5.0 % for these.
//
// 2^18 paths from a fixed seed: the error spent by the design is the spending
// function's to within about ±0.0004 at α = 0.05, the same on every machine
// (SimulationDraws: a fixed generator and transformations). Paths are drawn once per
// sequence of looks and kept for the process; boundaries are cached per level.
#include <span>
#include <vector>

#include "experiments/stats/group_sequential.h"

namespace ablate::experiments::stats {

// How many null paths a sequence of looks is simulated with.
inline constexpr int kNullPaths = 1 << 18;

// The t-scale efficacy boundaries c_k at `looks` (pairs; increasing) for a budget of
// `budget` pairs: a one-sided test rejects at look k when T_k ≥ c_k (two-sided: |T_k| ≥
// c_k), having its error spent by look k within the simulation's precision. +∞ where a
// look spends less than one path's worth.
std::vector<double> t_efficacy_boundaries(Spending s, double level, bool two_sided,
                                          std::span<const double> looks, double budget);

// A design's behaviour at a true standardised effect, by simulating `paths` studies from
// `seed` through t boundaries `efficacy` and (one-sided) futility boundaries `futility`
// (two-sided designs: |T| below it): how often it rejects (upwards), stops for futility,
// and the pairs it uses on average.
OperatingPoint simulated_operating_point(std::span<const double> looks,
                                         std::span<const double> efficacy,
                                         std::span<const double> futility, bool two_sided,
                                         double effect, int paths, std::uint64_t seed);

}  // namespace ablate::experiments::stats
