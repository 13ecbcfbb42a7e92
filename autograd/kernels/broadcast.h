#pragma once
// Strided iteration over K operands broadcast to one output shape (NumPy rules).
// Operands are padded on the left to rank 4; a broadcast dim has stride 0, so a
// backward that adds into operand k at its index reduces over the broadcast dims.
#include <array>
#include <cstdint>

#include "autograd/shape.h"

namespace ablate::kernels {

template <std::size_t K>
class BroadcastLoop {
 public:
  BroadcastLoop(const Shape& out, const std::array<Shape, K>& operands) {
    int pad = Shape::kMaxRank - out.rank();
    for (int d = 0; d < Shape::kMaxRank; ++d) dims_[d] = d < pad ? 1 : out[d - pad];
    for (std::size_t k = 0; k < K; ++k) {
      const Shape& s = operands[k];
      int opad = Shape::kMaxRank - s.rank();
      std::int64_t stride = 1;
      for (int d = Shape::kMaxRank - 1; d >= 0; --d) {
        std::int64_t size = d < opad ? 1 : s[d - opad];
        strides_[k][d] = size == 1 ? 0 : stride;
        stride *= size;
      }
    }
  }

  // f(output_index, std::array<int64_t, K> operand_indices), in row-major output order.
  template <class F>
  void run(F&& f) const {
    std::int64_t o = 0;
    std::array<std::int64_t, K> idx;
    for (std::int64_t i0 = 0; i0 < dims_[0]; ++i0)
      for (std::int64_t i1 = 0; i1 < dims_[1]; ++i1)
        for (std::int64_t i2 = 0; i2 < dims_[2]; ++i2) {
          for (std::size_t k = 0; k < K; ++k)
            idx[k] = i0 * strides_[k][0] + i1 * strides_[k][1] + i2 * strides_[k][2];
          for (std::int64_t i3 = 0; i3 < dims_[3]; ++i3, ++o) {
            f(o, idx);
            for (std::size_t k = 0; k < K; ++k) idx[k] += strides_[k][3];
          }
        }
  }

 private:
  std::array<std::int64_t, Shape::kMaxRank> dims_{};
  std::array<std::array<std::int64_t, Shape::kMaxRank>, K> strides_{};
};

// True when `operand` broadcasts to exactly `out` (so the output keeps out's shape).
inline bool broadcasts_to(const Shape& operand, const Shape& out) {
  if (operand.rank() > out.rank()) return false;
  int pad = out.rank() - operand.rank();
  for (int d = 0; d < operand.rank(); ++d)
    if (operand[d] != 1 && operand[d] != out[d + pad]) return false;
  return true;
}

}  // namespace ablate::kernels
