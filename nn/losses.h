#pragma once
// Training losses: one-element Vars to call Tape::backward on. Each is composed of
// differentiable ops (autograd/ops.h), so its gradient is the ops' gradients.
#include <cstdint>

#include "autograd/ops.h"

namespace ablate::nn {

// Token-level classification loss: log-softmax of `logits` [..., C] and the negative
// log-likelihood of the i32 `targets` [...], averaged over targets != ignore_index (0
// when every target is ignored, never NaN). Pass the padding id as ignore_index so
// padded positions neither count nor receive gradient. With label_smoothing ε in [0, 1]
// the target distribution is (1-ε)·onehot + ε/C (as torch.nn.CrossEntropyLoss).
Var cross_entropy_loss(const Var& logits, const Tensor& targets, std::int32_t ignore_index = -100,
                       double label_smoothing = 0.0);

// mean((prediction - target)²) over all elements; both of one shape.
Var mse_loss(const Var& prediction, const Var& target);

// mean(|prediction - target|) over all elements; both of one shape. Its gradient at
// prediction == target is 0 (the subgradient abs picks).
Var mae_loss(const Var& prediction, const Var& target);

}  // namespace ablate::nn
