#include "autograd/gradcheck.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace ablate {

namespace {

Var evaluate(Tape& tape, const std::function<Var()>& f) {
  tape.reset();
  Var out = f();
  if (!out.defined()) throw std::invalid_argument("gradcheck: f returned an undefined Var");
  if (out.dtype() != DType::f64)
    throw std::invalid_argument(std::string("gradcheck: f must return f64, got ") +
                                dtype_name(out.dtype()));
  return out;
}

double projected(const Var& out, const Tensor& r) {
  const double* y = out.value().data<double>();
  const double* w = r.data<double>();
  double total = 0;
  for (std::int64_t i = 0, n = out.numel(); i < n; ++i) total += y[i] * w[i];
  return total;
}

// Which elements of a tensor of n elements to check: all, or a seeded sample.
std::vector<std::int64_t> elements_to_check(std::int64_t n, std::int64_t most, Generator& gen) {
  std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) idx[std::size_t(i)] = i;
  if (most <= 0 || n <= most) return idx;
  for (std::int64_t i = 0; i < most; ++i) {  // partial Fisher-Yates
    std::int64_t j = i + std::int64_t(gen.next_u64() % std::uint64_t(n - i));
    std::swap(idx[std::size_t(i)], idx[std::size_t(j)]);
  }
  idx.resize(std::size_t(most));
  return idx;
}

}  // namespace

GradcheckResult gradcheck_parameters(const std::function<Var()>& f,
                                     std::span<Parameter* const> parameters,
                                     const GradcheckOptions& options) {
  for (std::size_t i = 0; i < parameters.size(); ++i)
    if (parameters[i]->value.dtype() != DType::f64)
      throw std::invalid_argument("gradcheck: input " + std::to_string(i) + " has dtype " +
                                  dtype_name(parameters[i]->value.dtype()) +
                                  "; gradcheck needs f64");
  Tape tape;
  TapeScope scope(tape);
  GradcheckResult result;

  // Analytic: one backward of Σ y⊙r.
  for (Parameter* p : parameters) p->zero_grad();
  Var out = evaluate(tape, f);
  Generator gen(options.seed);
  Tensor r = out.numel() == 1 ? Tensor::ones(out.shape(), DType::f64)
                              : randn(out.shape(), gen, DType::f64);
  for (std::size_t k = 0; k < tape.size(); ++k)
    result.op_kinds.set(std::size_t(tape.node(std::uint32_t(k)).op));
  if (out.requires_grad()) tape.backward(out, r);
  std::vector<Tensor> analytic;
  for (Parameter* p : parameters) analytic.push_back(p->grad.clone());

  // Numeric: central differences, one element at a time.
  std::ostringstream worst;
  worst.precision(12);
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    Tensor v = parameters[i]->value;
    for (std::int64_t j : elements_to_check(v.numel(), options.max_elements_per_input, gen)) {
      double x = v.at(j);
      v.set(j, x + options.eps);
      double plus = projected(evaluate(tape, f), r);
      v.set(j, x - options.eps);
      double minus = projected(evaluate(tape, f), r);
      v.set(j, x);
      double numeric = (plus - minus) / (2 * options.eps);
      double a = analytic[i].at(j);
      double err = std::abs(a - numeric) / std::max({1.0, std::abs(a), std::abs(numeric)});
      if (!(err <= result.max_error) || std::isnan(err)) {
        result.max_error = std::isnan(err) ? INFINITY : err;
        worst.str("");
        worst << "input " << i << " (shape " << v.shape().str() << ") element " << j
              << ": analytic " << a << ", numeric " << numeric << ", error " << err;
      }
    }
  }
  tape.reset();
  result.ok = result.max_error <= options.tolerance;
  result.message = worst.str().empty() ? "no inputs to check" : worst.str();
  return result;
}

GradcheckResult gradcheck(const GradcheckFunction& f, std::span<const Tensor> inputs,
                          const GradcheckOptions& options) {
  std::vector<Parameter> params;
  params.reserve(inputs.size());
  for (const Tensor& t : inputs) params.emplace_back(t.clone());
  std::vector<Parameter*> pointers;
  for (Parameter& p : params) pointers.push_back(&p);
  return gradcheck_parameters(
      [&] {
        std::vector<Var> vars;
        vars.reserve(params.size());
        for (Parameter& p : params) vars.push_back(Tape::current().leaf(p));
        return f(vars);
      },
      pointers, options);
}

}  // namespace ablate
