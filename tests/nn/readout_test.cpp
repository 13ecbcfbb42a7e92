// The forecasting head's readout (nn::Readout): averaging the encoder's output over
// time makes a model without positions blind to the order of its input steps —
// permuting them leaves the forecast unchanged, exactly — while the flatten readout
// keeps each step in its place. Why the forecasting study uses flatten.
#include <catch2/catch.hpp>

#include "nn/component.h"
#include "nn/transformer/transformer_models.h"

using namespace ablate;
using namespace ablate::nn;

namespace {

// x with its time steps (dimension 1) in the order `order`.
Tensor permuted_steps(const Tensor& x, const std::vector<std::int64_t>& order) {
  const std::int64_t B = x.shape()[0], T = x.shape()[1], F = x.shape()[2];
  Tensor out = Tensor::empty(x.shape(), x.dtype());
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t t = 0; t < T; ++t)
      for (std::int64_t f = 0; f < F; ++f)
        out.set((b * T + t) * F + f, x.at((b * T + order[std::size_t(t)]) * F + f));
  return out;
}

double max_difference(const Tensor& a, const Tensor& b) {
  double d = 0;
  for (std::int64_t i = 0; i < a.numel(); ++i) d = std::max(d, std::abs(a.at(i) - b.at(i)));
  return d;
}

}  // namespace

TEST_CASE(
    "without positions the mean readout ignores the order of the input steps, flatten does not",
    "[readout]") {
  TransformerConfig c;
  c.d_model = 8;
  c.heads = 2;
  c.d_ff = 16;
  c.encoder_layers = 2;
  c.max_len = 6;
  c.positions = Component{"none"};
  c.dtype = DType::f64;
  Generator g(3);
  const Tensor x = randn({2, 6, 3}, g, DType::f64);
  const Tensor shuffled = permuted_steps(x, {3, 0, 5, 1, 4, 2});
  for (Readout readout : {Readout::mean, Readout::flatten}) {
    EncoderRegressor model(c, 3, 2, 3, 7, readout, 6);
    model.eval();
    NoGradGuard no_grad;
    const Tensor y = model.forward(constant(x)).value().clone();
    const Tensor y_shuffled = model.forward(constant(shuffled)).value().clone();
    Tape::current().reset();
    if (readout == Readout::mean)
      CHECK(max_difference(y, y_shuffled) < 1e-12);  // the same forecast, up to rounding
    else
      CHECK(max_difference(y, y_shuffled) > 1e-3);
  }
  // The flatten head is sized for its lookback: other lengths are refused.
  EncoderRegressor flat(c, 3, 2, 3, 7, Readout::flatten, 6);
  CHECK_THROWS_AS(flat.forward(constant(randn({1, 5, 3}, g, DType::f64))), ShapeError);
  CHECK_THROWS_AS(EncoderRegressor(c, 3, 2, 3, 7, Readout::flatten, 0), std::invalid_argument);
}
