#include "experiments/reports/claims_report.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "experiments/config/report_spec.h"
#include "experiments/reports/report.h"
#include "experiments/reports/report_text.h"
#include "experiments/stats/resampling.h"
#include "experiments/stats/verdicts.h"

namespace ablate::experiments {

namespace {

using stats::kAlpha;

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const std::string& i : items) out.append(out.empty() ? "" : separator).append(i);
  return out;
}

// "; the point: 2 of 10 trials diverged, 1 missing" ("" when every trial finished).
std::string trials_note(const PointResults& p, const std::string& who) {
  std::vector<std::string> parts;
  if (p.diverged) parts.push_back(std::to_string(p.diverged) + " of " + std::to_string(p.trials) + " trials diverged");
  if (p.failed) parts.push_back(std::to_string(p.failed) + " failed");
  if (p.missing) parts.push_back(std::to_string(p.missing) + " missing");
  return parts.empty() ? std::string() : std::string("; ").append(who).append(": ") + joined(parts, ", ");
}

// Markdown table cells hold no '|' or newline of their own.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

// What agreeing and disagreeing mean for `expect`, in words.
struct Outcomes {
  std::string agree, disagree;
};
Outcomes outcomes(stats::Expectation e, const std::string& margin) {
  switch (e) {
    case stats::Expectation::better: return {"better", "worse"};
    case stats::Expectation::worse: return {"worse", "better"};
    case stats::Expectation::equivalent: return {"within ±" + margin, "outside ±" + margin};
    case stats::Expectation::not_worse: return {"not worse by " + margin + " or more", "worse by more than " + margin};
    case stats::Expectation::not_better: return {"not better by " + margin + " or more", "better by more than " + margin};
  }
  return {};
}

// One comparison a claim covers: a picked point on the claim's metric.
struct ClaimPart {
  const PointResults* point = nullptr;
  const PointResults* baseline = nullptr;
  const ComparisonRow* row = nullptr;  // null when no trial reports the metric
  const stats::Comparison* comparison = nullptr;  // null or without a test: no_test says why
  std::string no_test;
  stats::ClaimTests tests;  // p = 1 both ways without a test
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
    part.no_test = "too few seeds to compare (" + std::to_string(row->summary.n) + " at the point, " +
                   std::to_string(baseline_n) + " at its baseline; 2 a side needed)";
    return part;
  }
  part.comparison = &*row->comparison;
  if (!part.comparison->tested()) {
    part.no_test = part.comparison->no_test;
    return part;
  }
  part.tests = stats::claim_tests(*part.comparison, claim.expect, higher_is_better(claim.metric), claim.margin.value_or(0));
  part.interval = stats::t_interval(*part.comparison, tail);
  part.bootstrap = stats::bootstrap_interval(*part.comparison, tail);
  part.mde = stats::detectable_difference(*part.comparison, tail, 0.8, /*one_sided=*/true);
  return part;
}

// The point's swept values the claim leaves free: what sets it apart from the claim's
// other points.
std::string free_values(const JudgedClaim& claim, const PointResults& point, const std::vector<std::string>& keys) {
  std::vector<std::string> values;
  for (const std::string& key : keys)
    if (std::none_of(claim.spec->point.begin(), claim.spec->point.end(), [&key](const auto& kv) { return kv.first == key; }))
      if (auto v = point.values.find(key); v != point.values.end()) values.push_back(key + "=" + v->second);
  return joined(values, " ");
}

// Why the claim got its verdict, in words.
std::string reason_of(const JudgedClaim& claim, std::size_t family, const std::vector<std::string>& keys) {
  const stats::Expectation expect = claim.expect;
  const Outcomes said = outcomes(expect, claim.margin ? short_number(*claim.margin) : "δ");
  const stats::ClaimDecision& d = claim.decision;
  const std::string holm = family > 1 ? "Holm over the file's " + std::to_string(family) + " claims" : "one claim";
  const bool several = claim.parts.size() > 1;
  std::string reason;
  if (claim.parts.empty()) return "picks no point of this run";
  if (d.verdict == stats::ClaimVerdict::agrees) {
    reason = said.agree + " (adjusted p = " + p_text(d.agree_adjusted) + ", " + holm +
             (several ? "; every one of " + std::to_string(claim.parts.size()) + " points must show it" : "") + ")";
  } else if (d.verdict == stats::ClaimVerdict::disagrees) {
    reason = said.disagree + " (adjusted p = " + p_text(d.disagree_adjusted) + ", " + holm +
             (several ? "; one of " + std::to_string(claim.parts.size()) + " points shows it" : "") + ")";
  } else {
    reason = "neither " + said.agree + " nor " + said.disagree + " shown (adjusted p = " + p_text(d.agree_adjusted) +
             " and " + p_text(d.disagree_adjusted) + ", " + holm + ")";
    std::vector<std::string> mdes;
    for (const ClaimPart& p : claim.parts)
      if (p.comparison && p.comparison->tested())
        mdes.push_back((several ? free_values(claim, *p.point, keys) + ": " : std::string()) + "±" +
                       short_number(p.mde));
    if (!mdes.empty())
      reason += "; differences below " + joined(mdes, ", ") +
                " could not be detected (80% power, post hoc, one-sided at the family's Bonferroni level)";
  }
  if (d.rests_on_normality) {
    std::size_t n = 0;  // the fewest seeds of any point: what limits the permutation test
    for (const ClaimPart& p : claim.parts)
      if (p.comparison) n = n ? std::min(n, p.comparison->n) : p.comparison->n;
    const double permutation = d.verdict == stats::ClaimVerdict::agrees ? d.agree_permutation_adjusted
                                                                        : d.disagree_permutation_adjusted;
    reason += "; rests on normality (n = " + std::to_string(n) + "): the permutation test, adjusted alike, gives p = " +
              p_text(permutation);
  }
  for (const ClaimPart& p : claim.parts) {
    const std::string where = several ? free_values(claim, *p.point, keys) + ": " : std::string();
    if (!p.no_test.empty()) reason += "; " + where + "no test: " + p.no_test;
    if (!p.notes.empty()) reason += (several ? "; " + where + p.notes.substr(2) : p.notes);
  }
  return reason;
}

std::string optional_number(bool present, double v) { return present ? exact_number(v) : std::string(); }

// A family of claims judged on `rows`, their metric and margin resolved with
// `report_metric` and `equivalence_margin` (the run's, or those frozen with its
// pre-registration). Intervals are at the family's Bonferroni level, each bound
// one-sided at α/m: consistent with the decisions (Holm decides at least what
// Bonferroni does).
std::vector<JudgedClaim> judge_family(const RunPoints& run, const std::vector<ComparisonRow>& rows,
                                      const std::vector<ClaimSpec>& specs, const std::string& report_metric,
                                      std::optional<double> equivalence_margin, std::vector<std::string>& warnings) {
  const std::string primary = primary_metric(report_metric, run.task);
  std::vector<std::string> reported;  // the metrics the rows have, for a claim on another
  for (const ComparisonRow& r : rows)
    if (std::find(reported.begin(), reported.end(), r.metric) == reported.end()) reported.push_back(r.metric);
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
      const bool matches = std::all_of(spec.point.begin(), spec.point.end(), [&p](const auto& kv) {
        auto v = p.values.find(kv.first);
        return v != p.values.end() && v->second == kv.second;
      });
      if (!matches) continue;
      auto row = std::find_if(rows.begin(), rows.end(),
                              [&](const ComparisonRow& r) { return r.point == i && r.metric == claim.metric; });
      ClaimPart part = part_of(p, row == rows.end() ? nullptr : &*row, run, claim, tail);
      if (!part.row) {
        part.no_test = "no finished trial reports " + claim.metric + " (reported: " + joined(reported, ", ") + ")";
        warnings.push_back("claim \"" + spec.claim + "\": " + part.no_test);
      }
      claim.parts.push_back(part);
    }
    if (claim.parts.empty()) warnings.push_back("claim \"" + spec.claim + "\": picks no point of this run");
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

// A claim as judged: its text, points, expectation and resolved metric and margin.
bool same_claim(const JudgedClaim& a, const JudgedClaim& b) {
  return a.spec->claim == b.spec->claim && a.spec->point == b.spec->point && a.spec->expect == b.spec->expect &&
         a.metric == b.metric && a.margin == b.margin;
}

// Whether each claim was fixed before the data, and what the frozen version said.
struct Registration {
  std::string preregistered;  // "yes", "no" or "unknown"
  std::string frozen_verdict;  // of the frozen version, when the claim changed
  std::string note;            // "" when preregistered
};

std::vector<Registration> registrations(const RunPoints& run, const std::vector<ComparisonRow>& rows,
                                        const std::vector<JudgedClaim>& claims) {
  std::vector<Registration> out(claims.size());
  if (!run.preregistration) {
    for (Registration& r : out) {
      r.preregistered = "unknown";
      r.note = "no pre-registration record: the run's trials began before ablate froze claims";
    }
    return out;
  }
  const Preregistration& frozen = *run.preregistration;
  std::vector<std::string> ignored;
  const std::vector<JudgedClaim> then =
      judge_family(run, rows, frozen.claims, frozen.metric, frozen.equivalence_margin, ignored);
  std::string design;
  if (frozen.seeds != run.seeds) design = "the seeds changed from " + frozen.seeds + " to " + run.seeds;
  if (frozen.tune_grid != run.tune_grid)
    design += (design.empty() ? "" : "; ") + std::string("the [tune] grid changed from ") +
              (frozen.tune_grid.empty() ? "none" : frozen.tune_grid) + " to " +
              (run.tune_grid.empty() ? "none" : run.tune_grid);
  // A frozen claim gone or changed makes the others' adjustment other than declared
  // (gentler, if its p fell): they stay pre-registered, with their verdict in the
  // frozen family beside. (Claims added later only make it stricter.)
  const std::size_t kept = std::size_t(std::count_if(then.begin(), then.end(), [&](const JudgedClaim& c) {
    return std::any_of(claims.begin(), claims.end(), [&](const JudgedClaim& now) { return same_claim(c, now); });
  }));
  const bool family_changed = kept < then.size();
  const std::string when = " (frozen " + frozen.frozen_at + ")";
  for (std::size_t i = 0; i < claims.size(); ++i) {
    Registration& r = out[i];
    auto exact = std::find_if(then.begin(), then.end(), [&](const JudgedClaim& c) { return same_claim(c, claims[i]); });
    auto counterpart = std::find_if(then.begin(), then.end(),
                                    [&](const JudgedClaim& c) { return c.spec->claim == claims[i].spec->claim; });
    // Reworded: the frozen claim in its place, unless another claim kept it as it was.
    if (counterpart == then.end() && i < then.size() &&
        std::none_of(claims.begin(), claims.end(), [&](const JudgedClaim& now) { return same_claim(then[i], now); }))
      counterpart = then.begin() + std::ptrdiff_t(i);
    if (exact != then.end() && design.empty()) {
      r.preregistered = "yes";
      if (family_changed) {
        r.frozen_verdict = stats::verdict_word(exact->decision.verdict);
        r.note = "another claim of the family changed after results existed" + when + " (" +
                 std::to_string(then.size() - kept) + " of its " + std::to_string(then.size()) +
                 "), which changes this one's adjustment; in the frozen family it " +
                 (exact->decision.verdict == stats::ClaimVerdict::inconclusive ? "is " : "") + r.frozen_verdict;
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
      r.note = "changed after results existed" + when + ": frozen as \"" + counterpart->spec->claim + "\", expect " +
               counterpart->spec->expect +
               (counterpart->margin ? " ±" + short_number(*counterpart->margin) : std::string()) + " on " +
               counterpart->metric + (design.empty() ? std::string() : "; and " + design);
  }
  return out;
}

}  // namespace

ClaimsReport claims_report(const RunPoints& run, const std::vector<ComparisonRow>& rows) {
  ClaimsReport out;
  if (run.claims.empty()) return out;
  const std::vector<JudgedClaim> claims =
      judge_family(run, rows, run.claims, run.metric, run.equivalence_margin, out.warnings);
  const std::vector<Registration> registered = registrations(run, rows, claims);
  const std::size_t family = claims.size();
  const double tail = kAlpha / double(family);
  const std::string level = short_number(100 * (1 - 2 * tail));
  std::ostringstream csv, md;
  csv << "claim,metric,point_id,point,baseline_point,expect,margin,n,method,diff,ci_low,ci_high,bootstrap_ci_low,"
         "bootstrap_ci_high,p_agree,p_disagree,p_agree_permutation,p_disagree_permutation,p_agree_adjusted,"
         "p_disagree_adjusted,mde,claim_verdict,rests_on_normality,preregistered,frozen_verdict,reason\n";
  md << "\n### Claims\n\nThe file's " << family << " claim" << (family == 1 ? "" : "s")
     << " form one family; each verdict is computed, never written by hand (experiments/README.md, \"How a "
        "verdict is reached\"). A claim agrees when the one-sided test in its direction (for `equivalent`, the two "
        "one-sided tests; for `not_worse`/`not_better`, the test against the margin) rejects after Holm's "
        "adjustment over the family at α = 0.05, disagrees when the test of the opposite does, and is "
        "inconclusive otherwise; a claim on several points agrees only when every point does. Intervals are "
     << level << "% (each bound one-sided at α = 0.05"
     << (family > 1 ? "/" + std::to_string(family) + ", Bonferroni over the family" : std::string())
     << "): a claim whose interval clears its bound agrees, and Holm, stepping down, can decide one whose interval "
        "still touches it; p per point is the raw one-sided p toward the claim, with the permutation test's beside "
        "it. Per point: claims.csv.\n\n"
        "| claim | metric | point vs baseline | expected | difference ["
     << level << "% CI] | p (permutation) | adjusted p | verdict | reason |\n|---|---|---|---|---|---|---|---|---|\n";
  for (std::size_t k = 0; k < claims.size(); ++k) {
    const JudgedClaim& claim = claims[k];
    const Registration& registration = registered[k];
    const ClaimSpec& spec = *claim.spec;
    const stats::ClaimDecision& d = claim.decision;
    const std::string verdict = stats::verdict_word(d.verdict);
    const std::string reason = (registration.note.empty() ? "" : registration.note + ". ") +
                               reason_of(claim, family, run.keys);
    const std::string registration_fields = registration.preregistered + "," + registration.frozen_verdict;
    const std::string margin = claim.margin && expectation_needs_margin(spec.expect) ? exact_number(*claim.margin) : "";
    const std::string claim_fields = csv_field(spec.claim) + "," + csv_field(claim.metric) + ",";
    const std::string decision_fields = exact_number(d.agree_adjusted) + "," + exact_number(d.disagree_adjusted);
    std::vector<std::string> md_points, md_diffs, md_ps;
    for (const ClaimPart& part : claim.parts) {
      const bool tested = part.comparison && part.comparison->tested();
      const stats::Comparison* c = part.comparison;
      csv << claim_fields << part.point->point_id << "," << csv_field(part.point->label) << ","
          << csv_field(part.baseline ? part.baseline->label : std::string()) << "," << spec.expect << "," << margin
          << "," << (c ? std::to_string(c->n) : std::string()) << "," << (c ? c->method : std::string()) << ","
          << (c ? exact_number(c->diff) : std::string()) << "," << optional_number(tested, part.interval.low) << ","
          << optional_number(tested, part.interval.high) << "," << optional_number(tested, part.bootstrap.low) << ","
          << optional_number(tested, part.bootstrap.high) << "," << optional_number(tested, part.tests.agree) << ","
          << optional_number(tested, part.tests.disagree) << "," << optional_number(tested, part.tests.agree_permutation)
          << "," << optional_number(tested, part.tests.disagree_permutation) << ","
          << (claim.parts.size() == 1 ? decision_fields : ",") << "," << optional_number(tested, part.mde) << ","
          << verdict << "," << (d.rests_on_normality ? "yes" : "no") << "," << registration_fields << ","
          << csv_field(claim.parts.size() == 1 ? reason : part.no_test + part.notes) << "\n";
      const std::string baseline_label = part.baseline ? part.baseline->label : std::string();
      md_points.push_back((claim.parts.size() > 1 ? free_values(claim, *part.point, run.keys) + ": " : std::string()) +
                          cell(part.point->label) + (part.baseline ? " vs " + cell(baseline_label) : std::string()));
      if (tested) {
        md_diffs.push_back(std::string(c->diff > 0 ? "+" : "") + short_number(c->diff) + " [" +
                           short_number(part.interval.low) + ", " + short_number(part.interval.high) + "]");
        md_ps.push_back(p_text(part.tests.agree) + " (" + p_text(part.tests.agree_permutation) + ")");
      } else {
        md_diffs.push_back(c ? std::string(c->diff > 0 ? "+" : "") + short_number(c->diff) + " (no test)" : "—");
        md_ps.push_back("—");
      }
    }
    // A claim on several points (or none) gets a row of its own for the combined
    // verdict: the one without a point_id, with the claim's p-values.
    if (claim.parts.size() != 1)
      csv << claim_fields << ",,," << spec.expect << "," << margin << ",,,,,,,," << exact_number(claim.tests.agree)
          << "," << exact_number(claim.tests.disagree) << "," << exact_number(claim.tests.agree_permutation) << ","
          << exact_number(claim.tests.disagree_permutation) << "," << decision_fields << ",," << verdict << ","
          << (d.rests_on_normality ? "yes" : "no") << "," << registration_fields << "," << csv_field(reason) << "\n";
    const std::string adjusted = d.verdict == stats::ClaimVerdict::disagrees ? p_text(d.disagree_adjusted) + " (against)"
                                                                             : p_text(d.agree_adjusted);
    md << "| " << cell(spec.claim) << " | " << claim.metric << " | " << joined(md_points, "<br>") << " | "
       << spec.expect << (margin.empty() ? std::string() : " (±" + short_number(*claim.margin) + ")") << " | "
       << joined(md_diffs, "<br>") << " | " << joined(md_ps, "<br>") << " | " << adjusted << " | **" << verdict
       << "**" << (registration.frozen_verdict.empty() ? "" : " (frozen version: " + registration.frozen_verdict + ")")
       << " | " << cell(reason) << " |\n";
  }
  out.csv = csv.str();
  out.markdown = md.str();
  return out;
}

nlohmann::json claims_json(const std::vector<ClaimSpec>& claims) {
  nlohmann::json out = nlohmann::json::array();
  for (const ClaimSpec& c : claims) {
    nlohmann::json point = nlohmann::json::object();
    for (const auto& [k, v] : c.point) point[k] = v;
    nlohmann::json claim{{"claim", c.claim}, {"point", point}, {"expect", c.expect}, {"metric", c.metric}};
    if (c.margin) claim["margin"] = *c.margin;
    out.push_back(claim);
  }
  return out;
}

std::vector<ClaimSpec> claims_from_json(const nlohmann::json& claims) {
  std::vector<ClaimSpec> out;
  for (const nlohmann::json& j : claims) {
    ClaimSpec c;
    c.claim = j.value("claim", "");
    const nlohmann::json point = j.value("point", nlohmann::json::object());
    for (const auto& [k, v] : point.items()) c.point.emplace_back(k, v.get<std::string>());
    c.expect = j.value("expect", "");
    c.metric = j.value("metric", "");
    if (j.contains("margin")) c.margin = j["margin"].get<double>();
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace ablate::experiments
