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
#include <cstdint>
#include <string>
#include <vector>

namespace ablate::experiments::stats {

struct CalibrationRow {
  std::string scenario;  // the truth and the data: "null, normal, 5 seeds"
  std::string measure;   // what is counted: "false agrees (expect better)"
  std::uint64_t hits = 0, datasets = 0;
  double rate = 0, low = 0, high = 0;  // the rate and its Clopper–Pearson 95 % interval
  std::string bound;  // "≤ 0.05", "≥ 0.94", "0.75–0.85", "= 0", or "" (shown, not judged)
  bool passes = true;
};

struct Calibration {
  std::uint64_t seed = 0;
  int datasets = 0;  // per scenario
  std::vector<CalibrationRow> rows;
  bool passes() const;
  std::string markdown() const;  // the table experiments/README.md shows
};

// `datasets` simulated studies per scenario, drawn from `seed`.
Calibration calibrate(int datasets, std::uint64_t seed);

}  // namespace ablate::experiments::stats
