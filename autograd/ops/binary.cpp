// Elementwise binary ops with NumPy broadcasting, and the selection ops (where,
// masked_fill). Backward adds into each operand at its (possibly broadcast) index,
// which sums the gradient over the broadcast dims.
#include "autograd/kernels/broadcast.h"
#include "autograd/kernels/checks.h"
#include "autograd/op_builder.h"
#include "autograd/ops.h"

namespace ablate {

namespace {

using kernels::BroadcastLoop;

// F{}(a, b) is the forward; DA{}(a, b, y) and DB{}(a, b, y) the partial derivatives.
template <class F, class DA, class DB>
Var binary(OpKind kind, const Var& a, const Var& b, F, DA, DB) {
  const char* name = op_name(kind);
  kernels::require_same_dtype(a.dtype(), b.dtype(), name);
  Shape out = broadcast_shapes(a.shape(), b.shape(), name);
  OpBuilder op(kind, {a, b});
  Tensor y = op.output(out, a.dtype());
  dispatch_float(a.dtype(), name, [&]<class T>() {
    const T* pa = op.input(0).data<T>();
    const T* pb = op.input(1).data<T>();
    T* py = y.data<T>();
    if (a.shape() == out && b.shape() == out) {
      for (std::int64_t i = 0, n = y.numel(); i < n; ++i) py[i] = F{}(pa[i], pb[i]);
    } else {
      BroadcastLoop<2>(out, {a.shape(), b.shape()}).run([&](std::int64_t o, const auto& idx) {
        py[o] = F{}(pa[idx[0]], pb[idx[1]]);
      });
    }
  });
  return op.finish(y, [](BackwardContext& c) {
    dispatch_float(c.dtype(), "binary backward", [&]<class T>() {
      const T* pa = c.input(0).data<T>();
      const T* pb = c.input(1).data<T>();
      const T* py = c.output().data<T>();
      const T* g = c.output_grad().template data<T>();
      const Shape& out = c.output().shape();
      if (c.input(0).shape() == out && c.input(1).shape() == out) {
        // Same shapes: each operand's gradient is written element for element, so a
        // fresh buffer is written (=) rather than zeroed and added into.
        auto write = [&](int k, auto d) {
          if (!c.needs_grad(k)) return;
          auto [slot, accumulate] = c.input_grad_slot(k);
          T* gk = slot.template data<T>();
          std::int64_t n = out.numel();
          if (accumulate)
            for (std::int64_t i = 0; i < n; ++i) gk[i] += g[i] * d(pa[i], pb[i], py[i]);
          else
            for (std::int64_t i = 0; i < n; ++i) gk[i] = g[i] * d(pa[i], pb[i], py[i]);
        };
        write(0, DA{});
        write(1, DB{});
        return;
      }
      T* ga = c.needs_grad(0) ? c.input_grad(0).template data<T>() : nullptr;
      T* gb = c.needs_grad(1) ? c.input_grad(1).template data<T>() : nullptr;
      auto step = [&](std::int64_t o, std::int64_t ia, std::int64_t ib) {
        if (ga) ga[ia] += g[o] * DA{}(pa[ia], pb[ib], py[o]);
        if (gb) gb[ib] += g[o] * DB{}(pa[ia], pb[ib], py[o]);
      };
      {
        BroadcastLoop<2>(out, {c.input(0).shape(), c.input(1).shape()})
            .run([&](std::int64_t o, const auto& idx) { step(o, idx[0], idx[1]); });
      }
    });
  });
}

}  // namespace

Var add(const Var& a, const Var& b) {
  return binary(
      OpKind::add, a, b, [](auto x, auto y) { return x + y; },
      [](auto x, auto, auto) { return decltype(x)(1); },
      [](auto x, auto, auto) { return decltype(x)(1); });
}

Var sub(const Var& a, const Var& b) {
  return binary(
      OpKind::sub, a, b, [](auto x, auto y) { return x - y; },
      [](auto x, auto, auto) { return decltype(x)(1); },
      [](auto x, auto, auto) { return decltype(x)(-1); });
}

Var mul(const Var& a, const Var& b) {
  return binary(
      OpKind::mul, a, b, [](auto x, auto y) { return x * y; }, [](auto, auto y, auto) { return y; },
      [](auto x, auto, auto) { return x; });
}

Var div(const Var& a, const Var& b) {
  return binary(
      OpKind::div, a, b, [](auto x, auto y) { return x / y; },
      [](auto, auto y, auto) { return 1 / y; }, [](auto, auto y, auto q) { return -q / y; });
}

Var where(const Tensor& cond, const Var& a, const Var& b) {
  kernels::require_dtype(cond, DType::b8, "where", "cond");
  kernels::require_same_dtype(a.dtype(), b.dtype(), "where");
  Shape out =
      broadcast_shapes(cond.shape(), broadcast_shapes(a.shape(), b.shape(), "where"), "where");
  OpBuilder op(OpKind::where, {a, b});
  op.save(0, cond);
  Tensor y = op.output(out, a.dtype());
  dispatch_float(a.dtype(), "where", [&]<class T>() {
    const std::uint8_t* pc = cond.data<std::uint8_t>();
    const T* pa = op.input(0).data<T>();
    const T* pb = op.input(1).data<T>();
    T* py = y.data<T>();
    BroadcastLoop<3>(out, {cond.shape(), a.shape(), b.shape()})
        .run([&](std::int64_t o, const auto& i) { py[o] = pc[i[0]] ? pa[i[1]] : pb[i[2]]; });
  });
  return op.finish(y, [](BackwardContext& c) {
    dispatch_float(c.dtype(), "where backward", [&]<class T>() {
      const std::uint8_t* pc = c.saved(0).data<std::uint8_t>();
      const T* g = c.output_grad().template data<T>();
      T* ga = c.needs_grad(0) ? c.input_grad(0).template data<T>() : nullptr;
      T* gb = c.needs_grad(1) ? c.input_grad(1).template data<T>() : nullptr;
      BroadcastLoop<3>(c.output().shape(),
                       {c.saved(0).shape(), c.input(0).shape(), c.input(1).shape()})
          .run([&](std::int64_t o, const auto& i) {
            if (pc[i[0]]) {
              if (ga) ga[i[1]] += g[o];
            } else if (gb) {
              gb[i[2]] += g[o];
            }
          });
    });
  });
}

Var masked_fill(const Var& x, const Tensor& mask, double value) {
  kernels::require_dtype(mask, DType::b8, "masked_fill", "mask");
  if (!kernels::broadcasts_to(mask.shape(), x.shape()))
    throw ShapeError("masked_fill: mask of shape " + mask.shape().str() +
                     " does not broadcast to the input's shape " + x.shape().str());
  OpBuilder op(OpKind::masked_fill, {x});
  op.save(0, mask);
  Tensor y = op.output(x.shape(), x.dtype());
  dispatch_float(x.dtype(), "masked_fill", [&]<class T>() {
    const std::uint8_t* pm = mask.data<std::uint8_t>();
    const T* px = op.input(0).data<T>();
    T* py = y.data<T>();
    T v = T(value);
    BroadcastLoop<1>(x.shape(), {mask.shape()}).run([&](std::int64_t o, const auto& i) {
      py[o] = pm[i[0]] ? v : px[o];
    });
  });
  return op.finish(y, [](BackwardContext& c) {
    dispatch_float(c.dtype(), "masked_fill backward", [&]<class T>() {
      const std::uint8_t* pm = c.saved(0).data<std::uint8_t>();
      const T* g = c.output_grad().template data<T>();
      T* gx = c.input_grad(0).template data<T>();
      BroadcastLoop<1>(c.output().shape(), {c.saved(0).shape()})
          .run([&](std::int64_t o, const auto& i) {
            if (!pm[i[0]]) gx[o] += g[o];
          });
    });
  });
}

}  // namespace ablate
