#include "nn/finite_state.h"

#include <cmath>

namespace ablate::nn {

namespace {

template <typename T>
std::optional<std::int64_t> first_non_finite_element(const Tensor& t) {
  const T* values = static_cast<const T*>(t.raw());
  for (std::int64_t i = 0; i < t.numel(); ++i)
    if (!std::isfinite(values[i])) return i;
  return std::nullopt;
}

std::optional<NonFiniteValue> check(const std::string& name, const Tensor& t) {
  std::optional<std::int64_t> at;
  if (t.numel() == 0) return std::nullopt;
  if (t.dtype() == DType::f32) at = first_non_finite_element<float>(t);
  if (t.dtype() == DType::f64) at = first_non_finite_element<double>(t);
  if (!at) return std::nullopt;
  const double value = t.dtype() == DType::f32 ? double(static_cast<const float*>(t.raw())[*at])
                                               : static_cast<const double*>(t.raw())[*at];
  return NonFiniteValue{name, *at, value};
}

}  // namespace

std::string NonFiniteValue::str() const {
  const std::string what = std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf";
  return "tensor '" + tensor + "' holds " + what + " at element " + std::to_string(index);
}

std::optional<NonFiniteValue> first_non_finite(const Module& module) {
  for (const auto& [name, p] : module.named_parameters())
    if (auto bad = check(name, p->value)) return bad;
  for (const auto& [name, b] : module.named_buffers())
    if (auto bad = check(name, *b)) return bad;
  return std::nullopt;
}

}  // namespace ablate::nn
