// Stochastic gradient descent with optional momentum, exactly torch.optim.SGD (1.13).
// For each parameter w with gradient g, at its k-th update:
//   d = g + weight_decay·w                               (L2 penalty in the gradient)
//   with momentum μ > 0:  b = d                          when k = 1 (no dampening yet)
//                         b = μ·b + (1 - dampening)·d    afterwards
//                         d = d + μ·b (nesterov)  or  d = b
//   w = w - lr·d
#include "nn/optim/optimizer.h"

namespace ablate::nn {

namespace {

class Sgd : public Optimizer {
 public:
  Sgd(const NamedParameters& parameters, double momentum, double dampening, bool nesterov,
      double weight_decay)
      : Optimizer(parameters),
        momentum_(momentum),
        dampening_(dampening),
        nesterov_(nesterov),
        weight_decay_(weight_decay) {
    if (momentum_ != 0) add_slot("momentum_buffer");  // the name PyTorch uses
  }

 private:
  void update(ParameterState& s, double lr) override {
    dispatch_float(s.parameter->value.dtype(), "sgd", [&]<class T>() {
      T* w = s.parameter->value.data<T>();
      const T* g = s.parameter->grad.data<T>();
      T* b = momentum_ != 0 ? s.slots[0].second.data<T>() : nullptr;
      const bool first = s.updates == 1;
      const bool decay = weight_decay_ != 0;
      const T mu = T(momentum_), keep = T(1 - dampening_), wd = T(weight_decay_), eta = T(lr);
      const std::int64_t n = s.parameter->value.numel();
      for (std::int64_t i = 0; i < n; ++i) {
        T d = decay ? g[i] + wd * w[i] : g[i];
        if (b) {
          b[i] = first ? d : mu * b[i] + keep * d;
          d = nesterov_ ? d + mu * b[i] : b[i];
        }
        w[i] -= eta * d;
      }
    });
  }

  double momentum_, dampening_;
  bool nesterov_;
  double weight_decay_;
};

}  // namespace

void register_sgd(OptimizerRegistry& r) {
  r.add({"sgd",
         "SGD with optional (Nesterov) momentum, as torch.optim.SGD",
         {{"momentum", 0.0, "momentum factor μ (0 = plain SGD)", 0.0},
          {"dampening", 0.0, "scales the new gradient in the momentum buffer by 1 - dampening", 0.0,
           1.0},
          {"nesterov", false, "Nesterov momentum (needs momentum > 0 and dampening = 0)"},
          {"weight_decay", 0.0, "L2 penalty: weight_decay·w is added to the gradient", 0.0}},
         [](const Options& o, NamedParameters parameters) -> std::unique_ptr<Optimizer> {
           const double momentum = o.get_float("momentum"), dampening = o.get_float("dampening");
           if (o.get_bool("nesterov") && (momentum <= 0 || dampening != 0))
             throw OptionError("optimizer 'sgd'",
                               {{"nesterov",
                                 "option 'nesterov' = true needs momentum > 0 and "
                                 "dampening = 0, got momentum " +
                                     option_to_string(momentum) + " and dampening " +
                                     option_to_string(dampening)}});
           return std::make_unique<Sgd>(parameters, momentum, dampening, o.get_bool("nesterov"),
                                        o.get_float("weight_decay"));
         }});
}

}  // namespace ablate::nn
