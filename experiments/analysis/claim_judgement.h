#pragma once
// How the claims of [[report.claims]] are judged (reports/claims_report.h): each claim's
// parts — the points it picks, compared with their baselines on its metric — the
// family's Holm-adjusted decisions, and whether each claim was pre-registered.
#include <optional>
#include <string>
#include <vector>

#include "experiments/analysis/comparisons.h"
#include "experiments/config/claims_spec.h"
#include "experiments/stats/verdicts.h"

namespace ablate::experiments {

struct RunPoints;

// One comparison a claim covers: a picked point on the claim's metric.
struct ClaimPart {
  const PointResults* point = nullptr;
  const PointResults* baseline = nullptr;
  const ComparisonRow* row = nullptr;             // null when no trial reports the metric
  const stats::Comparison* comparison = nullptr;  // null or without a test: no_test says why
  std::string no_test;
  stats::ClaimTests tests;              // p = 1 both ways without a test
  stats::Interval interval, bootstrap;  // at the family's Bonferroni level
  double mde = 0;
  std::string notes;  // diverged, failed, missing trials
};

struct JudgedClaim {
  const ClaimSpec* spec = nullptr;
  stats::Expectation expect{};  // spec->expect, parsed once
  std::string metric;
  std::optional<double> margin;
  std::vector<ClaimPart> parts;
  stats::ClaimTests tests;
  stats::ClaimDecision decision;
};

// A family of claims judged on `rows`, their metric and margin resolved with
// `report_metric` and `equivalence_margin` (the run's, or those frozen with its
// pre-registration). Intervals are at the family's Bonferroni level, each bound
// one-sided at α/m: consistent with the decisions (Holm decides at least what
// Bonferroni does).
std::vector<JudgedClaim> judge_family(const RunPoints& run, const std::vector<ComparisonRow>& rows,
                                      const std::vector<ClaimSpec>& specs,
                                      const std::string& report_metric,
                                      std::optional<double> equivalence_margin,
                                      std::vector<std::string>& warnings);

// Whether each claim was fixed before the data, and what the frozen version said.
struct ClaimRegistration {
  std::string preregistered;   // "yes", "no" or "unknown"
  std::string frozen_verdict;  // of the frozen version, when the claim changed
  std::string note;            // "" when preregistered
};

std::vector<ClaimRegistration> registrations(const RunPoints& run,
                                             const std::vector<ComparisonRow>& rows,
                                             const std::vector<JudgedClaim>& claims);

// Whether the claim is about `point`: it has every swept value the claim names.
bool claim_picks(const ClaimSpec& spec, const PointResults& point);

// `items` with `separator` between them.
std::string joined(const std::vector<std::string>& items, const std::string& separator);

}  // namespace ablate::experiments
