#pragma once
// The factor attention scores are multiplied by before the softmax, the
// "attention.scale" axis: sqrt_dk (1/sqrt(d_k), Vaswani et al.) | none (1) | dk (1/d_k)
// | constant (any number, e.g. 0.5 as in TabNet) | learned (one scalar per head,
// initialised to 1/sqrt(d_k)). The blog's question — why divide by sqrt(d_k) — is this
// axis.
#include <optional>

#include "nn/build_context.h"
#include "nn/module.h"
#include "nn/registry.h"

namespace ablate::nn {

class ScoreScale : public Module {
 public:
  // A fixed factor is fused into the softmax; nullopt means apply() does the scaling.
  virtual std::optional<double> constant_factor() const = 0;
  // scores [B, H, Tq, Tk] → scaled (learned scales only).
  virtual Var apply(const Var& scores) { return scores; }
};

using ScoreScaleRegistry = Registry<ScoreScale, const BuildContext&>;
ScoreScaleRegistry& score_scale_registry();

}  // namespace ablate::nn
