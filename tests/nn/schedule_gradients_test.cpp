// Learning-rate schedules, gradient clipping and per-module gradient norms.
#include <catch2/catch.hpp>

#include <cmath>

#include "nn/losses.h"
#include "nn/optim/gradients.h"
#include "nn/optim/schedule.h"
#include "nn/transformer/transformer_models.h"
#include "tests/error_message.h"
#include "tests/nn/small_transformer.h"

using namespace ablate;
using namespace ablate::nn;
using ablate::testing::error_of;

namespace {

Tensor ids(const Shape& shape, std::vector<std::int32_t> values) {
  return Tensor::from_data(shape, std::span<const std::int32_t>(values));
}

}  // namespace

// ---- schedules --------------------------------------------------------------------

TEST_CASE("schedules: values at key steps", "[optim]") {
  const auto& reg = schedule_registry();
  CHECK(reg.axis() == "schedule");

  auto constant_lr = reg.create("constant", {}, 0.01, 100, 64);
  CHECK(constant_lr->lr(1) == 0.01);
  CHECK(constant_lr->lr(1000) == 0.01);

  auto warm = reg.create("linear_warmup", {{"warmup", std::int64_t(10)}}, 0.01, 100, 64);
  CHECK(warm->lr(1) == Approx(0.001));
  CHECK(warm->lr(5) == Approx(0.005));
  CHECK(warm->lr(10) == Approx(0.01));
  CHECK(warm->lr(50) == Approx(0.01));
  CHECK(reg.create("linear_warmup", {{"warmup", std::int64_t(0)}}, 0.01, 100, 64)->lr(1) == 0.01);

  // The paper's setting: d_model 512, warmup 4000; the base lr (here 1.0) is ignored.
  auto noam = reg.create("noam", {}, 1.0, 100000, 512);
  const double peak = 1.0 / std::sqrt(512.0 * 4000.0);
  CHECK(noam->lr(4000) == Approx(peak).epsilon(1e-12));
  CHECK(noam->lr(3999) < noam->lr(4000));
  CHECK(noam->lr(4001) < noam->lr(4000));
  CHECK(noam->lr(1) == Approx(std::pow(512.0, -0.5) * std::pow(4000.0, -1.5)).epsilon(1e-12));
  CHECK(noam->lr(16000) == Approx(std::pow(512.0, -0.5) / std::sqrt(16000.0)).epsilon(1e-12));
  auto noam2 = reg.create("noam", {{"factor", 2.0}, {"warmup", std::int64_t(100)}}, 1.0, 1000, 64);
  CHECK(noam2->lr(100) == Approx(2.0 / std::sqrt(64.0 * 100.0)).epsilon(1e-12));
  auto scaled =
      reg.create("noam", {{"warmup", std::int64_t(100)}, {"scale_to_lr", true}}, 3e-4, 1000, 64);
  CHECK(scaled->lr(100) == Approx(3e-4).epsilon(1e-12));
  CHECK(scaled->lr(50) == Approx(1.5e-4).epsilon(1e-12));
  CHECK(scaled->lr(400) == Approx(1.5e-4).epsilon(1e-12));  // sqrt(100/400) = 1/2

  auto cosine = reg.create("cosine", {{"warmup", std::int64_t(10)}, {"min_lr", 0.1}}, 1.0, 110, 64);
  CHECK(cosine->lr(5) == Approx(0.5));
  CHECK(cosine->lr(10) == Approx(1.0));
  CHECK(cosine->lr(60) == Approx(0.55));  // half way: the mean of base and min
  CHECK(cosine->lr(110) == Approx(0.1));
  CHECK(cosine->lr(500) == Approx(0.1));
  auto plain_cosine = reg.create("cosine", {}, 1.0, 100, 64);
  CHECK(plain_cosine->lr(1) == Approx(0.5 * (1 + std::cos(std::numbers::pi / 100))));
  CHECK(plain_cosine->lr(100) == Approx(0.0).margin(1e-15));
}

TEST_CASE("schedules: errors name the option and what is allowed", "[optim]") {
  const auto& reg = schedule_registry();
  CHECK_THAT(error_of([&] { reg.create("cosin", {}, 1.0, 100, 64); }),
             Catch::Contains("schedule: unknown component 'cosin'") &&
                 Catch::Contains("did you mean 'cosine'"));
  CHECK_THAT(error_of([&] {
               reg.create("noam", {{"warmup", std::int64_t(0)}}, 1.0, 100, 64);
             }),
             Catch::Contains("'warmup' = 0 is out of range (allowed >= 1)"));
  CHECK_THAT(error_of([&] {
               reg.create("cosine", {{"min_lr", -0.1}}, 1.0, 100, 64);
             }),
             Catch::Contains("'min_lr' = -0.1 is out of range"));
  CHECK_THAT(
      error_of([&] {
        reg.create("cosine", {{"min_lr", 2.0}}, 1.0, 100, 64);
      }),
      Catch::Contains("'min_lr'") && Catch::Contains("must not exceed the base learning rate"));
  CHECK_THAT(error_of([&] {
               reg.create("cosine", {{"warmup", std::int64_t(100)}}, 1.0, 100, 64);
             }),
             Catch::Contains("'warmup' = 100 must be below the total steps (100)"));
  CHECK_THAT(error_of([&] { reg.create("linear_warmup", {}, -1.0, 100, 64); }),
             Catch::Contains("base learning rate must be finite and >= 0"));
  CHECK_THAT(error_of([&] { reg.create("noam", {}, 1.0, 100, 0); }),
             Catch::Contains("d_model must be >= 1"));
  CHECK_THAT(error_of([&] { reg.create("constant", {}, 1.0, 100, 64)->lr(0); }),
             Catch::Contains("steps count from 1"));
}

// ---- gradient clipping and telemetry ----------------------------------------------

TEST_CASE("clip_grad_norm returns the pre-clip norm and leaves max_norm", "[optim]") {
  Parameter a(Tensor::zeros({2})), b(Tensor::zeros({1}, DType::f64)),
      frozen(Tensor::zeros({1}), false);
  a.grad.set(0, 3.0);
  a.grad.set(1, 4.0);
  b.grad.set(0, 12.0);
  frozen.grad.set(0, 100.0);  // not trained: not counted, not scaled
  std::vector<Parameter*> ps = {&a, &b, &frozen};
  CHECK(global_grad_norm(ps) == Approx(13.0));

  CHECK(clip_grad_norm(ps, 20.0) == Approx(13.0));  // below max_norm: untouched
  CHECK(a.grad.at(0) == 3.0);

  CHECK(clip_grad_norm(ps, 6.5) == Approx(13.0));
  CHECK(global_grad_norm(ps) == Approx(6.5).epsilon(1e-6));
  CHECK(a.grad.at(1) / a.grad.at(0) == Approx(4.0 / 3.0));
  CHECK(b.grad.at(0) == Approx(6.0).epsilon(1e-6));
  CHECK(frozen.grad.at(0) == 100.0);

  CHECK_THAT(error_of([&] { clip_grad_norm(ps, 0.0); }),
             Catch::Contains("max_norm must be finite and > 0"));
  b.grad.set(0, INFINITY);
  CHECK(std::isinf(clip_grad_norm(ps, 1.0)));
  CHECK(a.grad.at(0) == Approx(1.5).epsilon(1e-6));  // left as it was
}

TEST_CASE("grad_norms_by_module groups a Transformer's gradients by name prefix", "[optim]") {
  TransformerConfig c = nn::testing::small_transformer(16);
  Seq2SeqTransformer model(c, {.source_vocab = 7, .target_vocab = 7}, 0);
  Tape& tape = Tape::current();
  Tensor src = ids({2, 4}, {3, 4, 5, 2, 6, 3, 2, 0});
  Tensor tgt_in = ids({2, 3}, {1, 5, 4, 1, 3, 0});
  Tensor tgt_out = ids({2, 3}, {5, 4, 2, 3, 2, 0});
  Var loss = cross_entropy_loss(model.forward(src, tgt_in), tgt_out, 0);
  tape.backward(loss);
  tape.reset();

  const double global = global_grad_norm(model.parameters());
  CHECK(global > 0);

  auto by_layer = grad_norms_by_module(model, 3);
  std::vector<std::string> names;
  double squares = 0;
  for (const auto& [name, norm] : by_layer) names.push_back(name), squares += norm * norm;
  CHECK(names == std::vector<std::string>{"source_embedding", "target_embedding",
                                          "encoder.layers.0", "decoder.layers.0", "output"});
  CHECK(std::sqrt(squares) == Approx(global).epsilon(1e-12));

  // Each group's norm is that of its parameters, counted by hand.
  std::map<std::string, double> by_hand;
  for (const auto& [name, p] : model.named_parameters())
    for (const auto& group : names)
      if (name.rfind(group + ".", 0) == 0)
        for (std::int64_t i = 0; i < p->grad.numel(); ++i)
          by_hand[group] += p->grad.at(i) * p->grad.at(i);
  for (const auto& [name, norm] : by_layer) {
    INFO(name);
    CHECK(norm == Approx(std::sqrt(by_hand[name])).epsilon(1e-12));
  }

  auto top = grad_norms_by_module(model, 1);
  std::vector<std::string> top_names;
  for (const auto& [name, norm] : top) top_names.push_back(name);
  CHECK(top_names == std::vector<std::string>{"source_embedding", "target_embedding", "encoder",
                                              "decoder", "output"});

  model.decoder().freeze();  // frozen groups drop out
  auto without_decoder = grad_norms_by_module(model, 1);
  CHECK(without_decoder.size() == 4);
  CHECK_THROWS_WITH(grad_norms_by_module(model, 0), Catch::Contains("depth must be >= 1"));
}
