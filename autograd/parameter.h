#pragma once
// A persistent leaf: a value that lives across steps (a weight, or a gradcheck input)
// and the gradient that backward() accumulates into. Modules own Parameters; a tape
// only points at them while a step runs.
#include "autograd/tensor.h"

namespace ablate {

struct Parameter {
  Parameter() = default;
  explicit Parameter(Tensor initial_value, bool requires_grad = true);

  void zero_grad() const { grad.fill(0.0); }

  Tensor value;
  Tensor grad;  // same shape and dtype as value; += by every backward() reaching it
  bool requires_grad = true;
};

}  // namespace ablate
