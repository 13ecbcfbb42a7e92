#pragma once
// General matrix multiply on row-major buffers:
//   C[M, N] = op(A) · op(B) + beta · C,  op(X) = X or Xᵀ,
// where A is stored [M, K] (or [K, M] when trans_a) with leading dimension lda, and B
// is stored [K, N] (or [N, K] when trans_b). beta is 0 (overwrite) or 1 (accumulate).
// The one place every matmul in ablate goes through.
//
// Two backends, chosen once per process (bench/README.md has the measurements):
//   eigen    Eigen's blocked GEMM with persistent packing buffers: ~135-140 GFLOP/s
//            f32 on this machine's AVX-512 core.
//   openblas OpenBLAS, one thread: ~190 GFLOP/s with its AVX-512 kernels, but only
//            ~100 with the AVX2 "Haswell" kernel that OPENBLAS_CORETYPE=Haswell forces.
// ABLATE_GEMM=eigen|openblas|auto picks one; auto (the default) takes OpenBLAS only
// when it runs an AVX-512 kernel (SkylakeX, Cooperlake, SapphireRapids). The choice is
// deterministic for a given environment, so reruns stay bit-identical.
#include <cstdint>
#include <string>

namespace ablate::kernels {

enum class GemmBackend { eigen, openblas };

GemmBackend gemm_backend();
void set_gemm_backend(GemmBackend backend);  // for tests and benchmarks
const char* gemm_backend_name(GemmBackend backend);
// e.g. "eigen (auto: OpenBLAS core is Haswell, not an AVX-512 kernel)".
std::string gemm_backend_description();

template <class T>
void gemm(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K, const T* A,
          std::int64_t lda, const T* B, std::int64_t ldb, T* C, std::int64_t ldc, bool accumulate);

}  // namespace ablate::kernels
