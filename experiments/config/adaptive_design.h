#pragma once
// [sweep.adaptive]: seeds spent where the answer is still open. sweep.seeds is the
// first block; after each round the questions of the file (its claims, or every
// compared point) are asked of anytime-valid confidence sequences
// (stats/sequential_design.h), and every point still open gets the next `block` seeds,
// up to `max_seeds` (the looks of a group-sequential design, planned in advance). The seeds after
// the first block continue from the largest listed one (0–4 listed: 5, 6, 7, ...), so every point's
// seeds are a prefix of one sequence and a point stopped early pairs with its baseline's first
// seeds.
//
//   [sweep]
//   seeds = [0, 1, 2, 3, 4]   # the first block
//   [sweep.adaptive]
//   max_seeds = 40            # the budget per point
//   block = 5                 # seeds added to every open point per round
//   design = "group_sequential"   # or "confidence_sequence"
//
// The design is part of no trial's identity; it is frozen with the claims
// (reports/preregistration.h).
#include <cstdint>
#include <string>
#include <vector>

namespace ablate::experiments {

struct AdaptiveDesign {
  std::int64_t max_seeds = 0;  // required
  std::int64_t block = 5;
  // "group_sequential" (stats/group_sequential_design.h) or "confidence_sequence"
  // (stats/sequential_design.h); a run index without the key predates the choice and
  // used the confidence sequence.
  std::string design = "group_sequential";
  std::string spending = "power";  // group_sequential: power | obrien_fleming | pocock
  bool futility = true;            // group_sequential: stop questions that cannot finish
};

// The most looks a group-sequential design may plan (the first block, then every
// block up to the budget): its boundaries are simulated per look.
inline constexpr std::int64_t kMaxGroupSequentialLooks = 50;
std::int64_t planned_look_count(std::int64_t first_block, const AdaptiveDesign& design);

// The seeds a point receives, in order: `first`, then counting on from its largest
// value, `max_seeds` in all.
std::vector<std::uint64_t> adaptive_seed_sequence(const std::vector<std::uint64_t>& first,
                                                  std::int64_t max_seeds);

// "first block 0, 1, 2, 3, 4; up to 40 seeds a point, 5 a round": how the design is
// recorded beside the seeds it is frozen with.
std::string adaptive_design_text(const AdaptiveDesign& design);

}  // namespace ablate::experiments
