#pragma once
// The rounds of an adaptive sweep ([sweep.adaptive], config/adaptive_design.h),
// replayed from its results: which seeds each point had in every round, what each of
// the file's questions decided and when, and which trials the current round still
// needs. A pure function of the finished trials, so the runner (which runs what it
// says next), a resumed or sharded run, MPI, and `ablate report` on a copy all agree on
// every round — nothing about the rounds is stored that the results do not determine.
//
// The questions are the file's claims (each over the points it picks, on its metric),
// or without claims one per compared point: does it differ from its baseline on the
// primary metric (or, with [report] equivalence_margin, is it within it), sharing α by
// the design's procedure (stats/sequential_family.h). A point receives the next block
// while a part of it belongs to an open question (not stopped for futility) and is
// itself open; its baseline receives the seeds its points do.
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/analysis/point_results.h"
#include "experiments/stats/sequential_family.h"

namespace ablate::experiments {

struct ScheduledPart {
  std::size_t point = 0, baseline = 0;  // indices into RunPoints::points
  stats::PartState state;
};

struct ScheduledQuestion {
  const ClaimSpec* claim = nullptr;  // into RunPoints::claims; null: a comparison question
  std::string metric;
  bool higher_is_better = true;
  stats::Question question;
  double alpha = stats::kAlpha;  // each part's level (of the tests that agree), at the end
  std::vector<ScheduledPart> parts;
  stats::PartStatus status = stats::PartStatus::open;
  int decided_round = -1;
  // Group-sequential: stopped in `futile_round`, neither verdict reachable by the budget.
  bool futile = false;
  int futile_round = -1;
};

struct AdaptiveSchedule {
  AdaptiveDesign design;
  // The rules the rounds were decided by: the file's design, or the confidence sequence
  // when the group-sequential plan changed after results existed (`fallback` says so).
  stats::SequentialDesign sequential;
  std::string fallback;
  std::vector<std::uint64_t> seed_sequence;  // every point's seeds are a prefix of it
  int first_block = 0;                       // sweep.seeds' count
  std::vector<ScheduledQuestion> questions;
  // Per point (RunPoints::points): the seeds it has in the current round, and the round
  // that gave it its last block.
  std::vector<int> seeds, last_round;
  int round = 0;          // the current round (0 = the first block)
  bool complete = false;  // every trial of the current round finished, and no point needs more
  // Trials of the current round without a result yet (point index, seed).
  std::vector<std::pair<std::size_t, std::uint64_t>> waiting;
};

// The group-sequential plan of `design` with a first block of `first_block` seeds: its
// spending, futility and looks (what the rounds use, and `ablate check` previews).
stats::GroupSequentialPlan group_sequential_plan(const AdaptiveDesign& design, int first_block);

// The schedule of `run` (which must have an adaptive design) from its results.
AdaptiveSchedule replay_schedule(const RunPoints& run);

// The paired gains (oriented: positive = better) of a point against its baseline on
// `metric`, over the first `seeds` seeds of `sequence` that both finished.
std::vector<double> paired_gains(const PointResults& point, const PointResults& baseline,
                                 const std::string& metric, bool higher_is_better,
                                 const std::vector<std::uint64_t>& sequence, int seeds);

// The part of `q` at `point`, if it has one.
const ScheduledPart* part_at(const ScheduledQuestion& q, std::size_t point);

}  // namespace ablate::experiments
