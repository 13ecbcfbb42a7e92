#pragma once
// LR sensitivity (Wortsman et al. 2023, "Small-scale proxies for large-scale Transformer
// training instabilities", §2.2): "LR sensitivity measures the deviation in final
// validation loss from optimal when sweeping LR across three orders of magnitude". With
// ℓ(η) the final validation loss of training at learning rate η, ℓ* = min over the
// grid of ℓ(η) and ℓ0 the loss at initialisation, it is the mean over the grid of
// min(ℓ(η), ℓ0) − ℓ* (the paper averages over its seven rates {3e-4, 1e-3, …, 3e-1}).
//
// `[report] lr_sensitivity = "train.lr"` computes it per sweep point and seed over the
// point's [tune] settings of that key — every setting on every seed (no tune.seeds) —
// and adds it as the test metric lr_sensitivity (lower: less sensitive), which
// comparisons and claims treat like any other. ℓ is the trial's last evaluation's
// validation loss; a diverged trial counts as ℓ0; ℓ0 is the trial's init_loss (the
// first batch's training loss at the initial weights, which every setting of a seed
// shares). A seed with a setting missing, failed or without init_loss gets no value.
#include "experiments/analysis/point_results.h"
#include "experiments/analysis/trial_rows.h"

namespace ablate::experiments {

// Adds lr_sensitivity to every point of `points` (at each seed that has every setting)
// and to points.test_metrics, when `key` (the [report] setting) is not "".
void add_lr_sensitivity(const RunRows& run, const std::string& key, RunPoints& points);

}  // namespace ablate::experiments
