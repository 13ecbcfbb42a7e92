#pragma once
// [sweep.adaptive]: seeds spent where the answer is still open. sweep.seeds is the
// first block; after each round the questions of the file (its claims, or every
// compared point) are asked of anytime-valid confidence sequences
// (stats/sequential_design.h), and every point still open gets the next `block` seeds,
// up to `max_seeds`. The seeds after the first block continue from the largest listed
// one (0–4 listed: 5, 6, 7, ...), so every point's seeds are a prefix of one sequence
// and a point stopped early pairs with its baseline's first seeds.
//
//   [sweep]
//   seeds = [0, 1, 2, 3, 4]   # the first block
//   [sweep.adaptive]
//   max_seeds = 40            # the budget per point
//   block = 5                 # seeds added to every open point per round
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
};

// The seeds a point receives, in order: `first`, then counting on from its largest
// value, `max_seeds` in all.
std::vector<std::uint64_t> adaptive_seed_sequence(const std::vector<std::uint64_t>& first,
                                                  std::int64_t max_seeds);

// "first block 0, 1, 2, 3, 4; up to 40 seeds a point, 5 a round": how the design is
// recorded beside the seeds it is frozen with.
std::string adaptive_design_text(const AdaptiveDesign& design);

}  // namespace ablate::experiments
