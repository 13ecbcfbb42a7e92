// Adam (Kingma & Ba 2015) and AdamW (Loshchilov & Hutter 2019), exactly
// torch.optim.Adam / AdamW of PyTorch 1.13 with amsgrad = False. For each parameter w
// with gradient g, at its k-th update (k = 1, 2, ...):
//   adamw:  w = w·(1 - lr·weight_decay)                  (decoupled decay, first)
//   adam:   g = g + weight_decay·w                       (L2 penalty in the gradient)
//   m = β1·m + (1 - β1)·g                                slot "exp_avg"
//   v = β2·v + (1 - β2)·g²                               slot "exp_avg_sq"
//   step_size = lr / (1 - β1^k)
//   denom = sqrt(v) / sqrt(1 - β2^k) + eps
//   w = w - step_size · m / denom
// Note eps is added after the bias correction of v, as PyTorch does (the paper adds
// it to the corrected estimate too; some implementations add it before).
#include <cmath>

#include "nn/optim/optimizer.h"

namespace ablate::nn {

namespace {

// One loop per weight-decay mode (0 none, 1 L2 as in adam, 2 decoupled as in adamw),
// with no branch inside, restrict pointers and scalars by value, so GCC vectorises
// it. Vector sqrt and division are exact: the result is the same bit for bit.
template <class T, int kMode>
void adam_loop(std::int64_t n, T* __restrict w, const T* __restrict g, T* __restrict m,
               T* __restrict v, T wd, T scale, T b1, T b2, T one_minus_b1, T one_minus_b2, T eps,
               T c2, T alpha) {
  for (std::int64_t i = 0; i < n; ++i) {
    if constexpr (kMode == 2) w[i] *= scale;
    T gi = g[i];
    if constexpr (kMode == 1) gi = g[i] + wd * w[i];
    m[i] = b1 * m[i] + one_minus_b1 * gi;
    v[i] = b2 * v[i] + one_minus_b2 * gi * gi;
    w[i] -= alpha * (m[i] / (std::sqrt(v[i]) / c2 + eps));
  }
}

class Adam : public Optimizer {
 public:
  Adam(const NamedParameters& parameters, double beta1, double beta2, double eps,
       double weight_decay, bool decoupled)
      : Optimizer(parameters),
        beta1_(beta1),
        beta2_(beta2),
        eps_(eps),
        weight_decay_(weight_decay),
        decoupled_(decoupled) {
    add_slot("exp_avg");
    add_slot("exp_avg_sq");
  }

 private:
  void update(ParameterState& s, double lr) override {
    // Scalars in double, as PyTorch computes them in Python before the tensor ops.
    const double k = double(s.updates);
    const double step_size = lr / (1 - std::pow(beta1_, k));
    const double correction2_sqrt = std::sqrt(1 - std::pow(beta2_, k));
    dispatch_float(s.parameter->value.dtype(), "adam", [&]<class T>() {
      T* w = s.parameter->value.data<T>();
      const T* g = s.parameter->grad.data<T>();
      T* m = s.slots[0].second.data<T>();
      T* v = s.slots[1].second.data<T>();
      const bool l2 = !decoupled_ && weight_decay_ != 0;
      const bool shrink = decoupled_ && weight_decay_ != 0;
      const T wd = T(weight_decay_), scale = T(1 - lr * weight_decay_);
      const T b1 = T(beta1_), b2 = T(beta2_), one_minus_b1 = T(1 - beta1_),
              one_minus_b2 = T(1 - beta2_);
      const T eps = T(eps_), c2 = T(correction2_sqrt), alpha = T(step_size);
      const std::int64_t n = s.parameter->value.numel();
      if (l2)
        adam_loop<T, 1>(n, w, g, m, v, wd, scale, b1, b2, one_minus_b1, one_minus_b2, eps, c2,
                        alpha);
      else if (shrink)
        adam_loop<T, 2>(n, w, g, m, v, wd, scale, b1, b2, one_minus_b1, one_minus_b2, eps, c2,
                        alpha);
      else
        adam_loop<T, 0>(n, w, g, m, v, wd, scale, b1, b2, one_minus_b1, one_minus_b2, eps, c2,
                        alpha);
    });
  }

  double beta1_, beta2_, eps_, weight_decay_;
  bool decoupled_;
};

// β = 1 would divide by a zero bias correction; OptionSpec ranges are inclusive.
void check_betas(const std::string& component, const Options& o) {
  std::vector<OptionIssue> issues;
  for (const char* key : {"beta1", "beta2"})
    if (o.get_float(key) >= 1)
      issues.push_back({key, std::string("option '") + key +
                                 "' = " + option_to_string(o.get_float(key)) +
                                 " is out of range (allowed [0, 1), 1 excluded)"});
  if (!issues.empty()) throw OptionError(component, std::move(issues));
}

std::vector<OptionSpec> adam_options(double default_weight_decay, const char* decay_doc) {
  return {{"beta1", 0.9, "decay rate β1 of the first-moment estimate, in [0, 1)", 0.0, 1.0},
          {"beta2", 0.999, "decay rate β2 of the second-moment estimate, in [0, 1)", 0.0, 1.0},
          {"eps", 1e-8, "added to the denominator sqrt(v̂)", 0.0},
          {"weight_decay", default_weight_decay, decay_doc, 0.0}};
}

}  // namespace

void register_adam(OptimizerRegistry& r) {
  r.add({"adam", "Adam, as torch.optim.Adam (weight decay as an L2 term in the gradient)",
         adam_options(0.0, "L2 penalty: weight_decay·w is added to the gradient"),
         [](const Options& o, NamedParameters parameters) -> std::unique_ptr<Optimizer> {
           check_betas("optimizer 'adam'", o);
           return std::make_unique<Adam>(parameters, o.get_float("beta1"), o.get_float("beta2"),
                                         o.get_float("eps"), o.get_float("weight_decay"), false);
         }});
  r.add({"adamw", "AdamW, as torch.optim.AdamW (decoupled weight decay)",
         adam_options(0.01, "decoupled decay: w is multiplied by 1 - lr·weight_decay each step"),
         [](const Options& o, NamedParameters parameters) -> std::unique_ptr<Optimizer> {
           check_betas("optimizer 'adamw'", o);
           return std::make_unique<Adam>(parameters, o.get_float("beta1"), o.get_float("beta2"),
                                         o.get_float("eps"), o.get_float("weight_decay"), true);
         }});
}

}  // namespace ablate::nn
