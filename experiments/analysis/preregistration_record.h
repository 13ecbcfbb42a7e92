#pragma once
// What a run froze before its data (reports/preregistration.h writes and reads
// <run>/preregistration.json): the claims and the settings they are judged by, which
// claim_judgement.h compares with the run's now.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "experiments/config/claims_spec.h"

namespace ablate::experiments {

struct Preregistration {
  std::string frozen_at, code_version;  // UTC ISO 8601; ablate's version then
  std::vector<ClaimSpec> claims;
  std::optional<double> equivalence_margin;
  std::string metric;
  // What the claims' tests depend on beyond themselves, as text to compare.
  std::string seeds, tune_grid;
  // [report] baseline, resolved (every key it fixes, sorted), the split and the family
  // procedure (family_text): none in a record written before they were frozen.
  std::optional<std::vector<std::pair<std::string, std::string>>> baseline;
  std::optional<std::string> split, family;
};

// The split claims are judged on: "test", the only one (a curve metric, auc_* or
// steps_to_*, is of the validation curve, as its name says). Frozen so that a split
// chosen later shows.
inline constexpr const char* kClaimsSplit = "test";

}  // namespace ablate::experiments
