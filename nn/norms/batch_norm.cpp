// BatchNorm (Ioffe & Szegedy 2015) over batch × time per feature. Its statistics
// come from real tokens only — padding is excluded, which PyTorch's BatchNorm1d
// cannot do — and eval() switches to the running statistics ("running_mean",
// "running_var" buffers, as in torch.nn.BatchNorm1d).
#include "autograd/checkpoint.h"
#include "nn/init.h"
#include "nn/norms/norm.h"

namespace ablate::nn {

namespace {

class BatchNorm : public Norm {
 public:
  BatchNorm(std::int64_t d, double eps, double momentum, bool affine, DType dtype)
      : eps_(eps), momentum_(momentum) {
    if (affine) {
      gamma_ = &add_parameter("weight", init::ones({d}, dtype));
      beta_ = &add_parameter("bias", init::zeros({d}, dtype));
    }
    running_mean_ = &add_buffer("running_mean", Tensor::zeros({d}, dtype));
    running_var_ = &add_buffer("running_var", Tensor::ones({d}, dtype));
  }
  Var forward(const Var& x, const Tensor& token_mask) override {
    Tensor rows = token_mask.defined() ? token_mask.reshaped({token_mask.numel()}) : Tensor();
    // Not while checkpoint recomputes the layer: its forward measured this batch already.
    const bool measuring = training() && drift_.recording && !recomputing();
    // The running statistics before this batch updates them (batch_norm updates in place).
    Tensor running_mean_before = measuring ? running_mean_->clone() : Tensor();
    Tensor running_var_before = measuring ? running_var_->clone() : Tensor();
    BatchStatistics batch;
    Var y = batch_norm(x, rows, gamma_ ? leaf(*gamma_) : Var(), beta_ ? leaf(*beta_) : Var(),
                       *running_mean_, *running_var_, training(), momentum_, eps_,
                       measuring ? &batch : nullptr);
    if (measuring)
      drift_.record(batch_statistics_distance(batch, running_mean_before, running_var_before));
    return y;
  }
  BatchStatisticsDrift* batch_statistics_drift() override { return &drift_; }

 private:
  double eps_, momentum_;
  Parameter* gamma_ = nullptr;
  Parameter* beta_ = nullptr;
  Tensor* running_mean_;
  Tensor* running_var_;
  BatchStatisticsDrift drift_;
};

}  // namespace

void register_batch_norm(NormRegistry& r) {
  r.add({"batch",
         "BatchNorm over batch × time per feature, statistics from non-padding tokens, running "
         "statistics in eval",
         {{"eps", 1e-5, "added to the variance", 0.0, 1.0},
          {"momentum", 0.1, "weight of the batch in the running statistics", 0.0, 1.0},
          {"affine", true, "learned scale and shift"}},
         [](const Options& o, const BuildContext& c) {
           return std::make_unique<BatchNorm>(c.d_model, o.get_float("eps"),
                                              o.get_float("momentum"), o.get_bool("affine"),
                                              c.dtype);
         }});
}

}  // namespace ablate::nn
