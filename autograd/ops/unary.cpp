// Elementwise unary ops and ops with one scalar parameter. Each op is two Eigen
// array expressions: the forward y = f(x, s) and the vector-Jacobian product
// gx += f'(x, y, s) · gy, side by side.
#include <cmath>
#include <numbers>
#include <unsupported/Eigen/SpecialFunctions>

#include "autograd/kernels/eigen_maps.h"
#include "autograd/op_builder.h"
#include "autograd/ops.h"

namespace ablate {

namespace {

using kernels::cflat;
using kernels::flat;

// Forward: Fwd{}(x, s) → expression for y. Backward: Bwd{}(x, y, gy, s) → expression
// for the contribution to gx. Both are stateless lambdas, so the backward thunk below
// is captureless and becomes the node's function pointer.
template <class Fwd, class Bwd>
Var unary(OpKind kind, const Var& x, double s, Fwd, Bwd) {
  OpBuilder op(kind, {x});
  Tensor y = op.output(x.shape(), x.dtype());
  op.scalar(0, s);
  dispatch_float(x.dtype(), op_name(kind), [&]<class T>() {
    auto xm = cflat<T>(op.input(0));
    flat<T>(y) = Fwd{}(xm, T(s));
  });
  return op.finish(y, [](BackwardContext& c) {
    dispatch_float(c.dtype(), "unary backward", [&]<class T>() {
      auto xm = cflat<T>(c.input(0));
      auto ym = cflat<T>(c.output());
      auto gy = cflat<T>(c.output_grad());
      auto [gx, accumulate] = c.input_grad_slot(0);
      kernels::write_or_add(flat<T>(gx), Bwd{}(xm, ym, gy, T(c.scalar(0))), accumulate);
    });
  });
}

}  // namespace

Var neg(const Var& x) {
  return unary(
      OpKind::neg, x, 0, [](const auto& x, auto) { return -x; },
      [](const auto&, const auto&, const auto& g, auto) { return -g; });
}

Var add_scalar(const Var& x, double s) {
  return unary(
      OpKind::add_scalar, x, s, [](const auto& x, auto s) { return x + s; },
      [](const auto&, const auto&, const auto& g, auto) { return g; });
}

Var mul_scalar(const Var& x, double s) {
  return unary(
      OpKind::mul_scalar, x, s, [](const auto& x, auto s) { return x * s; },
      [](const auto&, const auto&, const auto& g, auto s) { return g * s; });
}

Var pow_scalar(const Var& x, double p) {
  return unary(
      OpKind::pow_scalar, x, p, [](const auto& x, auto p) { return x.pow(p); },
      [](const auto& x, const auto&, const auto& g, auto p) { return g * p * x.pow(p - 1); });
}

Var exp(const Var& x) {
  return unary(
      OpKind::exp, x, 0, [](const auto& x, auto) { return x.exp(); },
      [](const auto&, const auto& y, const auto& g, auto) { return g * y; });
}

Var log(const Var& x) {
  return unary(
      OpKind::log, x, 0, [](const auto& x, auto) { return x.log(); },
      [](const auto& x, const auto&, const auto& g, auto) { return g / x; });
}

Var sqrt(const Var& x) {
  return unary(
      OpKind::sqrt, x, 0, [](const auto& x, auto) { return x.sqrt(); },
      [](const auto&, const auto& y, const auto& g, auto s) { return g * decltype(s)(0.5) / y; });
}

Var abs(const Var& x) {
  return unary(
      OpKind::abs, x, 0, [](const auto& x, auto) { return x.abs(); },
      [](const auto& x, const auto&, const auto& g, auto) { return g * x.sign(); });
}

Var tanh(const Var& x) {
  return unary(
      OpKind::tanh, x, 0, [](const auto& x, auto) { return x.tanh(); },
      [](const auto&, const auto& y, const auto& g, auto s) {
        return g * (decltype(s)(1) - y * y);
      });
}

Var sigmoid(const Var& x) {
  return unary(
      OpKind::sigmoid, x, 0, [](const auto& x, auto) { return x.logistic(); },
      [](const auto&, const auto& y, const auto& g, auto s) {
        return g * y * (decltype(s)(1) - y);
      });
}

Var relu(const Var& x) {
  return unary(
      OpKind::relu, x, 0, [](const auto& x, auto s) { return x.max(decltype(s)(0)); },
      [](const auto& x, const auto&, const auto& g, auto s) {
        return (x > decltype(s)(0)).select(g, decltype(s)(0));
      });
}

// Φ(x) = ½(1 + erf(x/√2)), φ(x) = exp(-x²/2)/√(2π); d/dx xΦ(x) = Φ(x) + xφ(x).
Var gelu_erf(const Var& x) {
  return unary(
      OpKind::gelu_erf, x, 0,
      [](const auto& x, auto s) {
        using T = decltype(s);
        return x * T(0.5) * ((x * T(std::numbers::sqrt2 / 2)).erf() + T(1));
      },
      [](const auto& x, const auto&, const auto& g, auto s) {
        using T = decltype(s);
        auto cdf = T(0.5) * ((x * T(std::numbers::sqrt2 / 2)).erf() + T(1));
        auto pdf =
            (x * x * T(-0.5)).exp() * T(0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2);
        return g * (cdf + x * pdf);
      });
}

// u = c(x + k x³), y = ½x(1 + tanh u); dy/dx = ½(1 + t) + ½x(1 - t²)·c(1 + 3k x²).
Var gelu_tanh(const Var& x) {
  return unary(
      OpKind::gelu_tanh, x, 0,
      [](const auto& x, auto s) {
        using T = decltype(s);
        constexpr T c = T(0.7978845608028654), k = T(0.044715);
        return T(0.5) * x * ((c * (x + k * x * x * x)).tanh() + T(1));
      },
      [](const auto& x, const auto&, const auto& g, auto s) {
        using T = decltype(s);
        constexpr T c = T(0.7978845608028654), k = T(0.044715);
        auto t = (c * (x + k * x * x * x)).tanh();
        return g *
               (T(0.5) * (t + T(1)) + T(0.5) * x * (T(1) - t * t) * c * (T(1) + T(3) * k * x * x));
      });
}

}  // namespace ablate
