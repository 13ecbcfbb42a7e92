// The fused attention op and the general path (head split, matmul, softmax, matmul)
// compute the same attention — values and gradients, f64 — for every registered Q/K
// kind × score scale × position scheme, self- and cross-attention, with padding and
// causal masks; and the fused path is taken exactly when the position scheme's
// declared action is outside attention and the scale is a constant — observed from the
// path each forward records, with the reason when it is not fused. The lists come
// from the registries, so a new component is covered without editing this file.
#include <catch2/catch.hpp>

#include <cmath>

#include "nn/attention/multi_head_attention.h"
#include "nn/registry_listing.h"
#include "tests/fresh_tape.h"
#include "tests/nn/small_transformer.h"

using namespace ablate;
using namespace ablate::nn;

namespace {

struct Result {
  Tensor output, input_grad;
  std::vector<Tensor> parameter_grads;
};

Result run(MultiHeadAttention& mha, PositionEncoding* positions, const Tensor& xq,
           const Tensor& xkv, const Tensor& mask, bool causal, bool fused) {
  ablate_tests::FreshTape f;
  mha.allow_fused_path(fused);
  mha.zero_grad();
  Parameter q(xq.clone()), kv(xkv.clone());
  Var out = mha.forward(f.tape.leaf(q), f.tape.leaf(kv), mask, causal, positions);
  Generator r(3);
  Tensor weights = randn(out.shape(), r, DType::f64);
  f.tape.backward(sum(out * constant(weights)));
  Result res{out.value().clone(), q.grad.clone(), {}};
  for (Parameter* p : mha.parameters()) res.parameter_grads.push_back(p->grad.clone());
  return res;
}

double max_difference(const Tensor& a, const Tensor& b) {
  REQUIRE(a.numel() == b.numel());
  double d = 0;
  for (std::int64_t i = 0; i < a.numel(); ++i) d = std::max(d, std::abs(a.at(i) - b.at(i)));
  return d;
}

}  // namespace

TEST_CASE("fused and general attention agree for every Q/K x scale x positions combination",
          "[attention]") {
  int combinations = 0, fused_taken = 0;
  for (const std::string& qk : query_key_registry().names())
    for (const std::string& scale : score_scale_registry().names())
      for (const std::string& position : position_registry().names())
        for (bool self : {true, false}) {
          if (!self && qk == "shared") continue;  // shared Q/K is self-attention only
          INFO("qk=" << qk << " scale=" << scale << " positions=" << position
                     << (self ? " self" : " cross"));
          Generator g(7);
          AttentionConfig a;
          a.qk = {qk};
          a.scale = {scale};
          MultiHeadAttention mha(a, testing::build_context(8, 2, g, DType::f64), self);
          mha.to(DType::f64);
          std::unique_ptr<PositionEncoding> positions =
              position_registry().create(position, {}, testing::build_context(8, 2, g, DType::f64));
          positions->to(DType::f64);
          Generator data(11);
          const std::int64_t tq = 5, tk = self ? 5 : 4;
          Tensor xq = randn({2, tq, 8}, data, DType::f64);
          Tensor xkv = self ? xq : randn({2, tk, 8}, data, DType::f64);
          std::vector<double> keep(std::size_t(2 * tk), 1.0);
          keep[std::size_t(2 * tk - 1)] = 0;  // the second sequence's last key is padding
          Tensor mask = Tensor::from_data({2, tk}, keep, DType::b8);
          for (bool causal : self ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
            const AttentionPathRecord before = mha.path_record();
            Result fused = run(mha, positions.get(), xq, xkv, mask, causal, true);
            const bool took_fused = mha.path_record().fused == before.fused + 1;
            CHECK(mha.path_record().fused + mha.path_record().general ==
                  before.fused + before.general + 1);
            fused_taken += took_fused;
            Result general = run(mha, positions.get(), xq, xkv, mask, causal, false);
            CHECK(mha.path_record().general == before.general + 1 + !took_fused);
            CHECK(max_difference(fused.output, general.output) < 1e-12);
            CHECK(max_difference(fused.input_grad, general.input_grad) < 1e-12);
            for (std::size_t p = 0; p < fused.parameter_grads.size(); ++p)
              CHECK(max_difference(fused.parameter_grads[p], general.parameter_grads[p]) < 1e-12);
            ++combinations;
          }
          // The fused path was taken exactly where it can be: a constant scale and a
          // scheme declared to act outside attention; elsewhere the record says why not
          // (the first reason: here the scale's, or the positions').
          const bool constant_scale =
              score_scale_registry()
                  .create(scale, {}, testing::build_context(8, 2, g, DType::f64))
                  ->constant_factor()
                  .has_value();
          const bool fusable = constant_scale && !positions->acts_in_attention();
          CHECK((mha.path_record().fused > 0) == fusable);
          const std::string why = mha.path_record().why_not_fused;
          if (!constant_scale)
            CHECK(why == "the score scale is not a fixed factor (it is learned)");
          else if (!fusable)
            CHECK_THAT(why, Catch::StartsWith("the positions "));
          else
            CHECK(why == "the fused path is switched off (allow_fused_path(false))");
        }
  CHECK(combinations > 0);
  CHECK(fused_taken > 0);  // the comparison covered the fused op, not only the general path twice
}

TEST_CASE("a position scheme is asked only for the action it declares", "[attention]") {
  // A scheme that declares it rotates queries and keys but does not implement rotate:
  // the first attention forward says so, instead of silently skipping it.
  struct DeclaresRotation : PositionEncoding {
    PositionAction action() const override { return PositionAction::rotates_queries_keys; }
  };
  ablate_tests::FreshTape f;
  Generator g(1);
  AttentionConfig a;
  BuildContext c = testing::build_context(8, 2, g);
  MultiHeadAttention mha(a, c, true);
  DeclaresRotation positions;
  Generator data(2);
  Tensor x = randn({1, 3, 8}, data, DType::f32);
  CHECK_THROWS_WITH(mha.forward(constant(x), constant(x), Tensor(), false, &positions),
                    Catch::Contains("declaring action rotates_queries_keys was asked for rotate"));
  for (const std::string& name : position_registry().names()) {
    INFO(name);
    auto p = position_registry().create(name, {}, c);
    CHECK(std::string(position_action_name(p->action())) != "?");
  }
}

TEST_CASE("attention dropout takes the general path while training, and the record says why",
          "[attention]") {
  ablate_tests::FreshTape f;
  Generator g(1), dropout_rng(5);
  AttentionConfig a;
  a.dropout = 0.1;
  BuildContext c = testing::build_context(8, 2, g);
  c.dropout_rng = &dropout_rng;
  MultiHeadAttention mha(a, c, true);
  Generator data(2);
  Tensor x = randn({1, 3, 8}, data, DType::f32);
  mha.train();
  (void)mha.forward(constant(x), constant(x), Tensor(), false);
  CHECK(mha.path_record().general == 1);
  CHECK(mha.path_record().why_not_fused == "attention dropout is on while training");
  mha.eval();  // no dropout in evaluation: fused, and the first reason stays
  (void)mha.forward(constant(x), constant(x), Tensor(), false);
  CHECK(mha.path_record().fused == 1);
  CHECK(mha.path_record().why_not_fused == "attention dropout is on while training");
}
