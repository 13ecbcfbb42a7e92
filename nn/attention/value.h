#pragma once
// How values are made, the "attention.v" axis: `projected` (W_v) | `identity` (the
// input itself, split into heads; needs heads·d_v = d_model).
#include "nn/build_context.h"
#include "nn/module.h"
#include "nn/registry.h"

namespace ablate::nn {

class ValueProjection : public Module {
 public:
  // x_kv [B, Tk, D] → [B, Tk, H·d_v].
  virtual Var project(const Var& x_kv) = 0;
};

using ValueRegistry = Registry<ValueProjection, const BuildContext&>;
ValueRegistry& value_registry();

}  // namespace ablate::nn
