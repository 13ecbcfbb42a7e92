// RMSNorm (Zhang & Sennrich 2019): x / sqrt(mean(x²) + eps) · γ — LayerNorm without
// centring or shift.
#include "nn/init.h"
#include "nn/norms/norm.h"

namespace ablate::nn {

namespace {

class RmsNorm : public Norm {
 public:
  RmsNorm(std::int64_t d, double eps, DType dtype) : eps_(eps) {
    gamma_ = &add_parameter("weight", init::ones({d}, dtype));
  }
  Var forward(const Var& x, const Tensor&) override {
    Var inv_rms = pow_scalar(mean(x * x, -1, true) + eps_, -0.5);
    return x * inv_rms * leaf(*gamma_);
  }

 private:
  double eps_;
  Parameter* gamma_;
};

}  // namespace

void register_rms_norm(NormRegistry& r) {
  r.add({"rms",
         "RMSNorm: scale by the root mean square, no centring (Zhang & Sennrich 2019)",
         {{"eps", 1e-6, "added to the mean square", 0.0, 1.0}},
         [](const Options& o, const BuildContext& c) {
           return std::make_unique<RmsNorm>(c.d_model, o.get_float("eps"), c.dtype);
         }});
}

}  // namespace ablate::nn
