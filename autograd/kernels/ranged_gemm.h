#pragma once
// small_gemm (small_gemm.h) with a range of k per row of C, for attention whose mask
// lets each query see only a prefix of the keys (causal, padding): the products skip
// the masked part instead of multiplying it by zeros. Each element C[i, n] is the
// chain acc = fma(A(i, k), B[k, n], acc) from acc = +0 over a range of k in increasing
// order, then acc is stored or added to C — small_gemm's chain with first and last
// terms cut off, so a caller knows exactly which terms it has dropped
// (attention_prefix.cpp explains why dropping them keeps the bits). Rows are computed
// in blocks of up to 8, and a block's chains run over its rows' widest range unless
// exact_end: a caller must accept the extra terms (attention's are zeros in A).
#include <cstdint>

namespace ablate::kernels {

// Per-row ranges; a null pointer means the full range (k_begin 0, k_end K, n_end N).
// Row i's chain covers [k_begin[i], k_end[i]) and may start at the smallest k_begin of
// its block and, unless exact_end, end at the largest k_end of its block.
struct RowRanges {
  const std::int64_t* k_begin = nullptr;
  const std::int64_t* k_end = nullptr;
  // Row i needs only C[i, 0:n_end[i]); columns up to the largest n_end of the rows
  // computed together (at most 8) may be written too, with their exact values.
  const std::int64_t* n_end = nullptr;
  // Stop each row's chain exactly at its k_end (a masked FMA for the rows of a block that
  // end before others: slower, so only where the extra terms would not be exact zeros).
  bool exact_end = false;
};

// False when the AVX-512 kernel is not compiled in, or N > 64, or K > 1024 (as small_gemm_fits
// without its work limit: the caller has checked that small_gemm ran the full product).
bool ranged_gemm_fits(std::int64_t N, std::int64_t K);

// A(i, k) is A[i·lda + k] (or A[k·lda + i] when trans_a); B is [K, N] (or [N, K] when
// trans_b) with leading dimension ldb.
void ranged_gemm(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K,
                 const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
                 std::int64_t ldc, bool accumulate, const RowRanges& ranges);

}  // namespace ablate::kernels
