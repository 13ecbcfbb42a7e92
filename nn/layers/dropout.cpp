#include "nn/layers/dropout.h"

namespace ablate::nn {

Dropout::Dropout(double p, Generator& gen, bool spatial) : p_(p), gen_(gen), spatial_(spatial) {
  if (!(p >= 0.0 && p < 1.0))
    throw std::invalid_argument("Dropout: p must be in [0, 1), got " + std::to_string(p));
}

Var Dropout::forward(const Var& x) {
  if (!training() || p_ == 0.0) return x;
  if (!spatial_) return dropout(x, p_, true, gen_);
  if (x.shape().rank() != 3)
    throw ShapeError("spatial dropout: expected [batch, time, features], got " + x.shape().str());
  std::int64_t B = x.shape()[0], D = x.shape()[2];
  // The keep-mask [B, 1, D], scaled by 1/(1-p), broadcast over time.
  Tensor keep = Tape::current().alloc({B, 1, D}, x.dtype());
  for (std::int64_t i = 0; i < B * D; ++i)
    keep.set(i, gen_.uniform() < p_ ? 0.0 : 1.0 / (1.0 - p_));
  return x * constant(keep);
}

}  // namespace ablate::nn
