// The BatchNorm drift telemetry (nn/norms/batch_statistics_drift.h): the distances of
// a batch's statistics from the running ones before the batch updates them, by hand on
// a tiny batch; how they shrink as the running statistics catch up; which modules have
// them.
#include <catch2/catch.hpp>

#include <cmath>

#include "nn/norms/norm.h"
#include "nn/transformer/transformer_models.h"
#include "tests/fresh_tape.h"
#include "tests/nn/small_transformer.h"

using namespace ablate;
using namespace ablate::nn;
using Catch::Detail::Approx;

namespace {

std::unique_ptr<Norm> batch_norm_module(Generator& g, std::int64_t d, double momentum) {
  return norm_registry().create("batch", {{"momentum", momentum}},
                                testing::build_context(d, 1, g, DType::f64));
}

// Two real tokens (1, 2) and (3, 4), and a padding token BatchNorm's statistics skip.
Tensor tokens() {
  return Tensor::from_data({1, 3, 2}, std::vector<double>{1, 2, 3, 4, 1000, 1000}, DType::f64);
}
Tensor mask() {
  return Tensor::from_data({1, 3}, std::vector<double>{1, 1, 0}, DType::b8);
}

}  // namespace

TEST_CASE("batch_norm reports the batch statistics it normalised with") {
  ablate_tests::FreshTape f;
  Tensor running_mean = Tensor::zeros({2}, DType::f64), running_var = Tensor::ones({2}, DType::f64);
  BatchStatistics s;
  batch_norm(constant(tokens()), mask().reshaped({3}), Var(), Var(), running_mean, running_var,
             true, 0.1, 1e-5, &s);
  CHECK(s.rows == 2);
  CHECK(s.mean == std::vector<double>{2, 3});
  CHECK(s.variance == std::vector<double>{1, 1});  // biased: what the tokens were normalised with
}

TEST_CASE(
    "BatchNorm drift: (1/d)·‖μ_B − μ‖ and (1/d)·‖σ²_B − σ²‖ against the running statistics before "
    "the update") {
  ablate_tests::FreshTape f;
  Generator g(3);
  auto bn = batch_norm_module(g, 2, 0.1);
  BatchStatisticsDrift* drift = bn->batch_statistics_drift();
  REQUIRE(drift);
  bn->forward(constant(tokens()), mask());
  CHECK(drift->training.batches == 0);  // off until switched on
  // Start again from fresh running statistics (mean 0, variance 1).
  bn = batch_norm_module(g, 2, 0.1);
  drift = bn->batch_statistics_drift();
  drift->recording = true;
  bn->forward(constant(tokens()), mask());
  // Batch mean (2, 3); unbiased variance (2, 2) (biased (1, 1) over n = 2 rows).
  REQUIRE(drift->interval.batches == 1);
  StatisticsDistance first = drift->interval.average();
  CHECK(first.mean == Approx(std::sqrt(2.0 * 2 + 3.0 * 3) / 2));
  CHECK(first.var == Approx(std::sqrt(1.0 + 1.0) / 2));
  // Running now (0.2, 0.3) and (1.1, 1.1): the same batch is 0.9 times as far.
  bn->forward(constant(tokens()), mask());
  CHECK(drift->interval.batches == 2);
  CHECK(drift->training.average().mean == Approx(std::sqrt(13.0) / 2 * (1 + 0.9) / 2));
  CHECK(drift->training.average().var == Approx(std::sqrt(2.0) / 2 * (1 + 0.9) / 2));
  // Evaluation uses the running statistics: no batch statistics, nothing recorded.
  bn->eval();
  bn->forward(constant(tokens()), mask());
  CHECK(drift->training.batches == 2);
  CHECK(std::isnan(DistanceSums{}.average().mean));  // no batches: no value, not zero
}

TEST_CASE("BatchNorm drift: the same batch again is (1 − momentum) times as far each time") {
  ablate_tests::FreshTape f;
  Generator g(4);
  auto bn = batch_norm_module(g, 2, 0.1);
  BatchStatisticsDrift* drift = bn->batch_statistics_drift();
  drift->recording = true;
  // The running statistics move by momentum × the gap towards the batch every step.
  double expected_mean = std::sqrt(13.0) / 2, expected_var = std::sqrt(2.0) / 2;
  for (int step = 0; step < 30; ++step) {
    bn->forward(constant(tokens()), mask());
    const StatisticsDistance d = drift->interval.average();
    drift->interval = {};
    CHECK(d.mean == Approx(expected_mean).epsilon(1e-9));
    CHECK(d.var == Approx(expected_var).epsilon(1e-9));
    expected_mean *= 0.9;
    expected_var *= 0.9;
    f.tape.reset();
  }
}

TEST_CASE(
    "BatchNorm drift on noisy batches: large while the running statistics catch up, then only the "
    "noise") {
  ablate_tests::FreshTape f;
  Generator g(5);
  const std::int64_t d = 4, rows = 64;
  auto bn = batch_norm_module(g, d, 0.1);
  BatchStatisticsDrift* drift = bn->batch_statistics_drift();
  drift->recording = true;
  Generator data(9);
  std::vector<StatisticsDistance> per_step;
  for (int step = 0; step < 200; ++step) {
    std::vector<double> x(std::size_t(rows * d));
    for (double& v : x)
      v = 5.0 + 2.0 * data.normal();  // mean 5, variance 4: far from the initial (0, 1)
    bn->forward(constant(Tensor::from_data({1, rows, d}, x, DType::f64)), Tensor());
    per_step.push_back(drift->interval.average());
    drift->interval = {};
    f.tape.reset();
  }
  // ‖(5, 5, 5, 5)‖ / 4 and ‖(3, 3, 3, 3)‖ / 4, up to a 64-token batch's sampling noise.
  CHECK(per_step.front().mean == Approx(5.0 / std::sqrt(double(d))).epsilon(0.1));
  CHECK(per_step.front().var == Approx(3.0 / std::sqrt(double(d))).epsilon(0.3));
  StatisticsDistance late;
  for (std::size_t i = 150; i < per_step.size(); ++i) {
    CHECK(per_step[i].mean > 0);  // the noise is left: never exactly zero
    CHECK(per_step[i].var > 0);
    CHECK(std::isfinite(per_step[i].var));
    late.mean += per_step[i].mean / 50;
    late.var += per_step[i].var / 50;
  }
  CHECK(late.mean < per_step.front().mean / 5);
  CHECK(late.var < per_step.front().var / 2);
  CHECK(drift->training.batches == 200);
}

TEST_CASE("only BatchNorm modules have a drift, listed by dotted name") {
  ablate_tests::FreshTape f;
  const VocabularyOptions vocab{.source_vocab = 10, .target_vocab = 10};
  TransformerConfig c = testing::small_transformer();
  c.norm.kind = "layer";
  Seq2SeqTransformer layer_norm_model(c, vocab, 7);
  CHECK(batch_statistics_drift_modules(layer_norm_model).empty());
  c.norm.kind = "batch";
  Seq2SeqTransformer batch_norm_model(c, vocab, 7);
  auto modules = batch_statistics_drift_modules(batch_norm_model);
  REQUIRE(modules.size() == 5);  // encoder layer: norm1, norm2; decoder layer: norm1..3
  CHECK(modules.front().first == "encoder.layers.0.norm1");
  CHECK(modules.back().first == "decoder.layers.0.norm3");
}
