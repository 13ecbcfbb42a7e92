#pragma once
// Eigen views over Tensor buffers. Include only from .cpp files: Eigen's templates are
// heavy, and kernels compute through these maps in place (never copying into Eigen
// matrices).
#include <Eigen/Core>

#include "autograd/tensor.h"

namespace ablate::kernels {

// dst = e for a fresh gradient buffer, dst += e for one already holding a contribution
// (BackwardContext::input_grad_slot says which).
template <class Dst, class Expr>
void write_or_add(Dst&& dst, const Expr& e, bool accumulate) {
  if (accumulate)
    dst += e;
  else
    dst = e;
}

template <class T>
using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
template <class T>
using ArrayMap = Eigen::Map<Array<T>>;
template <class T>
using ConstArrayMap = Eigen::Map<const Array<T>>;
template <class T>
using RowMajorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using MatrixMap = Eigen::Map<RowMajorMatrix<T>>;
template <class T>
using ConstMatrixMap = Eigen::Map<const RowMajorMatrix<T>>;
// Row-major arrays: rows are independent items (tokens), columns the reduced axis.
template <class T>
using RowMajorArray2 = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using Array2Map = Eigen::Map<RowMajorArray2<T>>;
template <class T>
using ConstArray2Map = Eigen::Map<const RowMajorArray2<T>>;

template <class T>
ArrayMap<T> flat(const Tensor& t) {
  return {t.data<T>(), t.numel()};
}
template <class T>
ConstArrayMap<T> cflat(const Tensor& t) {
  return {t.data<T>(), t.numel()};
}

// The tensor viewed as [numel / cols, cols].
template <class T>
Array2Map<T> rows(const Tensor& t, std::int64_t cols) {
  return {t.data<T>(), cols == 0 ? 0 : t.numel() / cols, cols};
}
template <class T>
ConstArray2Map<T> crows(const Tensor& t, std::int64_t cols) {
  return {t.data<T>(), cols == 0 ? 0 : t.numel() / cols, cols};
}

}  // namespace ablate::kernels
