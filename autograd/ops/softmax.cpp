// Softmax and log-softmax over the last axis of scale·x with an optional mask: the
// fused masked scaled softmax of attention. The row maximum is subtracted before exp,
// so logits of ±1e4 are fine; rows with no allowed position are all zero.
#include <cmath>
#include <limits>

#include "autograd/kernels/eigen_maps.h"
#include "autograd/kernels/rows.h"
#include "autograd/kernels/softmax_row.h"
#include "autograd/op_builder.h"
#include "autograd/ops.h"

namespace ablate {

namespace {

using kernels::ArrayMap;
using kernels::ConstArrayMap;
using kernels::shifted_exp;

// What both backwards read: rows of D, the scale, output, its gradient and dx.
template <class T>
struct RowGradients {
  explicit RowGradients(BackwardContext& c)
      : D(c.output().shape().rank() ? c.output().shape()[-1] : 1),
        rows(D ? c.output().numel() / D : 0),
        scale(T(c.scalar(0))),
        y(c.output().data<T>()),
        g(c.output_grad().template data<T>()),
        slot(c.input_grad_slot(0)),
        dx(slot.grad.template data<T>()) {}
  std::int64_t D, rows;
  T scale;
  const T* y;
  const T* g;
  BackwardContext::GradSlot slot;  // accumulate: add into dx; otherwise write it
  T* dx;
};

}  // namespace

Var softmax(const Var& x, const Tensor& mask, double scale) {
  OpBuilder op(OpKind::softmax, {x});
  op.scalar(0, scale);
  Tensor y = op.output(x.shape(), x.dtype());
  std::int64_t D = x.shape().rank() ? x.shape()[-1] : 1;
  dispatch_float(x.dtype(), "softmax", [&]<class T>() {
    const T* px = op.input(0).data<T>();
    T* py = y.data<T>();
    kernels::for_each_masked_row(
        x.shape(), mask, "softmax", [&](std::int64_t r, const std::uint8_t* m, std::int64_t step) {
          auto [mx, total] = shifted_exp<T>(px + r * D, py + r * D, D, T(scale), m, step);
          if (total > 0) ArrayMap<T>(py + r * D, D) *= T(1) / total;
        });
  });
  // dx = s · y ⊙ (g - Σ g⊙y); masked positions have y = 0 and so get no gradient.
  return op.finish(y, [](BackwardContext& c) {
    dispatch_float(c.dtype(), "softmax backward", [&]<class T>() {
      RowGradients<T> r(c);
      for (std::int64_t i = 0; i < r.rows; ++i) {
        ConstArrayMap<T> y(r.y + i * r.D, r.D), g(r.g + i * r.D, r.D);
        T dot = (g * y).sum();
        kernels::write_or_add(ArrayMap<T>(r.dx + i * r.D, r.D), r.scale * y * (g - dot),
                              r.slot.accumulate);
      }
    });
  });
}

Var log_softmax(const Var& x, const Tensor& mask, double scale) {
  OpBuilder op(OpKind::log_softmax, {x});
  op.scalar(0, scale);
  op.save(0, mask);
  Tensor y = op.output(x.shape(), x.dtype());
  std::int64_t D = x.shape().rank() ? x.shape()[-1] : 1;
  dispatch_float(x.dtype(), "log_softmax", [&]<class T>() {
    const T* px = op.input(0).data<T>();
    T* py = y.data<T>();
    kernels::for_each_masked_row(x.shape(), mask, "log_softmax",
                                 [&](std::int64_t r, const std::uint8_t* m, std::int64_t step) {
                                   const T* xr = px + r * D;
                                   T* yr = py + r * D;
                                   auto [mx, total] = shifted_exp<T>(xr, yr, D, T(scale), m, step);
                                   if (total == 0) return;  // fully masked: shifted_exp left zeros
                                   T lse = mx + std::log(total);
                                   for (std::int64_t j = 0; j < D; ++j)
                                     yr[j] = (!m || m[j * step]) ? T(scale) * xr[j] - lse : T(0);
                                 });
  });
  // dx = s · (g - p Σ g) over allowed positions, p = exp(y); masked positions get 0.
  return op.finish(y, [](BackwardContext& c) {
    dispatch_float(c.dtype(), "log_softmax backward", [&]<class T>() {
      RowGradients<T> rg(c);
      std::int64_t D = rg.D;
      // Masked positions and fully masked rows are skipped below: start from zeros.
      if (!rg.slot.accumulate) rg.slot.grad.fill(0.0);
      kernels::for_each_masked_row(c.output().shape(), c.saved(0), "log_softmax backward",
                                   [&](std::int64_t r, const std::uint8_t* m, std::int64_t step) {
                                     const T* y = rg.y + r * D;
                                     const T* g = rg.g + r * D;
                                     T* dx = rg.dx + r * D;
                                     T total = 0;
                                     bool any = false;
                                     for (std::int64_t j = 0; j < D; ++j)
                                       if (!m || m[j * step]) {
                                         total += g[j];
                                         any = true;
                                       }
                                     if (!any) return;
                                     for (std::int64_t j = 0; j < D; ++j)
                                       if (!m || m[j * step])
                                         dx[j] += rg.scale * (g[j] - std::exp(y[j]) * total);
                                   });
    });
  });
}

}  // namespace ablate
