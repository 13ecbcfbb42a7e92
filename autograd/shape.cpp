#include "autograd/shape.h"

#include <algorithm>

namespace ablate {

Shape::Shape(std::initializer_list<std::int64_t> dims)
    : Shape(std::span<const std::int64_t>(dims.begin(), dims.size())) {}

Shape::Shape(std::span<const std::int64_t> dims) {
  if (dims.size() > std::size_t(kMaxRank))
    throw ShapeError("shape of rank " + std::to_string(dims.size()) +
                     " exceeds the maximum rank 4");
  for (std::int64_t d : dims)
    if (d < 0) throw ShapeError("shape dimension " + std::to_string(d) + " is negative");
  std::copy(dims.begin(), dims.end(), dims_.begin());
  rank_ = int(dims.size());
}

std::int64_t Shape::numel() const {
  std::int64_t n = 1;
  for (int i = 0; i < rank_; ++i) n *= dims_[i];
  return n;
}

int Shape::index(int axis) const {
  int a = axis < 0 ? axis + rank_ : axis;
  if (a < 0 || a >= rank_)
    throw ShapeError("axis " + std::to_string(axis) + " out of range for shape " + str());
  return a;
}

int Shape::axis(int axis, const char* op) const {
  int a = axis < 0 ? axis + rank_ : axis;
  if (a < 0 || a >= rank_)
    throw ShapeError(std::string(op) + ": axis " + std::to_string(axis) +
                     " out of range for shape " + str());
  return a;
}

std::int64_t Shape::inner(int axis) const {
  std::int64_t n = 1;
  for (int i = index(axis) + 1; i < rank_; ++i) n *= dims_[i];
  return n;
}

std::int64_t Shape::outer(int axis) const {
  std::int64_t n = 1;
  for (int i = 0; i < index(axis); ++i) n *= dims_[i];
  return n;
}

Shape Shape::with(int axis, std::int64_t size) const {
  Shape s = *this;
  s[axis] = size;
  return s;
}

Shape Shape::without(int axis) const {
  Shape s;
  int a = index(axis);
  for (int i = 0; i < rank_; ++i)
    if (i != a) s.dims_[s.rank_++] = dims_[i];
  return s;
}

std::string Shape::str() const {
  std::string s = "[";
  for (int i = 0; i < rank_; ++i) {
    if (i) s += ", ";
    s += std::to_string(dims_[i]);
  }
  return s + "]";
}

bool operator==(const Shape& a, const Shape& b) {
  return a.rank_ == b.rank_ &&
         std::equal(a.dims_.begin(), a.dims_.begin() + a.rank_, b.dims_.begin());
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  int rank = std::max(a.rank(), b.rank());
  std::array<std::int64_t, Shape::kMaxRank> out{};
  for (int i = 0; i < rank; ++i) {
    std::int64_t da = i < a.rank() ? a[a.rank() - 1 - i] : 1;
    std::int64_t db = i < b.rank() ? b[b.rank() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1)
      throw ShapeError(std::string(op) + ": shapes " + a.str() + " and " + b.str() +
                       " cannot be broadcast together");
    out[rank - 1 - i] = da == 1 ? db : da;
  }
  return Shape(std::span<const std::int64_t>(out.data(), std::size_t(rank)));
}

void require_same_shape(const Shape& expected, const Shape& got, const char* op, const char* what) {
  if (!(expected == got))
    throw ShapeError(std::string(op) + ": " + what + " expected shape " + expected.str() +
                     ", got " + got.str());
}

}  // namespace ablate
