// Numerics at the extremes, in f32 (what training runs in): softmax, log-softmax,
// cross-entropy and every norm component stay finite — values and gradients — for
// logits of ±1e4, constant inputs, tiny and huge magnitudes; BatchNorm in training
// with fewer than 2 counted rows is refused with a message that says the rule.
// (RELIABILITY.md, "Numerics".)
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include "tests/nn/small_transformer.h"

#include "autograd/ablate.h"
#include "nn/norms/norm.h"
#include "tests/fresh_tape.h"

using namespace ablate;
using namespace ablate::nn;

using Fresh = ablate_tests::FreshTape;

namespace {

bool all_finite(const Tensor& t) {
  Tensor d = t.to(DType::f64);
  for (std::int64_t i = 0; i < d.numel(); ++i)
    if (!std::isfinite(d.at(i))) return false;
  return true;
}

// [2, 3, 4] rows of one kind, f32.
Tensor rows(const std::string& kind) {
  std::vector<double> v(24);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double alternating = (i % 2 ? 1.0 : -1.0) * double(1 + i % 3);
    if (kind == "constant")
      v[i] = 3.25;
    else if (kind == "zeros")
      v[i] = 0.0;
    else if (kind == "±1e4")
      v[i] = 1e4 * alternating;
    else if (kind == "tiny")
      v[i] = 1e-30 * alternating;
    else if (kind == "huge")
      v[i] = 1e18 * alternating;
    else if (kind == "one outlier")
      v[i] = i == 5 ? 1e4 : 0.5;
  }
  return Tensor::from_data({2, 3, 4}, v, DType::f32);
}

const char* kKinds[] = {"constant", "zeros", "±1e4", "tiny", "huge", "one outlier"};

}  // namespace

TEST_CASE("softmax log-softmax and cross-entropy stay finite in f32 at the extremes") {
  for (const char* kind : kKinds) {
    INFO(kind);
    Fresh f;
    Parameter x(rows(kind));
    Var v = f.tape.leaf(x);
    Tensor targets = Tensor::from_data({2, 3}, std::vector<std::int32_t>{0, 1, 2, 3, 0, 1});
    Var loss = cross_entropy(v, targets) + cross_entropy(v, targets, -100, 0.1) +
               sum(softmax(v) * 0.5) + mean(log_softmax(v));
    CHECK(std::isfinite(loss.item()));
    f.tape.backward(loss);
    CHECK(all_finite(x.grad));
  }
}

TEST_CASE("every norm component stays finite in f32 at the extremes in training and eval") {
  for (const std::string& name : norm_registry().names()) {
    for (const char* kind : kKinds) {
      INFO(name << " on " << kind << " rows");
      Fresh f;
      Generator g(5);
      auto norm = norm_registry().create(name, {}, testing::build_context(4, 1, g));
      Parameter x(rows(kind));
      Var y = norm->forward(f.tape.leaf(x), Tensor());
      CHECK(all_finite(y.value()));
      f.tape.backward(sum(y * y));
      CHECK(all_finite(x.grad));
      for (const auto& [pname, p] : norm->named_parameters()) {
        INFO(pname);
        CHECK(all_finite(p->grad));
      }
      norm->eval();
      CHECK(all_finite(norm->forward(constant(rows(kind)), Tensor()).value()));
    }
  }
}

TEST_CASE("a normalised constant row is zero and a normalised outlier is bounded") {
  Fresh f;
  Generator g(6);
  // LayerNorm of a constant row: (x - mean) = 0 exactly, so 0 whatever eps is.
  auto layer = norm_registry().create("layer", {}, testing::build_context(4, 1, g));
  Tensor y = layer->forward(constant(rows("constant")), Tensor()).value().to(DType::f64);
  for (std::int64_t i = 0; i < y.numel(); ++i) CHECK(y.at(i) == 0.0);
  // One huge element among equal ones: LayerNorm bounds every output by sqrt(D - 1).
  Tensor z = layer->forward(constant(rows("one outlier")), Tensor()).value().to(DType::f64);
  for (std::int64_t i = 0; i < z.numel(); ++i) CHECK(std::abs(z.at(i)) <= std::sqrt(3.0) + 1e-4);
}

TEST_CASE("BatchNorm in training refuses fewer than 2 counted rows and says why") {
  Fresh f;
  Generator g(7);
  auto batch = norm_registry().create("batch", {}, testing::build_context(4, 1, g));
  Tensor one_token = Tensor::from_data({1, 1, 4}, std::vector<double>{1, 2, 3, 4}, DType::f32);
  CHECK_THROWS_WITH(batch->forward(constant(one_token), Tensor()), Catch::Contains("at least 2"));
  // Two real tokens among padding are enough; padding alone is not.
  Tensor x = rows("±1e4");
  Tensor two_real = Tensor::from_data({2, 3}, std::vector<double>{1, 0, 0, 1, 0, 0}, DType::b8);
  CHECK(all_finite(batch->forward(constant(x), two_real).value()));
  Tensor one_real = Tensor::from_data({2, 3}, std::vector<double>{1, 0, 0, 0, 0, 0}, DType::b8);
  CHECK_THROWS_WITH(batch->forward(constant(x), one_real), Catch::Contains("at least 2"));
  // In eval the running statistics are used, so a single token is fine.
  batch->eval();
  CHECK(all_finite(batch->forward(constant(one_token), Tensor()).value()));
}
