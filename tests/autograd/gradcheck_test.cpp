// gradcheck itself: it must catch a wrong backward, and it is usable on a user's own
// op written with OpBuilder.
#include <catch2/catch.hpp>

#include "autograd/ablate.h"
#include "autograd/kernels/eigen_maps.h"
#include "autograd/op_builder.h"

using namespace ablate;

namespace {

// y = x³ with a backward of kFactor·x²: kFactor = 3 is right; kFactor = 2 is the kind
// of mistake gradcheck exists to catch.
template <int kFactor>
Var cube(const Var& x) {
  OpBuilder op(OpKind::custom, {x});
  Tensor y = op.output(x.shape(), x.dtype());
  kernels::flat<double>(y) = kernels::cflat<double>(op.input(0)).cube();
  return op.finish(y, [](BackwardContext& c) {
    kernels::flat<double>(c.input_grad(0)) += kernels::cflat<double>(c.output_grad()) *
                                              double(kFactor) *
                                              kernels::cflat<double>(c.input(0)).square();
  });
}

}  // namespace

TEST_CASE("gradcheck catches a deliberately wrong backward") {
  Generator g(3);
  std::vector<Tensor> in{randn({4}, g, DType::f64)};
  GradcheckResult bad = gradcheck([](std::span<const Var> x) { return cube<2>(x[0]); }, in);
  CHECK_FALSE(bad.ok);
  CHECK(bad.max_error > 1e-3);
  CHECK_THAT(bad.message, Catch::Contains("analytic") && Catch::Contains("numeric"));

  GradcheckResult good = gradcheck([](std::span<const Var> x) { return cube<3>(x[0]); }, in);
  INFO(good.message);
  CHECK(good.ok);
  CHECK(good.op_kinds.test(std::size_t(OpKind::custom)));
}

TEST_CASE("gradcheck rejects f32 inputs and names the input") {
  std::vector<Tensor> in{Tensor::ones({2}, DType::f32)};
  CHECK_THROWS_WITH(gradcheck([](std::span<const Var> x) { return x[0]; }, in),
                    Catch::Contains("input 0") && Catch::Contains("f64"));
}

TEST_CASE("gradcheck leaves the caller's tape untouched") {
  Tape& tape = Tape::current();
  Parameter p(Tensor::ones({2}, DType::f64));
  Var v = tape.leaf(p) * 2.0;
  std::vector<Tensor> in{Tensor::ones({3}, DType::f64)};
  CHECK(gradcheck([](std::span<const Var> x) { return sum(exp(x[0])); }, in).ok);
  CHECK(v.value().at(1) == 2.0);  // still valid: gradcheck used its own tape
  tape.reset();
}
