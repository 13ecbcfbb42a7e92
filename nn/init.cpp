#include "nn/init.h"

#include <cmath>

namespace ablate::nn::init {

Tensor xavier_uniform(const Shape& shape, Generator& gen, DType dtype, double gain) {
  if (shape.rank() < 2) throw ShapeError("xavier_uniform: needs rank >= 2, got " + shape.str());
  double fan_out = double(shape[0]), fan_in = double(shape.numel() / shape[0]);
  double a = gain * std::sqrt(6.0 / (fan_in + fan_out));
  return rand_uniform(shape, gen, dtype, -a, a);
}

Tensor normal(const Shape& shape, Generator& gen, DType dtype, double stddev) {
  return randn(shape, gen, dtype, 0.0, stddev);
}

Tensor lecun_normal(const Shape& shape, Generator& gen, DType dtype) {
  if (shape.rank() < 2) throw ShapeError("lecun_normal: needs rank >= 2, got " + shape.str());
  double fan_in = double(shape.numel() / shape[0]);
  return randn(shape, gen, dtype, 0.0, 1.0 / std::sqrt(fan_in));
}

Tensor zeros(const Shape& shape, DType dtype) {
  return Tensor::zeros(shape, dtype);
}
Tensor ones(const Shape& shape, DType dtype) {
  return Tensor::ones(shape, dtype);
}

}  // namespace ablate::nn::init
