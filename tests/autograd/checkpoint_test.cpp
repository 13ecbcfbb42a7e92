// checkpoint(): gradients equal the direct computation's bit for bit (inputs used
// inside and outside, Parameters inside, dropout replayed), it gradchecks in f64,
// nests, steps aside under NoGradGuard, refuses a function that does not replay, and
// keeps only its output on the caller's tape.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "autograd/ablate.h"
#include "tests/fresh_tape.h"

using namespace ablate;

namespace {

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

// A block with weights, a residual, a nonlinearity and dropout.
struct Block {
  Parameter w, b;
  Generator* dropout_rng;
  Var operator()(std::span<const Var> in) {
    Var h = tanh(linear(in[0], leaf(w), leaf(b))) * in[1];
    return in[0] + dropout(h, 0.25, true, *dropout_rng);
  }
};

}  // namespace

TEST_CASE("checkpoint gives the direct computation's values and gradients bit for bit",
          "[checkpoint]") {
  ablate_tests::FreshTape fresh;
  Tape& tape = fresh.tape;
  Generator init(3);
  Parameter x(randn({4, 5, 8}, init)), scale(randn({4, 5, 8}, init));
  Block block{Parameter(randn({8, 8}, init, DType::f32, 0, 0.3)), Parameter(randn({8}, init)),
              nullptr};
  Parameter head(randn({8, 3}, init));
  auto step = [&](bool checkpointed, Generator& dropout) {
    block.dropout_rng = &dropout;
    for (Parameter* p : {&x, &scale, &block.w, &block.b, &head}) p->zero_grad();
    // h is an intermediate (its gradient starts inside the checkpoint), s is also used
    // after it (its gradient already holds a contribution when the checkpoint's runs).
    Var h = leaf(x) * 1.5, s = leaf(scale);
    Var in[] = {h, s};
    Var y = h;
    for (int layer = 0; layer < 3; ++layer) {
      in[0] = y;
      y = checkpointed ? checkpoint(std::ref(block), in, {&dropout}) : block(in);
    }
    Var loss = mean(matmul(y * s, leaf(head))) + mean(s * s);
    tape.backward(loss);
    std::vector<Tensor> out{loss.value().clone(), y.value().clone()};
    for (Parameter* p : {&x, &scale, &block.w, &block.b, &head}) out.push_back(p->grad.clone());
    tape.reset();
    return out;
  };
  Generator direct_rng(7), checkpoint_rng(7);
  for (int i = 0; i < 2; ++i) {  // the second step continues both dropout streams
    std::vector<Tensor> direct = step(false, direct_rng), recomputed = step(true, checkpoint_rng);
    for (std::size_t k = 0; k < direct.size(); ++k) {
      INFO("step " << i << ", result " << k);
      CHECK(same_bits(direct[k], recomputed[k]));
    }
  }
  CHECK(direct_rng.next_u64() ==
        checkpoint_rng.next_u64());  // the recompute left the stream where it was
}

TEST_CASE("checkpoint gradchecks in f64, inputs fresh and accumulated, weights inside",
          "[checkpoint]") {
  Generator g(5);
  Parameter a(randn({3, 4}, g, DType::f64)), b(randn({3, 4}, g, DType::f64)),
      w(randn({4, 4}, g, DType::f64));
  std::vector<Parameter*> params{&a, &b, &w};
  GradcheckResult r = gradcheck_parameters(
      [&] {
        Var x = leaf(a) * 2.0, y = leaf(b);
        Var in[] = {x, y};
        Var out = checkpoint(
            [&](std::span<const Var> v) { return sigmoid(matmul(v[0], leaf(w))) * v[1] + v[0]; },
            in);
        return out * y;  // y also used outside
      },
      params);
  INFO(r.message);
  CHECK(r.ok);
  CHECK(r.op_kinds.test(std::size_t(OpKind::checkpoint)));
}

TEST_CASE("checkpoints nest, and a checkpointed function may return its input", "[checkpoint]") {
  ablate_tests::FreshTape fresh;
  Generator g(6);
  Parameter x(randn({6}, g, DType::f64));
  auto inner = [](std::span<const Var> v) { return exp(v[0]) * v[0]; };
  auto outer = [&](std::span<const Var> v) {
    Var once = checkpoint(inner, v);
    Var in[] = {once};
    return checkpoint(inner, in) + checkpoint([](std::span<const Var> u) { return u[0]; }, v);
  };
  Var in[] = {leaf(x)};
  fresh.tape.backward(sum(checkpoint(outer, in)));
  Tensor nested = x.grad.clone();
  fresh.tape.reset();
  x.zero_grad();
  in[0] = leaf(x);
  fresh.tape.backward(sum(outer(in)));
  CHECK(same_bits(nested, x.grad));
}

TEST_CASE("without gradient recording checkpoint only calls the function", "[checkpoint]") {
  ablate_tests::FreshTape fresh;
  Parameter x(Tensor::ones({3}));
  NoGradGuard no_grad;
  Var in[] = {leaf(x)};
  Var y = checkpoint([](std::span<const Var> v) { return v[0] * 2.0; }, in);
  CHECK(fresh.tape.node(y).op == OpKind::mul_scalar);
  CHECK(y.value().at(0) == 2.0);
}

TEST_CASE("a checkpointed function that does not replay is refused", "[checkpoint]") {
  ablate_tests::FreshTape fresh;
  Parameter x(Tensor::ones({64}));
  Generator unlisted(1);
  Var in[] = {leaf(x)};
  Var y =
      checkpoint([&](std::span<const Var> v) { return dropout(v[0], 0.5, true, unlisted); }, in);
  CHECK_THROWS_WITH(fresh.tape.backward(sum(y)), Catch::Contains("recomputed output differs"));
  fresh.tape.reset();
  Var other_tape_var = fresh.tape.leaf(x);
  Tape elsewhere;
  TapeScope scope(elsewhere);
  Var here[] = {elsewhere.leaf(x)};
  CHECK_THROWS_WITH(checkpoint([&](std::span<const Var>) { return other_tape_var; }, here),
                    Catch::Contains("returned a Var of another tape"));
}

TEST_CASE("recomputing() is true only during the recompute", "[checkpoint]") {
  ablate_tests::FreshTape fresh;
  Parameter x(Tensor::ones({2}));
  std::vector<bool> seen;
  Var in[] = {leaf(x)};
  Var y = checkpoint(
      [&](std::span<const Var> v) {
        seen.push_back(recomputing());
        return v[0] * 3.0;
      },
      in);
  fresh.tape.backward(sum(y));
  CHECK(seen == std::vector<bool>{false, true});
  CHECK_FALSE(recomputing());
  CHECK(x.grad.at(0) == 3.0);
}

TEST_CASE("the caller's tape keeps only each checkpoint's output", "[checkpoint][memory]") {
  // Twelve blocks of twenty [64, 256] f32 activations (64 KiB each): kept, they take
  // 12 × 20 × 64 KiB = 15 MiB of the tape's arena; checkpointed, the tape holds the 12
  // outputs (the scratch tape one block's forward and backward). Measured: 15.0 MiB in
  // use after the forward without checkpoints, 0.75 MiB with them (20×).
  Generator g(8);
  Parameter x(randn({64, 256}, g));
  auto block = [](std::span<const Var> v) {
    Var h = v[0];
    for (int i = 0; i < 10; ++i) h = tanh(h * 0.9);
    return h;
  };
  auto forward_bytes = [&](bool checkpointed) {
    Tape tape;
    TapeScope scope(tape);
    Var h = tape.leaf(x);
    for (int i = 0; i < 12; ++i) {
      Var in[] = {h};
      h = checkpointed ? checkpoint(block, in) : block(in);
    }
    std::size_t used = tape.arena().bytes_in_use();
    tape.backward(sum(h));
    return used;
  };
  std::size_t kept = forward_bytes(false), checkpointed = forward_bytes(true);
  CHECK(checkpointed * 5 < kept);
}
