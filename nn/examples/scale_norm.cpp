// A new norm defined outside the library: ScaleNorm (Nguyen & Salazar 2019),
//   y = g · x / max(‖x‖₂, eps),  one learned scalar g initialised to sqrt(d_model).
// One file: the class, and one registration line that makes `norm = "scale"`
// available to every model and every sweep.
#include <cmath>

#include "nn/norms/norm.h"

namespace {

using namespace ablate;
using namespace ablate::nn;

class ScaleNorm : public Norm {
 public:
  ScaleNorm(std::int64_t d_model, double eps, DType dtype) : eps_(eps) {
    g_ = &add_parameter("g", Tensor::full({1}, std::sqrt(double(d_model)), dtype));
  }
  Var forward(const Var& x, const Tensor& /*token_mask*/) override {
    return l2_normalize(x, eps_) * leaf(*g_);
  }

 private:
  double eps_;
  Parameter* g_;
};

}  // namespace

ABLATE_REGISTER(norm_registry(),
                {"scale",
                 "ScaleNorm: g · x / ‖x‖ with one learned g (Nguyen & Salazar 2019)",
                 {{"eps", 1e-5, "smallest norm divided by", 0.0, 1.0}},
                 [](const Options& o, const BuildContext& c) -> std::unique_ptr<Norm> {
                   return std::make_unique<ScaleNorm>(c.d_model, o.get_float("eps"), c.dtype);
                 }});
