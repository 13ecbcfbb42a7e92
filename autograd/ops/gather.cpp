// Embedding lookup: rows of a [V, D] table selected by i32 indices.
#include "autograd/kernels/checks.h"
#include "autograd/op_builder.h"
#include "autograd/ops.h"

namespace ablate {

Var gather_rows(const Var& table, const Tensor& indices, std::int64_t padding_index) {
  kernels::require_dtype(indices, DType::i32, "gather_rows", "indices");
  if (table.shape().rank() != 2)
    throw ShapeError("gather_rows: table must be [V, D], got " + table.shape().str());
  if (indices.shape().rank() > 3)
    throw ShapeError("gather_rows: indices of shape " + indices.shape().str() +
                     " would give an output of rank > 4");
  std::int64_t V = table.shape()[0], D = table.shape()[1];
  const std::int32_t* idx = indices.data<std::int32_t>();
  for (std::int64_t k = 0, n = indices.numel(); k < n; ++k)
    if (idx[k] < 0 || idx[k] >= V)
      throw std::out_of_range("gather_rows: index " + std::to_string(idx[k]) + " at position " +
                              std::to_string(k) + " is outside the table's " + std::to_string(V) +
                              " rows");
  std::array<std::int64_t, 4> dims{};
  int r = 0;
  for (std::int64_t d : indices.shape().dims()) dims[r++] = d;
  dims[r++] = D;
  OpBuilder op(OpKind::gather_rows, {table});
  op.save(0, indices);
  op.integer(0, padding_index);
  Tensor y =
      op.output(Shape(std::span<const std::int64_t>(dims.data(), std::size_t(r))), table.dtype());
  dispatch_float(table.dtype(), "gather_rows", [&]<class T>() {
    const T* pt = op.input(0).data<T>();
    T* py = y.data<T>();
    for (std::int64_t k = 0, n = indices.numel(); k < n; ++k)
      std::copy(pt + idx[k] * D, pt + (idx[k] + 1) * D, py + k * D);
  });
  return op.finish(y, [](BackwardContext& c) {
    std::int64_t padding = c.integer(0);
    std::int64_t D = c.input(0).shape()[1];
    const Tensor& indices = c.saved(0);
    const std::int32_t* idx = indices.data<std::int32_t>();
    dispatch_float(c.dtype(), "gather_rows backward", [&]<class T>() {
      const T* g = c.output_grad().template data<T>();
      T* gt = c.input_grad(0).template data<T>();
      for (std::int64_t k = 0, n = indices.numel(); k < n; ++k) {
        if (idx[k] == padding) continue;
        T* row = gt + idx[k] * D;
        for (std::int64_t d = 0; d < D; ++d) row[d] += g[k * D + d];
      }
    });
  });
}

}  // namespace ablate
