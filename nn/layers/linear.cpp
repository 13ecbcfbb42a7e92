#include "nn/layers/linear.h"

#include "nn/init.h"

namespace ablate::nn {

Linear::Linear(std::int64_t in, std::int64_t out, bool bias, Generator& gen, DType dtype)
    : in_(in), out_(out) {
  if (in <= 0 || out <= 0)
    throw std::invalid_argument("Linear: sizes must be positive, got in=" + std::to_string(in) +
                                " out=" + std::to_string(out));
  weight_ = &add_parameter("weight", init::xavier_uniform({out, in}, gen, dtype));
  if (bias) bias_ = &add_parameter("bias", init::zeros({out}, dtype));
}

Linear::Linear(Tensor weight, bool bias) {
  if (weight.shape().rank() != 2 || weight.shape().numel() == 0)
    throw ShapeError("Linear: weight must be [out, in] and non-empty, got " + weight.shape().str());
  out_ = weight.shape()[0];
  in_ = weight.shape()[1];
  DType dtype = weight.dtype();
  weight_ = &add_parameter("weight", std::move(weight));
  if (bias) bias_ = &add_parameter("bias", init::zeros({out_}, dtype));
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
