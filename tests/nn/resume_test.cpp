// Checkpoint + optimizer state together: training that is saved at step k, loaded
// into a freshly built model and optimizer, and continued, ends bit-identical to
// training that never stopped.
#include <catch2/catch.hpp>

#include "tests/nn/small_transformer.h"
#include "tests/scratch_dir.h"

#include "nn/checkpoint.h"
#include "nn/optim/optimizer.h"
#include "nn/transformer/transformer_models.h"

using namespace ablate;
using namespace ablate::nn;

namespace {

TransformerConfig config() {
  TransformerConfig c = testing::small_transformer(16);
  c.norm = {"batch"};  // running statistics must survive too
  return c;
}

Tensor ids(std::vector<std::int32_t> v) {
  return Tensor::from_data({2, 3}, v);
}

void train_steps(Seq2SeqTransformer& m, Optimizer& opt, int steps) {
  Tape& tape = Tape::current();
  for (int s = 0; s < steps; ++s) {
    Var loss = cross_entropy(m.forward(ids({3, 4, 5, 5, 4, 3}), ids({1, 4, 5, 1, 3, 3})),
                             ids({4, 5, 2, 3, 3, 2}), 0);
    tape.backward(loss);
    tape.reset();
    opt.step(1e-2);
    opt.zero_grad();
  }
}

}  // namespace

TEST_CASE("save at step 3 then load and continue equals 6 uninterrupted steps", "[checkpoint]") {
  ablate_tests::ScratchDir dir("nn_resume");
  std::string path = dir.path_of("ckpt.safetensors");

  Seq2SeqTransformer straight(config(), {.source_vocab = 6, .target_vocab = 6}, 1);
  auto opt_straight = optimizer_registry().create("adamw", {}, straight.named_parameters());
  train_steps(straight, *opt_straight, 6);

  Seq2SeqTransformer first(config(), {.source_vocab = 6, .target_vocab = 6}, 1);
  auto opt_first = optimizer_registry().create("adamw", {}, first.named_parameters());
  train_steps(first, *opt_first, 3);
  save_checkpoint(first, path, {{"step", "3"}}, opt_first->state());

  Seq2SeqTransformer resumed(config(), {.source_vocab = 6, .target_vocab = 6}, 99);  // other init
  auto opt_resumed = optimizer_registry().create("adamw", {}, resumed.named_parameters());
  Checkpoint ck = load_checkpoint(resumed, path);
  CHECK(ck.report.ok());
  CHECK(ck.file.metadata.at("step") == "3");
  opt_resumed->load_state(ck.file.tensors);
  CHECK(opt_resumed->steps() == 3);
  train_steps(resumed, *opt_resumed, 3);

  auto a = straight.named_parameters();
  auto b = resumed.named_parameters();
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO(a[i].first);
    CHECK(allclose(a[i].second->value, b[i].second->value, 0.0, 0.0));
  }
  auto ba = straight.named_buffers();
  auto bb = resumed.named_buffers();
  for (std::size_t i = 0; i < ba.size(); ++i) {
    INFO(ba[i].first);
    CHECK(allclose(*ba[i].second, *bb[i].second, 0.0, 0.0));
  }
}
