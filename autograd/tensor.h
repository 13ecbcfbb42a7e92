#pragma once
// Tensor: a dense, contiguous, row-major block of one dtype. A Tensor either owns its
// buffer (shared, like a PyTorch tensor: copies alias) or views memory owned by
// someone else — typically a tape's arena, valid until that tape is reset.
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>

#include "autograd/dtype.h"
#include "autograd/shape.h"

namespace ablate {

class Tensor {
 public:
  Tensor() = default;  // empty: no data, defined() is false

  // Owning constructors (64-byte aligned heap buffers).
  static Tensor empty(const Shape& shape, DType dtype = DType::f32);
  static Tensor zeros(const Shape& shape, DType dtype = DType::f32);
  static Tensor ones(const Shape& shape, DType dtype = DType::f32);
  static Tensor full(const Shape& shape, double value, DType dtype = DType::f32);
  // [start, start+step, ...) below stop, as a rank-1 tensor.
  static Tensor arange(double start, double stop, double step = 1.0, DType dtype = DType::f32);
  // Copies `values` (numel must equal shape.numel()), converting to `dtype`.
  static Tensor from_data(const Shape& shape, std::span<const double> values,
                          DType dtype = DType::f32);
  static Tensor from_data(const Shape& shape, std::span<const float> values);
  static Tensor from_data(const Shape& shape, std::span<const std::int32_t> values);
  // A non-owning view of `data`; the caller keeps the memory alive.
  static Tensor view(void* data, const Shape& shape, DType dtype);

  bool defined() const { return data_ != nullptr || shape_.numel() == 0; }
  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  std::int64_t numel() const { return shape_.numel(); }
  std::size_t nbytes() const { return std::size_t(numel()) * dtype_size(dtype_); }

  void* raw() const { return data_; }
  // Typed access; throws if T does not match the dtype.
  template <class T>
  T* data() const {
    if (dtype_of<T>() != dtype_) throw_dtype_mismatch(dtype_of<T>());
    return static_cast<T*>(data_);
  }

  // Element access converting to/from double (for tests, printing, small loops).
  double at(std::int64_t flat_index) const;
  void set(std::int64_t flat_index, double value) const;
  double item() const;  // the single element of a one-element tensor

  void fill(double value) const;
  void copy_from(const Tensor& other) const;  // same shape; converts dtype
  Tensor clone() const;                       // owning deep copy
  Tensor to(DType dtype) const;               // owning copy in another dtype
  Tensor reshaped(const Shape& shape) const;  // same buffer, new shape (numel must match)

  // Readable printing: "tensor([[1, 2], [3, 4]], shape=[2, 2], dtype=f32)"; long
  // dimensions are elided with "..." after 3 leading and before 3 trailing entries.
  std::string str() const;

 private:
  [[noreturn]] void throw_dtype_mismatch(DType wanted) const;
  std::shared_ptr<void> owner_;
  void* data_ = nullptr;
  Shape shape_;
  DType dtype_ = DType::f32;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

// True if the shapes and dtypes agree and every element differs by at most
// atol + rtol * |b|.
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);

}  // namespace ablate
