// Why the prefix path has the full computation's bits.
//
// Notation: row i of a head allows keys only in [0, e_i) (e nondecreasing); keys at and
// past e_i are the row's "tail". The full computation (ops/attention.cpp, the reference)
// handles the tail as follows, and this path matches each step:
//
// Scores S = Q·Kᵀ: each element is its own small_gemm chain over d_k, so computing only
// the prefix columns (ranged_gemm, same chain) gives the same numbers there.
//
// Softmax: the reference sets tail and masked entries to the lowest float, so they
// never win the maximum, and exp sends them to exactly +0. scale_mask_max over the
// prefix sees the same lanes (16-entry chunks from column 0, the rest lowest). The exp
// is Eigen's over the whole block, whose result depends on where an entry falls: scalar
// std::exp before the block's first 64-byte boundary and after its last full packet,
// the vectorised exp between. Here exp runs as Eigen calls over runs of 64-byte groups
// (cut at the same boundaries, clamped to the block), so every entry computed gets the
// same variant; groups wholly in tails are set to +0, what exp gives them. The row sum
// is Eigen's sum over the full row, as in the reference, on the same values at the same
// address (the tail holds +0 either way), and the normalisation is elementwise.
//
// Y = P·V: the reference's chain for Y[i, n] continues past e_i with fma(+0, v, acc).
// For finite v that adds ±0, which leaves acc unchanged unless acc is −0 (−0 + +0 =
// +0). ranged_gemm ends the chain somewhere in [e_i, Tk) (the widest row of its block:
// those extra terms are the reference's own, P's tail holding +0); when the result is
// −0 the tail from e_i is replayed in scalar fma (replaying terms that kept −0 keeps it
// again; rare anyway: needs an underflow to −0). V must be finite (0·inf is NaN), else
// the head is declined.
//
// Backward. dP = G·Vᵀ: prefix columns as for S; tail entries are set to +0 (the
// reference has G_i·V_j there). The dot Σ_j dP_ij P_ij is Eigen's sum over the full row:
// its tail terms are ±0 in the reference (dP_ij·(+0), dP finite) and +0 here. In a
// floating-point sum tree, a ±0 leaf changes nothing unless every other leaf is zero
// (x + ±0 = x for x ≠ 0, and a subtree holding a nonzero leaf is nonzero or +0, to which
// ±0 adds nothing). So the dot is the reference's unless it comes out zero; then the
// tail's dP is computed as the reference computes it and the sum is taken again.
// dS = scale·P⊙(dP − dot) is elementwise over the prefix; the reference's tail dS is
// (scale·0)·(dP − dot) = ±0 (finite: |G|·|V|·d_v is bounded below overflow, else the
// head is declined).
// dV = Pᵀ·G and dK = dSᵀ·Q: for key k the reference's chain over queries starts with
// the rows whose prefix ends before k (P and dS are ±0 there): fma(±0, x, +0) = +0 for
// finite x, so starting the chain at the first row that sees k — or anywhere before it,
// as ranged_gemm does for a block of keys — gives the same bits.
// dQ = dS·K: the chain for dQ[i, n] has tail terms ±0, which change only a −0 result;
// here the tail dS is +0, not the reference's ±0, so ranged_gemm stops each chain exactly
// at e_i (exact_end), and a −0 result is recomputed in scalar with the reference's tail
// (rare again).
//
// The products run on ranged_gemm only when the reference runs small_gemm for every one
// of them (prefix_attention_fits), since only then is its order known. Tests:
// tests/autograd/attention_prefix_test.cpp compares every output and gradient bitwise
// with the reference over a table of shapes and masks.
#include "autograd/kernels/attention_prefix.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "autograd/kernels/eigen_maps.h"
#include "autograd/kernels/gemm.h"
#include "autograd/kernels/ranged_gemm.h"
#include "autograd/kernels/small_gemm.h"
#include "autograd/kernels/softmax_row.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace ablate::kernels {

namespace {

bool prefix_path_from_environment() {
  const char* v = std::getenv("ABLATE_ATTENTION_PREFIX");
  return v && std::string_view(v) == "1";
}

thread_local bool g_prefix_path = prefix_path_from_environment();
thread_local std::int64_t g_prefix_heads = 0;

constexpr float kLowest = std::numeric_limits<float>::lowest();
// |G|·|V|·d_v below this keeps every dP and dP − dot far from overflow.
constexpr double kMaxProductBound = 1e36;

[[maybe_unused]] bool negative_zero(float x) {
  return std::bit_cast<std::uint32_t>(x) == 0x80000000u;
}

#if defined(__AVX512F__)
__mmask16 lanes(std::int64_t n) {
  return n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1);
}
#endif

// Largest |x| over rows × cols with row stride ld; infinity if any entry is not finite.
double max_abs(const float* x, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
#if defined(__AVX512F__)
  const __m512 largest = _mm512_set1_ps(std::numeric_limits<float>::max());
  __m512 m = _mm512_setzero_ps();
  __mmask16 bad = 0;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; c += 16) {
      const __mmask16 in = lanes(cols - c);
      const __m512 a = _mm512_abs_ps(_mm512_maskz_loadu_ps(in, x + r * ld + c));
      bad |= _mm512_mask_cmp_ps_mask(in, a, largest, _CMP_NLE_UQ);  // inf or NaN
      m = _mm512_max_ps(m, a);
    }
  return bad ? HUGE_VAL : double(_mm512_reduce_max_ps(m));
#else
  float m = 0;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      float a = std::fabs(x[r * ld + c]);
      if (!(a <= std::numeric_limits<float>::max())) return HUGE_VAL;
      m = std::max(m, a);
    }
  return m;
#endif
}

// Bit j set when x[j] (j < n ≤ 16) is −0: the sums that need the reference's tail.
std::uint32_t negative_zeros(const float* x, std::int64_t n) {
#if defined(__AVX512F__)
  const __mmask16 in = lanes(n);
  return _mm512_mask_cmpeq_epi32_mask(in, _mm512_maskz_loadu_epi32(in, x),
                                      _mm512_set1_epi32(std::int32_t(0x80000000u)));
#else
  std::uint32_t z = 0;
  for (std::int64_t j = 0; j < n; ++j) z |= std::uint32_t(negative_zero(x[j])) << j;
  return z;
#endif
}

// out[0:n) = acc (or out + acc), n ≤ 16: small_gemm's store of a finished chain.
void store_chain(float* out, const float* acc, std::int64_t n, bool accumulate) {
#if defined(__AVX512F__)
  const __mmask16 in = lanes(n);
  __m512 a = _mm512_maskz_loadu_ps(in, acc);
  if (accumulate) a = _mm512_add_ps(_mm512_maskz_loadu_ps(in, out), a);
  _mm512_mask_storeu_ps(out, in, a);
#else
  for (std::int64_t j = 0; j < n; ++j) out[j] = accumulate ? out[j] + acc[j] : acc[j];
#endif
}

// r[j] − mx where r[j] is not the lowest float (masked), as the reference's softmax
// shifts a row: one subtraction per entry either way.
void shift_row(float* r, std::int64_t n, float mx) {
#if defined(__AVX512F__)
  const __m512 lowest = _mm512_set1_ps(kLowest), m = _mm512_set1_ps(mx);
  for (std::int64_t j = 0; j < n; j += 16) {
    const __mmask16 in = lanes(n - j);
    const __m512 x = _mm512_maskz_loadu_ps(in, r + j);
    const __mmask16 masked = _mm512_mask_cmp_ps_mask(in, x, lowest, _CMP_EQ_OQ);
    _mm512_mask_storeu_ps(r + j, in, _mm512_mask_sub_ps(x, in & ~masked, x, m));
  }
#else
  for (std::int64_t j = 0; j < n; ++j) r[j] = r[j] == kLowest ? kLowest : r[j] - mx;
#endif
}

// exp over the block [rows·cols] where some row's prefix reaches, as Eigen's exp over
// the whole block would compute it (see the top of the file): runs of 64-byte groups.
void prefix_exp(float* x, std::int64_t rows, std::int64_t cols, const std::int64_t* end) {
  const std::int64_t size = rows * cols;
  const auto offset = std::int64_t((reinterpret_cast<std::uintptr_t>(x) / sizeof(float)) % 16);
  auto group_needed = [&](std::int64_t s, std::int64_t e) {
    for (std::int64_t i = s / cols; i * cols < e; ++i)
      if (std::max(s, i * cols) - i * cols < end[i]) return true;
    return false;
  };
  std::int64_t run = -1;  // start of the current run of needed groups
  auto flush = [&](std::int64_t stop) {
    if (run < 0) return;
    ArrayMap<float> part(x + run, stop - run);
    part = part.exp();
    run = -1;
  };
  for (std::int64_t s = 0; s < size;) {
    std::int64_t e = std::min(size, s + 16 - (s + offset) % 16);
    if (group_needed(s, e)) {
      if (run < 0) run = s;
    } else {
      flush(s);
      std::fill(x + s, x + e, 0.0f);
    }
    s = e;
  }
  flush(size);
}

// The reference's dot for a dS row (ops/attention.cpp's backward), the same expression.
float row_dot(const float* dp, const float* p, std::int64_t n) {
  ConstArrayMap<float> pr(p, n);
  ArrayMap<float> dr(const_cast<float*>(dp), n);
  return (dr * pr).sum();
}

}  // namespace

void set_attention_prefix_path(bool on) {
  g_prefix_path = on;
}
bool attention_prefix_path() {
  return g_prefix_path;
}
std::int64_t attention_prefix_heads() {
  return g_prefix_heads;
}

bool key_prefixes(const std::uint8_t* mask, std::int64_t Tq, std::int64_t Tk, KeyPrefixes& out) {
  if (!mask) return false;
  out.end.assign(std::size_t(Tq), 0);
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < Tq; ++i) {
    const std::uint8_t* row = mask + i * Tk;
    std::int64_t e = Tk;
    while (e > 0 && !row[e - 1]) --e;
    if (i > 0 && e < out.end[std::size_t(i - 1)]) return false;
    out.end[std::size_t(i)] = e;
    total += e;
  }
  if (total * 8 > Tq * Tk * 7) return false;  // under 1/8 masked: not worth the bookkeeping
  out.first_row.assign(std::size_t(Tk), Tq);
  std::int64_t i = 0;
  for (std::int64_t k = 0; k < Tk; ++k) {
    while (i < Tq && out.end[std::size_t(i)] <= k) ++i;
    out.first_row[std::size_t(k)] = i;
  }
  return true;
}

bool prefix_attention_fits(const AttentionHeadDims& d) {
  return gemm_runs_small_gemm(d.Tq, d.Tk, d.dk) && gemm_runs_small_gemm(d.Tq, d.dv, d.Tk) &&
         gemm_runs_small_gemm(d.Tk, d.dv, d.Tq) && gemm_runs_small_gemm(d.Tq, d.Tk, d.dv) &&
         gemm_runs_small_gemm(d.Tq, d.dk, d.Tk) && gemm_runs_small_gemm(d.Tk, d.dk, d.Tq);
}

bool prefix_attention_forward(const AttentionHeadDims& d, const float* Q, const float* K,
                              const float* V, const std::uint8_t* mask, float scale,
                              const KeyPrefixes& prefixes, float* P, float* Y) {
  if (max_abs(V, d.Tk, d.dv, d.ldv) == HUGE_VAL) return false;
  const std::int64_t* end = prefixes.end.data();
  ranged_gemm(false, true, d.Tq, d.Tk, d.dk, Q, d.ldq, K, d.ldq, P, d.Tk, false,
              RowRanges{nullptr, nullptr, end});
  for (std::int64_t i = 0; i < d.Tq; ++i) {
    float* r = P + i * d.Tk;
    const std::int64_t n = end[i];
    const float mx = scale_mask_max(r, n, scale, mask + i * d.Tk);
    if (mx != kLowest) shift_row(r, n, mx);
    std::fill(r + n, r + d.Tk, kLowest);
  }
  prefix_exp(P, d.Tq, d.Tk, end);
  for (std::int64_t i = 0; i < d.Tq; ++i) {
    float* r = P + i * d.Tk;
    const float total = ArrayMap<float>(r, d.Tk).sum();
    if (total > 0) ArrayMap<float>(r, end[i]) *= 1.0f / total;
  }
  ranged_gemm(false, false, d.Tq, d.dv, d.Tk, P, d.Tk, V, d.ldv, Y, d.ldv, false,
              RowRanges{nullptr, end, nullptr});
  for (std::int64_t i = 0; i < d.Tq; ++i) {
    if (end[i] == d.Tk) continue;
    for (std::int64_t c = 0; c < d.dv; c += 16)
      for (std::uint32_t z =
               negative_zeros(Y + i * d.ldv + c, std::min<std::int64_t>(16, d.dv - c));
           z; z &= z - 1) {
        const std::int64_t n = c + std::countr_zero(z);
        float& y = Y[i * d.ldv + n];
        for (std::int64_t j = end[i]; j < d.Tk; ++j) y = std::fma(0.0f, V[j * d.ldv + n], y);
      }
  }
  ++g_prefix_heads;
  return true;
}

namespace {

// dQ[i, n] as the reference computes it from the chain's value over the prefix: its
// tail terms fma(dS_ij, K[j, n], ·) with the reference's dS_ij = (scale·0)·(dP_ij − dot).
float reference_dq_tail(const AttentionHeadDims& d, const float* K, const float* V, const float* G,
                        float scale, float dot, std::int64_t i, std::int64_t n, std::int64_t from,
                        float acc) {
  for (std::int64_t j = from; j < d.Tk; ++j) {
    float dp = 0;
    for (std::int64_t k = 0; k < d.dv; ++k) dp = std::fma(G[i * d.ldv + k], V[j * d.ldv + k], dp);
    const float ds = (scale * 0.0f) * (dp - dot);
    acc = std::fma(ds, K[j * d.ldq + n], acc);
  }
  return acc;
}

// dS over each row's prefix into dP (tails +0); false if a dot is not finite or huge.
bool prefix_softmax_backward(const AttentionHeadDims& d, const float* V, const float* P,
                             const float* G, float scale, const std::int64_t* end, float* dP,
                             std::vector<float>& dots) {
  ranged_gemm(false, true, d.Tq, d.Tk, d.dv, G, d.ldv, V, d.ldv, dP, d.Tk, false,
              RowRanges{nullptr, nullptr, end});
  for (std::int64_t i = 0; i < d.Tq; ++i) {
    float* dr = dP + i * d.Tk;
    const float* pr = P + i * d.Tk;
    const std::int64_t n = end[i];
    std::fill(dr + n, dr + d.Tk, 0.0f);
    float dot = row_dot(dr, pr, d.Tk);
    if (dot == 0 && n < d.Tk) {  // all prefix terms zero: the tail's signs decide
      small_gemm(false, true, 1, d.Tk - n, d.dv, G + i * d.ldv, d.ldv, V + n * d.ldv, d.ldv, dr + n,
                 d.Tk, false);
      dot = row_dot(dr, pr, d.Tk);
      std::fill(dr + n, dr + d.Tk, 0.0f);
    }
    if (!(std::fabs(dot) < 1e37f)) return false;
    ArrayMap<float> ds(dr, n);
    ds = scale * ConstArrayMap<float>(pr, n) * (ds - dot);
    dots[std::size_t(i)] = dot;
  }
  return true;
}

}  // namespace

bool prefix_attention_backward(const AttentionHeadDims& d, const float* Q, const float* K,
                               const float* V, const float* P, const float* G, float scale,
                               const KeyPrefixes& prefixes, float* dP, float* dQ_scratch,
                               const AttentionHeadGrads& g) {
  const double max_g = max_abs(G, d.Tq, d.dv, d.ldv), max_v = max_abs(V, d.Tk, d.dv, d.ldv);
  if (max_g * max_v * double(d.dv) >= kMaxProductBound ||
      max_abs(Q, d.Tq, d.dk, d.ldq) == HUGE_VAL || max_abs(K, d.Tk, d.dk, d.ldq) == HUGE_VAL)
    return false;
  const std::int64_t* end = prefixes.end.data();
  const std::int64_t* first = prefixes.first_row.data();
  thread_local std::vector<float> dots;
  dots.resize(std::size_t(d.Tq));
  const bool scores = g.dq || g.dk;
  if (scores && !prefix_softmax_backward(d, V, P, G, scale, end, dP, dots)) return false;
  if (g.dv)
    ranged_gemm(true, false, d.Tk, d.dv, d.Tq, P, d.Tk, G, d.ldv, g.dv, d.ldv, g.accumulate_v,
                RowRanges{first, nullptr, nullptr});
  if (g.dq) {
    ranged_gemm(false, false, d.Tq, d.dk, d.Tk, dP, d.Tk, K, d.ldq, dQ_scratch, d.dk, false,
                RowRanges{nullptr, end, nullptr, true});
    for (std::int64_t i = 0; i < d.Tq; ++i)
      for (std::int64_t c = 0; c < d.dk; c += 16) {
        float* acc = dQ_scratch + i * d.dk + c;
        const std::int64_t width = std::min<std::int64_t>(16, d.dk - c);
        if (end[i] < d.Tk)
          for (std::uint32_t z = negative_zeros(acc, width); z; z &= z - 1) {
            const std::int64_t n = c + std::countr_zero(z);
            acc[n - c] = reference_dq_tail(d, K, V, G, scale, dots[std::size_t(i)], i, n, end[i],
                                           acc[n - c]);
          }
        store_chain(g.dq + i * d.ldq + c, acc, width, g.accumulate_q);
      }
  }
  if (g.dk)
    ranged_gemm(true, false, d.Tk, d.dk, d.Tq, dP, d.Tk, Q, d.ldq, g.dk, d.ldq, g.accumulate_k,
                RowRanges{first, nullptr, nullptr});
  ++g_prefix_heads;
  return true;
}

}  // namespace ablate::kernels
