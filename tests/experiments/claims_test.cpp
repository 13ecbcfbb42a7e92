// [[report.claims]] (experiments/config/claims_spec.h, experiments/reports/claims_report.h):
// the rule table that turns a comparison into a claim's verdict, the combination over
// several points, claims.csv and summary.md's Claims section from a run (and rebuilt by
// `ablate report`), and the mistakes a claim can make in the experiment file.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <filesystem>
#include <map>
#include <sstream>

#include "experiments/config/config_error.h"
#include "experiments/config/experiment.h"
#include "experiments/reports/claims_report.h"
#include "experiments/reports/report.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;

namespace {

// A comparison row as compare_points makes it: a paired difference `diff` with
// standard error `se` on 9 degrees of freedom, its Holm-adjusted p given.
ComparisonRow row_of(double diff, double se, double p_adjusted, const std::string& metric = "sequence_accuracy") {
  stats::Comparison c;
  c.method = "paired_t";
  c.n = 10;
  c.df = 9;
  c.diff = diff;
  c.t = diff / se;
  c.diff_ci_low = diff - 2.262 * se;
  c.diff_ci_high = diff + 2.262 * se;
  c.p_value = p_adjusted;
  c.mde = 0.0321;
  ComparisonRow row;
  row.point = 1;
  row.baseline = 0;
  row.metric = metric;
  row.summary.n = 10;
  row.comparison = c;
  row.p_adjusted = p_adjusted;
  row.verdict = stats::verdict(c, p_adjusted, higher_is_better(metric));
  return row;
}

PointResults trials_of(int trials, int diverged = 0, int failed = 0, int missing = 0) {
  PointResults p;
  p.trials = trials;
  p.diverged = diverged;
  p.failed = failed;
  p.missing = missing;
  return p;
}

// The four things a comparison can find, on an accuracy (higher is better), judged
// with a margin of 0.05.
const std::map<std::string, ComparisonRow>& found_rows() {
  static const std::map<std::string, ComparisonRow> rows{
      {"better", row_of(+0.1, 0.01, 0.001)},
      {"worse", row_of(-0.1, 0.01, 0.001)},
      {"equivalent", row_of(0.001, 0.005, 0.9)},  // two one-sided tests at ±0.05 pass
      {"nothing", row_of(0.01, 0.05, 0.85)},      // neither a difference nor equivalence
  };
  return rows;
}

std::string problem_of(const std::string& path) {
  try {
    load_experiment(path);
  } catch (const ConfigError& err) {
    return err.what();
  }
  return "(loaded)";
}

// The 1-based line of the first occurrence of `needle` in `text`.
std::string line_of(const std::string& text, const std::string& needle) {
  const std::string before = text.substr(0, text.find(needle));
  return std::to_string(std::count(before.begin(), before.end(), '\n') + 1);
}

}  // namespace

// Protects the rule table itself: every expectation against every finding, so that a
// verdict is a function of the statistics and nothing else.
TEST_CASE("claims: every expectation against every finding of a comparison", "[claims]") {
  const PointResults point = trials_of(10), baseline = trials_of(10);
  // expectation → finding → claim verdict
  const std::map<std::string, std::map<std::string, std::string>> table{
      {"better", {{"better", kClaimAgrees}, {"worse", kClaimDisagrees}, {"equivalent", kClaimInconclusive},
                  {"nothing", kClaimInconclusive}}},
      {"worse", {{"better", kClaimDisagrees}, {"worse", kClaimAgrees}, {"equivalent", kClaimInconclusive},
                 {"nothing", kClaimInconclusive}}},
      {"equivalent", {{"better", kClaimDisagrees}, {"worse", kClaimDisagrees}, {"equivalent", kClaimAgrees},
                      {"nothing", kClaimInconclusive}}},
      {"not_worse", {{"better", kClaimAgrees}, {"worse", kClaimDisagrees}, {"equivalent", kClaimAgrees},
                     {"nothing", kClaimInconclusive}}},
      {"not_better", {{"better", kClaimDisagrees}, {"worse", kClaimAgrees}, {"equivalent", kClaimAgrees},
                      {"nothing", kClaimInconclusive}}},
  };
  REQUIRE(table.size() == claim_expectations().size());
  for (const auto& [expect, by_finding] : table)
    for (const auto& [finding, verdict] : by_finding) {
      INFO(expect << " against " << finding);
      const ClaimJudgement j = judge_claim(expect, found_rows().at(finding), point, &baseline, true, 0.05);
      CHECK(j.verdict == verdict);
      CHECK(!j.reason.empty());
      if (verdict == kClaimInconclusive && finding == "nothing")  // how large a difference could hide
        CHECK_THAT(j.reason, Catch::Contains("a difference below ±0.0321 could not be detected"));
    }
}

// Protects the direction: on a loss (lower is better) a higher value is worse.
TEST_CASE("claims: better and worse follow the metric's direction", "[claims]") {
  const PointResults point = trials_of(10), baseline = trials_of(10);
  const ComparisonRow higher_loss = row_of(+0.1, 0.01, 0.001, "loss");
  CHECK(judge_claim("worse", higher_loss, point, &baseline, false, std::nullopt).verdict == kClaimAgrees);
  CHECK(judge_claim("better", higher_loss, point, &baseline, false, std::nullopt).verdict == kClaimDisagrees);
  CHECK(judge_claim("not_worse", higher_loss, point, &baseline, false, 0.05).verdict == kClaimDisagrees);
  CHECK(judge_claim("not_better", higher_loss, point, &baseline, false, 0.05).verdict == kClaimAgrees);
}

// Protects non-inferiority: a one-sided test at the margin, which a small but
// significant loss passes and a noisy one cannot.
TEST_CASE("claims: not_worse is a one-sided test at the margin", "[claims]") {
  const PointResults point = trials_of(10), baseline = trials_of(10);
  // Significantly worse, by 0.02 ± 0.004: but not by the margin 0.05.
  const ClaimJudgement slightly = judge_claim("not_worse", row_of(-0.02, 0.004, 0.001), point, &baseline, true, 0.05);
  CHECK(slightly.comparison_verdict == "worse");
  CHECK(slightly.verdict == kClaimAgrees);
  CHECK_THAT(slightly.reason, Catch::Contains("worse, but by less than 0.05") && Catch::Contains("one-sided p = "));
  // Worse by 0.03 ± 0.02: a difference worse than 0.05 is not excluded.
  const ClaimJudgement noisy = judge_claim("not_worse", row_of(-0.03, 0.02, 0.2), point, &baseline, true, 0.05);
  CHECK(noisy.verdict == kClaimInconclusive);
  CHECK_THAT(noisy.reason, Catch::Contains("not excluded") && Catch::Contains("could not be detected"));
  // The same test as stats: the lower of the two one-sided tests of equivalence.
  const ComparisonRow r = row_of(-0.03, 0.02, 0.2);
  CHECK(stats::one_sided_margin_p(*r.comparison, 0.05, true) <= stats::equivalence_p(*r.comparison, 0.05));
}

// Protects equivalence on a metric other than the primary one: the table gives it no
// margin, the claim's own margin is judged by the same two one-sided tests.
TEST_CASE("claims: a claim's margin gives equivalence on any metric", "[claims]") {
  const PointResults point = trials_of(10), baseline = trials_of(10);
  ComparisonRow row = row_of(0.001, 0.005, 0.9, "token_accuracy");
  CHECK_THAT(row.verdict, Catch::StartsWith("no detectable difference"));
  const ClaimJudgement j = judge_claim("equivalent", row, point, &baseline, true, 0.05);
  CHECK(j.comparison_verdict == "equivalent within ±0.05");
  CHECK(j.verdict == kClaimAgrees);
  // claim_margin: the claim's own, else [report] equivalence_margin on the primary only.
  ClaimSpec claim;
  CHECK(claim_margin(claim, "sequence_accuracy", 0.02) == std::optional<double>(0.02));
  claim.metric = "token_accuracy";
  CHECK(!claim_margin(claim, "sequence_accuracy", 0.02));
  claim.margin = 0.1;
  CHECK(claim_margin(claim, "sequence_accuracy", 0.02) == std::optional<double>(0.1));
}

// Protects honesty about the trials behind a verdict: too few seeds is inconclusive,
// and diverged, failed or missing trials are named.
TEST_CASE("claims: too few seeds is inconclusive; lost trials are named", "[claims]") {
  ComparisonRow few;
  few.point = 1;
  few.baseline = 0;
  few.metric = "sequence_accuracy";
  few.summary.n = 1;
  few.verdict = "too few seeds to compare";
  PointResults point = trials_of(3, 2), baseline = trials_of(3);
  baseline.test[0]["sequence_accuracy"] = 0.5;
  baseline.test[1]["sequence_accuracy"] = 0.6;
  const ClaimJudgement j = judge_claim("better", few, point, &baseline, true, std::nullopt);
  CHECK(j.verdict == kClaimInconclusive);
  CHECK_THAT(j.reason, Catch::Contains("too few seeds to compare (1 at the point, 2 at its baseline") &&
                           Catch::Contains("the point: 2 of 3 trials diverged"));
  const PointResults lossy = trials_of(10, 0, 1, 2);
  const ClaimJudgement k = judge_claim("better", found_rows().at("better"), trials_of(10), &lossy, true, std::nullopt);
  CHECK(k.verdict == kClaimAgrees);
  CHECK_THAT(k.reason, Catch::Contains("its baseline: 1 failed, 2 missing"));
}

// Protects the combination over several points: all must agree, one disagreement
// decides, anything else is inconclusive.
TEST_CASE("claims: a claim on several points agrees only if every point agrees", "[claims]") {
  CHECK(combine_claim_verdicts({kClaimAgrees, kClaimAgrees}) == kClaimAgrees);
  CHECK(combine_claim_verdicts({kClaimAgrees, kClaimInconclusive}) == kClaimInconclusive);
  CHECK(combine_claim_verdicts({kClaimAgrees, kClaimInconclusive, kClaimDisagrees}) == kClaimDisagrees);
  CHECK(combine_claim_verdicts({}) == kClaimInconclusive);

  // A placement × depth grid compared within each depth: the claim on "post" picks
  // one point per depth, and claims.csv has a row for each and one for the claim.
  auto point = [](const std::string& placement, const std::string& depth, std::vector<double> accuracy) {
    PointResults p;
    p.run = "run";
    p.values = {{"placement", placement}, {"depth", depth}};
    p.label = "placement=" + placement + " depth=" + depth;
    p.point_id = placement + depth;
    for (std::size_t s = 0; s < accuracy.size(); ++s) p.test[s]["sequence_accuracy"] = accuracy[s];
    p.trials = int(accuracy.size());
    return p;
  };
  RunPoints run;
  run.task = "reverse";
  run.keys = {"placement", "depth"};
  run.points = {point("pre", "2", {0.80, 0.82, 0.81, 0.83, 0.79}), point("pre", "4", {0.80, 0.82, 0.81, 0.83, 0.79}),
                point("post", "2", {0.60, 0.63, 0.60, 0.64, 0.58}),  // clearly worse
                point("post", "4", {0.81, 0.80, 0.82, 0.82, 0.80})};  // no detectable difference
  ClaimSpec claim;
  claim.claim = "Post-LN is worse than pre-LN at every depth.";
  claim.point = {{"placement", "post"}};
  claim.expect = "worse";
  run.claims = {claim};
  const auto rows = compare_points(run.points, find_baselines(run.points, {{"placement", "pre"}}),
                                   ComparisonSettings{{"sequence_accuracy"}, std::nullopt});
  const ClaimsReport report = claims_report(run, rows);
  const auto lines = lines_of(report.csv);
  REQUIRE(lines.size() == 1 + 2 + 1);
  CHECK(lines[0] == "claim,metric,point_id,point,baseline_point,expect,diff,diff_ci_low,diff_ci_high,p_adjusted,mde,"
                    "comparison_verdict,claim_verdict,reason");
  CHECK_THAT(lines[1], Catch::Contains(",post2,placement=post depth=2,placement=pre depth=2,worse,") &&
                           Catch::Contains(",worse,agrees,"));
  CHECK_THAT(lines[2], Catch::Contains(",post4,placement=post depth=4,") &&
                           Catch::Contains(",inconclusive at this scale,"));
  CHECK_THAT(lines[3], Catch::StartsWith("Post-LN is worse than pre-LN at every depth.,sequence_accuracy,,,,worse,") &&
                           Catch::Contains(",inconclusive at this scale,") &&
                           Catch::Contains("over 2 points: 1 agrees, 1 inconclusive (every point must agree"));
  CHECK_THAT(report.markdown,
             Catch::Contains("### Claims") && Catch::Contains("| Post-LN is worse than pre-LN at every depth. |") &&
                 Catch::Contains("**inconclusive at this scale**") &&
                 Catch::Contains("placement=post depth=2 vs placement=pre depth=2<br>placement=post depth=4") &&
                 Catch::Contains("<br>depth=2: agrees, worse (Holm-adjusted p = ") &&
                 Catch::Contains("<br>depth=4: inconclusive at this scale, no difference detected"));
  // A metric no trial reports (a length the task does not test) is said, not guessed.
  run.claims[0].metric = "sequence_accuracy_len20";
  const ClaimsReport unreported = claims_report(run, rows);
  CHECK_THAT(unreported.csv, Catch::Contains("no finished trial reports sequence_accuracy_len20"));
  CHECK(unreported.warnings.size() == 2);
}

// Protects the end-to-end path: `ablate run` writes claims.csv and the Claims section
// after the first table, and `ablate report` rebuilds both from trials.json; claims
// change no trial.
TEST_CASE("claims: a run writes claims.csv and summary.md's Claims; ablate report rebuilds them", "[claims][e2e]") {
  ScratchDir dir("claims_run");
  const std::string claims =
      "\n[report]\nbaseline = { \"model.attention.qk\" = \"separate\" }\n"
      "[[report.claims]]\nclaim = \"Sharing Q and K costs less than 10 nats of loss.\"\n"
      "point = { \"model.attention.qk\" = \"shared\" }\nexpect = \"not_worse\"\nmetric = \"loss\"\nmargin = 10\n"
      "[[report.claims]]\nclaim = \"Sharing is better | with batch norm.\"\n"
      "point = { \"model.attention.qk\" = \"shared\", \"model.norm.kind\" = \"batch\" }\nexpect = \"better\"\n"
      "[[report.claims]]\nclaim = \"Sharing is not better in sample efficiency.\"\n"
      "point = { \"model.attention.qk\" = \"shared\" }\nexpect = \"not_better\"\n"
      "metric = \"auc_sequence_accuracy\"\nmargin = 10\n";
  const std::string text = sweep_experiment("claims") + claims;
  dir.file("exp.toml", text);
  CHECK(load_experiment(dir.str() + "/exp.toml").trials[0].id ==
        load_experiment(dir.file("plain.toml", sweep_experiment("claims"))).trials[0].id);
  const std::string cli = "cd " + dir.str() + " && " + std::string(ABLATE_CLI);
  CommandResult r = run_command(cli + " run exp.toml --jobs 2 --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const std::string run_dir = dir.str() + "/runs/claims";
  const std::string csv = read_text(run_dir + "/claims.csv");
  const auto lines = lines_of(csv);
  // Claims 1 and 3 pick shared at each norm (2 points + the combined row); claim 2 one point.
  REQUIRE(lines.size() == 1 + 3 + 1 + 3);
  // A margin of 10 nats (and of 10 in accuracy below) holds whatever the tiny models learnt.
  CHECK_THAT(lines[1], Catch::StartsWith("Sharing Q and K costs less than 10 nats of loss.,loss,") &&
                           Catch::Contains("model.attention.qk=shared model.norm.kind=layer,"
                                           "model.attention.qk=separate model.norm.kind=layer,not_worse,") &&
                           Catch::Contains(",agrees,"));
  CHECK_THAT(lines[3], Catch::Contains(",agrees,over 2 points: 2 agree (every point must agree; one disagreeing decides)"));
  CHECK_THAT(lines[4], Catch::StartsWith("Sharing is better | with batch norm.,sequence_accuracy,"));
  CHECK_THAT(lines[7], Catch::StartsWith("Sharing is not better in sample efficiency.,auc_sequence_accuracy,") &&
                           Catch::Contains(",agrees,"));
  const std::string md = read_text(run_dir + "/summary.md");
  // After the first table and its notes, before the validation-curve tables.
  const std::size_t claims_at = md.find("### Claims"), first_table = md.find("| baseline |");
  REQUIRE(claims_at != std::string::npos);
  CHECK(first_table < claims_at);
  CHECK(md.find("Evaluation noise") < claims_at);
  CHECK(claims_at < md.find("### Validation curve"));
  CHECK_THAT(md, Catch::Contains("| Sharing is better \\| with batch norm. | sequence_accuracy |") &&
                     Catch::Contains("| not_worse (±10) |"));
  // Rebuilt from what is on disk: the same files.
  std::filesystem::remove(run_dir + "/claims.csv");
  std::filesystem::remove(run_dir + "/summary.md");
  REQUIRE(run_command(cli + " report runs/claims").status == 0);
  CHECK(read_text(run_dir + "/claims.csv") == csv);
  CHECK(read_text(run_dir + "/summary.md") == md);
  // Without claims the file has none, and an old claims.csv goes: it would describe
  // claims the experiment no longer makes. The trials are all reused.
  dir.file("exp.toml", sweep_experiment("claims"));
  r = run_command(cli + " run exp.toml --jobs 2");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("8 trials (8 already done"));
  CHECK_FALSE(std::filesystem::exists(run_dir + "/claims.csv"));
  CHECK_THAT(read_text(run_dir + "/summary.md"), !Catch::Contains("## Claims"));
}

// Protects the file's validation: each mistake is an error naming the file, line and
// key and what is allowed, and nothing runs.
TEST_CASE("claims: mistakes in [[report.claims]] are errors at their line", "[claims][e2e]") {
  ScratchDir dir("claims_errors");
  const std::string sweep = sweep_experiment("errors");
  auto with_claim = [&](const std::string& report, const std::string& claim) {
    return sweep + "\n[report]\n" + report + "[[report.claims]]\nclaim = \"A finding.\"\n" + claim;
  };
  auto problem = [&](const std::string& text) { return problem_of(dir.file("exp.toml", text)); };

  const std::string bad_expect = with_claim("", "point = { \"model.attention.qk\" = \"shared\" }\nexpect = \"worser\"\n");
  CHECK_THAT(problem(bad_expect), Catch::Contains("exp.toml:" + line_of(bad_expect, "expect = \"worser\"") + ":") &&
                                      Catch::Contains("report.claims[0].expect: \"worser\" is not allowed; allowed: "
                                                      "better worse equivalent not_worse not_better"));
  const std::string not_swept = with_claim("", "point = { \"model.d_model\" = 8 }\nexpect = \"worse\"\n");
  CHECK_THAT(problem(not_swept), Catch::Contains("exp.toml:" + line_of(not_swept, "point = ") + ":") &&
                                     Catch::Contains("report.claims[0].point.model.d_model: is not a swept key") &&
                                     Catch::Contains("model.attention.qk, model.norm.kind"));
  CHECK_THAT(problem(with_claim("", "point = { \"model.norm.kind\" = \"rms\" }\nexpect = \"worse\"\n")),
             Catch::Contains("report.claims[0].point.model.norm.kind: \"rms\" is not one of the swept values: "
                             "layer, batch"));
  // The default baseline is every axis's first value: qk = separate picks it.
  CHECK_THAT(problem(with_claim("", "point = { \"model.attention.qk\" = \"separate\" }\nexpect = \"worse\"\n")),
             Catch::Contains("report.claims[0].point: picks a baseline point (model.attention.qk=separate "
                             "model.norm.kind=layer), which is compared with nothing"));
  CHECK(problem(with_claim("", "point = { \"model.attention.qk\" = \"separate\", \"model.norm.kind\" = \"batch\" }\n"
                               "expect = \"worse\"\n")) == "(loaded)");
  // A point picking nothing: values of one zip group that no entry has together.
  const std::string zip = tiny_experiment("zip") +
                          "\n[sweep.zip]\n\"model.d_model\" = [8, 16]\n\"model.d_ff\" = [16, 32]\n"
                          "\n[[report.claims]]\nclaim = \"x\"\npoint = { \"model.d_model\" = 16, \"model.d_ff\" = 16 }\n"
                          "expect = \"better\"\n";
  CHECK_THAT(problem(zip), Catch::Contains("report.claims[0].point: picks no point: no entry of its [sweep.zip] group "
                                           "has model.d_ff = 16, model.d_model = 16 together"));
  // Metrics: the task's, their per-length and per-context variants, the curve metrics.
  const std::string shared = "point = { \"model.attention.qk\" = \"shared\" }\nexpect = \"worse\"\n";
  CHECK_THAT(problem(with_claim("", shared + "metric = \"bleu\"\n")),
             Catch::Contains("report.claims[0].metric: \"bleu\" is not a metric this run reports; allowed: "
                             "sequence_accuracy, token_accuracy, loss, their per-length") &&
                 Catch::Contains("auc_sequence_accuracy"));
  CHECK(problem(with_claim("", shared + "metric = \"sequence_accuracy_len20\"\n")) == "(loaded)");
  CHECK(problem(with_claim("", shared + "metric = \"auc_sequence_accuracy\"\n")) == "(loaded)");
  CHECK_THAT(problem(with_claim("", shared + "metric = \"steps_to_sequence_accuracy_0.5\"\n")),
             Catch::Contains("is not a metric this run reports"));
  CHECK(problem(with_claim("threshold = 0.5\n", shared + "metric = \"steps_to_sequence_accuracy_0.5\"\n")) ==
        "(loaded)");
  // Equivalence and non-inferiority need a margin; [report]'s is the primary metric's.
  const std::string equivalent = "point = { \"model.attention.qk\" = \"shared\" }\nexpect = \"equivalent\"\n";
  CHECK_THAT(problem(with_claim("", equivalent)),
             Catch::Contains("report.claims[0].expect: \"equivalent\" is judged against a margin: give the claim a "
                             "margin (in units of sequence_accuracy) or [report] equivalence_margin"));
  CHECK(problem(with_claim("equivalence_margin = 0.05\n", equivalent)) == "(loaded)");
  CHECK_THAT(problem(with_claim("equivalence_margin = 0.05\n", equivalent + "metric = \"loss\"\n")),
             Catch::Contains("\"equivalent\" is judged against a margin: give the claim a margin (in units of loss)"));
  CHECK(problem(with_claim("", equivalent + "metric = \"loss\"\nmargin = 0.1\n")) == "(loaded)");
  CHECK_THAT(problem(with_claim("", "point = { \"model.attention.qk\" = \"shared\" }\nexpect = \"not_worse\"\n")),
             Catch::Contains("\"not_worse\" is judged against a margin"));
  // Missing and unknown keys.
  CHECK_THAT(problem(sweep + "\n[[report.claims]]\npoint = { \"model.attention.qk\" = \"shared\" }\n"
                             "expected = \"worse\"\n"),
             Catch::Contains("report.claims[0]: missing required key 'claim'") &&
                 Catch::Contains("report.claims[0]: missing required key 'expect'") &&
                 Catch::Contains("report.claims[0].expected: unknown key (did you mean 'expect'?)"));
  CHECK_THAT(problem(sweep + "\n[report]\nclaims = 3\n"),
             Catch::Contains("report.claims: must be an array of tables"));
  // On the command line: exit 2, nothing run, nothing written.
  dir.file("bad.toml", bad_expect);
  CommandResult r = run_command("cd " + dir.str() + " && " + std::string(ABLATE_CLI) + " run bad.toml --quiet");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("report.claims[0].expect"));
  CHECK_FALSE(std::filesystem::exists(dir.str() + "/runs"));
}
