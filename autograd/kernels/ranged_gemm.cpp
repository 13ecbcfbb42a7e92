#include "autograd/kernels/ranged_gemm.h"

#include <algorithm>
#include <stdexcept>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace ablate::kernels {

namespace {

constexpr std::int64_t kMaxN = 64;
constexpr std::int64_t kMaxK = 1024;

#if defined(__AVX512F__)

struct Operands {
  const float* A;
  std::int64_t a_row, a_col;
  const float* B;
  std::int64_t ldb;
  float* C;
  std::int64_t ldc;
  bool accumulate, exact_end;
};

// k in [k0, k1) for R rows from i0. Banded: row r takes the term only when k is before
// its own end ke[r], by a masked FMA (a cleared mask leaves acc untouched), so every
// row's chain ends exactly at its end even where the rows computed together differ.
template <int V, int R, bool Banded>
inline void add_terms(__m512 (&acc)[R][V], std::int64_t i0, std::int64_t k0, std::int64_t k1,
                      const __mmask16 (&mask)[V], const Operands& o, const std::int64_t* ke) {
  const float* __restrict A = o.A;
  const float* __restrict B = o.B;
  for (std::int64_t k = k0; k < k1; ++k) {
    __m512 b[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) b[v] = _mm512_maskz_loadu_ps(mask[v], B + k * o.ldb + 16 * v);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      __m512 a = _mm512_set1_ps(A[(i0 + r) * o.a_row + k * o.a_col]);
      if constexpr (Banded) {
        const __mmask16 on = k < ke[r] ? __mmask16(0xFFFF) : __mmask16(0);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) acc[r][v] = _mm512_mask3_fmadd_ps(a, b[v], acc[r][v], on);
      } else {
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(a, b[v], acc[r][v]);
      }
    }
  }
}

// Rows i0..i0+R-1 over columns 0..N-1 (N ≤ 16·V). kb/ke hold the R rows' ranges.
template <int V, int R>
void ranged_row_block(std::int64_t i0, std::int64_t N, const std::int64_t* kb,
                      const std::int64_t* ke, const Operands& o) {
  __mmask16 mask[V];
  for (int v = 0; v < V; ++v) {
    std::int64_t left = N - 16 * v;
    mask[v] = left >= 16 ? __mmask16(0xFFFF) : left <= 0 ? 0 : __mmask16((1u << left) - 1);
  }
  __m512 acc[R][V];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_ps();
  const std::int64_t b_lo = *std::min_element(kb, kb + R);
  const std::int64_t e_lo = *std::min_element(ke, ke + R), e_hi = *std::max_element(ke, ke + R);
  if (!o.exact_end) {
    add_terms<V, R, false>(acc, i0, b_lo, e_hi, mask, o, ke);
  } else {  // every row takes [b_lo, e_lo); past that, each row stops at its own end
    const std::int64_t common = std::max(b_lo, e_lo);
    add_terms<V, R, false>(acc, i0, b_lo, common, mask, o, ke);
    add_terms<V, R, true>(acc, i0, common, e_hi, mask, o, ke);
  }
  // As small_gemm: the chain is stored, or added to C after it.
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      float* c = o.C + (i0 + r) * o.ldc + 16 * v;
      __m512 out =
          o.accumulate ? _mm512_add_ps(_mm512_maskz_loadu_ps(mask[v], c), acc[r][v]) : acc[r][v];
      _mm512_mask_storeu_ps(c, mask[v], out);
    }
}

// R = 8 only for rows up to 32 columns (ranged_gemm splits wider blocks into two of 4).
template <int R>
void ranged_rows(std::int64_t i0, std::int64_t N, const std::int64_t* kb, const std::int64_t* ke,
                 const Operands& o) {
  if (N <= 0) return;
  const std::int64_t vectors = (N + 15) / 16;
  if (vectors == 1) return ranged_row_block<1, R>(i0, N, kb, ke, o);
  if (vectors == 2) return ranged_row_block<2, R>(i0, N, kb, ke, o);
  if constexpr (R <= 4) {
    if (vectors == 3) return ranged_row_block<3, R>(i0, N, kb, ke, o);
    return ranged_row_block<4, R>(i0, N, kb, ke, o);
  }
  throw std::logic_error("ranged_gemm: 8 rows of more than 32 columns");
}

#endif

}  // namespace

bool ranged_gemm_fits(std::int64_t N, std::int64_t K) {
#if defined(__AVX512F__)
  return N >= 1 && N <= kMaxN && K <= kMaxK;
#else
  (void)N, (void)K;
  return false;
#endif
}

void ranged_gemm(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K,
                 const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
                 std::int64_t ldc, bool accumulate, const RowRanges& ranges) {
#if defined(__AVX512F__)
  if (!ranged_gemm_fits(N, K)) throw std::logic_error("ranged_gemm: product too large");
  if (trans_b) {  // as small_gemm: B stored [N, K] is copied to [K, N]
    thread_local float transposed[kMaxN * kMaxK];
    for (std::int64_t k = 0; k < K; ++k)
      for (std::int64_t n = 0; n < N; ++n) transposed[k * N + n] = B[n * ldb + k];
    B = transposed;
    ldb = N;
  }
  const Operands o{A,   trans_a ? 1 : lda, trans_a ? lda : 1, B, ldb, C,
                   ldc, accumulate,        ranges.exact_end};
  // Blocks of 8 rows (4 when a row needs more than 32 columns, by ranged_rows): the
  // block's columns are its rows' widest, and each row keeps its own k range.
  constexpr int R = 8;
  std::int64_t kb[R], ke[R];
  std::int64_t i = 0;
  auto fill = [&](std::int64_t i0, int rows) {
    std::int64_t n = 0;
    for (int r = 0; r < rows; ++r) {
      kb[r] = ranges.k_begin ? ranges.k_begin[i0 + r] : 0;
      ke[r] = ranges.k_end ? ranges.k_end[i0 + r] : K;
      n = std::max(n, ranges.n_end ? ranges.n_end[i0 + r] : N);
    }
    return std::min(n, N);
  };
  for (; i + R <= M;) {
    std::int64_t n = fill(i, R);
    if (n > 32) {  // two blocks of 4: 4·V accumulators + V loads fit the 32 registers
      ranged_rows<4>(i, fill(i, 4), kb, ke, o);
      ranged_rows<4>(i + 4, fill(i + 4, 4), kb, ke, o);
    } else {
      ranged_rows<8>(i, n, kb, ke, o);
    }
    i += R;
  }
  for (; i < M; ++i) ranged_rows<1>(i, fill(i, 1), kb, ke, o);
#else
  (void)trans_a, (void)trans_b, (void)M, (void)N, (void)K, (void)A, (void)lda, (void)B, (void)ldb,
      (void)C, (void)ldc, (void)accumulate, (void)ranges;
  throw std::logic_error("ranged_gemm: built without AVX-512");
#endif
}

}  // namespace ablate::kernels
