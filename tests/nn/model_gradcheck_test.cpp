// f64 gradchecks of whole small models: a Seq2Seq Transformer (encoder, decoder,
// cross-attention) in every combination of the swept axes — qk × v × scale ×
// positions × norm × placement × ffn × residual — plus the encoder heads and the
// decoder-only language model, and the newest components (dyt, qk_norm, t5_bias) on
// their own with respect to their input too. Weights are checked on a seeded sample of elements per
// tensor (all of them for the small parts below), which still catches any wrong rule.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "nn/attention/multi_head_attention.h"
#include "nn/feed_forward.h"
#include "nn/norms/norm.h"
#include "nn/transformer/transformer_models.h"
#include "tests/nn/small_transformer.h"

using namespace ablate;
using namespace ablate::nn;

namespace {

TransformerConfig tiny_config() {
  TransformerConfig c;
  c.d_model = 8;
  c.heads = 2;
  c.d_ff = 6;
  c.encoder_layers = 1;
  c.decoder_layers = 1;
  c.max_len = 8;
  return c;
}

Tensor ids(Shape s, std::vector<std::int32_t> v) {
  return Tensor::from_data(s, v);
}

// Source and target with padding (id 0) so masks and masked BatchNorm matter. The
// loss ignores padding targets: the padding embedding row gets no gradient by design,
// so nothing checked may depend on it.
const Tensor& source_ids() {
  static Tensor t = ids({2, 4}, {3, 4, 5, 6, 5, 3, 0, 0});
  return t;
}
const Tensor& target_ids() {
  static Tensor t = ids({2, 3}, {1, 4, 6, 1, 5, 0});
  return t;
}

const Tensor& next_ids() {
  static Tensor t = ids({2, 3}, {4, 6, 2, 5, 2, 0});
  return t;
}

Var loss(const Var& logits, const Tensor& targets) {
  return cross_entropy(logits, targets, 0);
}

// In f64, with biases drawn at random rather than the initial zeros: with residuals
// off, a ReLU layer whose units are all inactive would otherwise output an exactly
// zero row, where L2-normalised keys and RMSNorm are not differentiable (a property
// of the functions, not of their backward rules).
void prepare(Module& model) {
  model.to(DType::f64);
  Generator g(99);
  for (auto& [name, p] : model.named_parameters())
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".bias") == 0)
      p->value.copy_from(randn(p->value.shape(), g, DType::f64, 0.0, 0.3));
}

GradcheckResult check_seq2seq(const TransformerConfig& config, std::int64_t sample) {
  Seq2SeqTransformer model(config, {.source_vocab = 7, .target_vocab = 7}, 11);
  prepare(model);
  std::vector<Parameter*> params = model.parameters();
  return gradcheck_parameters(
      [&] { return loss(model.forward(source_ids(), target_ids()), next_ids()); }, params,
      {.max_elements_per_input = sample});
}

std::string describe(const TransformerConfig& c) {
  return "qk=" + c.attention.qk.kind + " v=" + c.attention.v.kind +
         " scale=" + c.attention.scale.kind + " positions=" + c.positions.kind +
         " norm=" + c.norm.kind + " placement=" + c.placement + " ffn=" + c.ffn.kind +
         " residual=" + (c.residual ? "on" : "off");
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ABLATE_TEST_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ABLATE_TEST_UNDER_ASAN 1
#endif

// Which combinations are checked. Every one in the optimised build, where this is the
// gradcheck of record. Under AddressSanitizer (10-20 times slower: these three cases took
// 110-160 s each there) every 7th of the product: what the sanitizers look for is a bad
// access in a component's code, which any combination containing it reaches, and the
// test requires below that every value of every axis is among those checked.
#ifdef ABLATE_TEST_UNDER_ASAN
constexpr std::size_t kCombinationStride = 7;
#else
constexpr std::size_t kCombinationStride = 1;
#endif

// Every combination with the given qk kind (one test case per qk kind, so ctest can
// run them side by side).
// The component lists come from the registries, so a new component is in every
// combination at once.
void check_every_combination(const std::string& qk) {
  REQUIRE(query_key_registry().find(qk));
  const std::vector<std::vector<std::string>> axes = {value_registry().names(),
                                                      score_scale_registry().names(),
                                                      position_registry().names(),
                                                      norm_registry().names(),
                                                      {"post", "pre"},
                                                      feed_forward_registry().names(),
                                                      {"on", "off"}};
  std::size_t combinations = 1;
  for (const auto& axis : axes) combinations *= axis.size();
  std::vector<std::set<std::string>> seen(axes.size());
  std::size_t checked = 0;
  for (std::size_t index = 0; index < combinations; index += kCombinationStride) {
    // The index in mixed radix, the last axis fastest (the order of nested loops).
    std::vector<std::string> pick(axes.size());
    for (std::size_t a = axes.size(), rest = index; a-- > 0; rest /= axes[a].size())
      seen[a].insert(pick[a] = axes[a][rest % axes[a].size()]);
    TransformerConfig c = tiny_config();
    c.attention.qk = {qk};
    c.attention.v = {pick[0]};
    c.attention.scale = {pick[1]};
    c.positions = {pick[2]};
    c.norm = {pick[3]};
    c.placement = pick[4];
    c.ffn = {pick[5]};
    c.residual = pick[6] == "on";
    GradcheckResult r = check_seq2seq(c, 2);
    INFO(describe(c) << ": " << r.message);
    REQUIRE(r.ok);
    ++checked;
  }
  CHECK(checked == (combinations + kCombinationStride - 1) / kCombinationStride);
  for (std::size_t a = 0; a < axes.size(); ++a) {
    INFO("axis " << a);
    CHECK(seen[a].size() == axes[a].size());
  }
}

}  // namespace

TEST_CASE("seq2seq gradcheck in every combination with separate Q/K", "[gradcheck][combinations]") {
  check_every_combination("separate");
}
TEST_CASE("seq2seq gradcheck in every combination with shared Q/K", "[gradcheck][combinations]") {
  check_every_combination("shared");
}
TEST_CASE("seq2seq gradcheck in every combination with identity Q/K", "[gradcheck][combinations]") {
  check_every_combination("identity");
}
TEST_CASE("seq2seq gradcheck in every combination with qk_norm Q/K", "[gradcheck][combinations]") {
  check_every_combination("qk_norm");
}
TEST_CASE("the combination test cases cover every registered Q/K kind",
          "[gradcheck][combinations]") {
  // One test case per Q/K kind (so ctest runs them side by side): a new kind needs one.
  CHECK(query_key_registry().names() ==
        std::vector<std::string>{"separate", "shared", "identity", "qk_norm"});
}

TEST_CASE("seq2seq gradcheck of every weight element in the default and a pre-norm config",
          "[gradcheck]") {
  TransformerConfig c = tiny_config();
  GradcheckResult post = check_seq2seq(c, 0);
  INFO(post.message);
  CHECK(post.ok);
  c.placement = "pre";
  c.norm = {"batch"};
  c.attention.qk = {"shared"};
  c.attention.scale = {"learned"};
  GradcheckResult pre = check_seq2seq(c, 0);
  INFO(pre.message);
  CHECK(pre.ok);
}

TEST_CASE("seq2seq gradcheck with shared and tied embeddings", "[gradcheck]") {
  Seq2SeqTransformer model(
      tiny_config(),
      {.source_vocab = 7, .target_vocab = 7, .share_embeddings = true, .tie_output = true}, 5);
  prepare(model);
  std::vector<Parameter*> params = model.parameters();
  GradcheckResult r = gradcheck_parameters(
      [&] { return loss(model.forward(source_ids(), target_ids()), next_ids()); }, params,
      {.max_elements_per_input = 6});
  INFO(r.message);
  CHECK(r.ok);
}

TEST_CASE("encoder classifier and encoder regressor and decoder LM pass gradcheck", "[gradcheck]") {
  TransformerConfig c = tiny_config();
  c.encoder_layers = 2;
  c.decoder_layers = 2;
  {
    EncoderClassifier model(c, 7, 3, 0, 1);
    prepare(model);
    std::vector<Parameter*> params = model.parameters();
    GradcheckResult r = gradcheck_parameters([&] { return model.forward(source_ids()); }, params,
                                             {.max_elements_per_input = 4});
    INFO("classifier: " << r.message);
    CHECK(r.ok);
  }
  for (Readout readout : {Readout::mean, Readout::flatten}) {
    EncoderRegressor model(c, 3, 2, 3, 2, readout, 5);
    prepare(model);
    Generator g(4);
    Parameter x(randn({2, 5, 3}, g, DType::f64));
    std::vector<Parameter*> params = model.parameters();
    params.push_back(&x);
    GradcheckResult r = gradcheck_parameters([&] { return model.forward(leaf(x)); }, params,
                                             {.max_elements_per_input = 4});
    INFO("regressor (" << (readout == Readout::mean ? "mean" : "flatten")
                       << " readout): " << r.message);
    CHECK(r.ok);
  }
  for (bool tie : {false, true}) {
    DecoderLanguageModel model(c, 7, 0, tie, 3);
    prepare(model);
    std::vector<Parameter*> params = model.parameters();
    GradcheckResult r =
        gradcheck_parameters([&] { return loss(model.forward(source_ids()), source_ids()); },
                             params, {.max_elements_per_input = 4});
    INFO("language model (tied " << tie << "): " << r.message);
    CHECK(r.ok);
  }
}

// Walks the registries, so a component registered later (inside the library or by a
// user) is gradchecked without anyone adding a case: each one, with its default
// options, inside a small model, checking every weight element.
TEST_CASE("every registered model component passes gradcheck inside a model", "[gradcheck]") {
  auto check = [](const std::string& axis, const std::string& name, TransformerConfig c) {
    GradcheckResult r = check_seq2seq(c, 0);
    INFO(axis << " '" << name << "': " << r.message);
    CHECK(r.ok);
  };
  for (const std::string& n : query_key_registry().names()) {
    TransformerConfig c = tiny_config();
    c.attention.qk = {n};
    check("attention.qk", n, c);
  }
  for (const std::string& n : value_registry().names()) {
    TransformerConfig c = tiny_config();
    c.attention.v = {n};
    check("attention.v", n, c);
  }
  for (const std::string& n : score_scale_registry().names()) {
    TransformerConfig c = tiny_config();
    c.attention.scale = {n};
    check("attention.scale", n, c);
  }
  for (const std::string& n : position_registry().names()) {
    TransformerConfig c = tiny_config();
    c.positions = {n};
    check("positions", n, c);
  }
  for (const std::string& n : norm_registry().names()) {
    TransformerConfig c = tiny_config();
    c.norm = {n};
    check("norm", n, c);
  }
  for (const std::string& n : feed_forward_registry().names()) {
    TransformerConfig c = tiny_config();
    c.ffn = {n};
    check("ffn", n, c);
  }
  TransformerConfig c = tiny_config();
  c.ffn = {"gelu", {{"approximate", std::string("tanh")}}};
  check("ffn", "gelu (tanh)", c);
  c = tiny_config();
  c.attention.qk = {"shared", {{"normalize_keys", false}, {"exclude_self", false}}};
  check("attention.qk", "shared (plain)", c);
}

TEST_CASE("dropout paths pass gradcheck with a fixed dropout stream", "[gradcheck]") {
  // Dropout draws from the model's generator, which advances on every forward, while
  // gradcheck needs the same function each evaluation. So each evaluation builds a
  // fresh model from the same seed (same dropout stream) whose parameters alias the
  // weights of `reference` — the tensors gradcheck perturbs and reads gradients from.
  TransformerConfig c = tiny_config();
  c.dropout = 0.2;
  c.attention.dropout = 0.3;
  c.embedding_dropout = 0.25;
  for (bool spatial : {true, false}) {
    c.spatial_embedding_dropout = spatial;
    Seq2SeqTransformer reference(c, {.source_vocab = 7, .target_vocab = 7}, 3);
    prepare(reference);
    std::vector<Parameter*> params = reference.parameters();
    GradcheckResult r = gradcheck_parameters(
        [&] {
          Seq2SeqTransformer fresh(c, {.source_vocab = 7, .target_vocab = 7}, 3);
          fresh.to(DType::f64);  // buffers (the sinusoidal table) in f64 too
          std::vector<Parameter*> mine = fresh.parameters();
          for (std::size_t i = 0; i < mine.size(); ++i) {
            mine[i]->value = params[i]->value;  // Tensor copies alias the buffer
            mine[i]->grad = params[i]->grad;
          }
          return loss(fresh.forward(source_ids(), target_ids()), next_ids());
        },
        params, {.max_elements_per_input = 3});
    INFO("spatial embedding dropout " << spatial << ": " << r.message);
    CHECK(r.ok);
  }
}

// The two newest components on their own, with non-default options, checked with
// respect to their input as well as every weight: dyt with a larger α (more of tanh's
// curve used), qk_norm without the LayerNorms' shift, in self-attention with padding.
TEST_CASE("dyt and qk_norm pass gradcheck on their own, input and weights", "[gradcheck]") {
  Generator g(7);
  BuildContext ctx = testing::build_context(8, 2, g, DType::f64);
  Parameter x(randn({2, 4, 8}, g, DType::f64, 0.0, 1.5));
  {
    auto dyt = norm_registry().create("dyt", {{"alpha_init", 1.5}}, ctx);
    std::vector<Parameter*> params = dyt->parameters();
    params.push_back(&x);
    GradcheckResult r =
        gradcheck_parameters([&] { return dyt->forward(leaf(x), Tensor()); }, params);
    INFO("dyt: " << r.message);
    CHECK(r.ok);
  }
  AttentionConfig config;
  config.qk = {"qk_norm", {{"bias", false}}};
  MultiHeadAttention attention(config, ctx, /*self_attention=*/true);
  const Tensor key_mask =
      Tensor::from_data({2, 4}, std::vector<double>{1, 1, 1, 1, 1, 1, 0, 0}, DType::b8);
  std::vector<Parameter*> params = attention.parameters();
  params.push_back(&x);
  GradcheckResult r = gradcheck_parameters(
      [&] {
        Var xv = leaf(x);
        return attention.forward(xv, xv, key_mask, /*causal=*/false);
      },
      params);
  INFO("qk_norm: " << r.message);
  CHECK(r.ok);
}

// t5_bias's table starts at zero and the registry walk above checks it there; here it
// is random, with few buckets (4, max_distance 6) so that sequences of 4-5 reach the
// logarithmic buckets: in attention on its own, with respect to the input, every
// attention weight and the table, causal (unidirectional buckets) and not
// (bidirectional); then in a decoder-only language model, every weight element.
TEST_CASE("t5_bias passes gradcheck with a random table, alone and in a decoder LM",
          "[gradcheck]") {
  const Component t5{"t5_bias",
                     {{"num_buckets", std::int64_t(4)}, {"max_distance", std::int64_t(6)}}};
  Generator g(8);
  BuildContext ctx = testing::build_context(8, 2, g, DType::f64);
  auto positions = position_registry().create(t5.kind, t5.options, ctx);
  positions->parameters()[0]->value.copy_from(randn({4, 2}, g, DType::f64));
  MultiHeadAttention attention(AttentionConfig{}, ctx, /*self_attention=*/true);
  Parameter x(randn({2, 5, 8}, g, DType::f64));
  const Tensor key_mask =
      Tensor::from_data({2, 5}, std::vector<double>{1, 1, 1, 1, 1, 1, 1, 1, 0, 0}, DType::b8);
  std::vector<Parameter*> params = attention.parameters();
  params.push_back(positions->parameters()[0]);
  params.push_back(&x);
  for (bool causal : {true, false}) {
    GradcheckResult r = gradcheck_parameters(
        [&] {
          Var xv = leaf(x);
          return attention.forward(xv, xv, key_mask, causal, positions.get());
        },
        params);
    INFO("t5_bias attention, causal " << causal << ": " << r.message);
    CHECK(r.ok);
  }
  TransformerConfig c = tiny_config();
  c.decoder_layers = 2;
  c.positions = t5;
  DecoderLanguageModel model(c, 7, 0, false, 3);
  prepare(model);
  int tables = 0;
  for (auto& [name, p] : model.named_parameters())
    if (name == "positions.weight") {
      p->value.copy_from(randn(p->value.shape(), g, DType::f64));
      ++tables;
    }
  REQUIRE(tables == 1);
  std::vector<Parameter*> weights = model.parameters();
  GradcheckResult r = gradcheck_parameters(
      [&] { return loss(model.forward(source_ids()), source_ids()); }, weights);
  INFO("language model with t5_bias: " << r.message);
  CHECK(r.ok);
}
