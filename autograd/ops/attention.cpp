// Fused multi-head scaled dot-product attention on the projections' own layout.
// Unfused, attention records permutes to split and merge heads (four copies), the
// score matmul, the softmax and the value matmul, and keeps each output alive until
// reset. Here every head's GEMM reads its queries, keys and values in place through
// the leading dimension (row stride H·d), the softmax runs in place on the scores,
// the output is written straight into [B, Tq, H·d_v], and only the attention
// weights are kept for the backward.
#include <algorithm>
#include <array>
#include <limits>
#include <type_traits>

#include "autograd/kernels/attention_prefix.h"
#include "autograd/kernels/checks.h"
#include "autograd/kernels/eigen_maps.h"
#include "autograd/kernels/gemm.h"
#include "autograd/kernels/softmax_row.h"
#include "autograd/op_builder.h"
#include "autograd/ops.h"

namespace ablate {

namespace {

struct AttentionDims {
  std::int64_t B, Tq, Tk, H, dk, dv;
};

AttentionDims attention_dims(const Shape& q, const Shape& k, const Shape& v, std::int64_t heads) {
  if (q.rank() != 3 || k.rank() != 3 || v.rank() != 3 || q[0] != k[0] || k[0] != v[0] ||
      k[1] != v[1] || q[2] != k[2] || heads <= 0 || q[2] % heads != 0 || v[2] % heads != 0)
    throw ShapeError(
        "attention: expected q [B, Tq, H·d_k], k [B, Tk, H·d_k], v [B, Tk, H·d_v] "
        "with H = " +
        std::to_string(heads) + ", got " + q.str() + ", " + k.str() + ", " + v.str());
  return {q[0], q[1], k[1], heads, q[2] / heads, v[2] / heads};
}

// Masked scaled softmax of each row of the contiguous block x [rows, D], in place.
// Short rows (Tk = 10 in the tiny model) are shorter than one AVX-512 packet, so a
// per-row exp would run scalar: instead the shift is applied row by row and exp runs
// once over the whole block. Masked entries become the lowest finite value before the
// shift, so exp sends them to exactly 0; a row with nothing allowed is all zeros.
template <class T>
void softmax_block(T* x, std::int64_t rows, std::int64_t D, T scale, const std::uint8_t* mask) {
  constexpr T kLowest = std::numeric_limits<T>::lowest();
  for (std::int64_t i = 0; i < rows; ++i) {
    T* r = x + i * D;
    const T mx = kernels::scale_mask_max(r, D, scale, mask ? mask + i * D : nullptr);
    if (mx == kLowest) continue;  // fully masked: every entry stays lowest, exp gives 0
    for (std::int64_t j = 0; j < D; ++j) r[j] = r[j] == kLowest ? kLowest : r[j] - mx;
  }
  kernels::ArrayMap<T> all(x, rows * D);
  all = all.exp();
  for (std::int64_t i = 0; i < rows; ++i) {
    kernels::ArrayMap<T> r(x + i * D, D);
    T total = r.sum();
    if (total > 0) r *= T(1) / total;
  }
}

// The prefix path (kernels/attention_prefix.h) is f32 on the small_gemm kernel, and needs
// a mask to find the prefixes in.
template <class T>
bool prefix_path_applies(const kernels::AttentionHeadDims& d, const std::uint8_t* mask) {
  return std::is_same_v<T, float> && mask && kernels::attention_prefix_path() &&
         kernels::prefix_attention_fits(d);
}

}  // namespace

Var attention(const Var& q, const Var& k, const Var& v, std::int64_t heads, const Tensor& mask,
              double scale, Tensor* weights) {
  AttentionDims d = attention_dims(q.shape(), k.shape(), v.shape(), heads);
  kernels::require_same_dtype(q.dtype(), k.dtype(), "attention");
  kernels::require_same_dtype(q.dtype(), v.dtype(), "attention");
  if (mask.defined()) {
    kernels::require_dtype(mask, DType::b8, "attention", "mask");
    if (!(mask.shape() == Shape{d.B, 1, d.Tq, d.Tk}))
      throw ShapeError("attention: mask must be [B, 1, Tq, Tk] = " +
                       Shape{d.B, 1, d.Tq, d.Tk}.str() + ", got " + mask.shape().str());
  }
  OpBuilder op(OpKind::attention, {q, k, v});
  op.integer(0, heads);
  op.scalar(0, scale);
  op.save(0, mask);
  Tensor p = op.scratch(Shape{d.B, d.H, d.Tq, d.Tk}, q.dtype());  // attention weights
  op.save(1, p);
  if (weights) *weights = p;
  Tensor y = op.output(Shape{d.B, d.Tq, d.H * d.dv}, q.dtype());
  dispatch_float(q.dtype(), "attention", [&]<class T>() {
    const T* pq = op.input(0).data<T>();
    const T* pk = op.input(1).data<T>();
    const T* pv = op.input(2).data<T>();
    T* pp = p.data<T>();
    T* py = y.data<T>();
    const std::uint8_t* pm = mask.defined() ? mask.data<std::uint8_t>() : nullptr;
    std::int64_t ldq = d.H * d.dk, ldv = d.H * d.dv;
    const kernels::AttentionHeadDims hd{d.Tq, d.Tk, d.dk, d.dv, ldq, ldv};
    const bool prefix_path = prefix_path_applies<T>(hd, pm);
    kernels::KeyPrefixes prefixes;
    for (std::int64_t b = 0; b < d.B; ++b) {
      // Rows that see only a prefix of the keys compute only that (kernels/attention_prefix.h).
      const bool prefix =
          prefix_path && kernels::key_prefixes(pm + b * d.Tq * d.Tk, d.Tq, d.Tk, prefixes);
      for (std::int64_t h = 0; h < d.H; ++h) {
        T* P = pp + (b * d.H + h) * d.Tq * d.Tk;
        if constexpr (std::is_same_v<T, float>)
          if (prefix && kernels::prefix_attention_forward(
                            hd, pq + b * d.Tq * ldq + h * d.dk, pk + b * d.Tk * ldq + h * d.dk,
                            pv + b * d.Tk * ldv + h * d.dv, pm + b * d.Tq * d.Tk, T(scale),
                            prefixes, P, py + b * d.Tq * ldv + h * d.dv))
            continue;
        // S = Q_bh · K_bhᵀ, then P = softmax(scale · S) in place, row by row.
        kernels::gemm<T>(false, true, d.Tq, d.Tk, d.dk, pq + b * d.Tq * ldq + h * d.dk, ldq,
                         pk + b * d.Tk * ldq + h * d.dk, ldq, P, d.Tk, false);
        softmax_block<T>(P, d.Tq, d.Tk, T(scale), pm ? pm + b * d.Tq * d.Tk : nullptr);
        // Y_bh = P · V_bh, written into its heads' columns of [B, Tq, H·d_v].
        kernels::gemm<T>(false, false, d.Tq, d.dv, d.Tk, P, d.Tk, pv + b * d.Tk * ldv + h * d.dv,
                         ldv, py + b * d.Tq * ldv + h * d.dv, ldv, false);
      }
    }
  });
  // dV = Pᵀ·dY, dP = dY·Vᵀ, dS = scale · P ⊙ (dP - rowsum(dP ⊙ P)), dQ = dS·K, dK = dSᵀ·Q.
  return op.finish(y, [](BackwardContext& c) {
    AttentionDims d =
        attention_dims(c.input(0).shape(), c.input(1).shape(), c.input(2).shape(), c.integer(0));
    dispatch_float(c.dtype(), "attention backward", [&]<class T>() {
      const T* pq = c.input(0).data<T>();
      const T* pk = c.input(1).data<T>();
      const T* pv = c.input(2).data<T>();
      const T* pp = c.saved(1).data<T>();
      const T* g = c.output_grad().template data<T>();
      T scale = T(c.scalar(0));
      // Each (b, h) writes its own block of dQ, dK and dV, so a fresh buffer is written
      // and a used one added into — unless two inputs share a buffer (self-attention
      // without projections), where the blocks overlap: then all accumulate into zeros.
      bool shared = c.input(0).raw() == c.input(1).raw() || c.input(0).raw() == c.input(2).raw() ||
                    c.input(1).raw() == c.input(2).raw();
      std::array<BackwardContext::GradSlot, 3> slot{};
      std::array<T*, 3> grad{};
      for (int i = 0; i < 3; ++i) {
        if (!c.needs_grad(i)) continue;
        slot[std::size_t(i)] =
            shared ? BackwardContext::GradSlot{c.input_grad(i), true} : c.input_grad_slot(i);
        grad[std::size_t(i)] = slot[std::size_t(i)].grad.template data<T>();
      }
      Tensor dp_buffer = c.scratch(Shape{d.Tq, d.Tk}, c.dtype());
      T* dP = dp_buffer.data<T>();
      std::int64_t ldq = d.H * d.dk, ldv = d.H * d.dv;
      const kernels::AttentionHeadDims hd{d.Tq, d.Tk, d.dk, d.dv, ldq, ldv};
      const Tensor& mask = c.saved(0);
      const std::uint8_t* pm = mask.defined() ? mask.data<std::uint8_t>() : nullptr;
      const bool prefix_path = prefix_path_applies<T>(hd, pm);
      Tensor dq_buffer = prefix_path ? c.scratch(Shape{d.Tq, d.dk}, c.dtype()) : Tensor();
      kernels::KeyPrefixes prefixes;
      for (std::int64_t b = 0; b < d.B; ++b) {
        const bool prefix =
            prefix_path && kernels::key_prefixes(pm + b * d.Tq * d.Tk, d.Tq, d.Tk, prefixes);
        for (std::int64_t h = 0; h < d.H; ++h) {
          const T* P = pp + (b * d.H + h) * d.Tq * d.Tk;
          const T* G = g + b * d.Tq * ldv + h * d.dv;
          std::int64_t qo = b * d.Tq * ldq + h * d.dk, ko = b * d.Tk * ldq + h * d.dk;
          std::int64_t vo = b * d.Tk * ldv + h * d.dv;
          if constexpr (std::is_same_v<T, float>) {
            kernels::AttentionHeadGrads hg{grad[0] ? grad[0] + qo : nullptr,
                                           grad[1] ? grad[1] + ko : nullptr,
                                           grad[2] ? grad[2] + vo : nullptr,
                                           slot[0].accumulate,
                                           slot[1].accumulate,
                                           slot[2].accumulate};
            if (prefix &&
                kernels::prefix_attention_backward(hd, pq + qo, pk + ko, pv + vo, P, G, scale,
                                                   prefixes, dP, dq_buffer.data<T>(), hg))
              continue;
          }
          if (grad[2])
            kernels::gemm<T>(true, false, d.Tk, d.dv, d.Tq, P, d.Tk, G, ldv, grad[2] + vo, ldv,
                             slot[2].accumulate);
          if (!grad[0] && !grad[1]) continue;
          kernels::gemm<T>(false, true, d.Tq, d.Tk, d.dv, G, ldv, pv + vo, ldv, dP, d.Tk, false);
          for (std::int64_t i = 0; i < d.Tq; ++i) {
            kernels::ConstArrayMap<T> pr(P + i * d.Tk, d.Tk);
            kernels::ArrayMap<T> dr(dP + i * d.Tk, d.Tk);
            T dot = (dr * pr).sum();
            dr = scale * pr * (dr - dot);
          }
          if (grad[0])
            kernels::gemm<T>(false, false, d.Tq, d.dk, d.Tk, dP, d.Tk, pk + ko, ldq, grad[0] + qo,
                             ldq, slot[0].accumulate);
          if (grad[1])
            kernels::gemm<T>(true, false, d.Tk, d.dk, d.Tq, dP, d.Tk, pq + qo, ldq, grad[1] + ko,
                             ldq, slot[1].accumulate);
        }
      }
    });
  });
}

}  // namespace ablate
