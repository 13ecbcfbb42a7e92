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
  return "adaptive: up to " + std::to_string(design.max_seeds) + " seeds a point, " +
         std::to_string(design.block) + " a round";
}

}  // namespace ablate::experiments
