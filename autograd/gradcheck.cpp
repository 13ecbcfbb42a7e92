#include "autograd/gradcheck.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace ablate {

namespace {

Var evaluate(Tape& tape, const GradcheckFunction& f, std::vector<Parameter>& params) {
  tape.reset();
  std::vector<Var> vars;
  vars.reserve(params.size());
  for (Parameter& p : params) vars.push_back(tape.leaf(p));
  Var out = f(vars);
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

}  // namespace

GradcheckResult gradcheck(const GradcheckFunction& f, std::span<const Tensor> inputs,
                          const GradcheckOptions& options) {
  std::vector<Parameter> params;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype() != DType::f64)
      throw std::invalid_argument("gradcheck: input " + std::to_string(i) + " has dtype " +
                                  dtype_name(inputs[i].dtype()) + "; gradcheck needs f64");
    params.emplace_back(inputs[i].clone());
  }
  Tape tape;
  TapeScope scope(tape);
  GradcheckResult result;

  // Analytic: one backward of Σ y⊙r.
  Var out = evaluate(tape, f, params);
  Generator gen(options.seed);
  Tensor r = out.numel() == 1 ? Tensor::ones(out.shape(), DType::f64)
                              : randn(out.shape(), gen, DType::f64);
  for (std::size_t k = 0; k < tape.size(); ++k)
    result.op_kinds.set(std::size_t(tape.node(std::uint32_t(k)).op));
  if (out.requires_grad()) tape.backward(out, r);
  std::vector<Tensor> analytic;
  for (Parameter& p : params) analytic.push_back(p.grad.clone());

  // Numeric: central differences, one element at a time.
  std::ostringstream worst;
  worst.precision(12);
  for (std::size_t i = 0; i < params.size(); ++i) {
    Tensor v = params[i].value;
    for (std::int64_t j = 0; j < v.numel(); ++j) {
      double x = v.at(j);
      v.set(j, x + options.eps);
      double plus = projected(evaluate(tape, f, params), r);
      v.set(j, x - options.eps);
      double minus = projected(evaluate(tape, f, params), r);
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

}  // namespace ablate
