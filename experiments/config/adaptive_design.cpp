#include "experiments/config/adaptive_design.h"

#include <algorithm>

namespace ablate::experiments {

std::vector<std::uint64_t> adaptive_seed_sequence(const std::vector<std::uint64_t>& first,
                                                  std::int64_t max_seeds) {
  std::vector<std::uint64_t> seeds(first.begin(), first.end());
  std::uint64_t next = first.empty() ? 0 : *std::max_element(first.begin(), first.end()) + 1;
  while (std::int64_t(seeds.size()) < max_seeds) seeds.push_back(next++);
  return seeds;
}

std::string adaptive_design_text(const AdaptiveDesign& design) {
  // The confidence sequence's text is the one its runs were frozen with before the choice.
  const std::string rounds = "adaptive: up to " + std::to_string(design.max_seeds) +
                             " seeds a point, " + std::to_string(design.block) + " a round";
  if (design.design == "confidence_sequence") return rounds;
  return rounds + "; group-sequential, " + design.spending + " spending" +
         (design.futility ? ", non-binding futility" : ", no futility");
}

std::int64_t planned_look_count(std::int64_t first_block, const AdaptiveDesign& design) {
  const std::int64_t after = std::max<std::int64_t>(0, design.max_seeds - first_block);
  return 1 + (after + design.block - 1) / std::max<std::int64_t>(1, design.block);
}

}  // namespace ablate::experiments
