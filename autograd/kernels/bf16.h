#pragma once
// bfloat16: the upper 16 bits of an IEEE f32 (8 exponent bits, 7 mantissa bits). Used
// only as the input format of mixed-precision matrix products (gemm.h,
// `train.precision = "bf16"`); tensors stay f32 or f64.
//
// Rounding is round-to-nearest-even with denormal inputs flushed to (signed) zero,
// which is what AVX512_BF16's VCVTNEPS2BF16 does; the scalar code below does the same,
// so the vector and scalar paths give the same bits.
#include <bit>
#include <cstdint>

namespace ablate::kernels {

inline std::uint16_t bf16_bits(float x) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  if ((u & 0x7f800000u) == 0) return std::uint16_t((u >> 16) & 0x8000u);         // zero, denormal
  if ((u & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((u >> 16) | 0x40u);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);  // to nearest, ties to even (overflows to infinity)
  return std::uint16_t(u >> 16);
}

inline float bf16_to_float(std::uint16_t b) {
  return std::bit_cast<float>(std::uint32_t(b) << 16);
}

// x rounded to the nearest bfloat16, as an f32.
inline float round_to_bf16(float x) {
  return bf16_to_float(bf16_bits(x));
}

// dst[r * cols + c] = bf16(src[r * ld + c]): a rows × cols block of a row-major matrix
// with leading dimension ld, packed contiguously.
void to_bf16(const float* src, std::int64_t rows, std::int64_t cols, std::int64_t ld,
             std::uint16_t* dst);

}  // namespace ablate::kernels
