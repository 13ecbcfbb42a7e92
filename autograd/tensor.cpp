#include "autograd/tensor.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <sstream>

namespace ablate {

namespace {

constexpr std::size_t kAlignment = 64;

template <class F>
decltype(auto) dispatch_any(DType t, F&& f) {
  switch (t) {
    case DType::f32:
      return f.template operator()<float>();
    case DType::f64:
      return f.template operator()<double>();
    case DType::i32:
      return f.template operator()<std::int32_t>();
    case DType::b8:
      break;
  }
  return f.template operator()<std::uint8_t>();
}

}  // namespace

Tensor Tensor::empty(const Shape& shape, DType dtype) {
  Tensor t;
  std::size_t bytes = std::size_t(shape.numel()) * dtype_size(dtype);
  std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  if (!p) throw std::bad_alloc();
  t.owner_ = std::shared_ptr<void>(p, std::free);
  t.data_ = p;
  t.shape_ = shape;
  t.dtype_ = dtype;
  return t;
}

Tensor Tensor::zeros(const Shape& shape, DType dtype) {
  Tensor t = empty(shape, dtype);
  std::memset(t.data_, 0, t.nbytes());
  return t;
}

Tensor Tensor::ones(const Shape& shape, DType dtype) {
  return full(shape, 1.0, dtype);
}

Tensor Tensor::full(const Shape& shape, double value, DType dtype) {
  Tensor t = empty(shape, dtype);
  t.fill(value);
  return t;
}

Tensor Tensor::arange(double start, double stop, double step, DType dtype) {
  if (step == 0 || !std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(step))
    throw std::invalid_argument("arange: step must be nonzero and all bounds finite");
  double count = std::ceil((stop - start) / step);
  std::int64_t n = count > 0 ? std::int64_t(count) : 0;
  Tensor t = empty(Shape{n}, dtype);
  for (std::int64_t i = 0; i < n; ++i) t.set(i, start + double(i) * step);
  return t;
}

namespace {

void require_value_count(const Shape& shape, std::size_t count) {
  if (std::int64_t(count) != shape.numel())
    throw ShapeError("from_data: shape " + shape.str() + " needs " + std::to_string(shape.numel()) +
                     " values, got " + std::to_string(count));
}

// Same element type as the tensor: one memcpy.
template <class T>
Tensor copy_exact(const Shape& shape, std::span<const T> values) {
  require_value_count(shape, values.size());
  Tensor t = Tensor::empty(shape, dtype_of<T>());
  std::memcpy(t.raw(), values.data(), t.nbytes());
  return t;
}

}  // namespace

Tensor Tensor::from_data(const Shape& shape, std::span<const double> values, DType dtype) {
  if (dtype == DType::f64) return copy_exact(shape, values);
  require_value_count(shape, values.size());
  Tensor t = empty(shape, dtype);
  for (std::size_t i = 0; i < values.size(); ++i) t.set(std::int64_t(i), values[i]);
  return t;
}

Tensor Tensor::from_data(const Shape& shape, std::span<const float> values) {
  return copy_exact(shape, values);
}

Tensor Tensor::from_data(const Shape& shape, std::span<const std::int32_t> values) {
  return copy_exact(shape, values);
}

Tensor Tensor::view(void* data, const Shape& shape, DType dtype) {
  Tensor t;
  t.data_ = data;
  t.shape_ = shape;
  t.dtype_ = dtype;
  return t;
}

double Tensor::at(std::int64_t i) const {
  return dispatch_any(dtype_, [&]<class T>() { return double(static_cast<const T*>(data_)[i]); });
}

void Tensor::set(std::int64_t i, double v) const {
  dispatch_any(dtype_, [&]<class T>() { static_cast<T*>(data_)[i] = static_cast<T>(v); });
}

double Tensor::item() const {
  if (numel() != 1) throw ShapeError("item: needs a one-element tensor, got shape " + shape_.str());
  return at(0);
}

void Tensor::fill(double v) const {
  dispatch_any(dtype_, [&]<class T>() {
    T* p = static_cast<T*>(data_);
    T x = static_cast<T>(v);
    for (std::int64_t i = 0, n = numel(); i < n; ++i) p[i] = x;
  });
}

void Tensor::copy_from(const Tensor& other) const {
  require_same_shape(shape_, other.shape_, "copy_from", "source");
  if (other.dtype_ == dtype_) {
    std::memcpy(data_, other.data_, nbytes());
    return;
  }
  for (std::int64_t i = 0, n = numel(); i < n; ++i) set(i, other.at(i));
}

Tensor Tensor::clone() const {
  return to(dtype_);
}

Tensor Tensor::to(DType dtype) const {
  Tensor t = empty(shape_, dtype);
  t.copy_from(*this);
  return t;
}

Tensor Tensor::reshaped(const Shape& shape) const {
  if (shape.numel() != numel())
    throw ShapeError("reshape: cannot view shape " + shape_.str() + " as " + shape.str());
  Tensor t = *this;
  t.shape_ = shape;
  return t;
}

void Tensor::throw_dtype_mismatch(DType wanted) const {
  throw std::invalid_argument(std::string("tensor of dtype ") + dtype_name(dtype_) +
                              " accessed as " + dtype_name(wanted));
}

namespace {

void print_value(std::ostream& os, const Tensor& t, std::int64_t i) {
  double v = t.at(i);
  if (t.dtype() == DType::b8) {
    os << (v != 0 ? "true" : "false");
  } else if (t.dtype() == DType::i32) {
    os << std::int64_t(v);
  } else {
    std::ostringstream s;
    s.precision(t.dtype() == DType::f32 ? 6 : 10);
    s << v;
    os << s.str();
  }
}

void print_dim(std::ostream& os, const Tensor& t, int dim, std::int64_t offset) {
  const Shape& s = t.shape();
  std::int64_t n = s[dim], stride = s.inner(dim);
  constexpr std::int64_t kEdge = 3;
  os << '[';
  for (std::int64_t i = 0; i < n; ++i) {
    if (n > 2 * kEdge && i == kEdge) {
      os << "..., ";
      i = n - kEdge;
    }
    if (dim + 1 == s.rank())
      print_value(os, t, offset + i);
    else
      print_dim(os, t, dim + 1, offset + i * stride);
    if (i + 1 < n) os << (dim + 1 == s.rank() ? ", " : ",\n" + std::string(8 + dim, ' '));
  }
  os << ']';
}

}  // namespace

std::string Tensor::str() const {
  std::ostringstream os;
  os << "tensor(";
  if (!defined())
    os << "undefined";
  else if (shape_.rank() == 0)
    print_value(os, *this, 0);
  else
    print_dim(os, *this, 0, 0);
  os << ", shape=" << shape_.str() << ", dtype=" << dtype_name(dtype_) << ")";
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  return os << t.str();
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) {
  if (!(a.shape() == b.shape()) || a.dtype() != b.dtype()) return false;
  for (std::int64_t i = 0, n = a.numel(); i < n; ++i) {
    double x = a.at(i), y = b.at(i);
    if (!(std::abs(x - y) <= atol + rtol * std::abs(y))) return false;
  }
  return true;
}

}  // namespace ablate
