#include "autograd/kernels/gemm.h"
#include "autograd/kernels/bf16.h"
#include "autograd/kernels/small_gemm.h"

#include <cblas.h>
#include <dnnl.h>
#include <malloc.h>
#include <omp.h>

#include <Eigen/Core>
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <vector>

namespace ablate::kernels {

// Why not just `C.noalias() = A * B`: for blocks over 128 KiB, Eigen's GEMM mallocs
// its packing buffers on every call and frees them after. glibc returns such blocks
// to the OS, so every call page-faults them in again (≈10 µs per 4 KiB page here):
// an n = 256 product ran at ~33 GFLOP/s instead of ~140 (bench/README.md). We call
// Eigen's own GEMM routine with packing buffers that persist per thread and only
// grow, so steady-state products neither allocate nor fault.

namespace {

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};

// Grow-only, 64-byte aligned packing buffers, one pair per thread (trials run on
// their own threads and must not share them).
template <class T>
class PackingBuffers : public Eigen::internal::level3_blocking<T, T> {
 public:
  void prepare(Eigen::Index rows, Eigen::Index cols, Eigen::Index depth) {
    // Same sizing as Eigen's gemm_blocking_space for a dynamic-size product.
    Eigen::Index kc = depth, mc = rows, nc = cols;
    Eigen::internal::computeProductBlockingSizes<T, T, 1>(kc, mc, nc, Eigen::Index(1));
    this->m_kc = kc;
    this->m_mc = mc;
    this->m_nc = nc;
    this->m_blockA = reserve(a_, a_size_, std::size_t(kc * mc));
    this->m_blockB = reserve(b_, b_size_, std::size_t(kc * nc));
  }

 private:
  static T* reserve(std::unique_ptr<T, AlignedFree>& buf, std::size_t& size, std::size_t need) {
    if (need > size) {
      std::size_t bytes = (need * sizeof(T) + 63) / 64 * 64;
      buf.reset(static_cast<T*>(std::aligned_alloc(64, bytes)));
      if (!buf) throw std::bad_alloc();
      size = need;
    }
    return buf.get();
  }
  std::unique_ptr<T, AlignedFree> a_, b_;
  std::size_t a_size_ = 0, b_size_ = 0;
};

template <class T>
PackingBuffers<T>& packing_buffers() {
  thread_local PackingBuffers<T> buffers;
  return buffers;
}

template <class T, int OrderA, int OrderB>
void run_gemm(std::int64_t M, std::int64_t N, std::int64_t K, const T* A, std::int64_t lda,
              const T* B, std::int64_t ldb, T* C, std::int64_t ldc) {
  PackingBuffers<T>& blocking = packing_buffers<T>();
  // Eigen computes a row-major C as the column-major Cᵀ = Bᵀ·Aᵀ: rows and cols swap.
  blocking.prepare(N, M, K);
  Eigen::internal::general_matrix_matrix_product<Eigen::Index, T, OrderA, false, T, OrderB, false,
                                                 Eigen::RowMajor, 1>::run(M, N, K, A, lda, B, ldb,
                                                                          C, 1, ldc, T(1), blocking,
                                                                          nullptr);
}

template <class T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using ConstStrided = Eigen::Map<const Matrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <class T>
using Strided = Eigen::Map<Matrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

// Products this small are faster as Eigen's coefficient-wise (lazy) product, and
// their temporaries live on the stack.
constexpr std::int64_t kLazyProductMaxDims = 20;

template <class T, class L, class R>
void lazy(Strided<T>& c, const L& l, const R& r, bool accumulate) {
  if (accumulate)
    c.noalias() += l.lazyProduct(r);
  else
    c.noalias() = l.lazyProduct(r);
}

// ---- backend choice --------------------------------------------------------------

struct BackendChoice {
  GemmBackend backend;
  std::string description;
};

BackendChoice choose_backend() {
  std::string core = openblas_get_corename() ? openblas_get_corename() : "unknown";
  const char* env = std::getenv("ABLATE_GEMM");
  std::string mode = env ? env : "auto";
  if (mode == "eigen") return {GemmBackend::eigen, "eigen (ABLATE_GEMM=eigen)"};
  if (mode == "openblas")
    return {GemmBackend::openblas, "openblas, core " + core + " (ABLATE_GEMM=openblas)"};
  if (mode == "onednn") return {GemmBackend::onednn, "onednn (ABLATE_GEMM=onednn)"};
  if (mode != "auto")
    throw std::invalid_argument("environment variable ABLATE_GEMM='" + mode +
                                "' is not one of: onednn, eigen, openblas, auto");
  // oneDNN picks its kernel from CPUID, whatever OPENBLAS_CORETYPE says; it was the
  // fastest at every Transformer shape measured here (bench/README.md).
  return {GemmBackend::onednn, "onednn (auto)"};
}

std::atomic<GemmBackend> g_backend{GemmBackend::onednn};
std::once_flag g_backend_once;
std::string g_description;

void ensure_backend_chosen() {
  std::call_once(g_backend_once, [] {
    // Trials are single-threaded and run side by side; OpenBLAS threads would
    // oversubscribe the cores.
    openblas_set_num_threads(1);
    // oneDNN's sgemm mallocs its packing buffers (up to a few MiB) in every call and
    // frees them after. With glibc's defaults, freeing them at the top of the heap
    // trims it and the next call page-faults the same memory in again (≈10 µs per page
    // here; 8 faults per step of tests/autograd/allocation_test.cpp). Keeping freed
    // memory in the process (no trimming, no mmap below 32 MiB) makes those blocks
    // plain reuse. The price is that RSS does not shrink after a peak.
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    BackendChoice c = choose_backend();
    g_description = c.description;
    g_backend.store(c.backend);
  });
}

template <class T>
void blas_gemm(bool ta, bool tb, std::int64_t M, std::int64_t N, std::int64_t K, const T* A,
               std::int64_t lda, const T* B, std::int64_t ldb, T* C, std::int64_t ldc,
               bool accumulate) {
  auto opa = ta ? CblasTrans : CblasNoTrans, opb = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, opa, opb, int(M), int(N), int(K), 1.0f, A, int(lda), B, int(ldb),
                accumulate ? 1.0f : 0.0f, C, int(ldc));
  else
    cblas_dgemm(CblasRowMajor, opa, opb, int(M), int(N), int(K), 1.0, A, int(lda), B, int(ldb),
                accumulate ? 1.0 : 0.0, C, int(ldc));
}

thread_local int t_gemm_threads = 1;

// Debian's oneDNN threads through OpenMP, whose team size is a per-thread setting:
// each calling thread gets its own, applied lazily.
void apply_gemm_threads() {
  thread_local int applied = 0;
  if (applied != t_gemm_threads) {
    omp_set_num_threads(t_gemm_threads);
    applied = t_gemm_threads;
  }
}

void onednn_sgemm(bool ta, bool tb, std::int64_t M, std::int64_t N, std::int64_t K, const float* A,
                  std::int64_t lda, const float* B, std::int64_t ldb, float* C, std::int64_t ldc,
                  bool accumulate) {
  apply_gemm_threads();
  dnnl_status_t status = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, 1.0f, A, lda, B, ldb,
                                    accumulate ? 1.0f : 0.0f, C, ldc);
  if (status != dnnl_success)
    throw std::runtime_error("oneDNN sgemm failed with status " + std::to_string(int(status)) +
                             " for M=" + std::to_string(M) + " N=" + std::to_string(N) +
                             " K=" + std::to_string(K));
}

thread_local MatmulPrecision t_matmul_precision = MatmulPrecision::f32;

// oneDNN 2.6 exports its bf16 GEMM (row-major, like dnnl_sgemm) but declares it only in
// its test headers; oneDNN's own gemm tests and Intel's TensorFlow extension call it
// with this declaration. The matmul primitive would need a primitive per shape; this
// runs the same brgemm kernels (measured: within 0-10 % of the primitive at the
// reference models' shapes, 300-450 GFLOP/s vs sgemm's 190-220).
extern "C" dnnl_status_t dnnl_gemm_bf16bf16f32(char transa, char transb, dnnl_dim_t M, dnnl_dim_t N,
                                               dnnl_dim_t K, float alpha, const std::uint16_t* A,
                                               dnnl_dim_t lda, const std::uint16_t* B,
                                               dnnl_dim_t ldb, float beta, float* C,
                                               dnnl_dim_t ldc);

// Grow-only per-thread buffers for the rounded operands: steady-state products neither
// allocate nor page-fault.
template <class T>
T* grow(std::vector<T>& buffer, std::int64_t n) {
  if (buffer.size() < std::size_t(n)) buffer.resize(std::size_t(n));
  return buffer.data();
}

// false when oneDNN cannot run bf16 on this CPU (it then returns unimplemented).
bool onednn_gemm_bf16(bool ta, bool tb, std::int64_t M, std::int64_t N, std::int64_t K,
                      const std::uint16_t* A, std::int64_t lda, const std::uint16_t* B,
                      std::int64_t ldb, float* C, std::int64_t ldc, bool accumulate) {
  apply_gemm_threads();
  dnnl_status_t status = dnnl_gemm_bf16bf16f32(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, 1.0f, A,
                                               lda, B, ldb, accumulate ? 1.0f : 0.0f, C, ldc);
  if (status == dnnl_unimplemented) return false;
  if (status != dnnl_success)
    throw std::runtime_error("oneDNN bf16 gemm failed with status " + std::to_string(int(status)) +
                             " for M=" + std::to_string(M) + " N=" + std::to_string(N) +
                             " K=" + std::to_string(K));
  return true;
}

}  // namespace

void set_matmul_precision(MatmulPrecision precision) {
  t_matmul_precision = precision;
}

MatmulPrecision matmul_precision() {
  return t_matmul_precision;
}

const std::vector<std::string>& matmul_precision_names() {
  static const std::vector<std::string> names{"f32", "bf16"};
  return names;
}

const char* matmul_precision_name(MatmulPrecision precision) {
  return matmul_precision_names()[std::size_t(precision)].c_str();
}

MatmulPrecision matmul_precision_named(const std::string& name) {
  const auto& names = matmul_precision_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) throw std::invalid_argument("no matmul precision '" + name + "'");
  return MatmulPrecision(it - names.begin());
}

void gemm_bf16_operands(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K,
                        const std::uint16_t* A, std::int64_t lda, const std::uint16_t* B,
                        std::int64_t ldb, float* C, std::int64_t ldc, bool accumulate) {
  if (M == 0 || N == 0) return;
  thread_local bool onednn_runs_bf16 = true;
  if (K > 0 && gemm_backend() == GemmBackend::onednn && onednn_runs_bf16) {
    if (onednn_gemm_bf16(trans_a, trans_b, M, N, K, A, lda, B, ldb, C, ldc, accumulate)) return;
    onednn_runs_bf16 = false;
  }
  // The operands widened back to f32 (exactly) for the f32 GEMM.
  std::int64_t a_rows = trans_a ? K : M, a_cols = trans_a ? M : K;
  std::int64_t b_rows = trans_b ? N : K, b_cols = trans_b ? K : N;
  thread_local std::vector<float> a32, b32;
  float* pa = grow(a32, a_rows * a_cols);
  float* pb = grow(b32, b_rows * b_cols);
  for (std::int64_t r = 0; r < a_rows; ++r)
    for (std::int64_t c = 0; c < a_cols; ++c) pa[r * a_cols + c] = bf16_to_float(A[r * lda + c]);
  for (std::int64_t r = 0; r < b_rows; ++r)
    for (std::int64_t c = 0; c < b_cols; ++c) pb[r * b_cols + c] = bf16_to_float(B[r * ldb + c]);
  gemm<float>(trans_a, trans_b, M, N, K, pa, a_cols, pb, b_cols, C, ldc, accumulate);
}

void gemm_bf16(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K,
               const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
               std::int64_t ldc, bool accumulate) {
  // The operands as stored: A is [M, K] or, transposed, [K, M]; B is [K, N] or [N, K].
  std::int64_t a_rows = trans_a ? K : M, a_cols = trans_a ? M : K;
  std::int64_t b_rows = trans_b ? N : K, b_cols = trans_b ? K : N;
  thread_local std::vector<std::uint16_t> a16, b16;
  std::uint16_t* pa = grow(a16, a_rows * a_cols);
  std::uint16_t* pb = grow(b16, b_rows * b_cols);
  to_bf16(A, a_rows, a_cols, lda, pa);
  to_bf16(B, b_rows, b_cols, ldb, pb);
  gemm_bf16_operands(trans_a, trans_b, M, N, K, pa, a_cols, pb, b_cols, C, ldc, accumulate);
}

void set_gemm_threads(int threads) {
  if (threads < 1) throw std::invalid_argument("GEMM threads must be at least 1");
  t_gemm_threads = threads;
}

int gemm_threads() {
  return t_gemm_threads;
}

GemmBackend gemm_backend() {
  ensure_backend_chosen();
  return g_backend.load(std::memory_order_relaxed);
}

void set_gemm_backend(GemmBackend backend) {
  ensure_backend_chosen();
  g_backend.store(backend);
}

const char* gemm_backend_name(GemmBackend backend) {
  switch (backend) {
    case GemmBackend::onednn:
      return "onednn";
    case GemmBackend::openblas:
      return "openblas";
    case GemmBackend::eigen:
      return "eigen";
  }
  return "?";
}

std::string gemm_backend_description() {
  ensure_backend_chosen();
  return g_description;
}

bool gemm_runs_small_gemm(std::int64_t M, std::int64_t N, std::int64_t K) {
  // gemm's own dispatch below, for f32: empty products and the lazy Eigen product first.
  return M > 0 && N > 0 && K > 0 && M + N + K > kLazyProductMaxDims &&
         gemm_backend() == GemmBackend::onednn && small_gemm_fits(M, N, K);
}

template <class T>
void gemm(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K, const T* A,
          std::int64_t lda, const T* B, std::int64_t ldb, T* C, std::int64_t ldc, bool accumulate) {
  Strided<T> c(C, M, N, Eigen::OuterStride<>(ldc));
  if (M == 0 || N == 0) return;
  if (K == 0) {
    if (!accumulate) c.setZero();
    return;
  }
  if (M + N + K <= kLazyProductMaxDims) {
    ConstStrided<T> a(A, trans_a ? K : M, trans_a ? M : K, Eigen::OuterStride<>(lda));
    ConstStrided<T> b(B, trans_b ? N : K, trans_b ? K : N, Eigen::OuterStride<>(ldb));
    if (!trans_a && !trans_b) lazy(c, a, b, accumulate);
    if (!trans_a && trans_b) lazy(c, a, b.transpose(), accumulate);
    if (trans_a && !trans_b) lazy(c, a.transpose(), b, accumulate);
    if (trans_a && trans_b) lazy(c, a.transpose(), b.transpose(), accumulate);
    return;
  }
  GemmBackend backend = gemm_backend();
  if constexpr (std::is_same_v<T, float>) {
    if (backend == GemmBackend::onednn && small_gemm_fits(M, N, K)) {
      small_gemm(trans_a, trans_b, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
      return;
    }
    if (backend == GemmBackend::onednn) {
      onednn_sgemm(trans_a, trans_b, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
      return;
    }
  }
  if (backend == GemmBackend::openblas) {
    blas_gemm(trans_a, trans_b, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
    return;
  }
  if (!accumulate) c.setZero();  // Eigen's GEMM kernel always adds into C
  // A stored [M, K] row-major is op(A) row-major; stored [K, M] it is op(A) column-major.
  constexpr int R = Eigen::RowMajor, Cm = Eigen::ColMajor;
  if (!trans_a && !trans_b) run_gemm<T, R, R>(M, N, K, A, lda, B, ldb, C, ldc);
  if (!trans_a && trans_b) run_gemm<T, R, Cm>(M, N, K, A, lda, B, ldb, C, ldc);
  if (trans_a && !trans_b) run_gemm<T, Cm, R>(M, N, K, A, lda, B, ldb, C, ldc);
  if (trans_a && trans_b) run_gemm<T, Cm, Cm>(M, N, K, A, lda, B, ldb, C, ldc);
}

template void gemm<float>(bool, bool, std::int64_t, std::int64_t, std::int64_t, const float*,
                          std::int64_t, const float*, std::int64_t, float*, std::int64_t, bool);
template void gemm<double>(bool, bool, std::int64_t, std::int64_t, std::int64_t, const double*,
                           std::int64_t, const double*, std::int64_t, double*, std::int64_t, bool);

}  // namespace ablate::kernels
