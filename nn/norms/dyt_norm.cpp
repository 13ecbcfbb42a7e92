// DyT, Dynamic Tanh (Zhu, Chen, He, LeCun & Liu 2025, "Transformers without
// Normalization", CVPR 2025): an element-wise stand-in for LayerNorm,
//   DyT(x) = γ ⊙ tanh(α·x) + β,
// α one learned scalar, γ ones and β zeros per feature (the paper's definition of DyT
// and its reference code, github:jiachenzhu/DyT dynamic_tanh.py: parameters `alpha`
// [1], `weight` [D], `bias` [D], forward tanh(alpha * x) * weight + bias — the names
// kept here so checkpoints and parity fixtures map one to one).
// α starts at `alpha_init`: 0.5, the reference code's `alpha_init_value` default and
// the value the paper uses for its non-LLM models. Its LLaMA runs set α by position
// and model size instead (the reference repository's other_tasks/LLaMA/README.md: 0.8
// down to 0.2 before attention, 0.2 down to 0.05 before the FFN and in the final norm);
// one module here has one `alpha_init`, so such a split is not expressible yet.
// Verified: the formula, the parameter shapes and the 0.5 default, from the reference
// code, its README and summaries quoting the paper. Not verified against the paper's
// own text: its section and equation numbers (the PDF was not readable here), so none
// are quoted.
// Unlike LayerNorm, it reads no statistics: tokens (and padding) never mix.
#include "nn/init.h"
#include "nn/norms/norm.h"

namespace ablate::nn {

namespace {

class DynamicTanh : public Norm {
 public:
  DynamicTanh(std::int64_t d, double alpha_init, DType dtype) {
    alpha_ = &add_parameter("alpha", Tensor::full({1}, alpha_init, dtype));
    gamma_ = &add_parameter("weight", init::ones({d}, dtype));
    beta_ = &add_parameter("bias", init::zeros({d}, dtype));
  }
  Var forward(const Var& x, const Tensor&) override {
    return tanh(x * leaf(*alpha_)) * leaf(*gamma_) + leaf(*beta_);
  }

 private:
  Parameter* alpha_;
  Parameter* gamma_;
  Parameter* beta_;
};

}  // namespace

void register_dyt_norm(NormRegistry& r) {
  r.add(
      {"dyt",
       "Dynamic Tanh: γ · tanh(α·x) + β, one learned α, no statistics (Zhu et al. 2025)",
       {{"alpha_init", 0.5, "initial α (0.5: the paper's default for non-LLM models)", 0.0, 100.0}},
       [](const Options& o, const BuildContext& c) {
         return std::make_unique<DynamicTanh>(c.d_model, o.get_float("alpha_init"), c.dtype);
       }});
}

}  // namespace ablate::nn
