// Proves that a training step in steady state performs no heap allocation: malloc and
// friends are replaced by counting wrappers around glibc's, and a step that uses every
// op and a checkpoint (forward, backward, SGD update, reset) runs after a warm-up while
// counting.
//
// With the Eigen GEMM backend the step allocates nothing and page-faults nothing. The
// default f32 backend, oneDNN 2.6, mallocs its packing buffers inside every sgemm call
// and, for some shapes, mmaps a scratch buffer of its own (strace: 320 KiB per call for
// a 256x256x64 product), which no setting of ours reaches; its counts are printed for
// the record, not asserted. The reference models' steady-state steps page-fault 0
// times with oneDNN (bench/README.md, `perf stat -e page-faults`).
#include <malloc.h>
#include <sys/resource.h>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "autograd/ablate.h"
#include "autograd/kernels/gemm.h"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);
}

namespace {
bool counting = false;
bool trap = false;  // ABLATE_TRAP_ALLOCATION=1: stop at the first counted allocation (for gdb)
long allocations = 0;
void note() {
  if (!counting) return;
  ++allocations;
  if (trap) __builtin_trap();
}
}  // namespace

extern "C" {
void* malloc(size_t n) {
  note();
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t m) {
  note();
  return __libc_calloc(n, m);
}
void* realloc(void* p, size_t n) {
  note();
  return __libc_realloc(p, n);
}
void* memalign(size_t a, size_t n) {
  note();
  return __libc_memalign(a, n);
}
void* aligned_alloc(size_t a, size_t n) {
  note();
  return __libc_memalign(a, n);
}
int posix_memalign(void** out, size_t a, size_t n) {
  note();
  *out = __libc_memalign(a, n);
  return *out ? 0 : 12;
}
void free(void* p) {
  __libc_free(p);
}
}

using namespace ablate;

namespace {
long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}
}  // namespace

int main() {
  constexpr std::int64_t B = 4, T = 6, V = 11, D = 16;
  Generator init(1);
  Parameter embed(randn({V, D}, init, DType::f32, 0, 0.1));
  Parameter w_qk(randn({D, 2 * D}, init, DType::f32, 0, 0.1));
  Parameter w_out(randn({D, V}, init, DType::f32, 0, 0.1));
  Parameter gamma(Tensor::ones({D})), beta(Tensor::zeros({D}));
  std::vector<Parameter*> params{&embed, &w_qk, &w_out, &gamma, &beta};
  std::vector<std::int32_t> tokens(B * T), targets(B * T);
  for (std::int64_t i = 0; i < B * T; ++i) tokens[i] = std::int32_t(1 + i % (V - 1));
  for (std::int64_t i = 0; i < B * T; ++i) targets[i] = i % 5 == 0 ? -100 : tokens[B * T - 1 - i];
  Tensor tok = Tensor::from_data({B, T}, tokens), tgt = Tensor::from_data({B, T}, targets);
  Tensor causal = Tensor::zeros({T, T}, DType::b8);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j <= i; ++j) causal.set(i * T + j, 1);
  Tensor pad = Tensor::ones({B, 1, T}, DType::b8);
  Tensor regression_target = Tensor::zeros({B, T, 1});
  // Large enough that Eigen's GEMM would otherwise malloc its packing buffers per call.
  Parameter big_w(randn({256, 256}, init, DType::f32, 0, 0.01));
  Tensor big_x = randn({64, 256}, init, DType::f32);
  params.push_back(&big_w);
  Parameter w_att(randn({D, D}, init, DType::f32, 0, 0.1)), b_att(Tensor::zeros({D}));
  params.push_back(&w_att);
  params.push_back(&b_att);
  Tensor causal4 = Tensor::zeros({B, 1, T, T}, DType::b8);
  for (int b = 0; b < B; ++b)
    for (int i = 0; i < T; ++i)
      for (int j = 0; j <= i; ++j) causal4.set((b * T + i) * T + j, 1);
  Generator dropout_gen(2);
  Tape& tape = Tape::current();

  auto step = [&] {
    Var x = gather_rows(tape.leaf(embed), tok, 0);
    x = dropout(x, 0.1, true, dropout_gen);
    Var qk = matmul(x, tape.leaf(w_qk));  // one GEMM over B·T rows
    Var q = slice(qk, 2, 0, D), k = l2_normalize(slice(qk, 2, D, 2 * D));
    Var scores = matmul(q, k, false, true);
    Var probs = softmax(masked_fill(scores, causal, 0.0), pad, 0.25);
    Var h = matmul(probs, x) + x +
            attention(linear(x, tape.leaf(w_att), tape.leaf(b_att)), x, x, 2, causal4, 0.25);
    h = layer_norm(h, tape.leaf(gamma), tape.leaf(beta));
    // A checkpointed block (with dropout): its closure, scratch tape and recompute
    // allocate nothing either once warm.
    const Var block_in[] = {h};
    h = checkpoint(
        [&](std::span<const Var> v) {
          return v[0] +
                 dropout(tanh(linear(v[0], leaf(w_att), leaf(b_att))), 0.1, true, dropout_gen);
        },
        block_in, {&dropout_gen});
    h = gelu_erf(h) + gelu_tanh(h) * sigmoid(h) - tanh(h) / (abs(h) + 1.0);
    h = relu(h) + sqrt(exp(h * 0.1)) + log(pow_scalar(h, 2.0) + 1.0) + (-h);
    h = where(pad.reshaped({B, T, 1}), h, h * 0.5);
    Var logits = matmul(reshape(h, {B * T, D}), tape.leaf(w_out));
    Var both = concat({logits, logits}, 0);
    Var loss = cross_entropy(slice(both, 0, 0, B * T), tgt.reshaped({B * T}), -100, 0.1);
    Var extra = mean(max(permute(reshape(logits, {B, T, V}), {0, 2, 1}), 1)) +
                mean(sum(log_softmax(logits), -1)) * 0.0 +
                mse(mean(reshape(h, {B, T, D}), -1, true), tape.constant(regression_target));
    Var big = mean(matmul(tape.constant(big_x), tape.leaf(big_w), false, true));
    tape.backward(loss + extra * 0.01 + big * 0.0);
    for (Parameter* p : params) {  // SGD, in place
      float* w = p->value.data<float>();
      float* g = p->grad.data<float>();
      for (std::int64_t i = 0; i < p->value.numel(); ++i) w[i] -= 0.1f * g[i];
      p->zero_grad();
    }
    float value = loss.value().data<float>()[0];
    tape.reset();
    return value;
  };

  float first = step();
  bool ok = true;
  // bf16 mixed precision too: its rounded operands live in per-thread buffers that
  // only grow (with Eigen, the widened-back f32 copies as well).
  for (auto [backend, precision] :
       {std::pair{kernels::GemmBackend::eigen, kernels::MatmulPrecision::f32},
        std::pair{kernels::GemmBackend::onednn, kernels::MatmulPrecision::f32},
        std::pair{kernels::GemmBackend::eigen, kernels::MatmulPrecision::bf16},
        std::pair{kernels::GemmBackend::onednn, kernels::MatmulPrecision::bf16}}) {
    kernels::set_gemm_backend(backend);
    kernels::set_matmul_precision(precision);
    for (int i = 0; i < 3; ++i) step();  // warm-up: the arena and node list reach their size
    trap =
        backend == kernels::GemmBackend::eigen && std::getenv("ABLATE_TRAP_ALLOCATION") != nullptr;
    allocations = 0;
    long faults = minor_faults();
    counting = true;
    float last = 0;
    for (int i = 0; i < 20; ++i) last = step();
    counting = false;
    faults = minor_faults() - faults;
    std::printf(
        "%s, %s: loss %.4f -> %.4f; in 20 steady-state steps: %ld heap allocations, %ld page "
        "faults\n",
        kernels::gemm_backend_name(backend), kernels::matmul_precision_name(precision), first, last,
        allocations, faults);
    if (backend == kernels::GemmBackend::eigen && allocations != 0) {
      std::printf("FAIL: a steady-state training step allocated on the heap\n");
      ok = false;
    }
    if (backend == kernels::GemmBackend::eigen && faults != 0) {
      std::printf("FAIL: a steady-state training step page-faulted\n");
      ok = false;
    }
    if (!(last < first)) {
      std::printf("FAIL: the loss did not fall, so the step is not training\n");
      ok = false;
    }
  }
  return ok ? 0 : 1;
}
