#include "experiments/study/gradient_study.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "autograd/ablate.h"

namespace ablate::experiments::study {

using json = nlohmann::json;

namespace {

// Copies a tensor out (arena values die with their tape).
std::vector<double> values(const Tensor& t) {
  std::vector<double> v(std::size_t(t.numel()));
  for (std::int64_t i = 0; i < t.numel(); ++i) v[std::size_t(i)] = t.at(i);
  return v;
}

// max|g|, min|g| and their ratio. This is bookkeeping over the tape's gradient (no
// derivative), so plain C++ is enough; it reads the already-rounded values of `dtype`.
json magnitude_record(const std::vector<double>& g) {
  double hi = 0, lo = std::numeric_limits<double>::infinity();
  for (double x : g) hi = std::max(hi, std::abs(x)), lo = std::min(lo, std::abs(x));
  return {{"grad", g}, {"max_abs", hi}, {"min_abs", lo}, {"ratio", hi / lo}};
}

// ---- literal ------------------------------------------------------------------------

// The blog's softmax subtracts np.max(a) over the WHOLE array and normalises by
// np.sum over the whole array. Every input it gets — (n,) and [[10, 7, 5]] of shape
// [1, 3] — has a single row, so that equals our last-axis softmax.
std::vector<double> softmax_of_ones(std::int64_t n, DType dtype) {
  Tape tape;
  TapeScope scope(tape);
  return values(softmax(constant(Tensor::ones({n}, dtype))).value());
}

struct BlogGradient {
  double loss;
  std::vector<double> grad;  // d loss / d y
};

// cross_entropy_error(y, x) = -np.mean(x * np.log(y + 1e-7)) and
// egrad(cross_entropy_error, 0)(y, x). Argument 0 is y — the one-hot LABEL the blog
// passes first — so the tape's leaf is y and x is a constant. (HIPS autograd would
// also differentiate the blog's integer y; we hold it in `dtype`.) x is soft-maxed on
// the tape when `softmax_x`, as in the first call; the later calls pass it raw.
BlogGradient blog_egrad(const Tensor& label, const Tensor& x_input, bool softmax_x) {
  Tape tape;
  TapeScope scope(tape);
  Parameter y(label);
  Var x = constant(x_input);
  if (softmax_x) x = softmax(x);
  // x [1, 3] times y [3] broadcasts to [1, 3] as in NumPy; mean is over all elements.
  Var loss = neg(mean(mul(x, log(add_scalar(leaf(y), 1e-7)))));
  tape.backward(loss);  // sums the gradient over the broadcast axis back to y's [3]
  return {loss.item(), values(y.grad)};
}

Tensor one_hot(std::int64_t n, std::int64_t index, DType dtype) {
  Tensor t = Tensor::zeros({n}, dtype);
  t.set(index, 1.0);
  return t;
}

}  // namespace

json literal_part(DType dtype) {
  json out;
  out["softmax_ones_10"] = softmax_of_ones(10, dtype);
  std::vector<double> big = softmax_of_ones(10000, dtype);
  out["softmax_ones_10000"] = {{"first", big.front()}, {"last", big.back()}};

  std::vector<double> z{10, 7, 5};
  BlogGradient g3 = blog_egrad(one_hot(3, 0, dtype), Tensor::from_data({1, 3}, z, dtype), true);
  out["loss_10_7_5"] = g3.loss;
  out["grad_10_7_5"] = magnitude_record(g3.grad);

  // x / divisor is NumPy's input preparation, so it is done here in double (one
  // correctly rounded division per element, as NumPy's), not on the tape.
  const std::pair<const char*, double> divisors[] = {
      {"1", 1.0}, {"sqrt20", std::sqrt(20.0)}, {"1000", 1000.0}, {"1e6", 1e6}};
  for (const auto& [name, divisor] : divisors) {
    std::vector<double> x(20);
    for (int i = 0; i < 20; ++i) x[std::size_t(i)] = double(i + 1) / divisor;
    BlogGradient g = blog_egrad(one_hot(20, 19, dtype), Tensor::from_data({20}, x, dtype), false);
    out["grad_1_to_20"][name] = magnitude_record(g.grad);
  }
  return out;
}

// ---- corrected ----------------------------------------------------------------------

namespace {

json corrected_record(const char* logits_name, const std::vector<double>& z, std::int32_t target,
                      const char* divisor_name, double s, DType dtype) {
  Tape tape;
  TapeScope scope(tape);
  std::int64_t d = std::int64_t(z.size());
  Parameter logits(Tensor::from_data({1, d}, z, dtype));
  Var x = leaf(logits) / s;  // mul_scalar(z, 1/s): the divisor is part of the graph
  std::vector<std::int32_t> t{target};
  tape.backward(cross_entropy(x, Tensor::from_data({1}, t)));  // mean over the 1 target

  NoGradGuard no_grad;
  Var p = softmax(x);
  // -Σ p·log_softmax rather than -Σ p·log p: log p would be -inf if a probability
  // underflowed to 0 in f32, while log_softmax stays finite and 0·finite = 0.
  double entropy = neg(sum(mul(p, log_softmax(x)))).item();
  json r = magnitude_record(values(logits.grad));  // max_abs, min_abs kept for the report
  r.update({{"logits", logits_name},
            {"target", target},
            {"divisor", divisor_name},
            {"divisor_value", s},
            {"max_prob", max(p).item()},
            {"entropy", entropy}});
  return r;
}

}  // namespace

json corrected_part(DType dtype) {
  struct Case {
    const char* name;
    std::vector<double> z;
    std::int32_t target;
  };
  std::vector<double> ramp(20);
  for (int i = 0; i < 20; ++i) ramp[std::size_t(i)] = i + 1;
  const Case cases[] = {{"10,7,5", {10, 7, 5}, 0}, {"1..20", ramp, 19}};
  json out = json::array();
  for (const Case& c : cases) {
    double d = double(c.z.size());
    const std::pair<const char*, double> divisors[] = {
        {"1", 1.0}, {"sqrt_d", std::sqrt(d)}, {"d", d}, {"1000", 1000.0}};
    for (const auto& [name, s] : divisors)
      out.push_back(corrected_record(c.name, c.z, c.target, name, s, dtype));
  }
  return out;
}

// ---- attention ----------------------------------------------------------------------

namespace {

constexpr const char* kMetrics[] = {"var_scores", "mean_max_prob",   "mean_entropy_nats",
                                    "grad_q_fro", "grad_scores_fro", "mean_softmax_jacobian_fro"};
constexpr int kNumMetrics = 6;

double fro(const Tensor& t) {  // ‖t‖_F on the current tape
  Var v = constant(t);
  return sqrt(sum(mul(v, v))).item();
}

struct Draw {
  Tensor q, k, v;
};

// One (draw, scale) sample of every metric, in kMetrics order.
std::array<double, kNumMetrics> attention_sample(const Draw& draw, double c) {
  Tape tape;
  TapeScope scope(tape);
  Parameter q(draw.q);
  Var S = matmul(leaf(q), constant(draw.k), false, true) * c;  // [L, L]
  Var A = softmax(S);
  tape.retain_grad(S);
  tape.backward(sum(matmul(A, constant(draw.v))));  // y = Σ (A·V)

  const std::int64_t L = S.shape()[0];
  std::array<double, kNumMetrics> m{};
  m[3] = fro(q.grad);
  m[4] = fro(S.grad());  // ∂y/∂S, as the tape accumulated it at the S node

  NoGradGuard no_grad;
  Var s = constant(S.value()), a = constant(A.value());
  Var centred = s - mean(s).item();
  m[0] = mean(mul(centred, centred)).item();  // population variance of the L² scores
  m[1] = mean(max(a, 1)).item();
  // log_softmax, not log(a): a saturated row has probabilities that underflow to 0.
  m[2] = mean(neg(sum(mul(a, log_softmax(s)), 1))).item();
  // Row Jacobian of softmax, J_r = diag(a_r) − a_r a_rᵀ, built explicitly as [L, L, L]:
  // the expanded ‖J‖² = Σa² − 2Σa³ + (Σa²)² cancels catastrophically when a row saturates.
  Tensor eye = Tensor::zeros({L, L}, DType::f64);
  for (std::int64_t i = 0; i < L; ++i) eye.set(i * L + i, 1.0);
  Var col = reshape(a, {L, L, 1});
  Var J = mul(col, constant(eye)) - matmul(col, reshape(a, {L, 1, L}));
  m[5] = mean(sqrt(sum(sum(mul(J, J), 2), 1))).item();
  return m;
}

json mean_std(const std::vector<double>& xs) {
  double n = double(xs.size()), mu = 0, ss = 0;
  for (double x : xs) mu += x;
  mu /= n;
  for (double x : xs) ss += (x - mu) * (x - mu);
  return {{"mean", mu}, {"std", std::sqrt(ss / (n - 1))}};  // sample std (seeds ≥ 2)
}

}  // namespace

json attention_part(const AttentionStudyOptions& o) {
  if (o.d_k.empty() || o.length < 1 || o.seeds < 2)
    throw std::invalid_argument("attention study: needs d_k values, length >= 1 and seeds >= 2");
  const Generator base(o.seed);
  json out = json::array();
  for (std::int64_t dk : o.d_k) {
    if (dk < 1) throw std::invalid_argument("attention study: d_k must be >= 1");
    const std::pair<const char*, double> scales[] = {{"1", 1.0},
                                                     {"1/sqrt(d_k)", 1.0 / std::sqrt(double(dk))},
                                                     {"1/d_k", 1.0 / double(dk)},
                                                     {"0.5", 0.5}};
    // samples[scale][metric][seed]. All four scales see the same draws (common random
    // numbers), so differences between scales are not sampling noise.
    std::vector<std::array<std::vector<double>, kNumMetrics>> samples(4);
    for (std::int64_t i = 0; i < o.seeds; ++i) {
      Generator gen = base.fork(std::uint64_t(i));
      Draw draw;
      draw.q = randn({o.length, dk}, gen, DType::f64);
      draw.k = randn({o.length, dk}, gen, DType::f64);
      draw.v = randn({o.length, dk}, gen, DType::f64);  // d_v = d_k
      for (std::size_t si = 0; si < 4; ++si) {
        std::array<double, kNumMetrics> m = attention_sample(draw, scales[si].second);
        for (int k = 0; k < kNumMetrics; ++k)
          samples[si][std::size_t(k)].push_back(m[std::size_t(k)]);
      }
    }
    for (std::size_t si = 0; si < 4; ++si) {
      double c = scales[si].second;
      json r{{"d_k", dk},
             {"scale", scales[si].first},
             {"scale_value", c},
             {"length", o.length},
             {"seeds", o.seeds},
             {"expected_var_scores", c * c * double(dk)}};  // Var(q·k) = d_k for iid N(0,1)
      for (int k = 0; k < kNumMetrics; ++k) r[kMetrics[k]] = mean_std(samples[si][std::size_t(k)]);
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace ablate::experiments::study
