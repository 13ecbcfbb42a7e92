#pragma once
// What computed a run's trials beyond their config (summary.json's `computation`,
// written since ablate recorded it): results.csv's columns and summary.md's line.
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

// summary.md's line on what computed the finished trials, each value with its count
// when they differ; "" when no summary records it.
std::string computation_note(const RunRows& run);

}  // namespace ablate::experiments
