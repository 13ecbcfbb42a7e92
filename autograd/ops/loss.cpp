// Losses with one-element outputs: fused cross-entropy (log-softmax + NLL) and MSE.
#include <cmath>

#include "autograd/kernels/checks.h"
#include "autograd/kernels/eigen_maps.h"
#include "autograd/op_builder.h"
#include "autograd/ops.h"

namespace ablate {

Var cross_entropy(const Var& logits, const Tensor& targets, std::int64_t ignore_index,
                  double label_smoothing) {
  kernels::require_dtype(targets, DType::i32, "cross_entropy", "targets");
  const Shape& ls = logits.shape();
  if (ls.rank() < 1) throw ShapeError("cross_entropy: logits need a class axis, got shape []");
  require_same_shape(ls.without(-1), targets.shape(), "cross_entropy",
                     "targets (the logits' shape without its class axis)");
  if (!(label_smoothing >= 0.0 && label_smoothing <= 1.0))
    throw std::invalid_argument("cross_entropy: label_smoothing must be in [0, 1], got " +
                                std::to_string(label_smoothing));
  std::int64_t C = ls[-1], N = targets.numel();
  const std::int32_t* t = targets.data<std::int32_t>();
  std::int64_t count = 0;
  for (std::int64_t r = 0; r < N; ++r) {
    if (t[r] == ignore_index) continue;
    if (t[r] < 0 || t[r] >= C)
      throw std::out_of_range("cross_entropy: target " + std::to_string(t[r]) + " at position " +
                              std::to_string(r) + " is outside [0, " + std::to_string(C) +
                              ") and is not the ignore_index " + std::to_string(ignore_index));
    ++count;
  }
  OpBuilder op(OpKind::cross_entropy, {logits});
  Tensor loss = op.output(Shape{}, logits.dtype());
  Tensor probs = op.requires_grad() ? op.scratch(ls, logits.dtype()) : Tensor();
  op.save(0, targets);
  op.save(1, probs);
  op.scalar(0, label_smoothing);
  op.integer(0, ignore_index);
  op.integer(1, count);
  dispatch_float(logits.dtype(), "cross_entropy", [&]<class T>() {
    const T* px = op.input(0).data<T>();
    T eps = T(label_smoothing);
    double total = 0;  // accumulated in double: a long sum of f32 terms loses digits
    for (std::int64_t r = 0; r < N; ++r) {
      if (t[r] == ignore_index) continue;
      kernels::ConstArrayMap<T> x(px + r * C, C);
      T mx = x.maxCoeff();
      T lse = mx + std::log((x - mx).exp().sum());
      T nll = lse - x[t[r]];
      T smooth = eps > 0 ? lse - x.mean() : T(0);  // -mean_c log p_c
      total += double((T(1) - eps) * nll + eps * smooth);
      if (probs.defined()) kernels::ArrayMap<T>(probs.data<T>() + r * C, C) = (x - lse).exp();
    }
    loss.data<T>()[0] = count ? T(total / double(count)) : T(0);
  });
  // d/dx = (p - q) / count with q = (1-ε)·onehot(target) + ε/C; ignored rows get 0.
  return op.finish(loss, [](BackwardContext& c) {
    dispatch_float(c.dtype(), "cross_entropy backward", [&]<class T>() {
      const std::int32_t* t = c.saved(0).data<std::int32_t>();
      const T* p = c.saved(1).data<T>();
      std::int64_t ignore = c.integer(0), count = c.integer(1);
      if (count == 0) return;
      std::int64_t C = c.input(0).shape()[-1], N = c.saved(0).numel();
      T eps = T(c.scalar(0));
      T g = c.output_grad().template data<T>()[0] / T(count);
      T* gx = c.input_grad(0).template data<T>();
      for (std::int64_t r = 0; r < N; ++r) {
        if (t[r] == ignore) continue;
        kernels::ArrayMap<T> dx(gx + r * C, C);
        dx += g * (kernels::ConstArrayMap<T>(p + r * C, C) - eps / T(C));
        dx[t[r]] -= g * (T(1) - eps);
      }
    });
  });
}

Var mse(const Var& a, const Var& b) {
  kernels::require_same_dtype(a.dtype(), b.dtype(), "mse");
  require_same_shape(a.shape(), b.shape(), "mse", "target");
  OpBuilder op(OpKind::mse, {a, b});
  Tensor loss = op.output(Shape{}, a.dtype());
  dispatch_float(a.dtype(), "mse", [&]<class T>() {
    auto d = kernels::cflat<T>(op.input(0)) - kernels::cflat<T>(op.input(1));
    double n = double(a.numel());
    loss.data<T>()[0] = n ? T(d.square().template cast<double>().sum() / n) : T(0);
  });
  return op.finish(loss, [](BackwardContext& c) {
    dispatch_float(c.dtype(), "mse backward", [&]<class T>() {
      std::int64_t n = c.input(0).numel();
      if (n == 0) return;
      T g = c.output_grad().template data<T>()[0] * T(2) / T(n);
      auto d = kernels::cflat<T>(c.input(0)) - kernels::cflat<T>(c.input(1));
      if (c.needs_grad(0)) kernels::flat<T>(c.input_grad(0)) += g * d;
      if (c.needs_grad(1)) kernels::flat<T>(c.input_grad(1)) -= g * d;
    });
  });
}

}  // namespace ablate
