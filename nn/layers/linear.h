#pragma once
// y = x·Wᵀ + b over the last axis. W is [out, in] as in PyTorch (so checkpoints and
// parity fixtures map one to one); x of any rank ≤ 4 is one GEMM over all its rows.
#include "nn/build_context.h"
#include "nn/module.h"

namespace ablate::nn {

class Linear : public Module {
 public:
  // Parameters "weight" [out, in], Xavier-uniform (as the Transformer paper's reference
  // code), and, with bias, "bias" [out], zeros.
  Linear(std::int64_t in, std::int64_t out, bool bias, Generator& gen, DType dtype = DType::f32);
  // The same with "weight" [out, in] given, for a component whose option picks another
  // initialisation (separate Q/K's init = "unit_variance"); the bias, zeros, takes its dtype.
  Linear(Tensor weight, bool bias);

  Var forward(const Var& x);
  Var forward_relu(const Var& x);  // relu(forward(x)), fused
  std::int64_t in_features() const { return in_; }
  std::int64_t out_features() const { return out_; }
  Parameter& weight() { return *weight_; }
  Parameter* bias() { return bias_; }

 private:
  Var apply(const Var& x, Var (*op)(const Var&, const Var&, const Var&));
  std::int64_t in_, out_;
  Parameter* weight_;
  Parameter* bias_ = nullptr;
};

}  // namespace ablate::nn
