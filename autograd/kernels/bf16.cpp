#include "autograd/kernels/bf16.h"

#if defined(__AVX512BF16__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#include <immintrin.h>
#define ABLATE_HAVE_AVX512_BF16 1
#endif

namespace ablate::kernels {

void to_bf16(const float* src, std::int64_t rows, std::int64_t cols, std::int64_t ld,
             std::uint16_t* dst) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * ld;
    std::uint16_t* d = dst + r * cols;
    std::int64_t c = 0;
#if defined(ABLATE_HAVE_AVX512_BF16)
    for (; c + 16 <= cols; c += 16)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + c),
                          __m256i(_mm512_cvtneps_pbh(_mm512_loadu_ps(s + c))));
    if (c < cols) {
      __mmask16 tail = __mmask16((1u << (cols - c)) - 1);
      __m256bh v = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(tail, s + c));
      _mm256_mask_storeu_epi16(d + c, tail, __m256i(v));
      c = cols;
    }
#endif
    for (; c < cols; ++c) d[c] = bf16_bits(s[c]);
  }
}

}  // namespace ablate::kernels
