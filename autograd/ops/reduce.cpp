// Reductions over one axis or over all elements. The input is viewed as
// [outer, n, inner] with n the reduced extent; the output is [outer, inner].
#include <limits>

#include "autograd/op_builder.h"
#include "autograd/ops.h"

namespace ablate {

namespace {

struct ReduceView {
  std::int64_t outer, n, inner;
  Shape out;
};

ReduceView reduce_all(const Shape& x) {
  return {1, x.numel(), 1, Shape{}};
}

ReduceView reduce_axis(const Shape& x, int axis, bool keepdim, const char* op) {
  int a = x.axis(axis, op);
  return {x.outer(a), x[a], x.inner(a), keepdim ? x.with(a, 1) : x.without(a)};
}

// Sum (scale 1) and mean (scale 1/n) share one kernel: y = scale · Σ x, gx += scale · gy.
Var scaled_sum(OpKind kind, const Var& x, const ReduceView& v) {
  double scale = kind == OpKind::mean ? (v.n == 0 ? 0.0 : 1.0 / double(v.n)) : 1.0;
  OpBuilder op(kind, {x});
  op.scalar(0, scale);
  op.integer(0, v.outer);
  op.integer(1, v.n);
  op.integer(2, v.inner);
  Tensor y = op.output(v.out, x.dtype());
  dispatch_float(x.dtype(), op_name(kind), [&]<class T>() {
    const T* px = op.input(0).data<T>();
    T* py = y.data<T>();
    for (std::int64_t o = 0; o < v.outer; ++o) {
      T* row = py + o * v.inner;
      for (std::int64_t i = 0; i < v.inner; ++i) row[i] = 0;
      for (std::int64_t j = 0; j < v.n; ++j) {
        const T* src = px + (o * v.n + j) * v.inner;
        for (std::int64_t i = 0; i < v.inner; ++i) row[i] += src[i];
      }
      for (std::int64_t i = 0; i < v.inner; ++i) row[i] *= T(scale);
    }
  });
  return op.finish(y, [](BackwardContext& c) {
    dispatch_float(c.dtype(), "sum backward", [&]<class T>() {
      T scale = T(c.scalar(0));
      std::int64_t outer = c.integer(0), n = c.integer(1), inner = c.integer(2);
      const T* g = c.output_grad().template data<T>();
      T* gx = c.input_grad(0).template data<T>();
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t j = 0; j < n; ++j) {
          T* dst = gx + (o * n + j) * inner;
          for (std::int64_t i = 0; i < inner; ++i) dst[i] += scale * g[o * inner + i];
        }
    });
  });
}

Var max_over(const Var& x, const ReduceView& v) {
  if (v.n == 0) throw ShapeError("max: cannot reduce an empty axis of shape " + x.shape().str());
  OpBuilder op(OpKind::max, {x});
  Tensor y = op.output(v.out, x.dtype());
  Tensor arg = op.scratch(v.out, DType::i32);
  op.save(0, arg);
  op.integer(0, v.n);
  op.integer(1, v.inner);
  dispatch_float(x.dtype(), "max", [&]<class T>() {
    const T* px = op.input(0).data<T>();
    T* py = y.data<T>();
    std::int32_t* pa = arg.data<std::int32_t>();
    for (std::int64_t o = 0; o < v.outer; ++o)
      for (std::int64_t i = 0; i < v.inner; ++i) {
        const T* src = px + o * v.n * v.inner + i;
        std::int64_t best = 0;
        for (std::int64_t j = 1; j < v.n; ++j)
          if (src[j * v.inner] > src[best * v.inner]) best = j;
        py[o * v.inner + i] = src[best * v.inner];
        pa[o * v.inner + i] = std::int32_t(best);
      }
  });
  return op.finish(y, [](BackwardContext& c) {
    dispatch_float(c.dtype(), "max backward", [&]<class T>() {
      std::int64_t n = c.integer(0), inner = c.integer(1);
      const std::int32_t* pa = c.saved(0).data<std::int32_t>();
      const T* g = c.output_grad().template data<T>();
      T* gx = c.input_grad(0).template data<T>();
      for (std::int64_t k = 0, m = c.output().numel(); k < m; ++k) {
        std::int64_t o = k / inner, i = k % inner;
        gx[(o * n + pa[k]) * inner + i] += g[k];
      }
    });
  });
}

}  // namespace

Var sum(const Var& x) {
  return scaled_sum(OpKind::sum, x, reduce_all(x.shape()));
}
Var sum(const Var& x, int axis, bool keepdim) {
  return scaled_sum(OpKind::sum, x, reduce_axis(x.shape(), axis, keepdim, "sum"));
}
Var mean(const Var& x) {
  return scaled_sum(OpKind::mean, x, reduce_all(x.shape()));
}
Var mean(const Var& x, int axis, bool keepdim) {
  return scaled_sum(OpKind::mean, x, reduce_axis(x.shape(), axis, keepdim, "mean"));
}
Var max(const Var& x) {
  return max_over(x, reduce_all(x.shape()));
}
Var max(const Var& x, int axis, bool keepdim) {
  return max_over(x, reduce_axis(x.shape(), axis, keepdim, "max"));
}

}  // namespace ablate
