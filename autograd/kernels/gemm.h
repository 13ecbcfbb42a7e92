#pragma once
// General matrix multiply on row-major buffers:
//   C[M, N] = op(A) · op(B) + beta · C,  op(X) = X or Xᵀ,
// where A is stored [M, K] (or [K, M] when trans_a) with leading dimension lda, and B
// is stored [K, N] (or [N, K] when trans_b). beta is 0 (overwrite) or 1 (accumulate).
// The one place every matmul in ablate goes through, so the backend can be swapped
// after measuring (bench/README.md).
#include <cstdint>

namespace ablate::kernels {

template <class T>
void gemm(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K, const T* A,
          std::int64_t lda, const T* B, std::int64_t ldb, T* C, std::int64_t ldc, bool accumulate);

}  // namespace ablate::kernels
