#include "autograd/kernels/gemm.h"

#include <Eigen/Core>

namespace ablate::kernels {

namespace {

template <class T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using ConstStrided = Eigen::Map<const Matrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <class T>
using Strided = Eigen::Map<Matrix<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

template <class T, class L, class R>
void assign(Strided<T>& c, const L& l, const R& r, bool accumulate) {
  if (accumulate)
    c.noalias() += l * r;
  else
    c.noalias() = l * r;
}

}  // namespace

template <class T>
void gemm(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K, const T* A,
          std::int64_t lda, const T* B, std::int64_t ldb, T* C, std::int64_t ldc, bool accumulate) {
  Strided<T> c(C, M, N, Eigen::OuterStride<>(ldc));
  if (K == 0) {
    if (!accumulate) c.setZero();
    return;
  }
  ConstStrided<T> a(A, trans_a ? K : M, trans_a ? M : K, Eigen::OuterStride<>(lda));
  ConstStrided<T> b(B, trans_b ? N : K, trans_b ? K : N, Eigen::OuterStride<>(ldb));
  if (!trans_a && !trans_b) assign(c, a, b, accumulate);
  if (!trans_a && trans_b) assign(c, a, b.transpose(), accumulate);
  if (trans_a && !trans_b) assign(c, a.transpose(), b, accumulate);
  if (trans_a && trans_b) assign(c, a.transpose(), b.transpose(), accumulate);
}

template void gemm<float>(bool, bool, std::int64_t, std::int64_t, std::int64_t, const float*,
                          std::int64_t, const float*, std::int64_t, float*, std::int64_t, bool);
template void gemm<double>(bool, bool, std::int64_t, std::int64_t, std::int64_t, const double*,
                           std::int64_t, const double*, std::int64_t, double*, std::int64_t, bool);

}  // namespace ablate::kernels
