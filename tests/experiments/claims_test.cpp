// [[report.claims]] (experiments/config/claims_spec.h, experiments/reports/claims_report.h):
// claims.csv and summary.md's Claims section from a run's comparisons — one family per
// file, several points per claim, rows that are no claim left out of the family, a
// minimum effect as the claim's bound — rebuilt by `ablate report`; what is frozen
// before the data (the claims, baseline, split and family procedure) and a change
// after it shown; and the mistakes a claim can make in the experiment file (a point
// two keys from its baseline under a one-key claim among them).
// The rules themselves are tests/experiments/verdicts_test.cpp's.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "experiments/config/config_error.h"
#include "experiments/config/experiment.h"
#include "experiments/reports/claims_report.h"
#include "experiments/reports/report.h"
#include "tests/experiments/claim_grid.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;

namespace {

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

// Protects the margin a claim is judged against: its own, else [report]
// equivalence_margin on the primary metric only.
TEST_CASE("claims: a claim's margin, else the report's on the primary metric", "[claims]") {
  ClaimSpec claim;
  CHECK(claim_margin(claim, "sequence_accuracy", 0.02) == std::optional<double>(0.02));
  claim.metric = "token_accuracy";
  CHECK(!claim_margin(claim, "sequence_accuracy", 0.02));
  claim.margin = 0.1;
  CHECK(claim_margin(claim, "sequence_accuracy", 0.02) == std::optional<double>(0.1));
}

namespace {

ClaimsReport report_of(const RunPoints& run) {
  const auto rows = compare_points(run.points, find_baselines(run.points, {{"placement", "pre"}}),
                                   ComparisonSettings{{"sequence_accuracy"}, std::nullopt});
  return claims_report(run, rows);
}

}  // namespace

// Protects the intersection–union test in the report: a claim on several points agrees
// only if every point shows it; claims.csv has a row per point and one for the claim.
TEST_CASE("claims: a claim on several points agrees only if every point shows it", "[claims]") {
  RunPoints run = placement_grid();
  const ClaimsReport report = report_of(run);
  const auto lines = lines_of(report.csv);
  REQUIRE(lines.size() == 1 + 2 + 1);
  CHECK(lines[0] ==
        "claim,metric,point_id,point,baseline_point,expect,margin,n,method,diff,ci_low,ci_high,"
        "bootstrap_ci_low,bootstrap_ci_high,p_agree,p_disagree,p_agree_permutation,"
        "p_disagree_permutation,p_agree_adjusted,p_disagree_adjusted,mde,claim_verdict,"
        "rests_on_normality,preregistered,frozen_verdict,reason");
  CHECK_THAT(
      lines[1],
      Catch::Contains(",post2,placement=post depth=2,placement=pre depth=2,worse,,5,paired_t,") &&
          Catch::Contains(",inconclusive,"));
  CHECK_THAT(lines[2], Catch::Contains(",post4,placement=post depth=4,"));
  CHECK_THAT(lines[3],
             Catch::StartsWith(
                 "Post-LN is worse than pre-LN at every depth.,sequence_accuracy,,,,worse,") &&
                 Catch::Contains(",inconclusive,no,unknown,,") &&
                 Catch::Contains("neither worse nor better shown") &&
                 Catch::Contains("differences below depth=2: ±") && Catch::Contains("depth=4: ±"));
  CHECK_THAT(
      report.markdown,
      Catch::Contains("### Claims") &&
          Catch::Contains("| Post-LN is worse than pre-LN at every depth. |") &&
          Catch::Contains("**inconclusive**") &&
          Catch::Contains(
              "depth=2: placement=post depth=2 vs placement=pre depth=2<br>depth=4: placement=post "
              "depth=4") &&
          Catch::Contains("Intervals are 90% (each bound one-sided at α = 0.05"));
  // At depth 2 alone the claim agrees: the IUT's p is the largest of its points'.
  run.claims[0].point = {{"placement", "post"}, {"depth", "2"}};
  const auto single = lines_of(report_of(run).csv);
  REQUIRE(single.size() == 2);
  // Built here without a run directory: no pre-registration record, and the reason says so.
  CHECK_THAT(single[1], Catch::Contains(",agrees,no,unknown,,\"no pre-registration record") &&
                            Catch::Contains("worse (adjusted p = "));
  // A metric no trial reports (a length the task does not test) is said, not guessed.
  run = placement_grid();
  run.claims[0].metric = "sequence_accuracy_len20";
  const ClaimsReport unreported = report_of(run);
  CHECK_THAT(unreported.csv, Catch::Contains("no finished trial reports sequence_accuracy_len20"));
  CHECK(unreported.warnings.size() == 2);
}

// Protects the family: its members are the file's claims, so a row of the table that
// is no claim changes nothing, and another claim shares the error rate (Holm).
TEST_CASE("claims: one Holm family per file, of its claims only", "[claims]") {
  RunPoints run = placement_grid();
  run.claims[0].point = {{"placement", "post"}, {"depth", "2"}};
  const std::string alone = report_of(run).csv;
  // A new point that is no claim: the claims' rows are unchanged.
  RunPoints wider = run;
  wider.points.push_back(grid_point("mid", "2", {0.70, 0.75, 0.71, 0.77, 0.72}));
  CHECK(report_of(wider).csv == alone);
  // A second claim: the first one's adjusted p is Holm's over both.
  ClaimSpec second;
  second.claim = "Post-LN at depth 4 is no worse.";
  second.point = {{"placement", "post"}, {"depth", "4"}};
  second.expect = "better";
  run.claims.push_back(second);
  const auto lines = lines_of(report_of(run).csv);
  REQUIRE(lines.size() == 3);
  auto field = [](const std::string& line, std::size_t index) {
    std::vector<std::string> fields;
    std::stringstream in(line);
    for (std::string f; std::getline(in, f, ',');) fields.push_back(f);
    return std::stod(fields.at(index));
  };
  const double p = field(lines[1], 14),
               adjusted = field(lines[1], 18);  // p_agree, p_agree_adjusted
  CHECK(adjusted == Approx(std::min(1.0, 2 * p)));
  CHECK_THAT(lines[1], Catch::Contains("Holm over the file's 2 claims"));
}

// Protects the end-to-end path: `ablate run` writes claims.csv and the Claims section
// after the first table, and `ablate report` rebuilds both from trials.json; claims
// change no trial.
TEST_CASE("claims: a run writes claims.csv and summary.md's Claims, ablate report rebuilds them",
          "[claims][e2e]") {
  ScratchDir dir("claims_run");
  const std::string claims =
      "\n[report]\nbaseline = { \"model.attention.qk\" = \"separate\" }\n"
      "[[report.claims]]\nclaim = \"Sharing Q and K costs less than 10 nats of loss.\"\n"
      "point = { \"model.attention.qk\" = \"shared\" }\nexpect = \"not_worse\"\nmetric = "
      "\"loss\"\nmargin = 10\n"
      "[[report.claims]]\nclaim = \"Sharing is better | with batch norm.\"\n"
      "point = { \"model.attention.qk\" = \"shared\", \"model.norm.kind\" = \"batch\" }\nexpect = "
      "\"better\"\n"
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
  CHECK_THAT(
      lines[1],
      Catch::StartsWith("Sharing Q and K costs less than 10 nats of loss.,loss,") &&
          Catch::Contains(
              "model.attention.qk=shared model.norm.kind=layer,"
              "model.attention.qk=separate model.norm.kind=layer,not_worse,10,2,paired_t,") &&
          Catch::Contains(",agrees,"));
  // 2 seeds: the sign-flip test cannot go below 1/4, so the verdict rests on normality.
  CHECK_THAT(
      lines[3],
      Catch::Contains(",agrees,yes,yes,,\"not worse by 10 or more (adjusted p = ") &&
          Catch::Contains("Holm over the file's 3 claims; every one of 2 points must show it)") &&
          Catch::Contains("rests on normality (n = 2)"));
  CHECK_THAT(lines[4],
             Catch::StartsWith("Sharing is better | with batch norm.,sequence_accuracy,"));
  // The tiny models learn nothing in 30 steps with layer norm: both points' validation
  // accuracy stays 0, their difference has no spread, so that point has no test and the
  // claim cannot agree, however wide its margin.
  CHECK_THAT(
      lines[7],
      Catch::StartsWith("Sharing is not better in sample efficiency.,auc_sequence_accuracy,") &&
          Catch::Contains(",inconclusive,") &&
          Catch::Contains(
              "model.norm.kind=layer: no test: all 2 paired seeds differ by the same +0"));
  const std::string md = read_text(run_dir + "/summary.md");
  // After the first table and its notes, before the validation-curve tables.
  const std::size_t claims_at = md.find("### Claims"), first_table = md.find("| baseline |");
  REQUIRE(claims_at != std::string::npos);
  CHECK(first_table < claims_at);
  CHECK(md.find("Evaluation noise") < claims_at);
  CHECK(claims_at < md.find("### Validation curve"));
  CHECK_THAT(md,
             Catch::Contains("| Sharing is better \\| with batch norm. | sequence_accuracy |") &&
                 Catch::Contains("| not_worse (±10) |"));
  // Rebuilt from what is on disk: the same files.
  std::filesystem::remove(run_dir + "/claims.csv");
  std::filesystem::remove(run_dir + "/summary.md");
  REQUIRE(run_command(cli + " report runs/claims").status == 0);
  CHECK(read_text(run_dir + "/claims.csv") == csv);
  CHECK(read_text(run_dir + "/summary.md") == md);
  // Frozen when the first trial started: every claim as run is pre-registered.
  REQUIRE(std::filesystem::exists(run_dir + "/preregistration.json"));
  const auto frozen = nlohmann::json::parse(read_text(run_dir + "/preregistration.json"));
  CHECK(frozen.contains("frozen_at"));
  CHECK(frozen["seeds"] == "0, 1");
  CHECK(frozen["claims"][1]["claim"] == "Sharing is better | with batch norm.");
  // And what every claim's verdict depends on besides: the baseline, split and family.
  CHECK(frozen["baseline"] == nlohmann::json{{"model.attention.qk", "separate"}});
  CHECK(frozen["split"] == "test");
  CHECK(frozen["family"] == "Holm over the file's claims, per direction");
  for (std::size_t i = 1; i < lines.size(); ++i) CHECK_THAT(lines[i], Catch::Contains(",yes,,"));
  // The second claim edited after the data: marked, with the frozen version's verdict
  // beside the new one; the others keep theirs. The trials are all reused.
  std::string edited = text;
  edited.replace(edited.find("expect = \"better\""), 17, "expect = \"worse\"");
  dir.file("exp.toml", edited);
  r = run_command(cli + " run exp.toml --jobs 2 --quiet");
  REQUIRE(r.status == 0);
  const auto after = lines_of(read_text(run_dir + "/claims.csv"));
  REQUIRE(after.size() == lines.size());
  CHECK_THAT(after[4],
             Catch::StartsWith("Sharing is better | with batch norm.,sequence_accuracy,") &&
                 Catch::Contains(",no,") &&
                 Catch::Contains("changed after results existed (frozen ") &&
                 Catch::Contains("expect better on sequence_accuracy"));
  // The others stay pre-registered, with their verdict in the frozen family beside.
  CHECK_THAT(after[1], Catch::Contains(",yes,agrees,"));
  CHECK_THAT(
      after[3],
      Catch::Contains(",yes,agrees,\"another claim of the family changed after results existed"));
  CHECK_THAT(read_text(run_dir + "/summary.md"), Catch::Contains("(frozen version: "));
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

  const std::string bad_expect =
      with_claim("", "point = { \"model.attention.qk\" = \"shared\" }\nexpect = \"worser\"\n");
  CHECK_THAT(problem(bad_expect),
             Catch::Contains("exp.toml:" + line_of(bad_expect, "expect = \"worser\"") + ":") &&
                 Catch::Contains("report.claims[0].expect: \"worser\" is not allowed; allowed: "
                                 "better worse equivalent not_worse not_better"));
  const std::string not_swept =
      with_claim("", "point = { \"model.d_model\" = 8 }\nexpect = \"worse\"\n");
  CHECK_THAT(problem(not_swept),
             Catch::Contains("exp.toml:" + line_of(not_swept, "point = ") + ":") &&
                 Catch::Contains("report.claims[0].point.model.d_model: is not a swept key") &&
                 Catch::Contains("model.attention.qk, model.norm.kind"));
  CHECK_THAT(
      problem(with_claim("", "point = { \"model.norm.kind\" = \"rms\" }\nexpect = \"worse\"\n")),
      Catch::Contains(
          "report.claims[0].point.model.norm.kind: \"rms\" is not one of the swept values: "
          "layer, batch"));
  // The default baseline is every axis's first value: qk = separate picks it.
  CHECK_THAT(
      problem(with_claim(
          "", "point = { \"model.attention.qk\" = \"separate\" }\nexpect = \"worse\"\n")),
      Catch::Contains("report.claims[0].point: picks a baseline point (model.attention.qk=separate "
                      "model.norm.kind=layer), which is compared with nothing"));
  CHECK(problem(with_claim(
            "",
            "point = { \"model.attention.qk\" = \"separate\", \"model.norm.kind\" = \"batch\" }\n"
            "expect = \"worse\"\n")) == "(loaded)");
  // A point picking nothing: values of one zip group that no entry has together.
  const std::string zip = tiny_experiment("zip") +
                          "\n[sweep.zip]\n\"model.d_model\" = [8, 16]\n\"model.d_ff\" = [16, 32]\n"
                          "\n[[report.claims]]\nclaim = \"x\"\npoint = { \"model.d_model\" = 16, "
                          "\"model.d_ff\" = 16 }\n"
                          "expect = \"better\"\n";
  CHECK_THAT(
      problem(zip),
      Catch::Contains("report.claims[0].point: picks no point: no entry of its [sweep.zip] group "
                      "has model.d_ff = 16, model.d_model = 16 together"));
  // A point two keys from its baseline under a one-key claim: refused, naming the
  // claim, the point, its baseline and the key the claim leaves out. The default
  // baseline fixes both axes, so qk = shared picks shared/batch, compared with
  // separate/layer.
  const std::string two_keys =
      with_claim("", "point = { \"model.attention.qk\" = \"shared\" }\nexpect = \"worse\"\n");
  CHECK_THAT(problem(two_keys),
             Catch::Contains("exp.toml:" + line_of(two_keys, "point = ") + ":") &&
                 Catch::Contains(
                     "report.claims[0].point: the claim \"A finding.\" picks "
                     "model.attention.qk=shared model.norm.kind=batch, compared with its baseline "
                     "model.attention.qk=separate model.norm.kind=layer: they differ also in "
                     "model.norm.kind, which the claim's point does not name. Name it in point") &&
                 Catch::Contains("or leave it out of [report] baseline"));
  // Either way out loads: the key named in the point, or left free by the baseline.
  CHECK(problem(with_claim("",
                           "point = { \"model.attention.qk\" = \"shared\", "
                           "\"model.norm.kind\" = \"batch\" }\nexpect = \"worse\"\n")) ==
        "(loaded)");
  const std::string qk_baseline = "baseline = { \"model.attention.qk\" = \"separate\" }\n";
  CHECK(problem(with_claim(qk_baseline,
                           "point = { \"model.attention.qk\" = \"shared\" }\n"
                           "expect = \"worse\"\n")) == "(loaded)");
  // Three axes: every point the claim picks off the baseline's other values is counted,
  // and each axis it leaves out named.
  const std::string three = sweep + "\"model.norm.placement\" = [\"post\", \"pre\"]\n" +
                            "\n[[report.claims]]\nclaim = \"A finding.\"\n" +
                            "point = { \"model.attention.qk\" = \"shared\" }\nexpect = \"worse\"\n";
  CHECK_THAT(problem(three),
             Catch::Contains("picks model.attention.qk=shared model.norm.kind=batch "
                             "model.norm.placement=pre (and 2 more points like it), compared with "
                             "its baseline model.attention.qk=separate model.norm.kind=layer "
                             "model.norm.placement=post: they differ also in model.norm.kind, "
                             "model.norm.placement, which the claim's point does not name. Name "
                             "them in point"));
  // min_effect: on better / worse only, and positive.
  const std::string min_effect =
      with_claim(qk_baseline,
                 "point = { \"model.attention.qk\" = \"shared\" }\nexpect = \"equivalent\"\n"
                 "margin = 0.1\nmin_effect = 0.05\n");
  CHECK_THAT(problem(min_effect),
             Catch::Contains("exp.toml:" + line_of(min_effect, "min_effect = ") + ":") &&
                 Catch::Contains("report.claims[0].min_effect: is for expect = \"better\" or "
                                 "\"worse\"") &&
                 Catch::Contains("expect = \"equivalent\" is judged against a margin"));
  CHECK_THAT(problem(with_claim(qk_baseline,
                                "point = { \"model.attention.qk\" = \"shared\" }\n"
                                "expect = \"better\"\nmin_effect = 0\n")),
             Catch::Contains("report.claims[0].min_effect: = 0 must be > 0"));
  CHECK_THAT(problem(with_claim(qk_baseline,
                                "point = { \"model.attention.qk\" = \"shared\" }\n"
                                "expect = \"better\"\nmin_effect = \"a lot\"\n")),
             Catch::Contains("report.claims[0].min_effect: must be a number"));
  CHECK(problem(with_claim(qk_baseline,
                           "point = { \"model.attention.qk\" = \"shared\" }\n"
                           "expect = \"worse\"\nmin_effect = 0.05\n")) == "(loaded)");
  // Metrics: the task's, their per-length and per-context variants, the curve metrics.
  const std::string shared =
      "point = { \"model.attention.qk\" = \"shared\" }\nexpect = \"worse\"\n";
  CHECK_THAT(problem(with_claim(qk_baseline, shared + "metric = \"bleu\"\n")),
             Catch::Contains(
                 "report.claims[0].metric: \"bleu\" is not a metric this run reports; allowed: "
                 "sequence_accuracy, token_accuracy, loss, their per-length") &&
                 Catch::Contains("auc_sequence_accuracy"));
  CHECK(problem(with_claim(qk_baseline, shared + "metric = \"sequence_accuracy_len20\"\n")) ==
        "(loaded)");
  CHECK(problem(with_claim(qk_baseline, shared + "metric = \"auc_sequence_accuracy\"\n")) ==
        "(loaded)");
  CHECK_THAT(
      problem(with_claim(qk_baseline, shared + "metric = \"steps_to_sequence_accuracy_0.5\"\n")),
      Catch::Contains("is not a metric this run reports"));
  CHECK(problem(with_claim(qk_baseline + "threshold = 0.5\n",
                           shared + "metric = \"steps_to_sequence_accuracy_0.5\"\n")) ==
        "(loaded)");
  // Equivalence and non-inferiority need a margin; [report]'s is the primary metric's.
  const std::string equivalent =
      "point = { \"model.attention.qk\" = \"shared\" }\nexpect = \"equivalent\"\n";
  CHECK_THAT(
      problem(with_claim(qk_baseline, equivalent)),
      Catch::Contains(
          "report.claims[0].expect: \"equivalent\" is judged against a margin: give the claim a "
          "margin (in units of sequence_accuracy) or [report] equivalence_margin"));
  CHECK(problem(with_claim(qk_baseline + "equivalence_margin = 0.05\n", equivalent)) == "(loaded)");
  CHECK_THAT(
      problem(with_claim(qk_baseline + "equivalence_margin = 0.05\n",
                         equivalent + "metric = \"loss\"\n")),
      Catch::Contains(
          "\"equivalent\" is judged against a margin: give the claim a margin (in units of loss)"));
  CHECK(problem(with_claim(qk_baseline, equivalent + "metric = \"loss\"\nmargin = 0.1\n")) ==
        "(loaded)");
  CHECK_THAT(problem(with_claim(
                 qk_baseline,
                 "point = { \"model.attention.qk\" = \"shared\" }\nexpect = \"not_worse\"\n")),
             Catch::Contains("\"not_worse\" is judged against a margin"));
  // Missing and unknown keys.
  CHECK_THAT(
      problem(sweep + "\n[[report.claims]]\npoint = { \"model.attention.qk\" = \"shared\" }\n"
                      "expected = \"worse\"\n"),
      Catch::Contains("report.claims[0]: missing required key 'claim'") &&
          Catch::Contains("report.claims[0]: missing required key 'expect'") &&
          Catch::Contains("report.claims[0].expected: unknown key (did you mean 'expect'?)"));
  CHECK_THAT(problem(sweep + "\n[report]\nclaims = 3\n"),
             Catch::Contains("report.claims: must be an array of tables"));
  // On the command line: exit 2, nothing run, nothing written.
  dir.file("bad.toml", bad_expect);
  CommandResult r =
      run_command("cd " + dir.str() + " && " + std::string(ABLATE_CLI) + " run bad.toml --quiet");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("report.claims[0].expect"));
  CHECK_FALSE(std::filesystem::exists(dir.str() + "/runs"));
}
