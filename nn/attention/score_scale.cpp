// The fixed factors differ only in a number, so they share one class; the learned
// scale has parameters.
#include "nn/attention/score_scale.h"

#include <cmath>

namespace ablate::nn {

namespace {

class FixedScale : public ScoreScale {
 public:
  explicit FixedScale(double factor) : factor_(factor) {}
  std::optional<double> constant_factor() const override { return factor_; }

 private:
  double factor_;
};

class LearnedScale : public ScoreScale {
 public:
  LearnedScale(std::int64_t heads, double initial, DType dtype) : heads_(heads) {
    scale_ = &add_parameter("scale", Tensor::full({heads}, initial, dtype));
  }
  std::optional<double> constant_factor() const override { return std::nullopt; }
  Var apply(const Var& scores) override {
    return scores * reshape(leaf(*scale_), {1, heads_, 1, 1});
  }

 private:
  std::int64_t heads_;
  Parameter* scale_;
};

std::unique_ptr<ScoreScale> fixed(double factor) {
  return std::make_unique<FixedScale>(factor);
}

}  // namespace

ScoreScaleRegistry& score_scale_registry() {
  static ScoreScaleRegistry registry = [] {
    ScoreScaleRegistry r("attention.scale");
    r.add({"sqrt_dk",
           "scores / sqrt(d_k) (Vaswani et al. 2017)",
           {},
           [](const Options&, const BuildContext& c) {
             return fixed(1.0 / std::sqrt(double(c.d_k)));
           }});
    r.add({"none", "unscaled scores (factor 1)", {}, [](const Options&, const BuildContext&) {
             return fixed(1.0);
           }});
    r.add({"dk", "scores / d_k", {}, [](const Options&, const BuildContext& c) {
             return fixed(1.0 / double(c.d_k));
           }});
    r.add({"constant",
           "scores × a fixed factor (e.g. 0.5 as in TabNet)",
           {{"value", 0.5, "the factor", -1e6, 1e6}},
           [](const Options& o, const BuildContext&) { return fixed(o.get_float("value")); }});
    r.add({"learned",
           "one learned factor per head, initialised to 1/sqrt(d_k)",
           {},
           [](const Options&, const BuildContext& c) {
             return std::make_unique<LearnedScale>(c.heads, 1.0 / std::sqrt(double(c.d_k)),
                                                   c.dtype);
           }});
    return r;
  }();
  return registry;
}

}  // namespace ablate::nn
