// Batched matrix multiply with transpose flags. A rank-2 right operand under an
// untransposed left operand of any rank (a Linear layer on [B, T, D]) is a single GEMM
// over all B·T rows; other batched shapes loop GEMMs over the batch.
#include "autograd/kernels/checks.h"
#include "autograd/kernels/gemm.h"
#include "autograd/op_builder.h"
#include "autograd/ops.h"

namespace ablate {

namespace {

// Where each batch's matrices start, and the per-matrix dimensions.
struct MatmulPlan {
  std::int64_t batch = 1, M = 0, N = 0, K = 0;
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;  // elements between batches (0: shared)
  std::int64_t lda = 0, ldb = 0;
};

MatmulPlan plan_matmul(const Shape& a, const Shape& b, bool ta, bool tb, Shape* out) {
  if (a.rank() < 2 || b.rank() < 2)
    throw ShapeError("matmul: operands need rank >= 2, got " + a.str() + " and " + b.str());
  MatmulPlan p;
  std::int64_t ar = a[-2], ac = a[-1], br = b[-2], bc = b[-1];
  p.M = ta ? ac : ar;
  std::int64_t ka = ta ? ar : ac;
  p.K = tb ? bc : br;
  p.N = tb ? br : bc;
  p.lda = ac;
  p.ldb = bc;
  if (ka != p.K)
    throw ShapeError("matmul: inner dimensions differ: " + a.str() + (ta ? "ᵀ" : "") + " · " +
                     b.str() + (tb ? "ᵀ" : "") + " (" + std::to_string(ka) + " vs " +
                     std::to_string(p.K) + ")");
  Shape batch_a = a, batch_b = b;
  batch_a = a.without(-1).without(-1);
  batch_b = b.without(-1).without(-1);
  Shape batch;
  if (b.rank() == 2) {
    batch = batch_a;
    if (!ta) {  // fold the whole batch into the rows of one GEMM
      p.M *= batch_a.numel();
      p.batch = 1;
    } else {
      p.batch = batch_a.numel();
      p.stride_a = ar * ac;
    }
  } else if (a.rank() == 2) {
    batch = batch_b;
    p.batch = batch_b.numel();
    p.stride_b = br * bc;
  } else {
    if (!(batch_a == batch_b))
      throw ShapeError("matmul: batch dimensions differ: " + a.str() + " and " + b.str());
    batch = batch_a;
    p.batch = batch_a.numel();
    p.stride_a = ar * ac;
    p.stride_b = br * bc;
  }
  std::array<std::int64_t, 4> dims{};
  int r = 0;
  for (std::int64_t d : batch.dims()) dims[r++] = d;
  dims[r++] = ta ? ac : ar;
  dims[r++] = p.N;
  *out = Shape(std::span<const std::int64_t>(dims.data(), std::size_t(r)));
  p.stride_c = (ta ? ac : ar) * p.N;
  if (p.batch == 1) p.stride_c = 0;
  return p;
}

}  // namespace

Var matmul(const Var& a, const Var& b, bool trans_a, bool trans_b) {
  kernels::require_same_dtype(a.dtype(), b.dtype(), "matmul");
  Shape out;
  MatmulPlan p = plan_matmul(a.shape(), b.shape(), trans_a, trans_b, &out);
  OpBuilder op(OpKind::matmul, {a, b});
  op.integer(0, trans_a);
  op.integer(1, trans_b);
  Tensor y = op.output(out, a.dtype());
  dispatch_float(a.dtype(), "matmul", [&]<class T>() {
    const T* pa = op.input(0).data<T>();
    const T* pb = op.input(1).data<T>();
    T* pc = y.data<T>();
    for (std::int64_t i = 0; i < p.batch; ++i)
      kernels::gemm_at_precision<T>(trans_a, trans_b, p.M, p.N, p.K, pa + i * p.stride_a, p.lda,
                                    pb + i * p.stride_b, p.ldb, pc + i * p.stride_c, p.N, false);
  });
  return op.finish(y, [](BackwardContext& c) {
    bool ta = c.integer(0), tb = c.integer(1);
    Shape out;
    MatmulPlan p = plan_matmul(c.input(0).shape(), c.input(1).shape(), ta, tb, &out);
    dispatch_float(c.dtype(), "matmul backward", [&]<class T>() {
      const T* pa = c.input(0).data<T>();
      const T* pb = c.input(1).data<T>();
      const T* gc = c.output_grad().template data<T>();
      // A fresh gradient buffer is written by the first GEMM that reaches it; an
      // operand shared across the batch (stride 0) accumulates from the second on.
      BackwardContext::GradSlot sa{}, sb{};
      if (c.needs_grad(0)) sa = c.input_grad_slot(0);
      if (c.needs_grad(1)) sb = c.input_grad_slot(1);
      T* ga = c.needs_grad(0) ? sa.grad.template data<T>() : nullptr;
      T* gb = c.needs_grad(1) ? sb.grad.template data<T>() : nullptr;
      for (std::int64_t i = 0; i < p.batch; ++i) {
        bool acc_a = sa.accumulate || (i > 0 && p.stride_a == 0);
        bool acc_b = sb.accumulate || (i > 0 && p.stride_b == 0);
        const T* A = pa + i * p.stride_a;
        const T* B = pb + i * p.stride_b;
        const T* G = gc + i * p.stride_c;
        if (ga) {
          T* GA = ga + i * p.stride_a;
          if (!ta)  // dA = dC · op(B)ᵀ
            kernels::gemm_at_precision<T>(false, !tb, p.M, p.K, p.N, G, p.N, B, p.ldb, GA, p.lda,
                                          acc_a);
          else  // dA (stored [K, M]) = op(B) · dCᵀ
            kernels::gemm_at_precision<T>(tb, true, p.K, p.M, p.N, B, p.ldb, G, p.N, GA, p.lda,
                                          acc_a);
        }
        if (gb) {
          T* GB = gb + i * p.stride_b;
          if (!tb)  // dB = op(A)ᵀ · dC
            kernels::gemm_at_precision<T>(!ta, false, p.K, p.N, p.M, A, p.lda, G, p.N, GB, p.ldb,
                                          acc_b);
          else  // dB (stored [N, K]) = dCᵀ · op(A)
            kernels::gemm_at_precision<T>(true, ta, p.N, p.K, p.M, G, p.N, A, p.lda, GB, p.ldb,
                                          acc_b);
        }
      }
    });
  });
}

}  // namespace ablate
