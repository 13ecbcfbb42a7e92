#pragma once
// train.norm_telemetry: how far each BatchNorm module's batch statistics are from its
// running statistics while it trains (Shen et al. 2020, PowerNorm: far in NLP, close
// in vision; nn/norms/batch_statistics_drift.h defines the distances). Each evaluation
// record of metrics.jsonl gets "norm_drift": per module, the mean over the training
// batches since the previous evaluation; summary.json the mean over all of training
// and over the last interval. Norms without batch statistics have no entry.
#include <vector>

#include "experiments/records/evaluation.h"
#include "nn/module.h"

namespace ablate::experiments {

// Switches recording on in every BatchNorm module of the model.
void start_norm_telemetry(nn::Module& model);

// Per module, the drift since the last call (or the start), and starts the next interval.
std::vector<Evaluation::NormDrift> take_norm_drift(nn::Module& model);

// Per module, the drift over every training batch so far.
std::vector<Evaluation::NormDrift> norm_drift_over_training(nn::Module& model);

}  // namespace ablate::experiments
