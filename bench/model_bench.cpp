// The four reference models (bench/reference_models.h) as full training steps
// (forward, backward, Adam; also with activation recomputation: train_recompute/) and
// forward-only passes, plus multi-head attention alone. Each reports its time in
// ms, the matmul FLOP rate it achieved (GFLOP/s, attention scores included; ×3 for a
// training step) and the process's peak RSS. bench/compare_torch.py runs these one
// configuration per process, alternating with PyTorch.
#include <benchmark/benchmark.h>

#include "autograd/checkpoint.h"
#include "autograd/kernels/gemm.h"
#include "bench/bench_util.h"
#include "bench/reference_models.h"
#include "nn/attention/multi_head_attention.h"
#include "nn/transformer/transformer_models.h"

using namespace ablate;

namespace {

void report_flops(benchmark::State& state, double flops_per_iteration) {
  state.counters["GFLOP/s"] = benchmark::Counter(
      double(state.iterations()) * flops_per_iteration * 1e-9, benchmark::Counter::kIsRate);
}

void measure_train_step(benchmark::State& state, const std::string& name, bool recompute,
                        std::int64_t batch_factor = 1) {
  bench::ReferenceConfig c = bench::reference_config(name);
  c.batch *= batch_factor;
  bench::ReferenceModel model(c);
  model.set_recompute(recompute);
  // The first steps size the arena (it merges its blocks after a step that needed
  // several, and the merged block is faulted in once): steady state starts after.
  for (int i = 0; i < 3; ++i) model.train_step();
  for (auto _ : state) benchmark::DoNotOptimize(model.train_step());
  report_flops(state, 3 * bench::forward_flops(c));
  // Steps of the reference batch a second: comparable between train/ and train_batch_x8/.
  state.SetItemsProcessed(state.iterations() * batch_factor);
  bench::report_peak_rss(state);
  // Where the memory goes: activations and gradients (the tape's arena, and with
  // recompute the scratch tapes' too) vs weights, gradients and Adam's two moments (4
  // floats per parameter). Arenas only grow, so these (and peak RSS) are a process's
  // largest so far: one benchmark per process measures one configuration.
  state.counters["arena_MiB"] =
      double(Tape::current().arena().capacity() + checkpoint_scratch_capacity()) / (1 << 20);
  state.counters["params_MiB"] = double(model.parameter_count()) * 16 / (1 << 20);
}

void BM_TrainStep(benchmark::State& state, const std::string& name) {
  measure_train_step(state, name, false);
}

// The bound on training 8 seeds in lockstep (issue 32): one step of 8× the batch does
// the work of 8 reference steps with every op's fixed cost paid once and even the GEMMs
// merged into 8× taller ones, which seeds with their own weights cannot have. Its
// items_per_second (reference steps a second) is the most that batching 8 seeds could
// reach; bench/README.md compares it with train/<c>'s.
void BM_TrainStepBatchBound(benchmark::State& state, const std::string& name) {
  measure_train_step(state, name, false, 8);
}

// The same step with GEMMs on two threads (train.threads = 2): one large trial alone.
void BM_TrainStepTwoThreads(benchmark::State& state, const std::string& name) {
  kernels::set_gemm_threads(2);
  BM_TrainStep(state, name);
  kernels::set_gemm_threads(1);
}

// The same step with each layer's activations recomputed in the backward
// (train.recompute): less memory, each layer's forward twice.
void BM_TrainStepRecompute(benchmark::State& state, const std::string& name) {
  measure_train_step(state, name, true);
}

// The same step in bf16 mixed precision (train.precision = "bf16").
void BM_TrainStepBf16(benchmark::State& state, const std::string& name) {
  kernels::MatmulPrecisionScope bf16(kernels::MatmulPrecision::bf16);
  BM_TrainStep(state, name);
}

void BM_Forward(benchmark::State& state, const std::string& name) {
  const bench::ReferenceConfig& c = bench::reference_config(name);
  bench::ReferenceModel model(c);
  for (int i = 0; i < 3; ++i) model.forward_only();
  for (auto _ : state) benchmark::DoNotOptimize(model.forward_only());
  report_flops(state, bench::forward_flops(c));
  bench::report_peak_rss(state);
}

void BM_ForwardBf16(benchmark::State& state, const std::string& name) {
  kernels::MatmulPrecisionScope bf16(kernels::MatmulPrecision::bf16);
  BM_Forward(state, name);
}

// Self-attention module alone (projections, scores, softmax, values, output
// projection), B = 32, T = 64, d = 256, 8 heads, forward + backward of the sum.
void BM_AttentionForwardBackward(benchmark::State& state) {
  const std::int64_t B = 32, T = 64, D = 256, H = 8;
  Generator init(1);
  nn::BuildContext ctx;
  ctx.d_model = D;
  ctx.heads = H;
  ctx.init = &init;
  nn::MultiHeadAttention attention(nn::AttentionConfig{}, ctx, true);
  Parameter x(randn({B, T, D}, init));
  Tape& tape = Tape::current();
  auto step = [&] {
    Var in = tape.leaf(x);
    tape.backward(sum(attention.forward(in, in, Tensor(), false)));
    tape.reset();
  };
  step();
  for (auto _ : state) step();
  double flops = 4 * 2.0 * B * T * D * D + 2 * 2.0 * B * T * T * D;
  report_flops(state, 3 * flops);
  bench::report_peak_rss(state);
}

// Greedy decoding of one batch (evaluation of a seq2seq trial), by the full recompute
// (the decoder over the whole prefix at every step) and automatically (incrementally,
// where that gives the same bits: nn/transformer/incremental_decode.h). EOS is made
// unreachable so every batch decodes max_len steps. Sizes: the quickstart's model
// (d_model 32, 2 heads, d_ff 64, 1 + 1 layers; 10 steps) and a replication-size one
// (g2p's: d_model 64, 4 heads, d_ff 256, 2 + 2 layers, pre-norm; 30 steps), batch 64, 40 tokens.
void BM_GreedyDecode(benchmark::State& state, bool replication_size,
                     nn::Seq2SeqTransformer::DecodeMethod method) {
  nn::TransformerConfig c;
  c.d_model = replication_size ? 64 : 32;
  c.heads = replication_size ? 4 : 2;
  c.d_ff = replication_size ? 256 : 64;
  c.encoder_layers = replication_size ? 2 : 1;
  c.decoder_layers = replication_size ? 2 : 1;
  if (replication_size) c.placement = "pre";
  const std::int64_t B = 64, vocab = 40, source_length = replication_size ? 16 : 8;
  const std::int64_t max_len = replication_size ? 30 : 10;
  nn::Seq2SeqTransformer model(c, {.source_vocab = vocab, .target_vocab = vocab}, 1);
  model.eval();
  Parameter* bias = model.find_parameter("output.bias");
  bias->value.set(model.vocabulary().eos, -100.0);
  std::vector<std::int32_t> ids(std::size_t(B * source_length));
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = 3 + std::int32_t(i * 7 % (vocab - 3));
  const Tensor src = Tensor::from_data({B, source_length}, ids);
  for (auto _ : state) benchmark::DoNotOptimize(model.greedy_decode(src, max_len, method));
  state.counters["incremental"] = double(model.decode_path_record().incremental > 0);
}

const int registered = [] {
  for (const auto& c : bench::reference_configs()) {
    benchmark::RegisterBenchmark(("train/" + c.name).c_str(), BM_TrainStep, c.name)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("forward/" + c.name).c_str(), BM_Forward, c.name)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("train_batch_x8/" + c.name).c_str(), BM_TrainStepBatchBound,
                                 c.name)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("train_recompute/" + c.name).c_str(), BM_TrainStepRecompute,
                                 c.name)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("train_bf16/" + c.name).c_str(), BM_TrainStepBf16, c.name)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("forward_bf16/" + c.name).c_str(), BM_ForwardBf16, c.name)
        ->Unit(benchmark::kMillisecond);
  }
  for (const char* name : {"medium", "base"})
    benchmark::RegisterBenchmark((std::string("train_2_threads/") + name).c_str(),
                                 BM_TrainStepTwoThreads, std::string(name))
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  benchmark::RegisterBenchmark("attention/B32_T64_d256_h8", BM_AttentionForwardBackward)
      ->Unit(benchmark::kMillisecond);
  using Method = nn::Seq2SeqTransformer::DecodeMethod;
  for (bool replication : {false, true})
    for (Method method : {Method::full_recompute, Method::automatic})
      benchmark::RegisterBenchmark(
          (std::string("greedy_decode/") +
           (replication ? "replication_B64_L30" : "quickstart_B64_L10") +
           (method == Method::full_recompute ? "/full_recompute" : "/incremental"))
              .c_str(),
          BM_GreedyDecode, replication, method)
          ->Unit(benchmark::kMillisecond);
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
