// A fully connected layer as one op: y = x·Wᵀ + b. Unfused it records a matmul and a
// broadcast add (two nodes, two outputs, and a strided reduction for the bias
// gradient); fused, the bias is the GEMM's starting value and its gradient a column
// sum of the output gradient.
#include <algorithm>
#include <array>
#include <vector>

#include "autograd/kernels/bf16.h"
#include "autograd/kernels/checks.h"
#include "autograd/kernels/gemm.h"
#include "autograd/op_builder.h"
#include "autograd/ops.h"

namespace ablate {

namespace {

// bf16 copies live in the arena as raw bytes (DType::b8, two per element): no tensor a
// user sees is ever bf16, so DType has none.
template <class Alloc>
std::uint16_t* bf16_copy(Alloc&& alloc, const float* src, std::int64_t rows, std::int64_t cols,
                         Tensor* keep) {
  *keep = alloc(Shape{rows * cols * 2}, DType::b8);
  auto* dst = reinterpret_cast<std::uint16_t*>(keep->data<std::uint8_t>());
  kernels::to_bf16(src, rows, cols, cols, dst);
  return dst;
}

const std::uint16_t* bf16_data(const Tensor& t) {
  return reinterpret_cast<const std::uint16_t*>(t.data<std::uint8_t>());
}

struct LinearDims {
  std::int64_t in, out, rows;
};

// Shapes and dtypes: x [..., in], weight [out, in], bias [out] or undefined.
LinearDims check_linear(const Var& x, const Var& weight, const Var& bias) {
  const Shape& xs = x.shape();
  const Shape& ws = weight.shape();
  if (xs.rank() < 1 || ws.rank() != 2 || xs[-1] != ws[1])
    throw ShapeError("linear: expected input [..., in] and weight [out, in], got " + xs.str() +
                     " and " + ws.str());
  const std::int64_t in = ws[1], out = ws[0];
  kernels::require_same_dtype(x.dtype(), weight.dtype(), "linear");
  if (bias.defined()) {
    kernels::require_same_dtype(x.dtype(), bias.dtype(), "linear");
    if (!(bias.shape() == Shape{out}))
      throw ShapeError("linear: bias must be [" + std::to_string(out) + "], got " +
                       bias.shape().str());
  }
  return {in, out, in ? xs.numel() / in : 0};
}

// y = x·Wᵀ (+ b, the GEMM's starting value) (then ReLU), in f32, f64 or bf16 products.
template <class T>
void linear_forward(OpBuilder& op, Tensor& y, const LinearDims& d, bool has_bias, bool apply_relu) {
  const auto [in, out, rows] = d;
  T* py = y.data<T>();
  if (has_bias) {
    const T* pb = op.input(2).data<T>();
    for (std::int64_t r = 0; r < rows; ++r) std::copy(pb, pb + out, py + r * out);
  }
  const bool bf16 =
      std::is_same_v<T, float> && kernels::matmul_precision() == kernels::MatmulPrecision::bf16;
  if (bf16) {
    auto scratch = [&](const Shape& shape, DType dtype) { return op.scratch(shape, dtype); };
    Tensor xb, wb;
    const std::uint16_t* x16 = bf16_copy(scratch, op.input(0).data<float>(), rows, in, &xb);
    const std::uint16_t* w16 = bf16_copy(scratch, op.input(1).data<float>(), out, in, &wb);
    kernels::gemm_bf16_operands(false, true, rows, out, in, x16, in, w16, in, y.data<float>(), out,
                                has_bias);
    op.save(0, xb);  // the backward's products use these (and know bf16 by them)
    op.save(1, wb);
  } else {
    kernels::gemm<T>(false, true, rows, out, in, op.input(0).data<T>(), in, op.input(1).data<T>(),
                     in, py, out, has_bias);
  }
  if (apply_relu)
    for (std::int64_t i = 0, n = rows * out; i < n; ++i) py[i] = py[i] > T(0) ? py[i] : T(0);
}

// dx = g·W, dW = gᵀ·x, db = Σ_rows g, with g masked by the ReLU's output first.
template <class T>
void linear_backward(BackwardContext& c) {
  std::int64_t in = c.input(1).shape()[1], out = c.input(1).shape()[0];
  std::int64_t rows = in ? c.input(0).numel() / in : 0;
  const T* g = c.output_grad().template data<T>();
  if (c.integer(0)) {  // ReLU: the gradient passes where the output is positive
    Tensor masked =
        c.output_grad_is_private() ? c.output_grad() : c.scratch(c.output().shape(), c.dtype());
    T* gm = masked.template data<T>();
    const T* y = c.output().data<T>();
    for (std::int64_t i = 0, n = rows * out; i < n; ++i) gm[i] = y[i] > T(0) ? g[i] : T(0);
    g = gm;
  }
  const bool bf16 = c.saved(0).defined();  // the forward's products were bf16
  // The rounded output gradient is needed only within this backward: a per-thread
  // buffer, not arena memory that would stay until the tape's reset.
  thread_local std::vector<std::uint16_t> g16_buffer;
  const std::uint16_t* g16 = nullptr;
  if (bf16 && (c.needs_grad(0) || c.needs_grad(1))) {
    if (g16_buffer.size() < std::size_t(rows * out)) g16_buffer.resize(std::size_t(rows * out));
    kernels::to_bf16(reinterpret_cast<const float*>(g), rows, out, out, g16_buffer.data());
    g16 = g16_buffer.data();
  }
  if (c.needs_grad(0)) {  // dx [rows, in] = g [rows, out] · W [out, in]
    auto [gx, accumulate] = c.input_grad_slot(0);
    if (bf16)
      kernels::gemm_bf16_operands(false, false, rows, in, out, g16, out, bf16_data(c.saved(1)), in,
                                  gx.template data<float>(), in, accumulate);
    else
      kernels::gemm<T>(false, false, rows, in, out, g, out, c.input(1).data<T>(), in,
                       gx.template data<T>(), in, accumulate);
  }
  if (c.needs_grad(1)) {  // dW [out, in] = gᵀ · x
    auto [gw, accumulate] = c.input_grad_slot(1);
    if (bf16)
      kernels::gemm_bf16_operands(true, false, out, in, rows, g16, out, bf16_data(c.saved(0)), in,
                                  gw.template data<float>(), in, accumulate);
    else
      kernels::gemm<T>(true, false, out, in, rows, g, out, c.input(0).data<T>(), in,
                       gw.template data<T>(), in, accumulate);
  }
  if (c.num_inputs() == 3 && c.needs_grad(2)) {  // db = Σ_rows g
    T* gb = c.input_grad(2).template data<T>();
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < out; ++j) gb[j] += g[r * out + j];
  }
}

Var linear_op(OpKind kind, const Var& x, const Var& weight, const Var& bias) {
  const bool apply_relu = kind == OpKind::linear_relu;
  const LinearDims d = check_linear(x, weight, bias);
  const bool has_bias = bias.defined();
  std::array<Var, 3> inputs{x, weight, bias};
  OpBuilder op(kind, std::span<const Var>(inputs.data(), has_bias ? 3 : 2));
  const Shape& xs = x.shape();
  std::array<std::int64_t, Shape::kMaxRank> dims{};
  for (int r = 0; r < xs.rank(); ++r) dims[std::size_t(r)] = xs[r];
  dims[std::size_t(xs.rank() - 1)] = d.out;
  Shape ys(std::span<const std::int64_t>(dims.data(), std::size_t(xs.rank())));
  op.integer(0, apply_relu);
  Tensor y = op.output(ys, x.dtype());
  dispatch_float(x.dtype(), "linear",
                 [&]<class T>() { linear_forward<T>(op, y, d, has_bias, apply_relu); });
  return op.finish(y, [](BackwardContext& c) {
    dispatch_float(c.dtype(), "linear backward", [&]<class T>() { linear_backward<T>(c); });
  });
}

}  // namespace

Var linear(const Var& x, const Var& weight, const Var& bias) {
  return linear_op(OpKind::linear, x, weight, bias);
}

Var linear_relu(const Var& x, const Var& weight, const Var& bias) {
  return linear_op(OpKind::linear_relu, x, weight, bias);
}

}  // namespace ablate
