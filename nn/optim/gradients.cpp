#include "nn/optim/gradients.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "nn/options.h"

namespace ablate::nn {

namespace {

double grad_squared_sum(const Parameter& p) {
  return dispatch_float(p.grad.dtype(), "gradient norm", [&]<class T>() {
    const T* g = p.grad.data<T>();
    double sum = 0;
    for (std::int64_t i = 0, n = p.grad.numel(); i < n; ++i) sum += double(g[i]) * double(g[i]);
    return sum;
  });
}

void scale_grad(const Parameter& p, double factor) {
  dispatch_float(p.grad.dtype(), "gradient clipping", [&]<class T>() {
    T* g = p.grad.data<T>();
    const T f = T(factor);
    for (std::int64_t i = 0, n = p.grad.numel(); i < n; ++i) g[i] *= f;
  });
}

// The name up to its depth-th dot, or up to its last dot when it has fewer:
// "a.b.c.weight" → "a.b" at depth 2, "a.weight" → "a" at any depth.
std::string group_of(const std::string& name, int depth) {
  std::size_t end = std::string::npos, from = 0;
  for (int k = 0; k < depth; ++k) {
    std::size_t dot = name.find('.', from);
    if (dot == std::string::npos) break;
    end = dot;
    from = dot + 1;
  }
  return end == std::string::npos ? name : name.substr(0, end);
}

}  // namespace

double global_grad_norm(const std::vector<Parameter*>& parameters) {
  double sum = 0;
  for (const Parameter* p : parameters)
    if (p->requires_grad) sum += grad_squared_sum(*p);
  return std::sqrt(sum);
}

double clip_grad_norm(const std::vector<Parameter*>& parameters, double max_norm) {
  if (!(max_norm > 0) || !std::isfinite(max_norm))
    throw std::invalid_argument("clip_grad_norm: max_norm must be finite and > 0, got " +
                                option_to_string(max_norm));
  const double norm = global_grad_norm(parameters);
  if (!std::isfinite(norm) || norm <= max_norm) return norm;
  const double factor = max_norm / (norm + 1e-6);
  for (const Parameter* p : parameters)
    if (p->requires_grad) scale_grad(*p, factor);
  return norm;
}

std::vector<std::pair<std::string, double>> grad_norms_by_module(const Module& root, int depth) {
  if (depth < 1)
    throw std::invalid_argument("grad_norms_by_module: depth must be >= 1, got " +
                                std::to_string(depth));
  std::vector<std::pair<std::string, double>> groups;  // squared sums until the end
  for (const auto& [name, p] : root.named_parameters()) {
    if (!p->requires_grad) continue;
    std::string group = group_of(name, depth);
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == group; });
    if (it == groups.end()) it = groups.insert(groups.end(), {group, 0.0});
    it->second += grad_squared_sum(*p);
  }
  for (auto& [group, sum] : groups) sum = std::sqrt(sum);
  return groups;
}

}  // namespace ablate::nn
