// LayerNorm (Ba et al. 2016): per token, over the features; "weight" (γ, ones) and
// "bias" (β, zeros) as in torch.nn.LayerNorm.
#include "nn/init.h"
#include "nn/norms/norm.h"

namespace ablate::nn {

namespace {

class LayerNorm : public Norm {
 public:
  LayerNorm(std::int64_t d, double eps, bool affine, DType dtype) : eps_(eps) {
    if (affine) {
      gamma_ = &add_parameter("weight", init::ones({d}, dtype));
      beta_ = &add_parameter("bias", init::zeros({d}, dtype));
    }
  }
  Var forward(const Var& x, const Tensor&) override {
    return layer_norm(x, gamma_ ? leaf(*gamma_) : Var(), beta_ ? leaf(*beta_) : Var(), eps_);
  }

 private:
  double eps_;
  Parameter* gamma_ = nullptr;
  Parameter* beta_ = nullptr;
};

}  // namespace

void register_layer_norm(NormRegistry& r) {
  r.add({"layer",
         "LayerNorm over each token's features (Ba et al. 2016)",
         {{"eps", 1e-5, "added to the variance", 0.0, 1.0},
          {"affine", true, "learned scale and shift"}},
         [](const Options& o, const BuildContext& c) {
           return std::make_unique<LayerNorm>(c.d_model, o.get_float("eps"), o.get_bool("affine"),
                                              c.dtype);
         }});
}

}  // namespace ablate::nn
