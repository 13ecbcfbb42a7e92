#pragma once
#include <cstdint>
#include <string>

namespace ablate::nn {

// Which path the forwards took: the fused op (one kernel, no head split/merge copies)
// or the general one, and the first reason a forward could not take the fused path,
// in words (as PyTorch's why_not_fast_path strings say). Speed differs between the
// two, so a run records which one its numbers came from.
struct AttentionPathRecord {
  std::int64_t fused = 0, general = 0;  // forwards since construction
  std::string why_not_fused;            // the first reason seen; "" while every forward was fused
};

}  // namespace ablate::nn
