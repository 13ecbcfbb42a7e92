#pragma once
// The verdicts of [[report.claims]] (config/claims_spec.h): claims.csv and summary.md's
// Claims section. Each verdict is computed from the comparison of the claim's point
// with its baseline on the claim's metric — the same row as comparisons.csv (Holm-
// adjusted over that metric's table), judged against the claim's margin:
//
//   expect better (worse): the verdict better (worse) agrees, the opposite one
//     disagrees, anything else is inconclusive at this scale.
//   expect equivalent: the verdict equivalent within ±margin (two one-sided tests)
//     agrees, better or worse disagrees, else inconclusive.
//   expect not_worse (not_better): the one-sided test that the difference is not worse
//     (not better) than the margin, at α = 0.05, agrees — as do the verdicts better
//     (worse) and equivalent, which imply it; else the verdict worse (better)
//     disagrees; else inconclusive.
//   Fewer than 2 seeds on either side: inconclusive. Diverged, failed and missing
//     trials are named in the reason (the comparison then is Welch's).
//   A claim picking several points: agrees when every point agrees, disagrees when
//     any disagrees, else inconclusive.
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "experiments/config/claims_spec.h"
#include "experiments/reports/comparisons.h"

namespace ablate::experiments {

struct RunPoints;

inline constexpr const char* kClaimAgrees = "agrees";
inline constexpr const char* kClaimDisagrees = "disagrees";
inline constexpr const char* kClaimInconclusive = "inconclusive at this scale";

// One claim at one point.
struct ClaimJudgement {
  std::string comparison_verdict;  // the row's verdict, with the claim's margin
  std::string verdict;             // kClaimAgrees, kClaimDisagrees or kClaimInconclusive
  std::string reason;              // a few words: why
};

// The rules above for one point: `row` its comparison on the claim's metric (a row of
// compare_points), `point` and `baseline` its trials (baseline null when it has
// none), `margin` the claim's (claim_margin).
ClaimJudgement judge_claim(const std::string& expect, const ComparisonRow& row, const PointResults& point,
                           const PointResults* baseline, bool higher_is_better, std::optional<double> margin);

// A claim over several points: agrees if every one agrees, disagrees if any
// disagrees, else inconclusive (also when there are none).
std::string combine_claim_verdicts(const std::vector<std::string>& verdicts);

// claims.csv (columns in experiments/README.md) and summary.md's Claims section, from
// the run's comparison rows; both "" without claims.
struct ClaimsReport {
  std::string csv, markdown;
  // A claim whose metric no trial reports (a length it does not test), or that picks
  // no point: said in its row, and worth a line on stderr.
  std::vector<std::string> warnings;
};
ClaimsReport claims_report(const RunPoints& run, const std::vector<ComparisonRow>& rows);

// How claims travel in trials.json's "report" (ablate report rebuilds from it).
nlohmann::json claims_json(const std::vector<ClaimSpec>& claims);
std::vector<ClaimSpec> claims_from_json(const nlohmann::json& claims);

}  // namespace ablate::experiments
