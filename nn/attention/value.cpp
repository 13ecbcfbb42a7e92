// The two value variants are one line of logic each, so they share this file.
#include "nn/attention/value.h"

#include "nn/layers/linear.h"

namespace ablate::nn {

namespace {

class ProjectedValue : public ValueProjection {
 public:
  explicit ProjectedValue(const BuildContext& c) {
    w_v_ = &add_module(
        "w_v", std::make_unique<Linear>(c.d_model, c.heads * c.d_v, c.bias, c.init_rng(), c.dtype));
  }
  Var project(const Var& x) override { return w_v_->forward(x); }

 private:
  Linear* w_v_;
};

class IdentityValue : public ValueProjection {
 public:
  Var project(const Var& x) override { return x; }
};

}  // namespace

ValueRegistry& value_registry() {
  static ValueRegistry registry = [] {
    ValueRegistry r("attention.v");
    r.add({"projected",
           "values through a projection W_v",
           {},
           [](const Options&, const BuildContext& c) {
             return std::make_unique<ProjectedValue>(c);
           }});
    r.add({"identity",
           "values are the inputs themselves, split into heads",
           {},
           [](const Options&, const BuildContext& c) {
             if (c.heads * c.d_v != c.d_model)
               throw std::invalid_argument("attention.v 'identity' needs heads * d_v == d_model (" +
                                           std::to_string(c.heads) + " * " + std::to_string(c.d_v) +
                                           " != " + std::to_string(c.d_model) + ")");
             return std::make_unique<IdentityValue>();
           }});
    return r;
  }();
  return registry;
}

}  // namespace ablate::nn
