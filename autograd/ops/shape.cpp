// Ops that move elements without arithmetic: reshape (a view), permute/transpose,
// concat and slice (copies, since tensors are contiguous).
#include <cstring>
#include <vector>

#include "autograd/kernels/checks.h"
#include "autograd/op_builder.h"
#include "autograd/ops.h"

namespace ablate {

Var reshape(const Var& x, const Shape& shape) {
  if (shape.numel() != x.numel())
    throw ShapeError("reshape: cannot reshape " + x.shape().str() + " (" +
                     std::to_string(x.numel()) + " elements) to " + shape.str());
  OpBuilder op(OpKind::reshape, {x});
  Tensor y = Tensor::view(op.input(0).raw(), shape, x.dtype());  // shares the buffer
  return op.finish(y, [](BackwardContext& c) {
    dispatch_float(c.dtype(), "reshape backward", [&]<class T>() {
      const T* g = c.output_grad().template data<T>();
      auto [slot, accumulate] = c.input_grad_slot(0);
      T* gx = slot.template data<T>();
      std::int64_t n = c.output().numel();
      if (!accumulate) {
        std::memcpy(gx, g, std::size_t(n) * sizeof(T));
        return;
      }
      for (std::int64_t i = 0; i < n; ++i) gx[i] += g[i];
    });
  });
}

Var reshape(const Var& x, std::initializer_list<std::int64_t> dims) {
  if (dims.size() > std::size_t(Shape::kMaxRank))
    throw ShapeError("reshape: at most 4 dims, got " + std::to_string(dims.size()));
  std::array<std::int64_t, Shape::kMaxRank> d{};
  std::int64_t known = 1;
  int inferred = -1, r = 0;
  for (std::int64_t v : dims) {
    if (v == -1) {
      if (inferred >= 0) throw ShapeError("reshape: only one dimension may be -1");
      inferred = r;
    } else {
      known *= v;
    }
    d[r++] = v;
  }
  if (inferred >= 0) {
    if (known == 0 || x.numel() % known != 0)
      throw ShapeError("reshape: cannot infer the -1 dimension reshaping " + x.shape().str());
    d[inferred] = x.numel() / known;
  }
  return reshape(x, Shape(std::span<const std::int64_t>(d.data(), std::size_t(r))));
}

namespace {

// Walks the output of a permutation in row-major order, yielding (out, in) offsets.
template <class F>
void for_each_permuted(const Shape& in, const std::array<int, 4>& order, int rank, F&& f) {
  std::array<std::int64_t, 4> in_stride{}, dims{1, 1, 1, 1}, stride{0, 0, 0, 0};
  std::int64_t s = 1;
  for (int d = rank - 1; d >= 0; --d) {
    in_stride[d] = s;
    s *= in[d];
  }
  int pad = 4 - rank;
  for (int d = 0; d < rank; ++d) {
    dims[pad + d] = in[order[d]];
    stride[pad + d] = in_stride[order[d]];
  }
  std::int64_t o = 0;
  for (std::int64_t a = 0; a < dims[0]; ++a)
    for (std::int64_t b = 0; b < dims[1]; ++b)
      for (std::int64_t c = 0; c < dims[2]; ++c) {
        std::int64_t base = a * stride[0] + b * stride[1] + c * stride[2];
        for (std::int64_t e = 0; e < dims[3]; ++e) f(o++, base + e * stride[3]);
      }
}

}  // namespace

Var permute(const Var& x, std::span<const int> order) {
  const Shape& in = x.shape();
  if (int(order.size()) != in.rank())
    throw ShapeError("permute: order has " + std::to_string(order.size()) +
                     " axes for a tensor of shape " + in.str());
  std::array<int, 4> ord{};
  std::array<bool, 4> seen{};
  std::array<std::int64_t, 4> dims{};
  for (int d = 0; d < in.rank(); ++d) {
    int a = in.axis(order[std::size_t(d)], "permute");
    if (seen[a]) throw ShapeError("permute: axis " + std::to_string(a) + " repeated");
    seen[a] = true;
    ord[d] = a;
    dims[d] = in[a];
  }
  OpBuilder op(OpKind::permute, {x});
  for (int d = 0; d < 4; ++d) op.integer(d, ord[d]);
  Tensor y = op.output(Shape(std::span<const std::int64_t>(dims.data(), std::size_t(in.rank()))),
                       x.dtype());
  dispatch_float(x.dtype(), "permute", [&]<class T>() {
    const T* px = op.input(0).data<T>();
    T* py = y.data<T>();
    for_each_permuted(in, ord, in.rank(), [&](std::int64_t o, std::int64_t i) { py[o] = px[i]; });
  });
  return op.finish(y, [](BackwardContext& c) {
    std::array<int, 4> ord{int(c.integer(0)), int(c.integer(1)), int(c.integer(2)),
                           int(c.integer(3))};
    const Shape& in = c.input(0).shape();
    dispatch_float(c.dtype(), "permute backward", [&]<class T>() {
      const T* g = c.output_grad().template data<T>();
      auto [slot, accumulate] = c.input_grad_slot(0);
      T* gx = slot.template data<T>();
      if (accumulate)
        for_each_permuted(in, ord, in.rank(),
                          [&](std::int64_t o, std::int64_t i) { gx[i] += g[o]; });
      else  // a permutation writes every element once
        for_each_permuted(in, ord, in.rank(),
                          [&](std::int64_t o, std::int64_t i) { gx[i] = g[o]; });
    });
  });
}

Var permute(const Var& x, std::initializer_list<int> order) {
  return permute(x, std::span<const int>(order.begin(), order.size()));
}

Var transpose(const Var& x, int axis0, int axis1) {
  std::array<int, 4> order{0, 1, 2, 3};
  int r = x.shape().rank();
  std::swap(order[std::size_t(x.shape().axis(axis0, "transpose"))],
            order[std::size_t(x.shape().axis(axis1, "transpose"))]);
  return permute(x, std::span<const int>(order.data(), std::size_t(r)));
}

Var concat(std::span<const Var> xs, int axis) {
  if (xs.empty()) throw std::invalid_argument("concat: needs at least one input");
  const Shape& first = xs[0].shape();
  int a = first.axis(axis, "concat");
  std::int64_t total = 0;
  for (const Var& x : xs) {
    kernels::require_same_dtype(xs[0].dtype(), x.dtype(), "concat");
    if (!(x.shape().with(a, 0) == first.with(a, 0)))
      throw ShapeError("concat: shapes " + first.str() + " and " + x.shape().str() +
                       " differ outside axis " + std::to_string(a));
    total += x.shape()[a];
  }
  OpBuilder op(OpKind::concat, xs);
  op.integer(0, a);
  Tensor y = op.output(first.with(a, total), xs[0].dtype());
  std::int64_t outer = first.outer(a), inner = first.inner(a);
  std::size_t elem = dtype_size(y.dtype());
  auto* py = static_cast<std::byte*>(y.raw());
  std::int64_t offset = 0;
  for (std::size_t k = 0; k < xs.size(); ++k) {
    std::int64_t n = xs[k].shape()[a];
    const auto* px = static_cast<const std::byte*>(op.input(int(k)).raw());
    for (std::int64_t o = 0; o < outer; ++o)
      std::memcpy(py + ((o * total + offset) * inner) * elem, px + o * n * inner * elem,
                  std::size_t(n * inner) * elem);
    offset += n;
  }
  return op.finish(y, [](BackwardContext& c) {
    int a = int(c.integer(0));
    const Shape& out = c.output().shape();
    std::int64_t outer = out.outer(a), inner = out.inner(a), total = out[a];
    dispatch_float(c.dtype(), "concat backward", [&]<class T>() {
      const T* g = c.output_grad().template data<T>();
      std::int64_t offset = 0;
      for (int k = 0; k < c.num_inputs(); ++k) {
        std::int64_t n = c.input(k).shape()[a];
        if (c.needs_grad(k)) {
          auto [slot, accumulate] = c.input_grad_slot(k);
          T* gx = slot.template data<T>();
          for (std::int64_t o = 0; o < outer; ++o)
            for (std::int64_t i = 0; i < n * inner; ++i) {
              T v = g[(o * total + offset) * inner + i];
              gx[o * n * inner + i] = accumulate ? gx[o * n * inner + i] + v : v;
            }
        }
        offset += n;
      }
    });
  });
}

Var concat(std::initializer_list<Var> xs, int axis) {
  return concat(std::span<const Var>(xs.begin(), xs.size()), axis);
}

Var slice(const Var& x, int axis, std::int64_t start, std::int64_t stop) {
  const Shape& in = x.shape();
  int a = in.axis(axis, "slice");
  if (start < 0 || stop < start || stop > in[a])
    throw ShapeError("slice: range [" + std::to_string(start) + ", " + std::to_string(stop) +
                     ") is outside axis " + std::to_string(a) + " of shape " + in.str());
  OpBuilder op(OpKind::slice, {x});
  op.integer(0, a);
  op.integer(1, start);
  Tensor y = op.output(in.with(a, stop - start), x.dtype());
  std::int64_t outer = in.outer(a), inner = in.inner(a), n = in[a], m = stop - start;
  std::size_t elem = dtype_size(y.dtype());
  const auto* px = static_cast<const std::byte*>(op.input(0).raw());
  auto* py = static_cast<std::byte*>(y.raw());
  for (std::int64_t o = 0; o < outer; ++o)
    std::memcpy(py + o * m * inner * elem, px + (o * n + start) * inner * elem,
                std::size_t(m * inner) * elem);
  return op.finish(y, [](BackwardContext& c) {
    int a = int(c.integer(0));
    std::int64_t start = c.integer(1);
    const Shape& in = c.input(0).shape();
    std::int64_t outer = in.outer(a), inner = in.inner(a), n = in[a];
    std::int64_t m = c.output().shape()[a];
    dispatch_float(c.dtype(), "slice backward", [&]<class T>() {
      const T* g = c.output_grad().template data<T>();
      T* gx = c.input_grad(0).template data<T>();
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < m * inner; ++i)
          gx[(o * n + start) * inner + i] += g[o * m * inner + i];
    });
  });
}

}  // namespace ablate
