#include "experiments/reports/claims_report.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "experiments/config/report_spec.h"
#include "experiments/reports/report.h"
#include "experiments/reports/report_text.h"

namespace ablate::experiments {

namespace {

constexpr double kAlpha = 0.05;  // as the verdicts of comparisons.csv

enum class Found { better, worse, equivalent, nothing };

Found found_in(const std::string& verdict) {
  if (verdict == "better") return Found::better;
  if (verdict == "worse") return Found::worse;
  if (verdict.starts_with("equivalent")) return Found::equivalent;
  return Found::nothing;
}

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

// One claim at one point, for claims.csv and the Claims section.
struct ClaimPoint {
  const PointResults* point = nullptr;
  const PointResults* baseline = nullptr;
  const ComparisonRow* row = nullptr;  // null when no trial reports the metric
  ClaimJudgement judgement;
};

}  // namespace

ClaimJudgement judge_claim(const std::string& expect, const ComparisonRow& row, const PointResults& point,
                           const PointResults* baseline, bool higher_is_better, std::optional<double> margin) {
  ClaimJudgement j;
  j.comparison_verdict = row.verdict;
  j.verdict = kClaimInconclusive;
  if (!baseline) {
    j.reason = "the point has no baseline in this run";
    return j;
  }
  const std::string notes = trials_note(point, "the point") + trials_note(*baseline, "its baseline");
  if (!row.comparison) {
    const std::size_t baseline_n = [&] {
      std::size_t n = 0;
      for (const auto& seed : baseline->test) n += seed.second.count(row.metric);
      return n;
    }();
    j.reason = std::string("too few seeds to compare (") + std::to_string(row.summary.n) + " at the point, " +
               std::to_string(baseline_n) + " at its baseline; 2 a side needed)" + notes;
    return j;
  }
  const stats::Comparison& c = *row.comparison;
  // The claim's margin may be one the table did not use (another metric's): the
  // verdict is recomputed with it, by the same test.
  j.comparison_verdict = stats::verdict(c, row.p_adjusted, higher_is_better, margin, kAlpha);
  const Found found = found_in(j.comparison_verdict);
  const std::string holm = std::string("Holm-adjusted p = ") + p_text(row.p_adjusted);
  const std::string undetectable = std::string("a difference below ±") + short_number(c.mde) + " could not be detected";
  const std::string within = margin ? std::string("±") + short_number(*margin) : std::string();
  if (expect == "better" || expect == "worse") {
    const Found wanted = expect == "better" ? Found::better : Found::worse;
    if (found == wanted) {
      j.verdict = kClaimAgrees;
      j.reason = expect + " (" + holm + ")";
    } else if (found != Found::nothing && found != Found::equivalent) {
      j.verdict = kClaimDisagrees;
      j.reason = j.comparison_verdict + ", the opposite (" + holm + ")";
    } else {
      j.reason = (found == Found::equivalent ? std::string("equivalent within ") + within : std::string("no difference detected")) +
                 ": " + undetectable;
    }
  } else if (!margin) {  // equivalent, not_worse, not_better: checked when the file loads
    j.reason = std::string("no margin to judge \"") + expect + "\" against";
  } else if (expect == "equivalent") {
    const std::string tost = std::string("two one-sided tests p = ") + p_text(stats::equivalence_p(c, *margin));
    if (found == Found::equivalent) {
      j.verdict = kClaimAgrees;
      j.reason = std::string("within ") + within + " (" + tost + ")";
    } else if (found != Found::nothing) {
      j.verdict = kClaimDisagrees;
      j.reason = j.comparison_verdict + " (" + holm + "): a difference, not equivalence";
    } else {
      j.reason = std::string("equivalence within ") + within + " not shown (" + tost + "); " + undetectable;
    }
  } else {  // not_worse, not_better
    const bool not_worse = expect == "not_worse";
    const std::string excluded = not_worse ? "worse" : "better";
    const Found excluded_found = not_worse ? Found::worse : Found::better;
    // "Worse" is a lower difference where higher is better: not worse by the margin is
    // then the test that the difference lies above -margin.
    const double p = stats::one_sided_margin_p(c, *margin, not_worse == higher_is_better);
    const std::string by = std::string("by ") + short_number(*margin) + " or more";
    const std::string test = std::string("one-sided p = ") + p_text(p);
    if (p < kAlpha || found == Found::equivalent || (found != Found::nothing && found != excluded_found)) {
      j.verdict = kClaimAgrees;
      j.reason = found == excluded_found ? excluded + ", but by less than " + short_number(*margin) + " (" + test + ")"
                                         : "not " + excluded + " " + by + " (" + test + ")";
    } else if (found == excluded_found) {
      j.verdict = kClaimDisagrees;
      j.reason = excluded + " (" + holm + "), and " + by + " not excluded (" + test + ")";
    } else {
      j.reason = excluded + " " + by + " not excluded (" + test + "); " + undetectable;
    }
  }
  if (!row.same_data) j.reason += "; on other test data than its baseline";
  j.reason += notes;
  return j;
}

std::string combine_claim_verdicts(const std::vector<std::string>& verdicts) {
  if (verdicts.empty()) return kClaimInconclusive;
  if (std::find(verdicts.begin(), verdicts.end(), kClaimDisagrees) != verdicts.end()) return kClaimDisagrees;
  if (std::all_of(verdicts.begin(), verdicts.end(), [](const std::string& v) { return v == kClaimAgrees; }))
    return kClaimAgrees;
  return kClaimInconclusive;
}

ClaimsReport claims_report(const RunPoints& run, const std::vector<ComparisonRow>& rows) {
  ClaimsReport out;
  if (run.claims.empty()) return out;
  const std::string primary = primary_metric(run.metric, run.task);
  std::vector<std::string> reported;  // the metrics the rows have, for a claim on another
  for (const ComparisonRow& r : rows)
    if (std::find(reported.begin(), reported.end(), r.metric) == reported.end()) reported.push_back(r.metric);
  std::ostringstream csv, md;
  csv << "claim,metric,point_id,point,baseline_point,expect,diff,diff_ci_low,diff_ci_high,p_adjusted,mde,"
         "comparison_verdict,claim_verdict,reason\n";
  md << "\n### Claims\n\nEach verdict is computed from the comparison of the claim's point with its baseline (as in "
        "comparisons.csv: Holm-adjusted over the metric's table, α = 0.05), never written by hand. Expected better "
        "(worse): that verdict agrees, the opposite disagrees. Expected equivalent: equivalence within the margin by "
        "two one-sided tests agrees, better or worse disagrees. Expected not_worse (not_better): a one-sided test at "
        "the margin rejecting a difference that much worse (better) agrees, the verdict worse (better) otherwise "
        "disagrees. Anything else — and fewer than 2 seeds a side — is inconclusive at this scale. A claim on "
        "several points agrees only if every point agrees, and disagrees if any disagrees. Per point: claims.csv.\n\n"
        "| claim | metric | point vs baseline | expected | difference [95% CI] | p (Holm) | verdict | reason |\n"
        "|---|---|---|---|---|---|---|---|\n";
  for (const ClaimSpec& claim : run.claims) {
    const std::string metric = claim_metric(claim, primary);
    const std::optional<double> margin = claim_margin(claim, primary, run.equivalence_margin);
    std::vector<ClaimPoint> picked;
    for (std::size_t i = 0; i < run.points.size(); ++i) {
      const PointResults& p = run.points[i];
      const bool matches = std::all_of(claim.point.begin(), claim.point.end(), [&p](const auto& kv) {
        auto v = p.values.find(kv.first);
        return v != p.values.end() && v->second == kv.second;
      });
      if (!matches) continue;
      ClaimPoint cp;
      cp.point = &p;
      auto row = std::find_if(rows.begin(), rows.end(),
                              [&](const ComparisonRow& r) { return r.point == i && r.metric == metric; });
      if (row == rows.end()) {
        cp.judgement = {"", kClaimInconclusive,
                        std::string("no finished trial reports ") + metric + " (reported: " + joined(reported, ", ") + ")"};
        out.warnings.push_back(std::string("claim \"") + claim.claim + "\": " + cp.judgement.reason);
      } else {
        cp.row = &*row;
        if (row->baseline) cp.baseline = &run.points[*row->baseline];
        cp.judgement = judge_claim(claim.expect, *row, p, cp.baseline, higher_is_better(metric), margin);
      }
      picked.push_back(cp);
    }
    std::vector<std::string> verdicts;
    for (const ClaimPoint& cp : picked) verdicts.push_back(cp.judgement.verdict);
    const std::string verdict = combine_claim_verdicts(verdicts);
    const std::string claim_fields = csv_field(claim.claim) + "," + csv_field(metric) + ",";
    std::vector<std::string> md_points, md_diffs, md_ps, md_reasons;
    for (const ClaimPoint& cp : picked) {
      const std::string baseline_label = cp.baseline ? cp.baseline->label : std::string();
      csv << claim_fields << cp.point->point_id << "," << csv_field(cp.point->label) << "," << csv_field(baseline_label)
          << "," << claim.expect << ",";
      const stats::Comparison* c = cp.row && cp.row->comparison ? &*cp.row->comparison : nullptr;
      if (c)
        csv << exact_number(c->diff) << "," << exact_number(c->diff_ci_low) << "," << exact_number(c->diff_ci_high)
            << "," << exact_number(cp.row->p_adjusted) << "," << exact_number(c->mde);
      else
        csv << ",,,,";
      csv << "," << csv_field(cp.judgement.comparison_verdict) << "," << cp.judgement.verdict << ","
          << csv_field(cp.judgement.reason) << "\n";
      md_points.push_back(cell(cp.point->label) + (cp.baseline ? std::string(" vs ") + cell(baseline_label) : std::string()));
      md_diffs.push_back(c ? difference_text(*c) : "—");
      md_ps.push_back(c ? p_text(cp.row->p_adjusted) : "—");
      md_reasons.push_back(cell(cp.judgement.reason));
    }
    std::string combined_reason;
    if (picked.empty()) {
      combined_reason = "picks no point of this run";
      md_reasons.push_back(combined_reason);
      out.warnings.push_back(std::string("claim \"") + claim.claim + "\": " + combined_reason);
    } else if (picked.size() > 1) {
      std::vector<std::string> counts;
      for (const auto& [verdict_word, one, several] : {std::tuple{kClaimAgrees, "agrees", "agree"},
                                                      std::tuple{kClaimDisagrees, "disagrees", "disagree"},
                                                      std::tuple{kClaimInconclusive, "inconclusive", "inconclusive"}})
        if (auto n = std::count(verdicts.begin(), verdicts.end(), verdict_word))
          counts.push_back(std::to_string(n) + " " + (n == 1 ? one : several));
      combined_reason = std::string("over ") + std::to_string(picked.size()) + " points: " + joined(counts, ", ") +
                        " (every point must agree; one disagreeing decides)";
      // Each point named by what sets it apart: the swept values the claim leaves free.
      for (std::size_t k = 0; k < picked.size(); ++k) {
        std::vector<std::string> free_values;
        for (const std::string& key : run.keys)
          if (std::none_of(claim.point.begin(), claim.point.end(), [&key](const auto& kv) { return kv.first == key; }))
            if (auto v = picked[k].point->values.find(key); v != picked[k].point->values.end())
              free_values.push_back(key + "=" + v->second);
        md_reasons[k] = cell(joined(free_values, " ")) + ": " + picked[k].judgement.verdict + ", " + md_reasons[k];
      }
      md_reasons.insert(md_reasons.begin(), combined_reason);
    }
    // A claim on several points (or none) gets a row of its own for the combined
    // verdict: the one without a point_id.
    if (picked.size() != 1)
      csv << claim_fields << ",,," << claim.expect << ",,,,,,," << verdict << "," << csv_field(combined_reason)
          << "\n";
    md << "| " << cell(claim.claim) << " | " << metric << " | " << joined(md_points, "<br>") << " | " << claim.expect
       << (margin && expectation_needs_margin(claim.expect) ? std::string(" (±") + short_number(*margin) + ")" : std::string())
       << " | " << joined(md_diffs, "<br>") << " | " << joined(md_ps, "<br>") << " | **" << verdict << "** | "
       << joined(md_reasons, "<br>") << " |\n";
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
