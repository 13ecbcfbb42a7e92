#pragma once
// Uniform draws of an index, which every task's data and batches make.
#include <cstdint>

#include "autograd/rng.h"

namespace ablate::experiments {

// A uniform integer in [0, n) (n ≥ 1), exact (rejection sampling) so that the draws
// are the same everywhere and unbiased.
std::int64_t uniform_index(Generator& gen, std::int64_t n);

}  // namespace ablate::experiments
