#pragma once
// General matrix multiply on row-major buffers:
//   C[M, N] = op(A) · op(B) + beta · C,  op(X) = X or Xᵀ,
// where A is stored [M, K] (or [K, M] when trans_a) with leading dimension lda, and B
// is stored [K, N] (or [N, K] when trans_b). beta is 0 (overwrite) or 1 (accumulate).
// The one place every matmul in ablate goes through.
//
// Three backends, chosen once per process (bench/README.md has the measurements):
//   onednn   oneDNN's JIT'd sgemm (f32 only; f64 goes to Eigen): 160-200 GFLOP/s on
//            this machine's AVX-512 core at every Transformer shape, 320x32x32 included,
//            whatever OPENBLAS_CORETYPE says.
//   eigen    Eigen's blocked GEMM with persistent packing buffers: ~105-140 GFLOP/s.
//   openblas OpenBLAS, one thread: ~190 GFLOP/s with its AVX-512 kernels, but only
//            ~90 with the AVX2 "Haswell" kernel that OPENBLAS_CORETYPE=Haswell forces.
// ABLATE_GEMM=onednn|eigen|openblas|auto picks one; auto (the default) is onednn. The
// choice is fixed per process and each backend is deterministic for a given machine
// and thread count, so reruns stay bit-identical.
#include <cstdint>
#include <string>

namespace ablate::kernels {

enum class GemmBackend { onednn, eigen, openblas };

GemmBackend gemm_backend();
void set_gemm_backend(GemmBackend backend);  // for tests and benchmarks
const char* gemm_backend_name(GemmBackend backend);
// e.g. "eigen (auto: OpenBLAS core is Haswell, not an AVX-512 kernel)".
std::string gemm_backend_description();

// Threads the calling thread's GEMMs may use (oneDNN backend; default 1: trials run
// one per core). A per-thread setting, so side-by-side trials do not interfere.
void set_gemm_threads(int threads);
int gemm_threads();

template <class T>
void gemm(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K, const T* A,
          std::int64_t lda, const T* B, std::int64_t ldb, T* C, std::int64_t ldc, bool accumulate);

}  // namespace ablate::kernels
