#include "nn/losses.h"

#include <stdexcept>
#include <string>

namespace ablate::nn {

Var cross_entropy_loss(const Var& logits, const Tensor& targets, std::int32_t ignore_index,
                       double label_smoothing) {
  return cross_entropy(logits, targets, ignore_index, label_smoothing);
}

Var mse_loss(const Var& prediction, const Var& target) {
  return mse(prediction, target);
}

Var mae_loss(const Var& prediction, const Var& target) {
  // sub() would broadcast; a loss over mismatched shapes is almost always a bug.
  if (!(prediction.shape() == target.shape()))
    throw std::invalid_argument("mae_loss: prediction " + prediction.shape().str() +
                                " and target " + target.shape().str() + " must have one shape");
  return mean(abs(sub(prediction, target)));
}

}  // namespace ablate::nn
