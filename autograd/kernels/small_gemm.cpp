#include "autograd/kernels/small_gemm.h"

#include <stdexcept>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace ablate::kernels {

namespace {

// Up to 4 AVX-512 vectors (64 floats) of a row of C stay in registers while k runs.
constexpr std::int64_t kMaxN = 64;
// Above this many multiply-adds oneDNN's blocked kernel wins (bench/README.md).
constexpr std::int64_t kMaxWork = 64 * 64 * 64;
// Bᵀ is copied into this per-thread buffer when B is given transposed ([N, K]).
constexpr std::int64_t kMaxTransposed = kMaxN * 1024;

#if defined(__AVX512F__)

// C[i, 0:N] (=|+=) Σ_k A(i, k) · B[k, 0:N] for R rows i at once, with A(i, k) at
// A[i·a_row + k·a_col] and B row-major [K, N] with leading dimension ldb. R rows give
// R·V independent accumulator chains: one row alone would wait on the FMA latency.
template <int V, int R>
void row_block(std::int64_t i0, std::int64_t K, const __mmask16* __restrict mask,
               const float* __restrict A, std::int64_t a_row, std::int64_t a_col,
               const float* __restrict B, std::int64_t ldb, float* __restrict C, std::int64_t ldc,
               bool accumulate) {
  // __restrict: __m512 may alias float, so without it GCC must assume the loads from
  // A and B could read the accumulators and spills them to the stack every step.
  __m512 acc[R][V];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_ps();
  for (std::int64_t k = 0; k < K; ++k) {
    __m512 b[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) b[v] = _mm512_maskz_loadu_ps(mask[v], B + k * ldb + 16 * v);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      __m512 a = _mm512_set1_ps(A[(i0 + r) * a_row + k * a_col]);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(a, b[v], acc[r][v]);
    }
  }
  // Added to C after the loop (not loaded into the accumulators before it): the sum
  // over k runs in the same order either way.
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      float* c = C + (i0 + r) * ldc + 16 * v;
      __m512 out =
          accumulate ? _mm512_add_ps(_mm512_maskz_loadu_ps(mask[v], c), acc[r][v]) : acc[r][v];
      _mm512_mask_storeu_ps(c, mask[v], out);
    }
}

template <int V>
void rows_times_b(std::int64_t M, std::int64_t N, std::int64_t K, const float* A,
                  std::int64_t a_row, std::int64_t a_col, const float* B, std::int64_t ldb,
                  float* C, std::int64_t ldc, bool accumulate) {
  constexpr int R = V <= 2 ? 8 : 4;  // R·V accumulators + V loads stay within 32 registers
  __mmask16 mask[V];
  for (int v = 0; v < V; ++v) {
    std::int64_t left = N - 16 * v;
    mask[v] = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
  }
  std::int64_t i = 0;
  for (; i + R <= M; i += R)
    row_block<V, R>(i, K, mask, A, a_row, a_col, B, ldb, C, ldc, accumulate);
  for (; i < M; ++i) row_block<V, 1>(i, K, mask, A, a_row, a_col, B, ldb, C, ldc, accumulate);
}

#endif

}  // namespace

bool small_gemm_fits(std::int64_t M, std::int64_t N, std::int64_t K) {
#if defined(__AVX512F__)
  return N >= 1 && N <= kMaxN && K <= 1024 && M * N * K <= kMaxWork;
#else
  (void)M, (void)N, (void)K;
  return false;
#endif
}

void small_gemm(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K,
                const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
                std::int64_t ldc, bool accumulate) {
#if defined(__AVX512F__)
  if (!small_gemm_fits(M, N, K)) throw std::logic_error("small_gemm: product too large");
  if (trans_b) {  // B stored [N, K]: copy it to [K, N] so rows of C are combinations of rows
    thread_local float transposed[kMaxTransposed];
    // Contiguous writes, strided reads (all in L1): ~2x faster than the other order.
    for (std::int64_t k = 0; k < K; ++k)
      for (std::int64_t n = 0; n < N; ++n) transposed[k * N + n] = B[n * ldb + k];
    B = transposed;
    ldb = N;
  }
  std::int64_t a_row = trans_a ? 1 : lda, a_col = trans_a ? lda : 1;
  switch ((N + 15) / 16) {
    case 1:
      rows_times_b<1>(M, N, K, A, a_row, a_col, B, ldb, C, ldc, accumulate);
      break;
    case 2:
      rows_times_b<2>(M, N, K, A, a_row, a_col, B, ldb, C, ldc, accumulate);
      break;
    case 3:
      rows_times_b<3>(M, N, K, A, a_row, a_col, B, ldb, C, ldc, accumulate);
      break;
    default:
      rows_times_b<4>(M, N, K, A, a_row, a_col, B, ldb, C, ldc, accumulate);
      break;
  }
#else
  (void)trans_a, (void)trans_b, (void)M, (void)N, (void)K, (void)A, (void)lda, (void)B, (void)ldb,
      (void)C, (void)ldc, (void)accumulate;
  throw std::logic_error("small_gemm: built without AVX-512");
#endif
}

}  // namespace ablate::kernels
