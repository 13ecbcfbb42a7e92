#include "experiments/reports/claims_report.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "experiments/analysis/claim_judgement.h"
#include "experiments/analysis/design_verdicts.h"
#include "experiments/analysis/point_results.h"
#include "experiments/analysis/report_text.h"
#include "experiments/config/report_spec.h"
#include "experiments/reports/adaptive_report.h"
#include "experiments/stats/verdicts.h"

namespace ablate::experiments {

namespace {

using stats::kAlpha;

// Markdown table cells hold no '|' or newline of their own.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text)
    out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

// What agreeing and disagreeing mean for `expect`, in words; `min_effect` "" for none.
struct Outcomes {
  std::string agree, disagree;
};
Outcomes outcomes(stats::Expectation e, const std::string& margin, const std::string& min_effect) {
  switch (e) {
    case stats::Expectation::better:
      if (!min_effect.empty())
        return {"better by more than " + min_effect, "not better by " + min_effect};
      return {"better", "worse"};
    case stats::Expectation::worse:
      if (!min_effect.empty())
        return {"worse by more than " + min_effect, "not worse by " + min_effect};
      return {"worse", "better"};
    case stats::Expectation::equivalent:
      return {"within ±" + margin, "outside ±" + margin};
    case stats::Expectation::not_worse:
      return {"not worse by " + margin + " or more", "worse by more than " + margin};
    case stats::Expectation::not_better:
      return {"not better by " + margin + " or more", "better by more than " + margin};
  }
  return {};
}

// The point's swept values the claim leaves free: what sets it apart from the claim's
// other points.
std::string free_values(const JudgedClaim& claim, const PointResults& point,
                        const std::vector<std::string>& keys) {
  std::vector<std::string> values;
  for (const std::string& key : keys)
    if (std::none_of(claim.spec->point.begin(), claim.spec->point.end(),
                     [&key](const auto& kv) { return kv.first == key; }))
      if (auto v = point.values.find(key); v != point.values.end())
        values.push_back(key + "=" + v->second);
  return joined(values, " ");
}

// Why the claim got its verdict, in words.
std::string reason_of(const JudgedClaim& claim, std::size_t family,
                      const std::vector<std::string>& keys) {
  const stats::Expectation expect = claim.expect;
  const std::optional<double>& min_effect = claim.spec->min_effect;
  const Outcomes said = outcomes(expect, claim.margin ? short_number(*claim.margin) : "δ",
                                 min_effect ? short_number(*min_effect) : "");
  const stats::ClaimDecision& d = claim.decision;
  const std::string holm =
      family > 1 ? "Holm over the file's " + std::to_string(family) + " claims" : "one claim";
  const bool several = claim.parts.size() > 1;
  std::string reason;
  if (claim.parts.empty()) return "picks no point of this run";
  if (d.verdict == stats::ClaimVerdict::agrees) {
    reason =
        said.agree + " (adjusted p = " + p_text(d.agree_adjusted) + ", " + holm +
        (several ? "; every one of " + std::to_string(claim.parts.size()) + " points must show it"
                 : "") +
        ")";
  } else if (d.verdict == stats::ClaimVerdict::disagrees) {
    reason =
        said.disagree + " (adjusted p = " + p_text(d.disagree_adjusted) + ", " + holm +
        (several ? "; one of " + std::to_string(claim.parts.size()) + " points shows it" : "") +
        ")";
  } else {
    reason = "neither " + said.agree + " nor " + said.disagree +
             " shown (adjusted p = " + p_text(d.agree_adjusted) + " and " +
             p_text(d.disagree_adjusted) + ", " + holm + ")";
    std::vector<std::string> mdes;
    for (const ClaimPart& p : claim.parts)
      if (p.comparison && p.comparison->tested())
        mdes.push_back((several ? free_values(claim, *p.point, keys) + ": " : std::string()) + "±" +
                       short_number(p.mde));
    if (!mdes.empty())
      reason += "; differences below " + joined(mdes, ", ") +
                " could not be detected (80% power, post hoc, one-sided at the family's Bonferroni "
                "level)";
  }
  if (d.rests_on_normality) {
    std::size_t n = 0;  // the fewest seeds of any point: what limits the permutation test
    for (const ClaimPart& p : claim.parts)
      if (p.comparison) n = n ? std::min(n, p.comparison->n) : p.comparison->n;
    const double permutation = d.verdict == stats::ClaimVerdict::agrees
                                   ? d.agree_permutation_adjusted
                                   : d.disagree_permutation_adjusted;
    reason += "; rests on normality (n = " + std::to_string(n) +
              "): the permutation test, adjusted alike, gives p = " + p_text(permutation);
  }
  for (const ClaimPart& p : claim.parts) {
    const std::string where = several ? free_values(claim, *p.point, keys) + ": " : std::string();
    if (!p.no_test.empty()) reason += "; " + where + "no test: " + p.no_test;
    if (!p.notes.empty()) reason += (several ? "; " + where + p.notes.substr(2) : p.notes);
  }
  return reason;
}

std::string optional_number(bool present, double v) {
  return present ? exact_number(v) : std::string();
}

// claims.csv's columns (docs/reference/statistics.md).
constexpr const char* kClaimsCsvHeader =
    "claim,metric,point_id,point,baseline_point,expect,margin,n,method,diff,ci_low,ci_high,"
    "bootstrap_ci_low,"
    "bootstrap_ci_high,p_agree,p_disagree,p_agree_permutation,p_disagree_permutation,p_agree_"
    "adjusted,"
    "p_disagree_adjusted,mde,claim_verdict,rests_on_normality,preregistered,frozen_verdict,"
    "reason\n";

// The Claims section's heading, how its verdicts are reached, and its table's header
// (in an adaptive run the fixed-n verdict's column is labelled as a reference).
std::string claims_section_intro(std::size_t family, bool adaptive) {
  const std::string level = claim_interval_level(family);
  std::ostringstream md;
  md << "\n### Claims\n\nThe file's " << family << " claim" << (family == 1 ? "" : "s")
     << " form one family; each verdict is computed, never written by hand (experiments/README.md, "
        "\"How a "
        "verdict is reached\"). A claim agrees when the one-sided test in its direction (for "
        "`equivalent`, the two "
        "one-sided tests; for `not_worse`/`not_better`, the test against the margin) rejects after "
        "Holm's "
        "adjustment over the family at α = 0.05, disagrees when the test of the opposite does, and "
        "is "
        "inconclusive otherwise; a claim on several points agrees only when every point does. "
        "Intervals are "
     << level << " (each bound one-sided at α = 0.05"
     << (family > 1 ? "/" + std::to_string(family) + ", Bonferroni over the family" : std::string())
     << "): a claim whose interval clears its bound agrees, and Holm, stepping down, can decide "
        "one whose interval "
        "still touches it; p per point is the raw one-sided p toward the claim, with the "
        "permutation test's beside "
        "it. Per point: claims.csv.\n\n"
        "| claim | metric | point vs baseline | expected | difference ["
     << level << " CI] | p (permutation) | adjusted p | "
     << (adaptive ? kFixedNReference : "verdict")
     << " | reason "
        "|\n|---|---|---|---|---|---|---|---|---|\n";
  return md.str();
}

// What a claim's lines in claims.csv and its row in summary.md share.
struct ClaimTexts {
  std::string verdict, reason;
  std::string margin;  // "" for an expectation without one
  std::string claim_fields, decision_fields, registration_fields;  // of the CSV lines
};

ClaimTexts claim_texts(const JudgedClaim& claim, const ClaimRegistration& registration,
                       std::size_t family, const std::vector<std::string>& keys) {
  const ClaimSpec& spec = *claim.spec;
  const stats::ClaimDecision& d = claim.decision;
  ClaimTexts t;
  t.verdict = stats::verdict_word(d.verdict);
  t.reason =
      (registration.note.empty() ? "" : registration.note + ". ") + reason_of(claim, family, keys);
  t.registration_fields = registration.preregistered + "," + registration.frozen_verdict;
  // The bound of the claim's tests: its margin, or a better / worse claim's min_effect.
  t.margin = claim.margin && expectation_needs_margin(spec.expect) ? exact_number(*claim.margin)
             : spec.min_effect                                     ? exact_number(*spec.min_effect)
                                                                   : "";
  t.claim_fields = csv_field(spec.claim) + "," + csv_field(claim.metric) + ",";
  t.decision_fields = exact_number(d.agree_adjusted) + "," + exact_number(d.disagree_adjusted);
  return t;
}

// claims.csv's line of one point of a claim.
std::string part_csv_line(const JudgedClaim& claim, const ClaimPart& part, const ClaimTexts& t) {
  const bool tested = part.comparison && part.comparison->tested();
  const stats::Comparison* c = part.comparison;
  std::ostringstream csv;
  csv << t.claim_fields << part.point->point_id << "," << csv_field(part.point->label) << ","
      << csv_field(part.baseline ? part.baseline->label : std::string()) << ","
      << claim.spec->expect << "," << t.margin << "," << (c ? std::to_string(c->n) : std::string())
      << "," << (c ? c->method : std::string()) << ","
      << (c ? exact_number(c->diff) : std::string()) << ","
      << optional_number(tested, part.interval.low) << ","
      << optional_number(tested, part.interval.high) << ","
      << optional_number(tested, part.bootstrap.low) << ","
      << optional_number(tested, part.bootstrap.high) << ","
      << optional_number(tested, part.tests.agree) << ","
      << optional_number(tested, part.tests.disagree) << ","
      << optional_number(tested, part.tests.agree_permutation) << ","
      << optional_number(tested, part.tests.disagree_permutation) << ","
      << (claim.parts.size() == 1 ? t.decision_fields : ",") << ","
      << optional_number(tested, part.mde) << "," << t.verdict << ","
      << (claim.decision.rests_on_normality ? "yes" : "no") << "," << t.registration_fields << ","
      << csv_field(claim.parts.size() == 1 ? t.reason : part.no_test + part.notes) << "\n";
  return csv.str();
}

// A claim on several points (or none) gets a line of its own in claims.csv for the
// combined verdict: the one without a point_id, with the claim's p-values.
std::string combined_csv_line(const JudgedClaim& claim, const ClaimTexts& t) {
  std::ostringstream csv;
  csv << t.claim_fields << ",,," << claim.spec->expect << "," << t.margin << ",,,,,,,,"
      << exact_number(claim.tests.agree) << "," << exact_number(claim.tests.disagree) << ","
      << exact_number(claim.tests.agree_permutation) << ","
      << exact_number(claim.tests.disagree_permutation) << "," << t.decision_fields << ",,"
      << t.verdict << "," << (claim.decision.rests_on_normality ? "yes" : "no") << ","
      << t.registration_fields << "," << csv_field(t.reason) << "\n";
  return csv.str();
}

// After the expectation in summary.md: " (±δ)" for a margin, " (by > e)" for a
// min_effect, else "".
std::string bound_text(const JudgedClaim& claim) {
  if (claim.margin && expectation_needs_margin(claim.spec->expect))
    return " (±" + short_number(*claim.margin) + ")";
  if (claim.spec->min_effect) return " (by > " + short_number(*claim.spec->min_effect) + ")";
  return "";
}

// summary.md's row of a claim: its points, differences and p one line each. Its verdict
// in bold, unless the run was adaptive: then it is the fixed-n reference, not the run's.
std::string claim_markdown_row(const JudgedClaim& claim, const ClaimRegistration& registration,
                               const ClaimTexts& t, const std::vector<std::string>& keys,
                               bool adaptive) {
  std::vector<std::string> md_points, md_diffs, md_ps;
  for (const ClaimPart& part : claim.parts) {
    const bool tested = part.comparison && part.comparison->tested();
    const stats::Comparison* c = part.comparison;
    const std::string baseline_label = part.baseline ? part.baseline->label : std::string();
    md_points.push_back(
        (claim.parts.size() > 1 ? free_values(claim, *part.point, keys) + ": " : std::string()) +
        cell(part.point->label) + (part.baseline ? " vs " + cell(baseline_label) : std::string()));
    if (tested) {
      md_diffs.push_back(std::string(c->diff > 0 ? "+" : "") + short_number(c->diff) + " [" +
                         short_number(part.interval.low) + ", " + short_number(part.interval.high) +
                         "]");
      md_ps.push_back(p_text(part.tests.agree) + " (" + p_text(part.tests.agree_permutation) + ")");
    } else {
      md_diffs.push_back(
          c ? std::string(c->diff > 0 ? "+" : "") + short_number(c->diff) + " (no test)" : "—");
      md_ps.push_back("—");
    }
  }
  const stats::ClaimDecision& d = claim.decision;
  const std::string adjusted = d.verdict == stats::ClaimVerdict::disagrees
                                   ? p_text(d.disagree_adjusted) + " (against)"
                                   : p_text(d.agree_adjusted);
  std::ostringstream md;
  md << "| " << cell(claim.spec->claim) << " | " << claim.metric << " | "
     << joined(md_points, "<br>") << " | " << claim.spec->expect << bound_text(claim) << " | "
     << joined(md_diffs, "<br>") << " | " << joined(md_ps, "<br>") << " | " << adjusted << " | "
     << (adaptive ? t.verdict : "**" + t.verdict + "**")
     << (registration.frozen_verdict.empty()
             ? ""
             : " (frozen version: " + registration.frozen_verdict + ")")
     << " | " << cell(t.reason) << " |\n";
  return md.str();
}

}  // namespace

ClaimsReport claims_report(const RunPoints& run, const std::vector<ComparisonRow>& rows,
                           const AdaptiveSchedule* schedule) {
  ClaimsReport out;
  if (run.claims.empty()) return out;
  const std::vector<JudgedClaim> claims =
      judge_family(run, rows, run.claims, run.metric, run.equivalence_margin, out.warnings);
  const std::vector<ClaimRegistration> registered = registrations(run, rows, claims);
  const std::size_t family = claims.size();
  out.csv = std::string(kClaimsCsvHeader);
  if (schedule) out.csv.insert(out.csv.size() - 1, kSequentialCsvColumns);
  out.markdown = claims_section_intro(family, schedule != nullptr);
  if (std::any_of(run.claims.begin(), run.claims.end(),
                  [](const ClaimSpec& c) { return c.min_effect.has_value(); }))
    out.markdown.insert(out.markdown.find("\n\n|") + 2,
                        "A `better` or `worse` claim with a `min_effect` e (\"by > e\") is "
                        "tested against e instead of 0: it agrees when \"gain ≤ e\" is rejected "
                        "(for `worse`, \"harm ≤ e\"), disagrees when \"gain ≥ e\" is.\n\n");
  if (schedule)
    out.markdown.insert(out.markdown.find("\n\n|") + 2,
                        "**This run's design was adaptive**: its claims' verdicts are the "
                        "design's, in the first section (\"Verdicts of the adaptive design\"); "
                        "the fixed-n verdicts here assume a number of seeds fixed in advance "
                        "and are for reference only.\n\n");
  // One line per part, then the claim's own when it has several (or none); with an
  // adaptive design each ends in its sequential columns (the question of claim k).
  auto add_line = [&](std::string line, const std::string& sequential) {
    if (schedule) line.insert(line.size() - 1, sequential);
    out.csv += line;
  };
  for (std::size_t k = 0; k < claims.size(); ++k) {
    const JudgedClaim& claim = claims[k];
    const ClaimTexts texts = claim_texts(claim, registered[k], family, run.keys);
    const ScheduledQuestion* q = schedule ? &schedule->questions[k] : nullptr;
    for (const ClaimPart& part : claim.parts)
      add_line(
          part_csv_line(claim, part, texts),
          q ? sequential_csv_fields(*schedule, *q,
                                    part_at(*q, std::size_t(part.point - run.points.data())), true)
            : "");
    if (claim.parts.size() != 1)
      add_line(combined_csv_line(claim, texts),
               q ? sequential_question_csv_fields(*schedule, *q) : "");
    out.markdown += claim_markdown_row(claim, registered[k], texts, run.keys, schedule != nullptr);
  }
  return out;
}

std::string claim_interval_level(std::size_t family) {
  return short_number(100 * (1 - 2 * kAlpha / double(std::max<std::size_t>(family, 1)))) + "%";
}

nlohmann::json claims_json(const std::vector<ClaimSpec>& claims) {
  nlohmann::json out = nlohmann::json::array();
  for (const ClaimSpec& c : claims) {
    nlohmann::json point = nlohmann::json::object();
    for (const auto& [k, v] : c.point) point[k] = v;
    nlohmann::json claim{
        {"claim", c.claim}, {"point", point}, {"expect", c.expect}, {"metric", c.metric}};
    if (c.margin) claim["margin"] = *c.margin;
    if (c.min_effect) claim["min_effect"] = *c.min_effect;
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
    if (j.contains("min_effect")) c.min_effect = j["min_effect"].get<double>();
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace ablate::experiments
