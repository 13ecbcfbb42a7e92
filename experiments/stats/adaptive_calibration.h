#pragma once
// Calibration of adaptive sweeps by simulation, the confidence sequence (design =
// "confidence_sequence", which the committed runs use; `ablate selftest stats`, after the
// group-sequential default's tables of group_sequential_calibration.h). The rules of
// sequential_design.h run round by round on synthetic paired gains of known truth — a first block
// of 5 seeds, then 5 a round up to a budget of 40, α = 0.05, each question asked of the running
// intersection of t confidence sequences after every round and stopped once decided — and the rates
// that must hold are tallied as the fixed design's are: false decisions at most α at the null
// (normal, heavy-tailed and discrete gains), in a family of four and at a margin's edge.
// On the same gains the naive design — the fixed-n paired t-test (TOST at a margin)
// looked at after every block, stopping at its first rejection — shows the false
// decisions the sequences exist to prevent: its rate is judged to lie above α. A second
// table shows what adaptivity costs or saves: the power at true effects of 0.5, 1 and
// 2 sd, the seeds used on average, and the seeds a fixed design of that power needs.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "experiments/stats/calibration.h"
#include "experiments/stats/sequential_design.h"

namespace ablate::experiments::stats {

// The adaptive design simulated: an adaptive sweep's default rounds and level.
struct AdaptiveDesign {
  int first_block = 5, block = 5, max_seeds = 40;
  double alpha = 0.05;
};

// One question's adaptive study: where it stopped and what it had decided by then.
struct AdaptiveOutcome {
  PartState part;  // status, decided_round and the sequence at the stop
  int seeds = 0;   // the pairs used
};

// The design run on one study's paired gains (in seed order; the budget's worth or
// fewer): update_part on the first 5, 10, ... gains, round 0, 1, ..., until the question
// is decided or the gains or the budget are used up. `alpha` is the question's level:
// the design's α, or its share of it in a family.
AdaptiveOutcome run_adaptive(std::span<const double> gains, const Question& q, double alpha,
                             const AdaptiveDesign& design);

// A true effect: how often the adaptive design decided by the budget, its seeds, and the
// seeds of the fixed design with the same power.
struct AdaptivePowerRow {
  double effect = 0;  // the true mean gain, in sd of the gains; 0 is the A/A study
  // Decided "better" by the budget (shown); for the A/A study decided "better" or
  // "worse", which must stay at most α.
  CalibrationRow decided;
  double mean_seeds = 0;      // the adaptive design's, over every study
  double open_at_budget = 0;  // the share still undecided at the budget
  // The seeds a fixed two-sided paired t-test at α needs for the power `matched_power`
  // (fixed_design_seeds; 0 for the A/A study).
  int fixed_seeds = 0;
  double matched_power = 0;
};

struct AdaptiveCalibration {
  AdaptiveDesign design;
  Calibration decisions;  // false decisions: the adaptive design's (≤ α), the naive one's (> α)
  std::vector<AdaptivePowerRow> power;  // A/A first, then growing effects
  bool passes() const;
  std::string markdown() const;  // both tables, as docs/reference/adaptive.md shows them
};

// A power table's last two cells: the fixed design's seeds of equal power and the seeds
// the adaptive design saved on average ("— | — |" when no fixed design was matched).
std::string fixed_design_cells(int fixed_seeds, double mean_seeds);

// `datasets` simulated studies per scenario (and per effect), drawn from `seed`.
AdaptiveCalibration calibrate_adaptive(int datasets, std::uint64_t seed);

}  // namespace ablate::experiments::stats
