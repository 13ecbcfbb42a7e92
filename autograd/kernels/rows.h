#pragma once
// Row-wise kernels treat a tensor [..., D] as rows of D. A mask broadcast to it is
// walked row by row: each row gets its mask row and the step between mask entries
// (1, or 0 when the mask's last dim is broadcast).
#include <array>
#include <cstdint>
#include <string>

#include "autograd/kernels/broadcast.h"
#include "autograd/tensor.h"

namespace ablate::kernels {

// f(row, const std::uint8_t* mask_row (null without mask), std::int64_t mask_step).
template <class F>
void for_each_masked_row(const Shape& x, const Tensor& mask, const char* op, F&& f) {
  std::int64_t D = x.rank() == 0 ? 1 : x[-1];
  std::int64_t rows = D == 0 ? 0 : x.numel() / D;
  if (!mask.defined() || mask.numel() == 0) {
    for (std::int64_t r = 0; r < rows; ++r) f(r, static_cast<const std::uint8_t*>(nullptr), 0);
    return;
  }
  if (mask.dtype() != DType::b8)
    throw std::invalid_argument(std::string(op) + ": mask must have dtype b8, got " +
                                dtype_name(mask.dtype()));
  if (!broadcasts_to(mask.shape(), x))
    throw ShapeError(std::string(op) + ": mask of shape " + mask.shape().str() +
                     " does not broadcast to the input's shape " + x.str());
  const auto* pm = mask.data<std::uint8_t>();
  std::int64_t step = (mask.shape().rank() == 0 || mask.shape()[-1] == 1) ? 0 : 1;
  // One BroadcastLoop over the row dims: the mask's index of each row's first entry.
  Shape row_shape = x.with(-1, 1);
  Shape mask_rows = mask.shape().rank() == 0 ? Shape{} : mask.shape().with(-1, 1);
  std::int64_t mask_cols = mask.shape().rank() == 0 ? 1 : mask.shape()[-1];
  BroadcastLoop<1>(row_shape, {mask_rows}).run([&](std::int64_t r, const auto& i) {
    f(r, pm + i[0] * mask_cols, step);
  });
}

}  // namespace ablate::kernels
