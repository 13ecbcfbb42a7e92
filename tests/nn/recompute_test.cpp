// Activation recomputation in the Transformer stacks (TransformerConfig::recompute):
// with it on, training is bit-identical to training with it off — losses, every
// gradient, BatchNorm's running statistics, telemetry, the weights after Adam — for
// each model kind; it gradchecks in f64; and it keeps a fraction of the activations.
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <thread>

#include "autograd/checkpoint.h"
#include "autograd/gradcheck.h"
#include "nn/optim/optimizer.h"
#include "nn/transformer/transformer_models.h"
#include "tests/fresh_tape.h"

using namespace ablate;
using namespace ablate::nn;

namespace {

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

// [B, T] ids in 3..vocab-1 with a padded tail in some rows (pad = 0).
Tensor random_ids(std::int64_t B, std::int64_t T, std::int64_t vocab, Generator& g) {
  std::vector<std::int32_t> v(std::size_t(B * T));
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t t = 0; t < T; ++t)
      v[std::size_t(b * T + t)] =
          b % 2 == 1 && t >= T - 2 ? 0 : std::int32_t(3 + g.next_u64() % std::uint64_t(vocab - 3));
  return Tensor::from_data({B, T}, v);
}

TransformerConfig small(std::int64_t layers) {
  TransformerConfig c;
  c.d_model = 16;
  c.heads = 2;
  c.d_ff = 32;
  c.encoder_layers = c.decoder_layers = layers;
  c.max_len = 16;
  c.dropout = 0.1;
  return c;
}

std::int64_t checkpoint_nodes(const Tape& tape) {
  std::int64_t n = 0;
  for (std::uint32_t i = 0; i < tape.size(); ++i) n += tape.node(i).op == OpKind::checkpoint;
  return n;
}

using Loss = std::function<Var(Module&, Generator& data)>;

struct OffAndOn {
  std::unique_ptr<Module> off, on;
};

// Trains two models from the same seed for `steps` Adam steps, recompute off and on,
// and requires every loss, gradient, buffer and weight to be equal bit for bit.
// Returns the two models.
OffAndOn check_bit_identical(const std::function<std::unique_ptr<Module>()>& make, const Loss& loss,
                             std::int64_t layers, int steps = 3) {
  ablate_tests::FreshTape fresh;
  std::unique_ptr<Module> off = make(), on = make();
  REQUIRE(set_recompute(*on, true) > 0);
  auto adam_off = optimizer_registry().create("adam", {}, off->named_parameters());
  auto adam_on = optimizer_registry().create("adam", {}, on->named_parameters());
  const auto params_off = off->named_parameters(), params_on = on->named_parameters();
  const auto buffers_off = off->named_buffers(), buffers_on = on->named_buffers();
  Generator data_off(17), data_on(17);
  for (int step = 0; step < steps; ++step) {
    Var l_off = loss(*off, data_off);
    CHECK(checkpoint_nodes(fresh.tape) == 0);
    const Tensor value_off = l_off.value().clone();
    fresh.tape.backward(l_off);
    fresh.tape.reset();
    Var l_on = loss(*on, data_on);
    CHECK(checkpoint_nodes(fresh.tape) == layers);  // recompute did happen
    const Tensor value_on = l_on.value().clone();
    fresh.tape.backward(l_on);
    fresh.tape.reset();
    INFO("step " << step << ", loss " << value_off.item() << " vs " << value_on.item());
    CHECK(same_bits(value_off, value_on));
    for (std::size_t i = 0; i < params_off.size(); ++i) {
      INFO("gradient of " << params_off[i].first);
      CHECK(same_bits(params_off[i].second->grad, params_on[i].second->grad));
    }
    for (std::size_t i = 0; i < buffers_off.size(); ++i) {
      INFO("buffer " << buffers_off[i].first);  // BatchNorm's running statistics: updated once
      CHECK(same_bits(*buffers_off[i].second, *buffers_on[i].second));
    }
    adam_off->step(1e-2);
    adam_on->step(1e-2);
    adam_off->zero_grad();
    adam_on->zero_grad();
  }
  for (std::size_t i = 0; i < params_off.size(); ++i) {
    INFO("weight after Adam: " << params_off[i].first);
    CHECK(same_bits(params_off[i].second->value, params_on[i].second->value));
  }
  auto streams_off = off->named_random_streams(), streams_on = on->named_random_streams();
  for (std::size_t i = 0; i < streams_off.size();
       ++i)  // the recompute left dropout's stream where it was
    CHECK(streams_off[i].second->next_u64() == streams_on[i].second->next_u64());
  return {std::move(off), std::move(on)};
}

}  // namespace

TEST_CASE("recompute is bit-identical: seq2seq, post-norm, every dropout, attention telemetry",
          "[recompute]") {
  TransformerConfig c = small(2);
  c.attention.dropout = 0.1;  // the general attention path
  c.embedding_dropout = 0.1;
  c.attention.telemetry = true;
  const VocabularyOptions vocab{.source_vocab = 12, .target_vocab = 12};
  OffAndOn trained = check_bit_identical(
      [&] { return std::make_unique<Seq2SeqTransformer>(c, vocab, 5); },
      [](Module& m, Generator& g) {
        Tensor src = random_ids(4, 7, 12, g), tgt = random_ids(4, 6, 12, g),
               next = random_ids(4, 6, 12, g);
        return cross_entropy(static_cast<Seq2SeqTransformer&>(m).forward(src, tgt), next, 0);
      },
      4);
  // The recompute adds nothing to the attention telemetry: it counts each forward once.
  auto off = attention_modules(*trained.off), on = attention_modules(*trained.on);
  REQUIRE(off.size() == on.size());
  for (std::size_t i = 0; i < off.size(); ++i) {
    INFO(off[i].first);
    CHECK(off[i].second->telemetry().rows == on[i].second->telemetry().rows);
    CHECK(off[i].second->telemetry().entropy_sum == on[i].second->telemetry().entropy_sum);
  }
}

TEST_CASE("recompute is bit-identical at sizes whose products take oneDNN's GEMM", "[recompute]") {
  // The cases above are small enough for the register-blocked kernel; these products
  // (384 × 64 × 64 and wider) go to oneDNN, whose results the recompute must repeat too.
  TransformerConfig c = small(2);
  c.d_model = 64;
  c.heads = 4;
  c.d_ff = 256;
  c.max_len = 24;
  const VocabularyOptions vocab{.source_vocab = 30, .target_vocab = 30};
  check_bit_identical([&] { return std::make_unique<Seq2SeqTransformer>(c, vocab, 8); },
                      [](Module& m, Generator& g) {
                        Tensor src = random_ids(16, 24, 30, g), tgt = random_ids(16, 24, 30, g),
                               next = random_ids(16, 24, 30, g);
                        return cross_entropy(static_cast<Seq2SeqTransformer&>(m).forward(src, tgt),
                                             next, 0);
                      },
                      4, 2);
}

TEST_CASE("recompute is bit-identical: decoder-only, pre-norm, rotary, GELU", "[recompute]") {
  TransformerConfig c = small(3);
  c.placement = "pre";
  c.positions = {"rotary"};
  c.ffn = {"gelu"};
  c.dropout = 0.2;
  check_bit_identical([&] { return std::make_unique<DecoderLanguageModel>(c, 12, 0, true, 9); },
                      [](Module& m, Generator& g) {
                        Tensor ids = random_ids(4, 8, 12, g), next = random_ids(4, 8, 12, g);
                        return cross_entropy(static_cast<DecoderLanguageModel&>(m).forward(ids),
                                             next, 0);
                      },
                      3);
}

TEST_CASE("recompute with BatchNorm updates the running statistics and the drift once",
          "[recompute]") {
  TransformerConfig c = small(2);
  c.norm = {"batch"};
  OffAndOn trained = check_bit_identical(
      [&] {
        auto m = std::make_unique<EncoderRegressor>(c, 3, 2, 3, 4);
        for (auto& [name, drift] : batch_statistics_drift_modules(*m)) drift->recording = true;
        return m;
      },
      [](Module& m, Generator& g) {
        Var y = static_cast<EncoderRegressor&>(m).forward(constant(randn({8, 6, 3}, g)));
        return mse(y, constant(randn({8, 2, 3}, g)));
      },
      2);
  auto off = batch_statistics_drift_modules(*trained.off),
       on = batch_statistics_drift_modules(*trained.on);
  REQUIRE(on.size() == 4);
  for (std::size_t i = 0; i < on.size(); ++i) {
    INFO(on[i].first);
    CHECK(on[i].second->training.batches == 3);  // one per step, none from the recompute
    CHECK(on[i].second->training.mean_sum == off[i].second->training.mean_sum);
  }
}

TEST_CASE("a model with recompute on passes an f64 gradcheck", "[recompute][gradcheck]") {
  ablate_tests::FreshTape fresh;
  TransformerConfig c = small(2);
  c.d_model = 8;
  c.d_ff = 6;
  c.dropout = 0;  // gradcheck needs the same function at every evaluation
  c.recompute = true;
  Seq2SeqTransformer model(c, {.source_vocab = 7, .target_vocab = 7}, 11);
  model.to(DType::f64);
  Generator g(99), data(3);
  for (auto& [name, p] : model.named_parameters())  // random biases: no exactly-zero rows
    if (name.ends_with(".bias"))
      p->value.copy_from(randn(p->value.shape(), g, DType::f64, 0.0, 0.3));
  Tensor src = random_ids(2, 5, 7, data), tgt = random_ids(2, 4, 7, data),
         next = random_ids(2, 4, 7, data);
  std::vector<Parameter*> params = model.parameters();
  GradcheckResult r =
      gradcheck_parameters([&] { return cross_entropy(model.forward(src, tgt), next, 0); }, params,
                           {.max_elements_per_input = 3});
  INFO(r.message);
  CHECK(r.ok);
  CHECK(r.op_kinds.test(std::size_t(OpKind::checkpoint)));
}

TEST_CASE("recompute keeps a fraction of the activations of a deep model", "[recompute][memory]") {
  // d_model 64, 6 + 6 layers, batch 16 × 32 tokens: the arena capacity (the tape's and,
  // with recompute, the scratch tapes') after three steps. Measured: 63 MiB off, 10 MiB
  // on (16 %); without a working recompute "on" would be at least "off". Each run is in
  // a thread of its own, so its thread-local tapes start empty.
  auto arena_after_training = [](bool recompute) {
    std::size_t bytes = 0;
    std::thread([&] {
      TransformerConfig c = small(6);
      c.d_model = 64;
      c.heads = 4;
      c.d_ff = 256;
      c.max_len = 32;
      c.recompute = recompute;
      Seq2SeqTransformer model(c, {.source_vocab = 40, .target_vocab = 40}, 2);
      Generator g(4);
      Tape& tape = Tape::current();
      for (int step = 0; step < 3; ++step) {
        Tensor src = random_ids(16, 32, 40, g), tgt = random_ids(16, 32, 40, g),
               next = random_ids(16, 32, 40, g);
        tape.backward(cross_entropy(model.forward(src, tgt), next, 0));
        tape.reset();
        model.zero_grad();
      }
      bytes = tape.arena().capacity() + checkpoint_scratch_capacity();
    }).join();
    return bytes;
  };
  const std::size_t off = arena_after_training(false), on = arena_after_training(true);
  INFO("arena off " << double(off) / (1 << 20) << " MiB, on " << double(on) / (1 << 20) << " MiB");
  CHECK(on * 3 < off);
}
