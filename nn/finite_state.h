#pragma once
// Whether a module's weights are all finite: one pass over its floating parameters
// and buffers. A checkpoint with a NaN or an infinity in it (a damaged file, or one
// written from a model that diverged) decodes every input to nothing, silently;
// `ablate predict` refuses it with this instead (nn/CHECKPOINTS.md). Loading itself
// does not refuse it: a resume state must restore exactly what was saved.
#include <cstdint>
#include <optional>
#include <string>

#include "nn/module.h"

namespace ablate::nn {

struct NonFiniteValue {
  std::string tensor;       // dotted name ("encoder.layers.0.linear1.weight")
  std::int64_t index;       // flat, row-major
  double value;             // NaN, inf or -inf
  std::string str() const;  // "tensor 'encoder...weight' holds nan at element 7"
};

// The first non-finite element, in the module's parameter-then-buffer order; nullopt
// when every f32 and f64 value is finite.
std::optional<NonFiniteValue> first_non_finite(const Module& module);

}  // namespace ablate::nn
