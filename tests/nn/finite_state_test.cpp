// nn/finite_state.h: the one pass over a module's weights that `ablate predict` uses to
// refuse a model with a NaN or an infinity (it decoded every input to nothing).
#include <catch2/catch.hpp>

#include <limits>

#include "nn/finite_state.h"
#include "nn/layers/linear.h"

using namespace ablate;

TEST_CASE("first_non_finite names the first NaN or infinity of a module, by tensor and element",
          "[finite]") {
  Generator gen(0);
  nn::Linear model(2, 3, /*bias=*/true, gen);
  CHECK_FALSE(nn::first_non_finite(model).has_value());

  float* bias = static_cast<float*>(model.named_parameters().back().second->value.raw());
  bias[2] = -std::numeric_limits<float>::infinity();
  auto bad = nn::first_non_finite(model);
  REQUIRE(bad.has_value());
  CHECK(bad->str() == "tensor 'bias' holds -inf at element 2");

  float* weight = static_cast<float*>(model.named_parameters().front().second->value.raw());
  weight[5] = std::numeric_limits<float>::quiet_NaN();
  bad = nn::first_non_finite(model);  // parameters in order: the weight comes first
  REQUIRE(bad.has_value());
  CHECK(bad->str() == "tensor 'weight' holds nan at element 5");
}

TEST_CASE("first_non_finite reads f64 modules too", "[finite]") {
  Generator gen(0);
  nn::Linear model(2, 2, /*bias=*/false, gen);
  model.to(DType::f64);
  static_cast<double*>(model.named_parameters().front().second->value.raw())[3] =
      std::numeric_limits<double>::infinity();
  auto bad = nn::first_non_finite(model);
  REQUIRE(bad.has_value());
  CHECK(bad->str() == "tensor 'weight' holds inf at element 3");
}
