#pragma once
// Gradient norms: clipping (as torch.nn.utils.clip_grad_norm_) and per-module
// telemetry for studies of how gradients scale with depth and width. Only parameters
// with requires_grad count: a frozen parameter's gradient is not part of training.
// Sums of squares accumulate in double whatever the gradients' dtype.
#include <string>
#include <utility>
#include <vector>

#include "nn/module.h"

namespace ablate::nn {

// sqrt(Σ over parameters Σ over elements grad²).
double global_grad_norm(const std::vector<Parameter*>& parameters);

// Returns the global norm before clipping; when it exceeds max_norm (> 0), scales every
// gradient by max_norm / (norm + 1e-6), as torch.nn.utils.clip_grad_norm_ does (so the
// clipped norm is max_norm up to that 1e-6). A non-finite norm (inf or NaN gradients)
// is returned with the gradients left as they are — PyTorch would zero or NaN them,
// hiding the divergence; the caller sees it in the return value and can skip the step.
double clip_grad_norm(const std::vector<Parameter*>& parameters, double max_norm);

// The L2 norm of the gradients of each group of parameters whose dotted names share
// their first `depth` (>= 1) components; the last component (the parameter's own
// name) never counts, so with depth 3 "encoder.layers.0.linear1.weight" goes to
// "encoder.layers.0" and "output.weight" to "output". Groups appear in the order of
// their first parameter; the squares of the norms sum to the square of
// global_grad_norm(root.parameters()). Groups with no trainable parameter are left out.
std::vector<std::pair<std::string, double>> grad_norms_by_module(const Module& root, int depth);

}  // namespace ablate::nn
