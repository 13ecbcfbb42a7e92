#include "nn/layers/linear.h"

#include <cmath>

#include "nn/init.h"

namespace ablate::nn {

Linear::Linear(std::int64_t in, std::int64_t out, bool bias, Generator& gen, LinearInit init,
               DType dtype)
    : in_(in), out_(out) {
  if (in <= 0 || out <= 0)
    throw std::invalid_argument("Linear: sizes must be positive, got in=" + std::to_string(in) +
                                " out=" + std::to_string(out));
  Tensor w;
  switch (init) {
    case LinearInit::xavier_uniform: w = init::xavier_uniform({out, in}, gen, dtype); break;
    case LinearInit::bert_normal: w = init::normal({out, in}, gen, dtype, 0.02); break;
    case LinearInit::pytorch_default:
      w = init::uniform({out, in}, gen, 1.0 / std::sqrt(double(in)), dtype);
      break;
  }
  weight_ = &add_parameter("weight", w);
  if (bias) {
    Tensor b = init == LinearInit::pytorch_default
                   ? init::uniform({out}, gen, 1.0 / std::sqrt(double(in)), dtype)
                   : init::zeros({out}, dtype);
    bias_ = &add_parameter("bias", b);
  }
}

Var Linear::forward(const Var& x) {
  return apply(x, ablate::linear);
}

Var Linear::forward_relu(const Var& x) {
  return apply(x, ablate::linear_relu);
}

Var Linear::apply(const Var& x, Var (*op)(const Var&, const Var&, const Var&)) {
  if (x.shape().rank() < 1 || x.shape()[-1] != in_)
    throw ShapeError("Linear: expected input with last dimension " + std::to_string(in_) +
                     ", got shape " + x.shape().str());
  return op(x, leaf(*weight_), bias_ ? leaf(*bias_) : Var());
}

}  // namespace ablate::nn
