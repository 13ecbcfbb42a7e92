#pragma once
// Calibration by simulation (`ablate selftest stats`): the whole verdict machinery —
// paired t, permutation and bootstrap, the claim rules, Holm over a family — run on
// synthetic paired seeds whose truth is known, thousands of times from a fixed seed,
// and the rates that matter tallied against their bounds: false "agrees", "disagrees"
// and "better" at the null and at a margin's edge (at most α), interval coverage (at
// least 95 % less a tolerance), power at the design's MDE (about 80 %), and no verdict
// at all from equal scores. Each rate has its Clopper–Pearson 95 % interval; a bound
// holds when the interval reaches it (the simulation cannot tell a rate from its bound
// more finely than that).
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "experiments/stats/resampling.h"

namespace ablate::experiments::stats {

// Draws of the simulated studies, the same on every machine (a fixed generator and
// fixed transformations, none of <random>'s distributions, whose output is the
// library's choice): splitmix64, Box–Muller normals, Student t by its definition,
// binomial counts by their Bernoulli trials.
class SimulationDraws {
 public:
  explicit SimulationDraws(std::uint64_t seed) : rng_(seed) {}
  double uniform() { return double(rng_.next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double normal() {
    const double u1 = 1 - uniform(), u2 = uniform();
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
  }
  double student_t3() {
    double chi2 = 0;
    for (int i = 0; i < 3; ++i) chi2 += std::pow(normal(), 2);
    return normal() / std::sqrt(chi2 / 3);
  }
  int binomial(int n, double p) {
    int k = 0;
    for (int i = 0; i < n; ++i) k += uniform() < p;
    return k;
  }

 private:
  SplitMix64 rng_;
};

// How many of the simulated studies showed what a row counts.
struct RateTally {
  std::uint64_t hits = 0, datasets = 0;
  void add(bool hit) {
    hits += hit;
    ++datasets;
  }
};

struct CalibrationRow {
  std::string scenario;  // the truth and the data: "null, normal, 5 seeds"
  std::string measure;   // what is counted: "false agrees (expect better)"
  std::uint64_t hits = 0, datasets = 0;
  double rate = 0, low = 0, high = 0;  // the rate and its Clopper–Pearson 95 % interval
  std::string bound;  // "≤ 0.05", "≥ 0.94", "0.75–0.85", "= 0", "> 0.05", or "" (shown)
  bool passes = true;
};

// The row of a tally: its rate, the rate's Clopper–Pearson 95 % interval, and whether
// `bound` holds — "≤ x" when the interval reaches down to x, "≥ x" when it reaches up
// to x, "a–b" when it meets [a, b], "= 0" when nothing was counted, "> x" when the
// whole interval is above x (a rate shown to exceed x), "" not judged.
CalibrationRow calibration_row(const std::string& scenario, const std::string& measure,
                               const RateTally& tally, const std::string& bound);

// A row's last three cells of a Markdown table, without the outer bars: "rate [low, high]
// (hits of datasets) | bound | holds" ("shown | —" when not judged).
std::string rate_and_bound_cells(const CalibrationRow& r);

struct Calibration {
  std::uint64_t seed = 0;
  int datasets = 0;  // per scenario
  std::vector<CalibrationRow> rows;
  bool passes() const;
  std::string markdown() const;  // the table docs/reference/statistics.md shows
};

// `datasets` simulated studies per scenario, drawn from `seed`.
Calibration calibrate(int datasets, std::uint64_t seed);

}  // namespace ablate::experiments::stats
