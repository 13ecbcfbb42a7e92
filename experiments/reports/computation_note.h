#pragma once
// What computed a run's trials beyond their config (summary.json's `computation`,
// written since ablate recorded it): results.csv's columns and summary.md's line.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "experiments/reports/run_rows.h"

namespace ablate::experiments {

// The attention path, the GEMM backend, the precision; "" each for a summary without it.
struct Computation {
  std::string attention_path, why_not_fused, gemm_backend, precision;
};
// None for a summary without `computation` (or a missing one).
std::optional<Computation> computation_of(const nlohmann::json& summary);

bool any_computation(const RunRows& run);

// The values of a field over a run's trials, ", "-separated, each with its trial count
// when there are several ("onednn (3 trials), eigen (1 trials)"); "" is "unrecorded".
std::string counted_values(const std::map<std::string, int>& values);

// summary.md's line on what computed the finished trials, each value with its count
// when they differ; "" when no summary records it.
std::string computation_note(const RunRows& run);

}  // namespace ablate::experiments
