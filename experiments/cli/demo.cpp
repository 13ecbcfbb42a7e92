#include "experiments/cli/demo.h"

#include <chrono>
#include <cmath>
#include <ostream>
#include <vector>

#include "autograd/ablate.h"

namespace ablate::experiments {

namespace {

constexpr std::int64_t kVocab = 8, kLength = 6, kBatch = 32, kDim = 32;

// Adam (Kingma & Ba, 2015) on the demo's parameters; the nn layer will own optimizers.
struct Adam {
  double lr = 3e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  int t = 0;
  std::vector<Tensor> m, v;
  void step(const std::vector<Parameter*>& params) {
    if (m.empty())
      for (Parameter* p : params) {
        m.push_back(Tensor::zeros(p->value.shape()));
        v.push_back(Tensor::zeros(p->value.shape()));
      }
    ++t;
    double c1 = 1 - std::pow(beta1, t), c2 = 1 - std::pow(beta2, t);
    for (std::size_t k = 0; k < params.size(); ++k) {
      float* w = params[k]->value.data<float>();
      float* g = params[k]->grad.data<float>();
      float* mk = m[k].data<float>();
      float* vk = v[k].data<float>();
      for (std::int64_t i = 0, n = params[k]->value.numel(); i < n; ++i) {
        mk[i] = float(beta1 * mk[i] + (1 - beta1) * g[i]);
        vk[i] = float(beta2 * vk[i] + (1 - beta2) * g[i] * g[i]);
        w[i] -= float(lr * (mk[i] / c1) / (std::sqrt(vk[i] / c2) + eps));
      }
      params[k]->zero_grad();
    }
  }
};

Parameter glorot(Generator& g, std::int64_t fan_in, std::int64_t fan_out) {
  double a = std::sqrt(6.0 / double(fan_in + fan_out));
  return Parameter(rand_uniform({fan_in, fan_out}, g, DType::f32, -a, a));
}

}  // namespace

DemoResult run_demo(const DemoOptions& options, std::ostream& out) {
  Generator init(options.seed), data(options.seed + 1);
  Parameter tokens(randn({kVocab, kDim}, init, DType::f32, 0, 0.5));
  Parameter positions(randn({kLength, kDim}, init, DType::f32, 0, 0.5));
  Parameter w_q = glorot(init, kDim, kDim), w_k = glorot(init, kDim, kDim),
            w_v = glorot(init, kDim, kDim), w_out = glorot(init, kDim, kVocab);
  Parameter gamma(Tensor::ones({kDim})), beta(Tensor::zeros({kDim}));
  std::vector<Parameter*> params{&tokens, &positions, &w_q, &w_k, &w_v, &w_out, &gamma, &beta};
  Adam adam;
  Tape& tape = Tape::current();
  Tensor src = Tensor::empty({kBatch, kLength}, DType::i32);
  Tensor tgt = Tensor::empty({kBatch * kLength}, DType::i32);
  Tensor pos_ids = Tensor::arange(0, kLength, 1, DType::i32).reshaped({1, kLength});

  out << "ablate demo: a one-layer attention model learns to reverse " << kLength
      << "-token sequences (vocab " << kVocab << ", batch " << kBatch << ", d_model " << kDim
      << ", seed " << options.seed << ")\n";
  DemoResult result;
  auto start = std::chrono::steady_clock::now();
  for (int step = 1; step <= options.steps; ++step) {
    std::int32_t* s = src.data<std::int32_t>();
    std::int32_t* t = tgt.data<std::int32_t>();
    for (std::int64_t b = 0; b < kBatch; ++b)
      for (std::int64_t i = 0; i < kLength; ++i)
        s[b * kLength + i] = std::int32_t(data.next_u64() % kVocab);
    for (std::int64_t b = 0; b < kBatch; ++b)
      for (std::int64_t i = 0; i < kLength; ++i)
        t[b * kLength + i] = s[b * kLength + kLength - 1 - i];

    Var x = gather_rows(tape.leaf(tokens), src) +
            reshape(gather_rows(tape.leaf(positions), pos_ids), {1, kLength, kDim});
    Var q = matmul(x, tape.leaf(w_q)), k = matmul(x, tape.leaf(w_k)), v = matmul(x, tape.leaf(w_v));
    Var attn = softmax(matmul(q, k, false, true), Tensor(), 1.0 / std::sqrt(double(kDim)));
    Var h = layer_norm(matmul(attn, v) + x, tape.leaf(gamma), tape.leaf(beta));
    Var logits = matmul(reshape(h, {kBatch * kLength, kDim}), tape.leaf(w_out));
    Var loss = cross_entropy(logits, tgt);
    tape.backward(loss);
    adam.step(params);

    double l = loss.item();
    if (step == 1) result.first_loss = l;
    result.final_loss = l;
    if (step % options.print_every == 0 || step == 1 || step == options.steps) {
      Tensor lg = logits.value();
      int correct = 0;
      for (std::int64_t r = 0; r < kBatch * kLength; ++r) {
        std::int64_t best = 0;
        for (std::int64_t c = 1; c < kVocab; ++c)
          if (lg.at(r * kVocab + c) > lg.at(r * kVocab + best)) best = c;
        correct += best == t[r];
      }
      result.final_accuracy = double(correct) / double(kBatch * kLength);
      out << "step " << step << "  loss " << l << "  token accuracy " << result.final_accuracy
          << "\n";
    }
    tape.reset();
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << "loss " << result.first_loss << " -> " << result.final_loss << " in " << options.steps
      << " steps (" << seconds * 1e3 / options.steps << " ms/step)\n";
  return result;
}

}  // namespace ablate::experiments
