// Throughput of the row kernels the attention layers lean on: masked scaled softmax
// and fused LayerNorm, forward and forward + backward, f32. "bytes" counts one read of
// the input and one write of the output per pass.
#include <benchmark/benchmark.h>

#include "autograd/ablate.h"
#include "bench/bench_util.h"

using namespace ablate;

namespace {

// Attention scores [B·H, T, T] with a causal mask, as in a decoder layer.
void BM_SoftmaxForward(benchmark::State& state) {
  std::int64_t rows = state.range(0), T = state.range(1);
  Generator g(0);
  Tensor x = randn({rows, T, T}, g);
  Tensor causal = Tensor::zeros({T, T}, DType::b8);
  for (std::int64_t i = 0; i < T; ++i)
    for (std::int64_t j = 0; j <= i; ++j) causal.set(i * T + j, 1);
  Tape& tape = Tape::current();
  NoGradGuard no_grad;
  for (auto _ : state) {
    benchmark::DoNotOptimize(softmax(tape.constant(x), causal, 0.125).value().raw());
    tape.reset();
  }
  state.SetBytesProcessed(state.iterations() * x.numel() * 8);
  state.SetItemsProcessed(state.iterations() * x.numel());
}
BENCHMARK(BM_SoftmaxForward)->Args({128, 64})->Args({32, 16});

void BM_SoftmaxForwardBackward(benchmark::State& state) {
  std::int64_t rows = state.range(0), T = state.range(1);
  Generator g(0);
  Parameter x(randn({rows, T, T}, g));
  Tensor upstream = randn({rows, T, T}, g);
  Tape& tape = Tape::current();
  for (auto _ : state) {
    tape.backward(softmax(tape.leaf(x), Tensor(), 0.125), upstream);
    tape.reset();
  }
  state.SetItemsProcessed(state.iterations() * x.value.numel());
}
BENCHMARK(BM_SoftmaxForwardBackward)->Args({128, 64})->Args({32, 16});

void BM_LayerNormForward(benchmark::State& state) {
  std::int64_t rows = state.range(0), D = state.range(1);
  Generator g(0);
  Tensor x = randn({rows, D}, g);
  Parameter gamma(Tensor::ones({D})), beta(Tensor::zeros({D}));
  Tape& tape = Tape::current();
  NoGradGuard no_grad;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        layer_norm(tape.constant(x), tape.leaf(gamma), tape.leaf(beta)).value().raw());
    tape.reset();
  }
  state.SetBytesProcessed(state.iterations() * x.numel() * 8);
  state.SetItemsProcessed(state.iterations() * x.numel());
}
BENCHMARK(BM_LayerNormForward)->Args({1024, 256})->Args({320, 32});

void BM_LayerNormForwardBackward(benchmark::State& state) {
  std::int64_t rows = state.range(0), D = state.range(1);
  Generator g(0);
  Parameter x(randn({rows, D}, g)), gamma(Tensor::ones({D})), beta(Tensor::zeros({D}));
  Tensor upstream = randn({rows, D}, g);
  Tape& tape = Tape::current();
  for (auto _ : state) {
    tape.backward(layer_norm(tape.leaf(x), tape.leaf(gamma), tape.leaf(beta)), upstream);
    tape.reset();
  }
  state.SetItemsProcessed(state.iterations() * x.value.numel());
  bench::report_peak_rss(state);
}
BENCHMARK(BM_LayerNormForwardBackward)->Args({1024, 256})->Args({320, 32});

}  // namespace
