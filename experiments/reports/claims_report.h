#pragma once
// The verdicts of [[report.claims]] (config/claims_spec.h): claims.csv and summary.md's
// Claims section. A claim is judged on the comparisons of the points it picks with
// their baselines on its metric (the rows of comparisons.csv), by the rules of
// stats/verdicts.h: one family per experiment file — its claims, Holm-adjusted —
// an intersection–union test over a claim's points, the permutation test beside the
// t-test, and no verdict but "inconclusive" where a comparison has no test.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "experiments/analysis/comparisons.h"
#include "experiments/config/claims_spec.h"

namespace ablate::experiments {

struct RunPoints;

// claims.csv (columns in docs/reference/statistics.md) and summary.md's Claims section, from
// the run's comparison rows; both "" without claims.
struct ClaimsReport {
  std::string csv, markdown;
  // A claim whose metric no trial reports (a length it does not test), or that picks
  // no point: said in its row, and worth a line on stderr.
  std::vector<std::string> warnings;
};
// With an adaptive design's `schedule`, claims.csv has its sequential columns and the
// section says which verdicts are the run's.
struct AdaptiveSchedule;
ClaimsReport claims_report(const RunPoints& run, const std::vector<ComparisonRow>& rows,
                           const AdaptiveSchedule* schedule = nullptr);

// The level of the claims' intervals in a family of `family` claims: "90%" for one,
// "97.5%" for four — 1 − 2α/m, each bound one-sided at α/m (Bonferroni).
std::string claim_interval_level(std::size_t family);

// How claims travel in trials.json's "report" (ablate report rebuilds from it).
nlohmann::json claims_json(const std::vector<ClaimSpec>& claims);
std::vector<ClaimSpec> claims_from_json(const nlohmann::json& claims);

}  // namespace ablate::experiments
