#pragma once
#include <cstdint>
#include <string>

namespace ablate::nn {

// Which method greedy decodings took, and the first reason the incremental one was not
// taken ("" while it always was): a run can say which path its decoding ran on, as
// AttentionPathRecord does for attention.
struct DecodePathRecord {
  std::int64_t incremental = 0, full_recompute = 0;  // decodings since construction
  std::string why_not_incremental;
};

}  // namespace ablate::nn
