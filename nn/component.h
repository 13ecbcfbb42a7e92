#pragma once
// A choice on one axis (attention.qk, positions, norm, ffn, optimizer, ...): a
// registered name and its options, as an experiment file writes it
// (`positions = { kind = "rotary", base = 500.0 }`).
#include <string>

#include "nn/options.h"

namespace ablate::nn {

struct Component {
  std::string kind;
  Options options = {};
};

}  // namespace ablate::nn
