#pragma once
// Seeded initialisers. Each fills a new tensor from a Generator, so a model built
// twice from the same seed is bit-identical.
#include <cstdint>

#include "autograd/rng.h"

namespace ablate::nn::init {

// U(-a, a), a = gain·sqrt(6 / (fan_in + fan_out)) — Glorot & Bengio (2010), as
// "Attention Is All You Need" and PyTorch's Transformer use for weight matrices.
// shape is [fan_out, fan_in] (PyTorch's Linear layout) or any rank-2 shape.
Tensor xavier_uniform(const Shape& shape, Generator& gen, DType dtype = DType::f32,
                      double gain = 1.0);
// N(0, stddev²), BERT's normal(0, 0.02).
Tensor normal(const Shape& shape, Generator& gen, DType dtype = DType::f32, double stddev = 0.02);
// N(0, 1/fan_in) — LeCun et al. (1998): a projection x·Wᵀ then keeps each coordinate's
// variance, var(y_i) = var(x), where Xavier's 2/(fan_in + fan_out) shrinks it as fan_out
// grows. shape as for xavier_uniform.
Tensor lecun_normal(const Shape& shape, Generator& gen, DType dtype = DType::f32);
Tensor zeros(const Shape& shape, DType dtype = DType::f32);
Tensor ones(const Shape& shape, DType dtype = DType::f32);

}  // namespace ablate::nn::init
