// The tape's contract: reverse-mode gradients accumulate into Parameter::grad,
// no_grad and detach cut the graph, reset() invalidates Vars loudly, and tapes are
// per thread.
#include <catch2/catch.hpp>
#include <thread>

#include "autograd/ablate.h"

using namespace ablate;

TEST_CASE("backward accumulates into Parameter::grad across calls and uses") {
  Tape tape;
  TapeScope scope(tape);
  Parameter w(Tensor::from_data({2}, std::vector<double>{1.0, 2.0}, DType::f64));
  Var a = tape.leaf(w);
  Var b = tape.leaf(w);   // the same parameter used twice in one step
  Var loss = sum(a * b);  // Σ w², d/dw = 2w
  tape.backward(loss);
  CHECK(w.grad.at(0) == 2.0);
  CHECK(w.grad.at(1) == 4.0);
  tape.backward(loss);  // a second backward adds again (gradient accumulation)
  CHECK(w.grad.at(1) == 8.0);
  tape.reset();
  Var c = tape.leaf(w);
  tape.backward(sum(c * 3.0));  // next step accumulates on top until zero_grad()
  CHECK(w.grad.at(0) == 7.0);
  w.zero_grad();
  CHECK(w.grad.at(0) == 0.0);
}

TEST_CASE("intermediate gradients are readable from Vars after backward with retain_grad") {
  Tape tape;
  TapeScope scope(tape);
  Parameter x(Tensor::full({3}, 2.0, DType::f64));
  Var h = tape.leaf(x) * 3.0;
  Var other = tape.leaf(x) * 5.0;  // same size: would reuse h's buffer if h were not retained
  tape.retain_grad(h);
  tape.backward(sum(h * h) + sum(other * other));
  REQUIRE(h.grad().defined());
  CHECK(h.grad().at(0) == 12.0);        // d(h²)/dh = 2h = 12
  CHECK_FALSE(other.grad().defined());  // recycled after its backward ran
  CHECK(x.grad.at(0) == 3.0 * 12.0 + 5.0 * 20.0);
}

TEST_CASE("recycled gradient buffers keep backward's arena use at the live frontier") {
  // A chain of 200 same-sized ops: without recycling every node would keep its own
  // gradient buffer (200 × 8 KiB); with it, a couple are reused along the chain.
  Tape tape;
  TapeScope scope(tape);
  Parameter x(Tensor::ones({1024}, DType::f64));
  Var h = tape.leaf(x);
  for (int i = 0; i < 200; ++i) h = tanh(h * 0.5);
  Var loss = sum(h);
  std::size_t before = tape.arena().bytes_in_use();
  tape.backward(loss);
  std::size_t used = tape.arena().bytes_in_use() - before;
  CHECK(used < 8 * 8192);
  CHECK(x.grad.at(0) != 0.0);
}

TEST_CASE("a Var used after reset() throws a clear error instead of reading freed memory") {
  Tape tape;
  TapeScope scope(tape);
  Parameter p(Tensor::ones({2}));
  Var v = exp(tape.leaf(p));
  tape.reset();
  CHECK_THROWS_WITH(v.value(), Catch::Contains("after its tape was reset"));
  CHECK_THROWS_WITH(exp(v), Catch::Contains("after its tape was reset"));
}

TEST_CASE("NoGradGuard records no gradient and backward through it is an error") {
  Tape tape;
  TapeScope scope(tape);
  Parameter p(Tensor::ones({2}));
  Var y;
  {
    NoGradGuard guard;
    y = sum(tape.leaf(p) * 2.0);
  }
  CHECK_FALSE(y.requires_grad());
  CHECK(y.item() == 4.0);
  CHECK_THROWS_WITH(tape.backward(y), Catch::Contains("does not require grad"));
  CHECK(sum(tape.leaf(p)).requires_grad());  // enabled again after the scope
}

TEST_CASE("detach stops the gradient") {
  Tape tape;
  TapeScope scope(tape);
  Parameter p(Tensor::full({1}, 3.0, DType::f64));
  Var x = tape.leaf(p);
  Var loss = sum(x * detach(x));  // d/dx = detach(x) = 3, not 2x = 6
  tape.backward(loss);
  CHECK(p.grad.at(0) == 3.0);
}

TEST_CASE("constants and frozen parameters get no gradient") {
  Tape tape;
  TapeScope scope(tape);
  Parameter frozen(Tensor::ones({2}), /*requires_grad=*/false);
  Parameter live(Tensor::ones({2}));
  Var loss = sum(tape.leaf(frozen) * tape.leaf(live) * tape.constant(Tensor::full({2}, 5.0)));
  tape.backward(loss);
  CHECK(frozen.grad.at(0) == 0.0);
  CHECK(live.grad.at(0) == 5.0);
}

TEST_CASE("backward checks the output gradient's shape and names both shapes") {
  Tape tape;
  TapeScope scope(tape);
  Parameter p(Tensor::ones({2, 3}));
  Var y = tape.leaf(p) * 2.0;
  CHECK_THROWS_WITH(tape.backward(y), Catch::Contains("one element") && Catch::Contains("[2, 3]"));
  CHECK_THROWS_WITH(tape.backward(y, Tensor::ones({3, 2})),
                    Catch::Contains("[2, 3]") && Catch::Contains("[3, 2]"));
}

TEST_CASE("each thread records on its own tape") {
  Parameter a(Tensor::full({1}, 2.0, DType::f64)), b(Tensor::full({1}, 5.0, DType::f64));
  auto worker = [](Parameter* p) {
    for (int step = 0; step < 200; ++step) {
      Tape& tape = Tape::current();
      tape.backward(sum(tape.leaf(*p) * tape.leaf(*p)));
      tape.reset();
    }
  };
  std::thread t1(worker, &a), t2(worker, &b);
  t1.join();
  t2.join();
  CHECK(a.grad.at(0) == 200 * 4.0);
  CHECK(b.grad.at(0) == 200 * 10.0);
}

TEST_CASE("a Var from another tape is rejected") {
  Tape other;
  Parameter p(Tensor::ones({1}));
  Var foreign = other.leaf(p);
  CHECK_THROWS_WITH(exp(foreign), Catch::Contains("tape other than"));
}

TEST_CASE("reshape shares the buffer, reset rewinds the arena without freeing it") {
  Tape tape;
  TapeScope scope(tape);
  Parameter p(Tensor::ones({2, 3}));
  for (int step = 0; step < 3; ++step) {
    Var x = exp(tape.leaf(p));
    Var r = reshape(x, {3, 2});
    CHECK(r.value().raw() == x.value().raw());
    tape.backward(sum(r));
    tape.reset();
  }
  CHECK(tape.arena().bytes_in_use() == 0);
  CHECK(tape.arena().blocks() == 1);
}
