#include "experiments/analysis/claim_judgement.h"

#include <algorithm>
#include <map>

#include "experiments/analysis/point_results.h"
#include "experiments/analysis/report_text.h"
#include "experiments/config/report_spec.h"
#include "experiments/stats/resampling.h"

namespace ablate::experiments {

using stats::kAlpha;

bool claim_picks(const ClaimSpec& spec, const PointResults& point) {
  return std::all_of(spec.point.begin(), spec.point.end(), [&point](const auto& kv) {
    auto v = point.values.find(kv.first);
    return v != point.values.end() && v->second == kv.second;
  });
}

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const std::string& i : items) out.append(out.empty() ? "" : separator).append(i);
  return out;
}

namespace {

// "; the point: 2 of 10 trials diverged, 1 missing" ("" when every trial finished).
std::string trials_note(const PointResults& p, const std::string& who) {
  std::vector<std::string> parts;
  if (p.diverged)
    parts.push_back(std::to_string(p.diverged) + " of " + std::to_string(p.trials) +
                    " trials diverged");
  if (p.failed) parts.push_back(std::to_string(p.failed) + " failed");
  if (p.missing) parts.push_back(std::to_string(p.missing) + " missing");
  return parts.empty() ? std::string()
                       : std::string("; ").append(who).append(": ") + joined(parts, ", ");
}

ClaimPart part_of(const PointResults& point, const ComparisonRow* row, const RunPoints& run,
                  const JudgedClaim& claim, double tail) {
  ClaimPart part;
  part.point = &point;
  part.row = row;
  if (!row) return part;  // no_test is set by the caller, who knows what was reported
  if (row->baseline) part.baseline = &run.points[*row->baseline];
  if (!part.baseline) {
    part.no_test = "the point has no baseline in this run";
    return part;
  }
  part.notes = trials_note(point, "the point") + trials_note(*part.baseline, "its baseline");
  if (!row->comparison) {
    std::size_t baseline_n = 0;
    for (const auto& seed : part.baseline->test) baseline_n += seed.second.count(row->metric);
    part.no_test = "too few seeds to compare (" + std::to_string(row->summary.n) +
                   " at the point, " + std::to_string(baseline_n) +
                   " at its baseline; 2 a side needed)";
    return part;
  }
  part.comparison = &*row->comparison;
  if (!part.comparison->tested()) {
    part.no_test = part.comparison->no_test;
    return part;
  }
  part.tests = stats::claim_tests(*part.comparison, claim.expect, higher_is_better(claim.metric),
                                  claim.margin.value_or(0), claim.spec->min_effect.value_or(0));
  part.interval = stats::t_interval(*part.comparison, tail);
  part.bootstrap = stats::bootstrap_interval(*part.comparison, tail);
  part.mde = stats::detectable_difference(*part.comparison, tail, 0.8, /*one_sided=*/true);
  return part;
}

}  // namespace

// A family of claims judged on `rows`, their metric and margin resolved with
// `report_metric` and `equivalence_margin` (the run's, or those frozen with its
// pre-registration). Intervals are at the family's Bonferroni level, each bound
// one-sided at α/m: consistent with the decisions (Holm decides at least what
// Bonferroni does).
std::vector<JudgedClaim> judge_family(const RunPoints& run, const std::vector<ComparisonRow>& rows,
                                      const std::vector<ClaimSpec>& specs,
                                      const std::string& report_metric,
                                      std::optional<double> equivalence_margin,
                                      std::vector<std::string>& warnings) {
  const std::string primary = primary_metric(report_metric, run.task);
  std::vector<std::string> reported;  // the metrics the rows have, for a claim on another
  for (const ComparisonRow& r : rows)
    if (std::find(reported.begin(), reported.end(), r.metric) == reported.end())
      reported.push_back(r.metric);
  const double tail = kAlpha / double(std::max<std::size_t>(1, specs.size()));
  std::vector<JudgedClaim> claims;
  for (const ClaimSpec& spec : specs) {
    JudgedClaim claim;
    claim.spec = &spec;
    claim.expect = stats::expectation_from(spec.expect);
    claim.metric = claim_metric(spec, primary);
    claim.margin = claim_margin(spec, primary, equivalence_margin);
    for (std::size_t i = 0; i < run.points.size(); ++i) {
      const PointResults& p = run.points[i];
      if (!claim_picks(spec, p)) continue;
      auto row = std::find_if(rows.begin(), rows.end(), [&](const ComparisonRow& r) {
        return r.point == i && r.metric == claim.metric;
      });
      ClaimPart part = part_of(p, row == rows.end() ? nullptr : &*row, run, claim, tail);
      if (!part.row) {
        part.no_test = "no finished trial reports " + claim.metric +
                       " (reported: " + joined(reported, ", ") + ")";
        warnings.push_back("claim \"" + spec.claim + "\": " + part.no_test);
      }
      claim.parts.push_back(part);
    }
    if (claim.parts.empty())
      warnings.push_back("claim \"" + spec.claim + "\": picks no point of this run");
    std::vector<stats::ClaimTests> tests;
    for (const ClaimPart& part : claim.parts) tests.push_back(part.tests);
    claim.tests = stats::combine_parts(tests);
    claims.push_back(std::move(claim));
  }
  std::vector<stats::ClaimTests> family_tests;
  for (const JudgedClaim& c : claims) family_tests.push_back(c.tests);
  const std::vector<stats::ClaimDecision> decisions = stats::decide_family(family_tests);
  for (std::size_t i = 0; i < claims.size(); ++i) claims[i].decision = decisions[i];
  return claims;
}

namespace {

// A claim as judged: its text, points, expectation, resolved metric and margin, and
// minimum effect.
bool same_claim(const JudgedClaim& a, const JudgedClaim& b) {
  return a.spec->claim == b.spec->claim && a.spec->point == b.spec->point &&
         a.spec->expect == b.spec->expect && a.metric == b.metric && a.margin == b.margin &&
         a.spec->min_effect == b.spec->min_effect;
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

// "{k=v k=v}", sorted by key.
std::string pairs_text(const Pairs& values) {
  std::vector<std::string> items;
  for (const auto& [k, v] : std::map<std::string, std::string>(values.begin(), values.end()))
    items.push_back(k + "=" + v);
  return "{" + joined(items, " ") + "}";
}

bool same_pairs(const Pairs& a, const Pairs& b) {
  return std::map<std::string, std::string>(a.begin(), a.end()) ==
         std::map<std::string, std::string>(b.begin(), b.end());
}

// What every claim's tests depend on that changed since `frozen`, in words ("" when
// nothing did); a part the record predates was not frozen, and is not compared.
std::string design_changes(const Preregistration& frozen, const RunPoints& run) {
  std::vector<std::string> changed;
  auto from_to = [&changed](const std::string& what, const std::string& then,
                            const std::string& now) {
    changed.push_back("the " + what + " changed from " + (then.empty() ? "none" : then) + " to " +
                      (now.empty() ? "none" : now));
  };
  if (frozen.seeds != run.seeds) from_to("seeds", frozen.seeds, run.seeds);
  if (frozen.tune_grid != run.tune_grid) from_to("[tune] grid", frozen.tune_grid, run.tune_grid);
  if (frozen.baseline && !same_pairs(*frozen.baseline, run.baseline))
    from_to("baseline", pairs_text(*frozen.baseline), pairs_text(run.baseline));
  if (frozen.split && *frozen.split != kClaimsSplit) from_to("split", *frozen.split, kClaimsSplit);
  if (frozen.family && *frozen.family != run.family)
    from_to("family procedure", *frozen.family, run.family);
  return joined(changed, "; ");
}

// The frozen claims judged as frozen: with the frozen baseline's comparisons when the
// baseline changed (`storage` keeps those rows), else on `rows`.
std::vector<JudgedClaim> frozen_family(const RunPoints& run, const std::vector<ComparisonRow>& rows,
                                       const Preregistration& frozen,
                                       std::vector<ComparisonRow>& storage) {
  const std::vector<ComparisonRow>* judged_on = &rows;
  if (frozen.baseline && !same_pairs(*frozen.baseline, run.baseline)) {
    ComparisonSettings settings;
    const std::string primary = primary_metric(frozen.metric, run.task);
    for (const ClaimSpec& c : frozen.claims)
      if (std::find(settings.metrics.begin(), settings.metrics.end(), claim_metric(c, primary)) ==
          settings.metrics.end())
        settings.metrics.push_back(claim_metric(c, primary));
    storage = compare_points(run.points, find_baselines(run.points, *frozen.baseline), settings);
    judged_on = &storage;
  }
  std::vector<std::string> ignored;
  return judge_family(run, *judged_on, frozen.claims, frozen.metric, frozen.equivalence_margin,
                      ignored);
}

// "expect better ±0.03 by > 0.1": a claim's expectation with its bounds.
std::string expectation_text(const JudgedClaim& c) {
  return "expect " + c.spec->expect + (c.margin ? " ±" + short_number(*c.margin) : std::string()) +
         (c.spec->min_effect ? " by > " + short_number(*c.spec->min_effect) : std::string());
}

}  // namespace

std::vector<ClaimRegistration> registrations(const RunPoints& run,
                                             const std::vector<ComparisonRow>& rows,
                                             const std::vector<JudgedClaim>& claims) {
  std::vector<ClaimRegistration> out(claims.size());
  if (!run.preregistration) {
    for (ClaimRegistration& r : out) {
      r.preregistered = "unknown";
      r.note = "no pre-registration record: the run's trials began before ablate froze claims";
    }
    return out;
  }
  const Preregistration& frozen = *run.preregistration;
  std::vector<ComparisonRow> frozen_rows;
  const std::vector<JudgedClaim> then = frozen_family(run, rows, frozen, frozen_rows);
  const std::string design = design_changes(frozen, run);
  // A frozen claim gone or changed makes the others' adjustment other than declared
  // (gentler, if its p fell): they stay pre-registered, with their verdict in the
  // frozen family beside. (Claims added later only make it stricter.)
  const std::size_t kept =
      std::size_t(std::count_if(then.begin(), then.end(), [&](const JudgedClaim& c) {
        return std::any_of(claims.begin(), claims.end(),
                           [&](const JudgedClaim& now) { return same_claim(c, now); });
      }));
  const bool family_changed = kept < then.size();
  const std::string when = " (frozen " + frozen.frozen_at + ")";
  for (std::size_t i = 0; i < claims.size(); ++i) {
    ClaimRegistration& r = out[i];
    auto exact = std::find_if(then.begin(), then.end(),
                              [&](const JudgedClaim& c) { return same_claim(c, claims[i]); });
    auto counterpart = std::find_if(then.begin(), then.end(), [&](const JudgedClaim& c) {
      return c.spec->claim == claims[i].spec->claim;
    });
    // Reworded: the frozen claim in its place, unless another claim kept it as it was.
    if (counterpart == then.end() && i < then.size() &&
        std::none_of(claims.begin(), claims.end(),
                     [&](const JudgedClaim& now) { return same_claim(then[i], now); }))
      counterpart = then.begin() + std::ptrdiff_t(i);
    if (exact != then.end() && design.empty()) {
      r.preregistered = "yes";
      if (family_changed) {
        r.frozen_verdict = stats::verdict_word(exact->decision.verdict);
        r.note = "another claim of the family changed after results existed" + when + " (" +
                 std::to_string(then.size() - kept) + " of its " + std::to_string(then.size()) +
                 "), which changes this one's adjustment; in the frozen family it " +
                 (exact->decision.verdict == stats::ClaimVerdict::inconclusive ? "is " : "") +
                 r.frozen_verdict;
      }
      continue;
    }
    r.preregistered = "no";
    const auto& shown = exact != then.end() ? exact : counterpart;
    if (shown != then.end()) r.frozen_verdict = stats::verdict_word(shown->decision.verdict);
    if (exact != then.end())
      r.note = "the design changed after results existed" + when + ": " + design;
    else if (counterpart == then.end())
      r.note = "added after results existed" + when;
    else
      r.note = "changed after results existed" + when + ": frozen as \"" +
               counterpart->spec->claim + "\", " + expectation_text(*counterpart) + " on " +
               counterpart->metric + (design.empty() ? std::string() : "; and " + design);
  }
  return out;
}

}  // namespace ablate::experiments
