// Behaviour of individual components: embeddings, dropout, positions, attention
// masks and telemetry, BatchNorm's padding rule, option validation, the registry
// listing, greedy decoding.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include "tests/nn/small_transformer.h"

#include "autograd/gradcheck.h"
#include "nn/attention/multi_head_attention.h"
#include "nn/layers/dropout.h"
#include "nn/layers/embedding.h"
#include "nn/norms/norm.h"
#include "nn/registry_listing.h"
#include "nn/transformer/transformer_models.h"
#include "tests/fresh_tape.h"
#include "tests/scratch_dir.h"

using namespace ablate;
using namespace ablate::nn;
using Catch::Detail::Approx;

using Fresh = ablate_tests::FreshTape;

namespace {
Tensor ids(Shape s, std::vector<std::int32_t> v) {
  return Tensor::from_data(s, v);
}
}  // namespace

TEST_CASE("embedding: padding row starts at zero and gets no gradient, sqrt(d) scaling") {
  Fresh f;
  Generator g(1);
  Embedding e(5, 4, g, /*padding_index=*/0, /*scale=*/true);
  CHECK(e.weight().value.at(0) == 0.0);
  Var y = e.forward(ids({3}, {0, 2, 2}));
  CHECK(y.value().at(4) == Approx(e.weight().value.at(8) * 2.0));
  f.tape.backward(sum(y));
  CHECK(e.weight().grad.at(0) == 0.0);
  CHECK(e.weight().grad.at(8) == Approx(4.0));  // row 2 used twice, ×sqrt(4)
}

TEST_CASE("embedding: word2vec vectors load by vocabulary and can be frozen") {
  ablate_tests::ScratchDir dir("w2v");
  auto path = dir.file("vectors.txt", "3 2\nthe 0.5 -1\ncat 2 3\nunused 9 9\n");
  Generator g(2);
  Embedding e(4, 2, g);
  CHECK(e.load_word2vec(path, {{"the", 1}, {"cat", 3}, {"dog", 2}}, /*freeze=*/true) == 2);
  CHECK(e.weight().value.at(2) == 0.5);
  CHECK(e.weight().value.at(7) == 3.0);
  CHECK_FALSE(e.weight().requires_grad);
  std::ofstream(path) << "the 0.5 -1\ncat 2\n";
  CHECK_THROWS_WITH(e.load_word2vec(path, {{"cat", 1}}, false),
                    Catch::Contains(path + ":2") && Catch::Contains("has 1 values"));
}

TEST_CASE("spatial dropout drops whole feature channels across time, eval is the identity") {
  Fresh f;
  Generator g(3);
  Dropout d(0.5, g, /*spatial=*/true);
  Var x = constant(Tensor::ones({4, 6, 8}));
  Tensor y = d.forward(x).value();
  for (std::int64_t b = 0; b < 4; ++b)
    for (std::int64_t c = 0; c < 8; ++c)
      for (std::int64_t t = 1; t < 6; ++t) CHECK(y.at((b * 6 + t) * 8 + c) == y.at(b * 6 * 8 + c));
  d.eval();
  CHECK(d.forward(x).index() == x.index());
}

TEST_CASE("sinusoidal table follows the paper's formula, learned tables reject long inputs") {
  Fresh f;
  Generator g(4);
  BuildContext c = testing::build_context(6, 2, g);
  auto sin_pos = position_registry().create("sinusoidal", {{"max_len", std::int64_t(8)}}, c);
  Tensor pe = sin_pos->add_to_embeddings(constant(Tensor::zeros({1, 3, 6}))).value();
  CHECK(pe.at(6 + 0) == Approx(std::sin(1.0)));
  CHECK(pe.at(6 + 1) == Approx(std::cos(1.0)));
  CHECK(pe.at(12 + 2) == Approx(std::sin(2.0 / std::pow(10000.0, 2.0 / 6.0))));
  auto learned = position_registry().create("learned", {{"max_len", std::int64_t(4)}}, c);
  CHECK_THROWS_WITH(learned->add_to_embeddings(constant(Tensor::zeros({1, 5, 6}))),
                    Catch::Contains("length 5") && Catch::Contains("max_len = 4"));
}

TEST_CASE("rotary makes q·k depend only on the offset, ALiBi biases by distance") {
  Fresh f;
  Generator g(5);
  auto rotary = position_registry().create("rotary", {}, testing::build_context(8, 2, g));
  // The same vector at every position: after rotation, q_i·k_j depends on i - j only.
  Tensor v = Tensor::empty({1, 1, 5, 4}, DType::f64);
  for (int t = 0; t < 5; ++t)
    for (int i = 0; i < 4; ++i) v.set(t * 4 + i, 0.3 * (i + 1));
  Tensor r = rotary->rotate(constant(v)).value();
  auto dot = [&](int a, int b) {
    double s = 0;
    for (int i = 0; i < 4; ++i) s += r.at(a * 4 + i) * r.at(b * 4 + i);
    return s;
  };
  CHECK(dot(3, 1) == Approx(dot(4, 2)));
  CHECK(dot(0, 0) == Approx(dot(4, 4)));  // norms are preserved
  auto alibi = position_registry().create("alibi", {}, testing::build_context(8, 2, g));
  Tensor bias = alibi->score_bias(2, 3, 3, false, DType::f64).value();
  CHECK(bias.at(0 * 9 + 0 * 3 + 2) == Approx(-std::pow(2.0, -4.0) * 2));  // head 1: slope 2^-4
  CHECK(bias.at(1 * 9 + 2 * 3 + 0) == Approx(-std::pow(2.0, -8.0) * 2));  // head 2: slope 2^-8
}

TEST_CASE("t5_bias: T5's buckets, one learned table [num_buckets, heads] starting at zero") {
  // Unidirectional (causal), T5's 32 buckets to distance 128: 16 exact buckets, then
  // 16 + floor(log(n / 16) / log(8) · 16); keys after the query share bucket 0.
  CHECK(t5_relative_position_bucket(0, false, 32, 128) == 0);
  CHECK(t5_relative_position_bucket(-15, false, 32, 128) == 15);
  CHECK(t5_relative_position_bucket(-16, false, 32, 128) == 16);
  CHECK(t5_relative_position_bucket(-31, false, 32, 128) == 21);  // 16 + floor(5.09)
  CHECK(t5_relative_position_bucket(-127, false, 32, 128) == 31);
  CHECK(t5_relative_position_bucket(-5000, false, 32, 128) == 31);
  CHECK(t5_relative_position_bucket(7, false, 32, 128) == 0);
  // Bidirectional: 16 buckets each side, keys after the query in 16..31.
  CHECK(t5_relative_position_bucket(-1, true, 32, 128) == 1);
  CHECK(t5_relative_position_bucket(1, true, 32, 128) == 17);
  CHECK(t5_relative_position_bucket(8, true, 32, 128) == 24);
  CHECK(t5_relative_position_bucket(-16, true, 32, 128) == 10);  // 8 + log(2) / log(16) · 8
  CHECK(t5_relative_position_bucket(-500, true, 32, 128) == 15);
  Fresh f;
  Generator g(5);
  BuildContext c = testing::build_context(8, 2, g, DType::f64);
  auto t5 = position_registry().create("t5_bias", {}, c);
  REQUIRE(t5->parameters().size() == 1);
  CHECK(t5->parameters()[0]->value.shape() == Shape{32, 2});
  CHECK(t5->parameters()[0]->value.at(0) == 0.0);
  // Row r, head h holds 10·r + h: the bias of (h, i, j) is 10·bucket(j - i) + h.
  Tensor& table = t5->parameters()[0]->value;
  for (std::int64_t r = 0; r < 32; ++r)
    for (std::int64_t h = 0; h < 2; ++h) table.set(r * 2 + h, 10.0 * double(r) + double(h));
  for (bool causal : {true, false}) {
    Tensor bias = t5->score_bias(2, 3, 4, causal, DType::f64).value();
    REQUIRE(bias.shape() == Shape{2, 3, 4});
    for (std::int64_t h = 0; h < 2; ++h)
      for (std::int64_t i = 0; i < 3; ++i)
        for (std::int64_t j = 0; j < 4; ++j)
          CHECK(bias.at((h * 3 + i) * 4 + j) ==
                10.0 * t5_relative_position_bucket(j - i, !causal, 32, 128) + double(h));
  }
  CHECK_THROWS_WITH(position_registry().create("t5_bias", {{"max_distance", std::int64_t(16)}}, c),
                    Catch::Contains("max_distance = 16 must exceed num_buckets / 2 = 16"));
}

TEST_CASE("causal attention: changing a later token does not change earlier outputs") {
  Fresh f;
  Generator g(6);
  AttentionConfig a;
  MultiHeadAttention mha(a, testing::build_context(8, 2, g), true);
  Generator data(7);
  Tensor x = randn({1, 4, 8}, data, DType::f32);
  Tensor x2 = x.clone();
  for (int i = 0; i < 8; ++i) x2.set(3 * 8 + i, 5.0);
  Tensor y1 = mha.forward(constant(x), constant(x), Tensor(), true).value();
  Tensor y2 = mha.forward(constant(x2), constant(x2), Tensor(), true).value();
  for (int i = 0; i < 3 * 8; ++i) CHECK(y1.at(i) == Approx(y2.at(i)));
  CHECK(y1.at(3 * 8) != Approx(y2.at(3 * 8)));
}

TEST_CASE("padding keys are ignored and Reformer's rule keeps tokens off themselves") {
  Fresh f;
  Generator g(8);
  AttentionConfig a;
  a.qk = {"shared"};
  a.telemetry = true;
  MultiHeadAttention mha(a, testing::build_context(8, 2, g), true);
  Generator data(9);
  Tensor x = randn({1, 3, 8}, data, DType::f32);
  Tensor mask = Tensor::from_data({1, 3}, std::vector<double>{1, 1, 0}, DType::b8);
  mha.forward(constant(x), constant(x), mask, false);
  // Token 0 may see only token 1 (itself excluded, token 2 is padding): entropy 0,
  // max probability 1 for its row; token 1 likewise sees only token 0.
  AttentionTelemetry& t = mha.telemetry();
  CHECK(t.rows == 3);  // the padding query still attends (to token 0 and 1)
  std::vector<double> mp = t.mean_max_prob();
  CHECK(mp[0] <= 1.0);
  CHECK(mp[0] > 0.5);
  t.reset();
  CHECK(t.rows == 0);
}

TEST_CASE("telemetry of uniform attention: entropy log(T), max probability 1/T") {
  Fresh f;
  Generator g(10);
  AttentionConfig a;
  a.qk = {"identity"};
  a.v = {"identity"};
  a.output_projection = false;
  a.telemetry = true;
  MultiHeadAttention mha(a, testing::build_context(4, 2, g), true);
  mha.forward(constant(Tensor::zeros({2, 5, 4})), constant(Tensor::zeros({2, 5, 4})), Tensor(),
              false);
  CHECK(mha.telemetry().rows == 10);
  CHECK(mha.telemetry().mean_entropy()[1] == Approx(std::log(5.0)).epsilon(1e-5));
  CHECK(mha.telemetry().mean_max_prob()[0] == Approx(0.2).epsilon(1e-5));
}

TEST_CASE("BatchNorm module: padding does not move the statistics, eval uses running ones") {
  Fresh f;
  Generator g(11);
  auto bn = norm_registry().create("batch", {{"momentum", 1.0}}, testing::build_context(2, 1, g));
  Tensor x = Tensor::from_data({1, 3, 2}, std::vector<double>{1, 2, 3, 4, 1000, 1000});
  Tensor mask = Tensor::from_data({1, 3}, std::vector<double>{1, 1, 0}, DType::b8);
  bn->forward(constant(x), mask);
  auto buffers = bn->named_buffers();
  CHECK(buffers[0].first == "running_mean");
  CHECK(buffers[0].second->at(0) == Approx(2.0));  // mean of 1 and 3 only
  bn->eval();
  Tensor y = bn->forward(constant(x), mask).value();
  CHECK(y.at(0) == Approx((1 - 2.0) / std::sqrt(2.0 + 1e-5)));  // unbiased var of {1,3} = 2
}

TEST_CASE("options are validated with clear messages") {
  Generator g(12);
  BuildContext c = testing::build_context(8, 2, g);
  CHECK_THROWS_WITH(position_registry().create("sinusiodal", {}, c),
                    Catch::Contains("positions: unknown component 'sinusiodal'") &&
                        Catch::Contains("did you mean 'sinusoidal'") && Catch::Contains("rotary"));
  CHECK_THROWS_WITH(
      norm_registry().create("layer", {{"esp", 1e-3}}, c),
      Catch::Contains("unknown option 'esp'") && Catch::Contains("did you mean 'eps'"));
  CHECK_THROWS_WITH(norm_registry().create("layer", {{"eps", std::string("small")}}, c),
                    Catch::Contains("'eps' must be a float, got string"));
  CHECK_THROWS_WITH(norm_registry().create("batch", {{"momentum", 2.0}}, c),
                    Catch::Contains("out of range"));
  CHECK_THROWS_WITH(
      feed_forward_registry().create("gelu", {{"approximate", std::string("tan")}}, c),
      Catch::Contains("not one of: none tanh") && Catch::Contains("did you mean 'tanh'"));
  CHECK(score_scale_registry()
            .create("constant", {{"value", std::int64_t(2)}}, c)
            ->constant_factor() == 2.0);
}

TEST_CASE("the registry listing names every axis and component") {
  std::string listing = format_registry_listing();
  for (const char* s : {"attention.qk", "shared", "normalize_keys", "attention.scale", "learned",
                        "positions", "alibi", "t5_bias", "num_buckets", "norm", "batch", "ffn",
                        "glu", "optimizer", "adamw", "schedule", "noam"})
    CHECK_THAT(listing, Catch::Contains(s));
  CHECK(component_options("norm", "batch").has_value());
  CHECK_FALSE(component_options("norm", "group").has_value());
}

TEST_CASE("impossible shapes are refused with the numbers") {
  TransformerConfig c;
  c.d_model = 10;
  c.heads = 4;
  CHECK_THROWS_WITH(Seq2SeqTransformer(c, {.source_vocab = 5, .target_vocab = 5}, 0),
                    Catch::Contains("d_model = 10 is not divisible by heads = 4"));
  c.heads = 2;
  c.attention.d_k = 3;
  c.attention.qk = {"identity"};
  CHECK_THROWS_WITH(Seq2SeqTransformer(c, {.source_vocab = 5, .target_vocab = 5}, 0),
                    Catch::Contains("heads * d_k == d_model"));
}

TEST_CASE("greedy decoding returns ids within the vocabulary, at most max_len long") {
  TransformerConfig c = testing::small_transformer(8);
  Seq2SeqTransformer model(c, {.source_vocab = 6, .target_vocab = 6}, 3);
  Tape& tape = Tape::current();
  Tensor out = model.greedy_decode(ids({2, 3}, {3, 4, 5, 5, 4, 0}), 4);
  tape.reset();
  CHECK(out.shape()[0] == 2);
  CHECK(out.shape()[1] <= 4);
  for (std::int64_t i = 0; i < out.numel(); ++i) {
    CHECK(out.at(i) >= 0);
    CHECK(out.at(i) < 6);
  }
}
