#pragma once
// The training telemetry of a run's trials in its reports.
//
// results.csv columns (before params and the timings):
//   init_grad_norm               the global gradient norm of the first training batch at
//                                the initial weights, before clipping (every trial)
//   init_grad_ratio_<stack>      per stack of at least two layers ("encoder", "decoder"):
//                                its last layer's gradient norm at initialisation over its
//                                first layer's — Xiong et al. 2020 find it well above 1
//                                for post-LN and near 1 for pre-LN
//   bn_mean_drift, bn_var_drift  with train.norm_telemetry: the distances of the batch
//                                statistics from the running ones over all of training,
//                                averaged over the BatchNorm modules
//   bn_mean_drift_last, bn_var_drift_last   the same over the last evaluation interval
// A column appears when some trial has its value.
//
// summary.md sections, per sweep point at its chosen [tune] setting, means over seeds:
//   "Gradient norms at initialisation" with [report] grad_norms_at_init = true
//   "BatchNorm statistics drift" when some trial recorded it
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/analysis/point_results.h"

namespace ablate::experiments {

// The telemetry values of one trial's summary.json, named as results.csv's columns, in
// column order (absent values left out).
std::vector<std::pair<std::string, double>> telemetry_values(const nlohmann::json& summary);

// results.csv's telemetry columns for these trials' summaries (null ones skipped).
std::vector<std::string> telemetry_columns(const std::vector<const nlohmann::json*>& summaries);

// "" unless the run asks for it ([report] grad_norms_at_init) and a trial has them.
std::string init_grad_norms_section(const std::string& run_dir, const RunPoints& run);

// "" unless some trial of the run recorded the BatchNorm drift (train.norm_telemetry).
std::string norm_drift_section(const std::string& run_dir, const RunPoints& run);

}  // namespace ablate::experiments
