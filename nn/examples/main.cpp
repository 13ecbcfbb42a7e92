// The worked example of nn/README.md: the ScaleNorm variant of scale_norm.cpp is
// registered before main() runs; here it is listed, gradchecked in f64 (alone and in a
// whole model), and swept against LayerNorm on a tiny reversal task over two seeds.
// Exits 1 if a gradcheck fails or a model does not learn.
#include <cstdio>
#include <vector>

#include "autograd/gradcheck.h"
#include "nn/optim/optimizer.h"
#include "nn/transformer/transformer_models.h"

using namespace ablate;
using namespace ablate::nn;

namespace {

TransformerConfig tiny(const std::string& norm) {
  TransformerConfig c;
  c.d_model = 16;
  c.heads = 2;
  c.d_ff = 32;
  c.encoder_layers = 1;
  c.decoder_layers = 1;
  c.max_len = 16;
  c.norm = {norm};
  return c;
}

// Reversal of 5 random tokens (ids 3..9; 0 pad, 1 BOS, 2 EOS).
struct Batch {
  Tensor src, tgt_in, tgt_out;
};
Batch make_batch(Generator& g, std::int64_t B) {
  const std::int64_t T = 5;
  std::vector<std::int32_t> src(std::size_t(B * T)), in(std::size_t(B * (T + 1))), out(std::size_t(B * (T + 1)));
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t t = 0; t < T; ++t) src[std::size_t(b * T + t)] = std::int32_t(3 + g.next_u64() % 7);
    in[std::size_t(b * (T + 1))] = 1;
    for (std::int64_t t = 0; t < T; ++t) {
      std::int32_t token = src[std::size_t(b * T + (T - 1 - t))];
      in[std::size_t(b * (T + 1) + t + 1)] = token;
      out[std::size_t(b * (T + 1) + t)] = token;
    }
    out[std::size_t(b * (T + 1) + T)] = 2;
  }
  return {Tensor::from_data({B, T}, src), Tensor::from_data({B, T + 1}, in),
          Tensor::from_data({B, T + 1}, out)};
}

bool gradcheck_scale_norm() {
  TransformerConfig c = tiny("scale");
  c.d_model = 8;
  c.d_ff = 8;
  Seq2SeqTransformer model(c, {.source_vocab = 10, .target_vocab = 10}, 1);
  model.to(DType::f64);
  Generator g(2);
  Batch batch = make_batch(g, 2);
  std::vector<Parameter*> params = model.parameters();
  GradcheckResult r = gradcheck_parameters(
      [&] { return cross_entropy(model.forward(batch.src, batch.tgt_in), batch.tgt_out, 0); },
      params);
  std::printf("gradcheck of a whole model with norm = scale: %s (max error %.2e)\n",
              r.ok ? "ok" : "FAILED", r.max_error);
  if (!r.ok) std::printf("  %s\n", r.message.c_str());
  return r.ok;
}

// Trains one variant; returns the final token accuracy on a held-out batch.
double train(const std::string& norm, std::uint64_t seed) {
  Seq2SeqTransformer model(tiny(norm), {.source_vocab = 10, .target_vocab = 10}, seed);
  auto optimizer = optimizer_registry().create("adam", {}, model.named_parameters());
  Generator data(seed + 100);
  Tape& tape = Tape::current();
  for (int step = 1; step <= 300; ++step) {
    Batch batch = make_batch(data, 32);
    Var loss = cross_entropy(model.forward(batch.src, batch.tgt_in), batch.tgt_out, 0);
    tape.backward(loss);
    optimizer->step(3e-3);
    optimizer->zero_grad();
    tape.reset();
  }
  Generator held_out(seed + 999);
  Batch batch = make_batch(held_out, 64);
  model.eval();
  NoGradGuard no_grad;
  Tensor logits = model.forward(batch.src, batch.tgt_in).value();
  std::int64_t V = 10, rows = batch.tgt_out.numel(), correct = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t best = 0;
    for (std::int64_t v = 1; v < V; ++v)
      if (logits.at(r * V + v) > logits.at(r * V + best)) best = v;
    correct += best == std::int64_t(batch.tgt_out.at(r));
  }
  tape.reset();
  return double(correct) / double(rows);
}

}  // namespace

int main() {
  std::printf("norms registered:");
  for (const std::string& name : norm_registry().names()) std::printf(" %s", name.c_str());
  std::printf("\n");
  if (!norm_registry().find("scale")) return 1;
  bool ok = gradcheck_scale_norm();

  std::printf("\n%-8s %-6s %s\n", "norm", "seed", "token accuracy after 300 steps");
  for (std::string norm : {"layer", "scale"})
    for (std::uint64_t seed : {0, 1}) {
      double accuracy = train(norm, seed);
      std::printf("%-8s %-6llu %.3f\n", norm.c_str(), static_cast<unsigned long long>(seed), accuracy);
      ok = ok && accuracy > 0.5;
    }
  return ok ? 0 : 1;
}
