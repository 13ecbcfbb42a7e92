#pragma once
// small_gemm (small_gemm.h) with a range of k per row of C, for attention whose mask
// lets each query see only a prefix of the keys (causal, padding): the products skip
// the masked part instead of multiplying it by zeros. Each element C[i, n] is the
// chain acc = fma(A(i, k), B[k, n], acc) from acc = +0 over k in [k_begin[i],
// k_end[i]) in increasing k, then acc is stored or added to C — small_gemm's chain
// with its first and last terms cut off, so a caller knows exactly which terms it has
// dropped (attention_prefix.cpp explains why dropping them keeps the bits).
#include <cstdint>

namespace ablate::kernels {

// Per-row ranges; a null pointer means the full range (k_begin 0, k_end K, n_end N).
struct RowRanges {
  const std::int64_t* k_begin = nullptr;
  const std::int64_t* k_end = nullptr;
  // Row i needs only C[i, 0:n_end[i]); columns up to the largest n_end of the rows
  // computed together (at most 8) may be written too, with their exact values.
  const std::int64_t* n_end = nullptr;
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
