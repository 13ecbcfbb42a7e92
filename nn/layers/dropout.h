#pragma once
// Dropout as a module: active in train(), the identity in eval(). Spatial dropout
// (Tompson et al. 2015, Keras's SpatialDropout1D) drops whole feature channels of a
// sequence: one keep/drop draw per (batch, feature), shared by every position — the
// variant the blog mentions for embeddings.
#include "nn/module.h"

namespace ablate::nn {

class Dropout : public Module {
 public:
  Dropout(double p, Generator& gen, bool spatial = false);
  // x [..., D]; spatial dropout needs x [B, T, D].
  Var forward(const Var& x);
  double p() const { return p_; }

 private:
  double p_;
  Generator& gen_;
  bool spatial_;
};

}  // namespace ablate::nn
