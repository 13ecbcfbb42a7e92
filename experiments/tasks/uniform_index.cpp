#include "experiments/tasks/uniform_index.h"

#include <stdexcept>

namespace ablate::experiments {

std::int64_t uniform_index(Generator& gen, std::int64_t n) {
  if (n < 1) throw std::invalid_argument("uniform_index: empty range");
  // Reject the top partial block of 2^64 so every residue is equally likely.
  const std::uint64_t range = std::uint64_t(n);
  const std::uint64_t limit = std::uint64_t(-1) - std::uint64_t(-1) % range;
  std::uint64_t x;
  do x = gen.next_u64();
  while (x >= limit);
  return std::int64_t(x % range);
}

}  // namespace ablate::experiments
