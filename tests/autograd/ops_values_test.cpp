// Forward values of ops against closed forms and naive loops, numerical edge cases
// (±1e4 logits, fully masked rows, zero vectors), and argument errors.
#include <catch2/catch.hpp>
#include <cmath>

#include "autograd/ablate.h"
#include "tests/fresh_tape.h"

using namespace ablate;
using Catch::Detail::Approx;

using Fresh = ablate_tests::FreshTape;

namespace {
Tensor f64(Shape s, std::vector<double> v) {
  return Tensor::from_data(s, v, DType::f64);
}
Tensor b8(Shape s, std::vector<double> v) {
  return Tensor::from_data(s, v, DType::b8);
}
}  // namespace

TEST_CASE("softmax matches the closed form and is stable for ±1e4 logits") {
  Fresh t;
  Var s = softmax(constant(f64({3}, {1, 2, 3})));
  CHECK(s.value().at(0) == Approx(0.09003057317038046).epsilon(1e-12));
  CHECK(s.value().at(2) == Approx(0.6652409557748219).epsilon(1e-12));
  for (DType dt : {DType::f32, DType::f64}) {
    Var big = softmax(constant(f64({3}, {1e4, -1e4, 0}).to(dt)));
    CHECK(big.value().at(0) == 1.0);
    CHECK(big.value().at(1) == 0.0);
    Var ls = log_softmax(constant(f64({3}, {1e4, -1e4, 0}).to(dt)));
    CHECK(ls.value().at(0) == 0.0);
    CHECK(ls.value().at(1) == Approx(-2e4));
    CHECK(std::isfinite(ls.value().at(2)));
  }
}

TEST_CASE("a fully masked row gives zeros, never NaN, in value and gradient") {
  Fresh t;
  Parameter x(f64({2, 3}, {1, 2, 3, 4, 5, 6}));
  Tensor mask = b8({2, 3}, {1, 0, 1, 0, 0, 0});
  Var s = softmax(t.tape.leaf(x), mask);
  CHECK(s.value().at(1) == 0.0);
  CHECK(s.value().at(0) + s.value().at(2) == Approx(1.0));
  for (int j = 3; j < 6; ++j) CHECK(s.value().at(j) == 0.0);
  Var ls = log_softmax(t.tape.leaf(x), mask);
  for (int j = 3; j < 6; ++j) CHECK(ls.value().at(j) == 0.0);
  t.tape.backward(sum(s * 2.0) + sum(ls));
  for (int j = 0; j < 6; ++j) CHECK(std::isfinite(x.grad.at(j)));
  for (int j = 3; j < 6; ++j) CHECK(x.grad.at(j) == 0.0);
}

TEST_CASE("cross_entropy equals -mean log-softmax at the targets, with smoothing") {
  Fresh t;
  Tensor logits = f64({2, 3}, {2, 0.5, -1, 1e4, 0, -1e4});
  Tensor targets = Tensor::from_data({2}, std::vector<std::int32_t>{0, 1});
  Var ls = log_softmax(constant(logits));
  double expected = -(ls.value().at(0) + ls.value().at(4)) / 2;
  CHECK(cross_entropy(constant(logits), targets).item() == Approx(expected).epsilon(1e-12));
  CHECK(std::isfinite(expected));
  double eps = 0.1, smooth = 0;
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) smooth -= ls.value().at(r * 3 + c) / 3;
  smooth /= 2;
  CHECK(cross_entropy(constant(logits), targets, -100, eps).item() ==
        Approx((1 - eps) * expected + eps * smooth).epsilon(1e-12));
  Tensor ignored = Tensor::from_data({2}, std::vector<std::int32_t>{-100, 1});
  CHECK(cross_entropy(constant(logits), ignored).item() == Approx(-ls.value().at(4)));
  CHECK_THROWS_WITH(
      cross_entropy(constant(logits), Tensor::from_data({2}, std::vector<std::int32_t>{0, 3})),
      Catch::Contains("target 3") && Catch::Contains("[0, 3)"));
}

TEST_CASE("gelu forms match their reference values") {
  Fresh t;
  Var x = constant(f64({2}, {1.0, -0.5}));
  CHECK(gelu_erf(x).value().at(0) == Approx(0.8413447460685429).epsilon(1e-14));
  CHECK(gelu_erf(x).value().at(1) == Approx(-0.15426876936299344).epsilon(1e-14));
  CHECK(gelu_tanh(x).value().at(0) == Approx(0.8411919906082768).epsilon(1e-14));
}

TEST_CASE("matmul agrees with naive loops for every transpose flag and batch layout") {
  Fresh t;
  Generator g(4);
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      Tensor a = randn(ta ? Shape{2, 5, 3} : Shape{2, 3, 5}, g, DType::f64);
      Tensor b = randn(tb ? Shape{4, 5} : Shape{5, 4}, g, DType::f64);
      Tensor c = matmul(constant(a), constant(b), ta, tb).value();
      REQUIRE(c.shape() == Shape{2, 3, 4});
      for (int n = 0; n < 2; ++n)
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 4; ++j) {
            double s = 0;
            for (int k = 0; k < 5; ++k)
              s += a.at(n * 15 + (ta ? k * 3 + i : i * 5 + k)) * b.at(tb ? j * 5 + k : k * 4 + j);
            CHECK(c.at(n * 12 + i * 4 + j) == Approx(s).epsilon(1e-12));
          }
    }
}

TEST_CASE("layer_norm rows have mean 0 and variance 1 before the affine part") {
  Fresh t;
  Generator g(2);
  Var y = layer_norm(constant(randn({4, 16}, g, DType::f64, 3.0, 5.0)), Var(), Var(), 0.0);
  for (int r = 0; r < 4; ++r) {
    double m = 0, v = 0;
    for (int j = 0; j < 16; ++j) m += y.value().at(r * 16 + j) / 16;
    for (int j = 0; j < 16; ++j) v += std::pow(y.value().at(r * 16 + j) - m, 2) / 16;
    CHECK(m == Approx(0).margin(1e-12));
    CHECK(v == Approx(1).epsilon(1e-10));
  }
}

TEST_CASE("dropout: identity in eval, reproducible from the seed, inverted scaling") {
  Fresh t;
  Var x = constant(Tensor::ones({10000}));
  Generator g1(3), g2(3);
  CHECK(dropout(x, 0.5, false, g1).index() == x.index());
  Var a = dropout(x, 0.25, true, g1), b = dropout(x, 0.25, true, g2);
  int zeros = 0;
  for (int i = 0; i < 10000; ++i) {
    CHECK(a.value().at(i) == b.value().at(i));
    if (a.value().at(i) == 0)
      ++zeros;
    else
      CHECK(a.value().at(i) == Approx(1 / 0.75));
  }
  CHECK(std::abs(zeros / 10000.0 - 0.25) < 0.02);
  CHECK_THROWS_WITH(dropout(x, 1.5, true, g1), Catch::Contains("[0, 1]"));
}

TEST_CASE("l2_normalize gives unit rows and keeps zero rows finite") {
  Fresh t;
  Var y = l2_normalize(constant(f64({2, 2}, {3, 4, 0, 0})));
  CHECK(y.value().at(0) == Approx(0.6));
  CHECK(y.value().at(1) == Approx(0.8));
  CHECK(y.value().at(2) == 0.0);
}

TEST_CASE("max sends the gradient to the first maximal element") {
  Fresh t;
  Parameter p(f64({4}, {1, 3, 3, 2}));
  t.tape.backward(max(t.tape.leaf(p)));
  CHECK(p.grad.at(1) == 1.0);
  CHECK(p.grad.at(2) == 0.0);
}

TEST_CASE("gather_rows: padding rows get no gradient, bad indices are named") {
  Fresh t;
  Parameter table(f64({3, 2}, {1, 2, 3, 4, 5, 6}));
  Tensor idx = Tensor::from_data({4}, std::vector<std::int32_t>{2, 0, 2, 1});
  Var y = gather_rows(t.tape.leaf(table), idx, /*padding_index=*/0);
  CHECK(y.shape() == Shape{4, 2});
  CHECK(y.value().at(0) == 5.0);
  t.tape.backward(sum(y));
  CHECK(table.grad.at(0) == 0.0);  // the padding row
  CHECK(table.grad.at(4) == 2.0);  // row 2 used twice
  CHECK_THROWS_WITH(
      gather_rows(t.tape.leaf(table), Tensor::from_data({1}, std::vector<std::int32_t>{3})),
      Catch::Contains("index 3") && Catch::Contains("3 rows"));
}

TEST_CASE("shape ops move the right elements") {
  Fresh t;
  Var x = constant(Tensor::arange(0, 24, 1, DType::f64).reshaped({2, 3, 4}));
  Var p = permute(x, {2, 0, 1});  // p[k, i, j] = x[i, j, k]
  CHECK(p.shape() == Shape{4, 2, 3});
  CHECK(p.value().at(1 * 6 + 1 * 3 + 2) == x.value().at(1 * 12 + 2 * 4 + 1));
  Var s = slice(x, 2, 1, 3);
  CHECK(s.shape() == Shape{2, 3, 2});
  CHECK(s.value().at(0) == 1.0);
  Var c = concat({s, x}, 2);
  CHECK(c.shape() == Shape{2, 3, 6});
  CHECK(c.value().at(2) == 0.0);
  CHECK(reshape(x, {-1, 4}).shape() == Shape{6, 4});
  CHECK_THROWS_WITH(reshape(x, {5, -1}), Catch::Contains("infer"));
  CHECK_THROWS_WITH(slice(x, 1, 2, 5), Catch::Contains("[2, 5)") && Catch::Contains("[2, 3, 4]"));
}

TEST_CASE("batch_norm: statistics skip padding rows, running stats update, eval uses them") {
  Fresh t;
  // Rows 0, 1 count; row 2 is padding with a huge value that must not move the stats.
  Tensor x = f64({3, 2}, {1, 10, 3, 30, 1000, -1000});
  Tensor m = b8({3}, {1, 1, 0});
  Tensor rm = Tensor::zeros({2}, DType::f64), rv = Tensor::ones({2}, DType::f64);
  Var y = batch_norm(constant(x), m, Var(), Var(), rm, rv, true, 0.5, 0.0);
  CHECK(y.value().at(0) == Approx(-1.0));  // (1 - 2) / 1
  CHECK(y.value().at(2) == Approx(1.0));
  CHECK(y.value().at(1) == Approx(-1.0));      // (10 - 20) / 10
  CHECK(y.value().at(4) == Approx(998.0));     // padding normalised with the same stats
  CHECK(rm.at(0) == Approx(1.0));              // 0.5·0 + 0.5·2
  CHECK(rv.at(0) == Approx(0.5 + 0.5 * 2.0));  // unbiased batch variance 2
  Var e = batch_norm(constant(x), Tensor(), Var(), Var(), rm, rv, false, 0.5, 0.0);
  CHECK(e.value().at(0) == Approx((1 - 1.0) / std::sqrt(1.5)));
  CHECK_THROWS_WITH(batch_norm(constant(x), b8({3}, {1, 0, 0}), Var(), Var(), rm, rv, true),
                    Catch::Contains("at least 2"));
}
