#pragma once
// Normalisation, the "norm" axis: layer | batch | rms | none | dyt. Placement (post or pre)
// belongs to the Transformer layers, not to the norm.
#include "nn/build_context.h"
#include "nn/module.h"
#include "nn/norms/batch_statistics_drift.h"
#include "nn/registry.h"

namespace ablate::nn {

class Norm : public Module {
 public:
  // x [B, T, D]; token_mask b8 [B, T] (true = real token; undefined = all real).
  // Only BatchNorm reads the mask: its statistics skip padding.
  virtual Var forward(const Var& x, const Tensor& token_mask) = 0;
  // The drift of its batch statistics from its running statistics, for a norm that
  // has both (BatchNorm); null for the others.
  virtual BatchStatisticsDrift* batch_statistics_drift() { return nullptr; }
};

using NormRegistry = Registry<Norm, const BuildContext&>;
NormRegistry& norm_registry();

void register_layer_norm(NormRegistry&);
void register_batch_norm(NormRegistry&);
void register_rms_norm(NormRegistry&);
void register_no_norm(NormRegistry&);
void register_dyt_norm(NormRegistry&);

}  // namespace ablate::nn
