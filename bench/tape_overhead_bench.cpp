// Per-op overhead of the tape on tiny tensors, where bookkeeping (not arithmetic)
// dominates: forward + backward + reset, reported as ns per recorded op.
#include <benchmark/benchmark.h>

#include "autograd/ablate.h"
#include "bench/bench_util.h"

using namespace ablate;

namespace {

// "time_per_op" in seconds, printed with an SI prefix (e.g. 40n = 40 ns).
void report_time_per_op(benchmark::State& state, double ops_per_iteration) {
  state.counters["time_per_op"] =
      benchmark::Counter(double(state.iterations()) * ops_per_iteration,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// (x * w).sum() forward + backward on 8 elements: the PyTorch comparison point
// (≈19 µs in PyTorch 1.13 on this machine, bench/README.md). Three ops: two leaves are
// free, mul and sum are recorded.
void BM_MulSum8(benchmark::State& state) {
  Parameter x(Tensor::ones({8})), w(Tensor::full({8}, 0.5));
  Tape& tape = Tape::current();
  for (auto _ : state) {
    Var loss = sum(tape.leaf(x) * tape.leaf(w));
    tape.backward(loss);
    tape.reset();
  }
  report_time_per_op(state, 2);
  bench::report_peak_rss(state);
}
BENCHMARK(BM_MulSum8);

// A chain of N elementwise ops on a tiny tensor: the marginal cost of one more op.
template <int N>
void BM_ChainOfOps(benchmark::State& state) {
  Parameter x(Tensor::ones({8}));
  Tape& tape = Tape::current();
  for (auto _ : state) {
    Var h = tape.leaf(x);
    for (int i = 0; i < N; ++i) h = tanh(h * 0.9 + 0.1);
    tape.backward(sum(h));
    tape.reset();
  }
  // 3 ops per iteration of the chain, +1 for the sum.
  report_time_per_op(state, (3 * N + 1));
}
BENCHMARK(BM_ChainOfOps<10>);
BENCHMARK(BM_ChainOfOps<100>);

// Forward only (under NoGradGuard): the cost of recording without backward.
void BM_ForwardOnlyChain100(benchmark::State& state) {
  Parameter x(Tensor::ones({8}));
  Tape& tape = Tape::current();
  NoGradGuard no_grad;
  for (auto _ : state) {
    Var h = tape.leaf(x);
    for (int i = 0; i < 100; ++i) h = tanh(h * 0.9 + 0.1);
    benchmark::DoNotOptimize(h.value().raw());
    tape.reset();
  }
  report_time_per_op(state, 300);
}
BENCHMARK(BM_ForwardOnlyChain100);

// A tiny matmul + softmax + cross-entropy step: the shape of attention bookkeeping.
void BM_TinyAttentionStep(benchmark::State& state) {
  Generator g(0);
  Parameter x(randn({2, 4, 8}, g)), w(randn({8, 8}, g));
  Tensor targets = Tensor::from_data({8}, std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7});
  Tape& tape = Tape::current();
  for (auto _ : state) {
    Var q = matmul(tape.leaf(x), tape.leaf(w));
    Var p = softmax(matmul(q, q, false, true), Tensor(), 0.35);
    Var h = reshape(matmul(p, q), {8, 8});
    tape.backward(cross_entropy(h, targets));
    tape.reset();
  }
  report_time_per_op(state, 6);
}
BENCHMARK(BM_TinyAttentionStep);

}  // namespace
