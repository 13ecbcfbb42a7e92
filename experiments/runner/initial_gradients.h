#pragma once
// Every trial's gradient norms at initialisation (InitialGradients, records/trial_outcome.h):
// those of its first training batch at the initial weights, before clipping and before
// any update, per module group and overall. summary.json holds them as
// "init_grad_norms" ({group: norm}) and "init_grad_norm" (the global norm); the
// resume state carries them, so a resumed trial writes the same numbers.
#include <vector>

#include "experiments/records/trial_outcome.h"
#include "nn/module.h"

namespace ablate::experiments {

// The model's gradients now (after the first backward pass, before clipping); its
// parameters as clipping sees them, for the global norm.
InitialGradients measure_initial_gradients(const nn::Module& model,
                                           const std::vector<Parameter*>& parameters);

}  // namespace ablate::experiments
