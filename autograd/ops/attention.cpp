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

// Every (batch, head) of the forward: S = Q·Kᵀ, P = softmax(scale·S) in place, Y = P·V
// written into its heads' columns of [B, Tq, H·d_v]; rows that see only a prefix of the
// keys compute only that where the prefix path applies (kernels/attention_prefix.h).
template <class T>
void attention_forward(const AttentionDims& d, const T* pq, const T* pk, const T* pv,
                       const std::uint8_t* pm, T scale, T* pp, T* py) {
  std::int64_t ldq = d.H * d.dk, ldv = d.H * d.dv;
  const kernels::AttentionHeadDims hd{d.Tq, d.Tk, d.dk, d.dv, ldq, ldv};
  const bool prefix_path = prefix_path_applies<T>(hd, pm);
  kernels::KeyPrefixes prefixes;
  for (std::int64_t b = 0; b < d.B; ++b) {
    const bool prefix =
        prefix_path && kernels::key_prefixes(pm + b * d.Tq * d.Tk, d.Tq, d.Tk, prefixes);
    for (std::int64_t h = 0; h < d.H; ++h) {
      T* P = pp + (b * d.H + h) * d.Tq * d.Tk;
      if constexpr (std::is_same_v<T, float>)
        if (prefix && kernels::prefix_attention_forward(
                          hd, pq + b * d.Tq * ldq + h * d.dk, pk + b * d.Tk * ldq + h * d.dk,
                          pv + b * d.Tk * ldv + h * d.dv, pm + b * d.Tq * d.Tk, scale, prefixes, P,
                          py + b * d.Tq * ldv + h * d.dv))
          continue;
      kernels::gemm<T>(false, true, d.Tq, d.Tk, d.dk, pq + b * d.Tq * ldq + h * d.dk, ldq,
                       pk + b * d.Tk * ldq + h * d.dk, ldq, P, d.Tk, false);
      softmax_block<T>(P, d.Tq, d.Tk, scale, pm ? pm + b * d.Tq * d.Tk : nullptr);
      kernels::gemm<T>(false, false, d.Tq, d.dv, d.Tk, P, d.Tk, pv + b * d.Tk * ldv + h * d.dv, ldv,
                       py + b * d.Tq * ldv + h * d.dv, ldv, false);
    }
  }
}

// Where each input's gradient goes. Each (b, h) writes its own block of dQ, dK and dV,
// so a fresh buffer is written and a used one added into — unless two inputs share a
// buffer (self-attention without projections), where the blocks overlap: then all
// accumulate into zeros.
template <class T>
struct AttentionGrads {
  std::array<BackwardContext::GradSlot, 3> slot{};
  std::array<T*, 3> grad{};
};

template <class T>
AttentionGrads<T> attention_grads(BackwardContext& c) {
  bool shared = c.input(0).raw() == c.input(1).raw() || c.input(0).raw() == c.input(2).raw() ||
                c.input(1).raw() == c.input(2).raw();
  AttentionGrads<T> out;
  for (int i = 0; i < 3; ++i) {
    if (!c.needs_grad(i)) continue;
    out.slot[std::size_t(i)] =
        shared ? BackwardContext::GradSlot{c.input_grad(i), true} : c.input_grad_slot(i);
    out.grad[std::size_t(i)] = out.slot[std::size_t(i)].grad.template data<T>();
  }
  return out;
}

// One (b, h) of the general path: dV = Pᵀ·dY, dP = dY·Vᵀ,
// dS = scale · P ⊙ (dP - rowsum(dP ⊙ P)), dQ = dS·K, dK = dSᵀ·Q.
template <class T>
void attention_head_backward(const AttentionDims& d, const T* q, const T* k, const T* v, const T* P,
                             const T* G, T scale, T* dP, const AttentionGrads<T>& a,
                             std::int64_t qo, std::int64_t ko, std::int64_t vo) {
  std::int64_t ldq = d.H * d.dk, ldv = d.H * d.dv;
  if (a.grad[2])
    kernels::gemm<T>(true, false, d.Tk, d.dv, d.Tq, P, d.Tk, G, ldv, a.grad[2] + vo, ldv,
                     a.slot[2].accumulate);
  if (!a.grad[0] && !a.grad[1]) return;
  kernels::gemm<T>(false, true, d.Tq, d.Tk, d.dv, G, ldv, v, ldv, dP, d.Tk, false);
  for (std::int64_t i = 0; i < d.Tq; ++i) {
    kernels::ConstArrayMap<T> pr(P + i * d.Tk, d.Tk);
    kernels::ArrayMap<T> dr(dP + i * d.Tk, d.Tk);
    T dot = (dr * pr).sum();
    dr = scale * pr * (dr - dot);
  }
  if (a.grad[0])
    kernels::gemm<T>(false, false, d.Tq, d.dk, d.Tk, dP, d.Tk, k, ldq, a.grad[0] + qo, ldq,
                     a.slot[0].accumulate);
  if (a.grad[1])
    kernels::gemm<T>(true, false, d.Tk, d.dk, d.Tq, dP, d.Tk, q, ldq, a.grad[1] + ko, ldq,
                     a.slot[1].accumulate);
}

template <class T>
void attention_backward(BackwardContext& c) {
  AttentionDims d =
      attention_dims(c.input(0).shape(), c.input(1).shape(), c.input(2).shape(), c.integer(0));
  const T* pq = c.input(0).data<T>();
  const T* pk = c.input(1).data<T>();
  const T* pv = c.input(2).data<T>();
  const T* pp = c.saved(1).data<T>();
  const T* g = c.output_grad().template data<T>();
  T scale = T(c.scalar(0));
  const AttentionGrads<T> a = attention_grads<T>(c);
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
        kernels::AttentionHeadGrads hg{a.grad[0] ? a.grad[0] + qo : nullptr,
                                       a.grad[1] ? a.grad[1] + ko : nullptr,
                                       a.grad[2] ? a.grad[2] + vo : nullptr,
                                       a.slot[0].accumulate,
                                       a.slot[1].accumulate,
                                       a.slot[2].accumulate};
        if (prefix && kernels::prefix_attention_backward(hd, pq + qo, pk + ko, pv + vo, P, G, scale,
                                                         prefixes, dP, dq_buffer.data<T>(), hg))
          continue;
      }
      attention_head_backward<T>(d, pq + qo, pk + ko, pv + vo, P, G, scale, dP, a, qo, ko, vo);
    }
  }
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
    attention_forward<T>(d, op.input(0).data<T>(), op.input(1).data<T>(), op.input(2).data<T>(),
                         mask.defined() ? mask.data<std::uint8_t>() : nullptr, T(scale),
                         p.data<T>(), y.data<T>());
  });
  return op.finish(y, [](BackwardContext& c) {
    dispatch_float(c.dtype(), "attention backward", [&]<class T>() { attention_backward<T>(c); });
  });
}

}  // namespace ablate
