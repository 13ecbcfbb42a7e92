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
#include <type_traits>
#include <vector>

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

// True when gemm<float> of this shape runs small_gemm (small_gemm.h), whose sums over k
// run in order per element: a caller reproducing its results exactly (attention's
// prefix path, kernels/attention_prefix.h) may then use that order.
bool gemm_runs_small_gemm(std::int64_t M, std::int64_t N, std::int64_t K);

template <class T>
void gemm(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K, const T* A,
          std::int64_t lda, const T* B, std::int64_t ldb, T* C, std::int64_t ldc, bool accumulate);

// ---- mixed precision (train.precision = "bf16") ------------------------------------
// The recipe of PyTorch's CPU autocast: the inputs of a matrix product are rounded to
// bfloat16 (kernels/bf16.h), products accumulate in f32 and the result is f32; weights,
// gradients, optimizer state, softmax, norms and losses stay f32. On a CPU with
// AVX512_BF16 oneDNN's bf16 GEMM runs about twice the f32 rate (bench/README.md).

enum class MatmulPrecision { f32, bf16 };

// The precision of the linear and matmul ops this thread records (default f32); a
// per-thread setting like the GEMM threads, so side-by-side trials do not interfere.
// Attention's per-head score and value products stay f32 in either mode: they run on
// the register-blocked kernel (small_gemm.h), where a bf16 library call would cost more
// than it saves.
void set_matmul_precision(MatmulPrecision precision);
MatmulPrecision matmul_precision();
const char* matmul_precision_name(MatmulPrecision precision);
// Every precision's name, in the enum's order ("f32", "bf16"), and the precision a name
// gives (std::invalid_argument for another): configuration declares its choices with them.
const std::vector<std::string>& matmul_precision_names();
MatmulPrecision matmul_precision_named(const std::string& name);

// Sets this thread's matmul precision for the scope's lifetime.
class MatmulPrecisionScope {
 public:
  explicit MatmulPrecisionScope(MatmulPrecision precision) : previous_(matmul_precision()) {
    set_matmul_precision(precision);
  }
  ~MatmulPrecisionScope() { set_matmul_precision(previous_); }
  MatmulPrecisionScope(const MatmulPrecisionScope&) = delete;
  MatmulPrecisionScope& operator=(const MatmulPrecisionScope&) = delete;

 private:
  MatmulPrecision previous_;
};

// gemm<float> with A and B rounded to bfloat16 first; f32 accumulation and output.
// oneDNN's bf16bf16f32 GEMM when the backend is onednn and the CPU runs it; otherwise
// (another backend, or a CPU without bf16 support in oneDNN) the rounded inputs go to
// gemm<float>, which computes the same products in the same precision.
void gemm_bf16(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K,
               const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
               std::int64_t ldc, bool accumulate);

// The same product from operands already rounded (bf16 bits, kernels/bf16.h): for ops
// that convert an operand once and use it in several products (linear converts its
// input and weight in the forward and reuses them in the backward).
void gemm_bf16_operands(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K,
                        const std::uint16_t* A, std::int64_t lda, const std::uint16_t* B,
                        std::int64_t ldb, float* C, std::int64_t ldc, bool accumulate);

// What the linear and matmul ops call: gemm_bf16 for f32 operands when this thread's
// precision is bf16, gemm<T> otherwise (f64 is never rounded: gradchecks stay exact).
template <class T>
void gemm_at_precision(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K,
                       const T* A, std::int64_t lda, const T* B, std::int64_t ldb, T* C,
                       std::int64_t ldc, bool accumulate) {
  if constexpr (std::is_same_v<T, float>)
    if (matmul_precision() == MatmulPrecision::bf16)
      return gemm_bf16(trans_a, trans_b, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
  gemm<T>(trans_a, trans_b, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

}  // namespace ablate::kernels
