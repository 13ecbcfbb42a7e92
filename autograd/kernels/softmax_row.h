#pragma once
// One row of a masked scaled softmax, shared by the softmax ops and fused attention.
// Include only from .cpp files (Eigen).
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "autograd/kernels/eigen_maps.h"

namespace ablate::kernels {

// Writes exp(s·x - max) at allowed positions and 0 elsewhere into `e`; returns the
// max and the sum of `e` (sum 0 means the row is fully masked).
template <class T>
std::pair<T, T> shifted_exp(const T* x, T* e, std::int64_t D, T s, const std::uint8_t* m,
                            std::int64_t step) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  ConstArrayMap<T> xr(x, D);
  ArrayMap<T> er(e, D);
  if (m && step == 0 && !m[0]) m = nullptr, D = 0;  // the whole row is masked
  if (D == 0) {
    er.setZero();
    return {kNegInf, T(0)};
  }
  if (!m || step == 0) {  // no mask, or one mask value for the whole row (and it allows)
    T mx = (xr * s).maxCoeff();
    er = (xr * s - mx).exp();
    return {mx, er.sum()};
  }
  // Masked entries become the lowest finite value, so Eigen's vectorised max and exp
  // run over the whole row and exp() sends them to exactly 0. (A select on the u8
  // mask or a scalar max loop is not vectorised and ran 2-3x slower.)
  constexpr T kLowest = std::numeric_limits<T>::lowest();
  for (std::int64_t j = 0; j < D; ++j) e[j] = m[j] ? s * x[j] : kLowest;
  T mx = er.maxCoeff();
  if (mx == kLowest) {
    er.setZero();
    return {kNegInf, T(0)};
  }
  er = (er - mx).exp();
  return {mx, er.sum()};
}

}  // namespace ablate::kernels
