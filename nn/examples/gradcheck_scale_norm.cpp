// Gradchecks the ScaleNorm of scale_norm.cpp in f64: alone, with respect to its input
// and its weight, and inside a whole Transformer, with respect to every weight.
// Prints each result; exits 1 if one fails.
#include <cstdio>
#include <vector>

#include "autograd/gradcheck.h"
#include "nn/transformer/transformer_models.h"

using namespace ablate;
using namespace ablate::nn;

int main() {
  bool ok = true;
  auto report = [&](const char* what, const GradcheckResult& r) {
    std::printf("gradcheck of %s: %s (max error %.2e)\n", what, r.ok ? "ok" : "FAILED",
                r.max_error);
    if (!r.ok) std::printf("  %s\n", r.message.c_str());
    ok = ok && r.ok;
  };

  // Alone: built from the registry, as every model builds it.
  BuildContext ctx;
  ctx.d_model = 6;
  ctx.dtype = DType::f64;
  std::unique_ptr<Norm> norm = norm_registry().create("scale", {}, ctx);
  Generator g(1);
  Tensor x = randn({2, 3, 6}, g, DType::f64);
  report("ScaleNorm, input",
         gradcheck([&](std::span<const Var> in) { return norm->forward(in[0], Tensor()); },
                   std::vector<Tensor>{x}));
  std::vector<Parameter*> weights = norm->parameters();
  report("ScaleNorm, weight",
         gradcheck_parameters([&] { return norm->forward(constant(x), Tensor()); }, weights));

  // Inside a model: every layer's norms are ScaleNorms.
  TransformerConfig c;
  c.d_model = 8;
  c.heads = 2;
  c.d_ff = 8;
  c.norm = {"scale"};
  Seq2SeqTransformer model(c, {.source_vocab = 7, .target_vocab = 7}, /*seed=*/1);
  model.to(DType::f64);
  Tensor src = Tensor::from_data({1, 3}, std::vector<std::int32_t>{3, 4, 5});
  Tensor tgt_in = Tensor::from_data({1, 3}, std::vector<std::int32_t>{1, 5, 4});
  Tensor tgt_out = Tensor::from_data({1, 3}, std::vector<std::int32_t>{5, 4, 2});
  std::vector<Parameter*> params = model.parameters();
  report("a Transformer with norm = scale",
         gradcheck_parameters(
             [&] { return cross_entropy(model.forward(src, tgt_in), tgt_out, /*ignore=*/0); },
             params));
  return ok ? 0 : 1;
}
