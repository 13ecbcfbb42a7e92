#pragma once
// One row of a masked scaled softmax: the softmax ops' and fused attention's.
// Include only from .cpp files (Eigen).
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

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

// Scales the row r [D] in place and sets its masked entries (m[j] == 0) to the lowest
// finite value; returns its largest entry (the lowest value when all are masked). A
// NaN is never the maximum: std::max(mx, NaN) keeps mx.
template <class T>
T scale_mask_max_scalar(T* r, std::int64_t D, T scale, const std::uint8_t* m) {
  constexpr T kLowest = std::numeric_limits<T>::lowest();
  T mx = kLowest;
  for (std::int64_t j = 0; j < D; ++j) {
    r[j] = !m || m[j] ? scale * r[j] : kLowest;
    mx = std::max(mx, r[j]);
  }
  return mx;
}

template <class T>
T scale_mask_max(T* r, std::int64_t D, T scale, const std::uint8_t* m) {
  return scale_mask_max_scalar(r, D, scale, m);
}

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
// The same numbers as scale_mask_max_scalar, 16 entries at a time (the scalar loop's chain of
// maxima was most of the attention's own time): each entry is one multiply either way, and the
// maximum is exact — max_ps(x, acc) returns acc when x is NaN, as std::max does, and the sign of a
// zero maximum cannot reach the result (x − (±0) = x, exp(±0) = 1).
template <>
inline float scale_mask_max<float>(float* r, std::int64_t D, float scale, const std::uint8_t* m) {
  const __m512 lowest = _mm512_set1_ps(std::numeric_limits<float>::lowest());
  const __m512 s = _mm512_set1_ps(scale);
  __m512 mx = lowest;
  for (std::int64_t j = 0; j < D; j += 16) {
    const std::int64_t left = D - j;
    const __mmask16 in = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
    __mmask16 allowed = in;
    if (m) {
      const __m128i bytes = _mm_maskz_loadu_epi8(in, m + j);
      allowed = _mm_test_epi8_mask(bytes, bytes);
    }
    // Entries past the row's end stay lowest: they never win the maximum.
    const __m512 x = _mm512_mask_mul_ps(lowest, allowed, s, _mm512_maskz_loadu_ps(in, r + j));
    _mm512_mask_storeu_ps(r + j, in, x);
    mx = _mm512_max_ps(x, mx);
  }
  return _mm512_reduce_max_ps(mx);
}
#endif

}  // namespace ablate::kernels
