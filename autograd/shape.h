#pragma once
// Shape of a dense, contiguous, row-major tensor: rank 0..4, stored inline so that
// creating a shape never touches the heap.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>

namespace ablate {

// Thrown for any shape disagreement; the message names every shape involved.
class ShapeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class Shape {
 public:
  static constexpr int kMaxRank = 4;

  Shape() = default;  // rank 0: a scalar with one element
  Shape(std::initializer_list<std::int64_t> dims);
  explicit Shape(std::span<const std::int64_t> dims);

  int rank() const { return rank_; }
  std::int64_t numel() const;
  // Negative axes count from the end, as in NumPy.
  std::int64_t operator[](int axis) const { return dims_[index(axis)]; }
  std::int64_t& operator[](int axis) { return dims_[index(axis)]; }
  std::span<const std::int64_t> dims() const { return {dims_.data(), std::size_t(rank_)}; }

  // Elements after `axis` (the stride of `axis`) and before it.
  std::int64_t inner(int axis) const;
  std::int64_t outer(int axis) const;

  Shape with(int axis, std::int64_t size) const;  // copy with one dim replaced
  Shape without(int axis) const;                  // copy with one dim removed
  // Normalised axis in [0, rank); throws naming `op` when out of range.
  int axis(int axis, const char* op) const;

  std::string str() const;  // "[2, 3]"
  friend bool operator==(const Shape& a, const Shape& b);

 private:
  int index(int axis) const;
  std::array<std::int64_t, kMaxRank> dims_{};
  int rank_ = 0;
};

// NumPy broadcasting of two shapes; throws ShapeError naming both (and `op`).
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);

// Throws ShapeError "op: <what> expected <a>, got <b>" unless a == b.
void require_same_shape(const Shape& expected, const Shape& got, const char* op, const char* what);

}  // namespace ablate
