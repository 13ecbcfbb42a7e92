#pragma once
// A register-blocked f32 GEMM for the small per-head products of attention (e.g.
// 10×10×16 in the tiny model, 64×64×32 in base), where a library call costs more than
// the arithmetic: oneDNN's sgemm takes ~0.3-0.5 µs per call whatever the size, and
// attention makes six such calls per head and batch element. Same contract as
// kernels::gemm (row-major, transpose flags, overwrite or accumulate); used by it for
// f32 products that fit (small_gemm_fits). Sums over k in order, so results are
// deterministic.
#include <cstdint>

namespace ablate::kernels {

// True when the AVX-512 kernel is compiled in and the product is small enough for it.
bool small_gemm_fits(std::int64_t M, std::int64_t N, std::int64_t K);

void small_gemm(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K,
                const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
                std::int64_t ldc, bool accumulate);

}  // namespace ablate::kernels
