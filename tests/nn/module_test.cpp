// The module system: dotted names, train/eval, freezing, counts, dtype conversion,
// seeded initialisation.
#include <catch2/catch.hpp>

#include "tests/nn/small_transformer.h"

#include "nn/init.h"
#include "nn/layers/linear.h"
#include "nn/transformer/transformer_models.h"

using namespace ablate;
using namespace ablate::nn;

TEST_CASE("a Transformer's parameters have the documented dotted names") {
  TransformerConfig c = testing::small_transformer(16);
  Seq2SeqTransformer model(c, {.source_vocab = 7, .target_vocab = 9}, 0);
  std::vector<std::string> names;
  for (auto& [name, p] : model.named_parameters()) names.push_back(name);
  auto has = [&](const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  CHECK(has("encoder.layers.0.self_attn.w_q.weight"));
  CHECK(has("encoder.layers.0.self_attn.w_k.bias"));
  CHECK(has("encoder.layers.0.self_attn.w_v.weight"));
  CHECK(has("encoder.layers.0.self_attn.w_o.weight"));
  CHECK(has("encoder.layers.0.linear1.weight"));
  CHECK(has("encoder.layers.0.norm2.bias"));
  CHECK(has("decoder.layers.0.multihead_attn.w_q.weight"));
  CHECK(has("decoder.layers.0.norm3.weight"));
  CHECK(has("source_embedding.weight"));
  CHECK(has("output.weight"));
  CHECK_FALSE(has("encoder.norm.weight"));  // post-norm: no final norm by default
}

TEST_CASE("train/eval propagate, freezing stops gradients, counts add up") {
  Generator g(1);
  Linear lin(3, 2, true, g);
  CHECK(lin.parameter_count() == 8);
  lin.eval();
  CHECK_FALSE(lin.training());
  lin.train();
  CHECK(lin.training());
  lin.freeze();
  CHECK(lin.parameter_count(true) == 0);
  Tape tape;
  TapeScope scope(tape);
  Var y = lin.forward(constant(Tensor::ones({4, 3})));
  CHECK_FALSE(y.requires_grad());
  lin.unfreeze();
  CHECK(lin.forward(constant(Tensor::ones({4, 3}))).requires_grad());
}

TEST_CASE("initialisers are seeded and follow their formulas") {
  Generator a(3), b(3);
  Tensor x = init::xavier_uniform({64, 32}, a);
  Tensor y = init::xavier_uniform({64, 32}, b);
  CHECK(allclose(x, y, 0, 0));
  double bound = std::sqrt(6.0 / 96.0), mx = 0;
  for (std::int64_t i = 0; i < x.numel(); ++i) mx = std::max(mx, std::abs(x.at(i)));
  CHECK(mx <= bound);
  CHECK(mx > 0.9 * bound);
  Tensor n = init::normal({10000}, a);
  double s = 0;
  for (std::int64_t i = 0; i < n.numel(); ++i) s += n.at(i) * n.at(i);
  CHECK(std::sqrt(s / 10000) == Catch::Detail::Approx(0.02).epsilon(0.05));
}

TEST_CASE("to(f64) converts parameters, gradients and buffers") {
  TransformerConfig c;
  c.d_model = 4;
  c.heads = 2;
  c.d_ff = 8;
  c.encoder_layers = 1;
  c.decoder_layers = 1;
  c.norm = {"batch"};
  Seq2SeqTransformer model(c, {.source_vocab = 5, .target_vocab = 5}, 0);
  model.to(DType::f64);
  for (auto& [name, p] : model.named_parameters()) {
    INFO(name);
    CHECK(p->value.dtype() == DType::f64);
    CHECK(p->grad.dtype() == DType::f64);
  }
  for (auto& [name, b] : model.named_buffers()) CHECK(b->dtype() == DType::f64);
}

namespace {

// One of each model class, built from `c` (vocabularies 7 and 9, 2 input features).
struct EveryModel {
  Seq2SeqTransformer seq2seq;
  EncoderClassifier classifier;
  EncoderRegressor regressor;
  DecoderLanguageModel lm;
  explicit EveryModel(const TransformerConfig& c)
      : seq2seq(c, {.source_vocab = 7, .target_vocab = 9}, 0),
        classifier(c, 7, 3, 0, 0),
        regressor(c, 2, 3, 2, 0),
        lm(c, 7, 0, false, 0) {}
  std::vector<Module*> all() { return {&seq2seq, &classifier, &regressor, &lm}; }
};

}  // namespace

TEST_CASE("every model names the dropout generator it draws from while training") {
  // A resumed training run restores these streams; a model that drew from a generator
  // it does not list would resume with other dropout masks.
  TransformerConfig c = testing::small_transformer(16);
  c.dropout = 0.1;
  EveryModel models(c);
  Seq2SeqTransformer& seq2seq = models.seq2seq;
  for (Module* m : models.all()) {
    auto streams = m->named_random_streams();
    REQUIRE(streams.size() == 1);
    CHECK(streams[0].first == "dropout");
  }
  // The listed generator is the one the dropout masks come from: restoring its state
  // restores the masks.
  Generator::State before = seq2seq.named_random_streams()[0].second->state();
  Tensor src = Tensor::from_data({1, 3}, std::vector<std::int32_t>{3, 4, 5});
  Tensor tgt = Tensor::from_data({1, 3}, std::vector<std::int32_t>{1, 4, 5});
  auto output = [&] {
    Var y = seq2seq.forward(src, tgt);
    std::vector<double> v;
    for (std::int64_t i = 0; i < y.value().numel(); ++i) v.push_back(y.value().at(i));
    Tape::current().reset();
    return v;
  };
  std::vector<double> first = output();
  CHECK(output() != first);  // new masks
  seq2seq.named_random_streams()[0].second->set_state(before);
  CHECK(output() == first);
}

TEST_CASE("embedding dropout acts in every model that embeds, in training only", "[dropout]") {
  // It was accepted and silently ignored by all but the seq2seq model.
  TransformerConfig c = testing::small_transformer(16);
  c.embedding_dropout = 0.5;
  EveryModel every(c);
  // References, not a structured binding: Clang 14 cannot capture bindings in lambdas.
  Seq2SeqTransformer& seq2seq = every.seq2seq;
  EncoderClassifier& classifier = every.classifier;
  EncoderRegressor& regressor = every.regressor;
  DecoderLanguageModel& lm = every.lm;
  Tensor ids = Tensor::from_data({1, 3}, std::vector<std::int32_t>{3, 4, 5});
  Generator g(4);
  Tensor series = randn({1, 4, 2}, g);
  auto values = [](const Var& y) {
    std::vector<double> v;
    for (std::int64_t i = 0; i < y.value().numel(); ++i) v.push_back(y.value().at(i));
    Tape::current().reset();
    return v;
  };
  std::vector<std::pair<std::string, std::function<std::vector<double>()>>> models = {
      {"seq2seq", [&] { return values(seq2seq.forward(ids, ids)); }},
      {"classifier", [&] { return values(classifier.forward(ids)); }},
      {"regressor", [&] { return values(regressor.forward(constant(series))); }},
      {"language model", [&] { return values(lm.forward(ids)); }}};
  for (Module* m : every.all()) {
    bool found = false;
    for (const auto& [name, child] : m->named_modules())
      found = found || name == "embedding_dropout";
    CHECK(found);
  }
  for (auto& [name, forward] : models) {
    INFO(name);
    CHECK(forward() != forward());  // new masks each training step
  }
  for (Module* m : every.all()) m->eval();
  for (auto& [name, forward] : models) {
    INFO(name);
    CHECK(forward() == forward());
  }
}
