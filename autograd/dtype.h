#pragma once
// Element types a Tensor can hold. Only f32 and f64 are differentiable; i32 holds
// indices and targets, b8 holds masks (nonzero = true).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ablate {

enum class DType : std::uint8_t { f32, f64, i32, b8 };

constexpr std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32:
      return 4;
    case DType::f64:
      return 8;
    case DType::i32:
      return 4;
    case DType::b8:
      return 1;
  }
  return 0;
}

constexpr const char* dtype_name(DType t) {
  switch (t) {
    case DType::f32:
      return "f32";
    case DType::f64:
      return "f64";
    case DType::i32:
      return "i32";
    case DType::b8:
      return "b8";
  }
  return "?";
}

constexpr bool is_floating(DType t) {
  return t == DType::f32 || t == DType::f64;
}

template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() {
  return DType::f32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::f64;
}
template <>
constexpr DType dtype_of<std::int32_t>() {
  return DType::i32;
}
template <>
constexpr DType dtype_of<std::uint8_t>() {
  return DType::b8;
}

// Calls f.template operator()<T>() with T = float or double, once per op: the one
// place where a run-time dtype becomes a compile-time kernel type.
template <class F>
decltype(auto) dispatch_float(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::f32:
      return f.template operator()<float>();
    case DType::f64:
      return f.template operator()<double>();
    default:
      throw std::invalid_argument(std::string(op) + ": needs a floating dtype (f32 or f64), got " +
                                  dtype_name(t));
  }
}

}  // namespace ablate
