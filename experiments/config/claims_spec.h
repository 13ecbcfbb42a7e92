#pragma once
// [[report.claims]]: a published finding stated in the experiment file, whose verdict
// (agrees / disagrees / inconclusive at this scale) the report computes from the
// comparison of the point with its baseline (experiments/reports/claims_report.h),
// never a label written by hand.
//
//   [[report.claims]]
//   claim = "Single-head attention is worse than the base model (Table 3 row A)."
//   point = { "model.heads" = 1 }  # swept values; picks every point that has them
//   expect = "worse"               # better | worse | equivalent | not_worse | not_better
//   metric = "bpc"                 # default: the primary metric
//   margin = 0.01                  # equivalent / not_worse / not_better; default: [report]
//                                  # equivalence_margin, on the primary metric only
//   min_effect = 0.1               # better / worse only: by more than this much (in units
//                                  # of the metric; default 0: by any amount)
//
// A picked point is compared with its baseline ([report] baseline): they must differ
// only in keys the claim names (a one-key claim in a two-key grid whose baseline fixes
// both keys would compare points two keys apart), else the file is refused.
//
// Like the rest of [report], claims are part of no trial's identity.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "experiments/config/config_error.h"

namespace ablate::experiments {

class TomlReader;
class PositionIndex;
struct AxisValues;
struct ReportSpec;

struct ClaimSpec {
  std::string claim;  // the finding, as published
  // Swept key → value (as point labels show it): the claim is about every point with
  // these values (one key of a [sweep.zip] group picks its entries).
  std::vector<std::pair<std::string, std::string>> point;
  std::string expect;            // one of claim_expectations()
  std::string metric;            // "" = the primary metric
  std::optional<double> margin;  // the claim's own, in units of its metric
  // better / worse: the gain (in units of its metric, > 0) the claim asserts to exceed:
  // it agrees when "gain <= min_effect" is rejected, disagrees when "gain >= min_effect"
  // is (for worse, the harm). None: 0, any gain.
  std::optional<double> min_effect;
};

// better, worse, equivalent, not_worse, not_better.
const std::vector<std::string>& claim_expectations();
// Whether `expect` is judged against a margin (equivalent, not_worse, not_better).
bool expectation_needs_margin(const std::string& expect);

// The metric a claim is judged on, and the margin: its own, else [report]
// equivalence_margin when that metric is the primary one (the margin's unit).
std::string claim_metric(const ClaimSpec& claim, const std::string& primary);
std::optional<double> claim_margin(const ClaimSpec& claim, const std::string& primary,
                                   std::optional<double> equivalence_margin);

// Reads report.claims from the [report] reader (after `baseline` is known: a claim on
// the baseline itself is an error). Checks what the sweep alone decides: the keys and
// values of `point`, that it picks a point and no baseline, that each point it picks
// differs from its baseline only in keys it names, `expect`, and `min_effect` (on
// better / worse only).
std::vector<ClaimSpec> read_claims(
    TomlReader& report, const std::vector<AxisValues>& axes,
    const std::vector<std::pair<std::string, std::string>>& baseline);

}  // namespace ablate::experiments
