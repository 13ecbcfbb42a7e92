// What is frozen before the data (experiments/reports/preregistration.h) and how a
// change after it shows in claims.csv and summary.md: the [report] baseline, the split
// and the family procedure, changed, mark every claim preregistered = no with the
// verdict under the frozen design beside; a record older than those fields is not
// doubted. And a claim's min_effect (experiments/config/claims_spec.h): its bound in
// claims.csv's margin column and summary.md, frozen with the claim.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "experiments/reports/claims_report.h"
#include "experiments/reports/preregistration.h"
#include "experiments/reports/report.h"
#include "tests/experiments/claim_grid.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;

namespace {

// The claims of `run` judged against its own [report] baseline.
ClaimsReport report_at_baseline(const RunPoints& run) {
  const auto rows = compare_points(run.points, find_baselines(run.points, run.baseline),
                                   ComparisonSettings{{"sequence_accuracy"}, std::nullopt});
  return claims_report(run, rows);
}

// The placement grid with pre-LN at depth 4 as poor as post-LN at depth 2, one claim
// (post-LN at depth 2 is worse), and its record frozen as it stands.
RunPoints frozen_grid() {
  RunPoints run = placement_grid();
  run.points[1] = grid_point("pre", "4", {0.60, 0.64, 0.61, 0.62, 0.59});
  run.claims[0].point = {{"placement", "post"}, {"depth", "2"}};
  run.baseline = {{"placement", "pre"}};
  run.seeds = "0, 1, 2, 3, 4";
  run.family = family_text(nlohmann::json::object());
  Preregistration frozen;
  frozen.frozen_at = "2026-12-07T10:00:00Z";
  frozen.claims = run.claims;
  frozen.seeds = run.seeds;
  frozen.baseline = run.baseline;
  frozen.split = kClaimsSplit;
  frozen.family = run.family;
  run.preregistration = frozen;
  return run;
}

}  // namespace

// Protects the frozen baseline, split and family procedure: changed after the data,
// every claim reads preregistered = no with the verdict it had under the frozen design
// beside; a record older than those fields froze nothing of them and is not doubted.
TEST_CASE(
    "preregistration: a baseline or family procedure changed after the data is not pre-registered",
    "[claims][preregistration]") {
  RunPoints run = frozen_grid();
  CHECK(run.family == "Holm over the file's claims, per direction");
  auto line = [](const RunPoints& r) { return lines_of(report_at_baseline(r).csv).at(1); };
  CHECK_THAT(line(run), Catch::Contains(",agrees,no,yes,,"));
  // Compared with pre-LN at depth 4 instead: no longer shown worse. The frozen design
  // (each depth's own pre-LN) said agrees, and says so beside.
  run.baseline = {{"placement", "pre"}, {"depth", "4"}};
  const ClaimsReport moved = report_at_baseline(run);
  CHECK_THAT(lines_of(moved.csv).at(1),
             Catch::Contains("placement=post depth=2,placement=pre depth=4,worse,") &&
                 Catch::Contains(",inconclusive,no,no,agrees,\"the design changed after results "
                                 "existed (frozen 2026-12-07T10:00:00Z): the baseline changed "
                                 "from {placement=pre} to {depth=4 placement=pre}"));
  CHECK_THAT(moved.markdown, Catch::Contains("**inconclusive** (frozen version: agrees)"));
  // A record written before the baseline was frozen: not compared, still pre-registered.
  RunPoints old = run;
  old.preregistration->baseline.reset();
  old.preregistration->split.reset();
  old.preregistration->family.reset();
  CHECK_THAT(line(old), Catch::Contains(",inconclusive,no,yes,,"));
  // Another family procedure (an adaptive design's, say) or split: named alike.
  run = frozen_grid();
  run.family = "Bonferroni over the file's questions and their points";
  CHECK_THAT(line(run), Catch::Contains(",agrees,no,no,agrees,") &&
                            Catch::Contains("the family procedure changed from Holm over the "
                                            "file's claims, per direction to Bonferroni"));
  run = frozen_grid();
  run.preregistration->split = "validation";
  CHECK_THAT(line(run), Catch::Contains("the split changed from validation to test"));
  // A min_effect added after the data is a changed claim, its frozen form named.
  run = frozen_grid();
  run.claims[0].min_effect = 0.1;
  CHECK_THAT(line(run), Catch::Contains(",no,agrees,\"changed after results existed") &&
                            Catch::Contains("expect worse on sequence_accuracy"));
  run.preregistration->claims[0].min_effect = 0.1;
  CHECK_THAT(line(run), Catch::Contains(",yes,,"));
}

// Protects how a minimum effect reads: its bound in the margin column, "by > e" in
// summary.md, and the reason in its words.
TEST_CASE("preregistration: a claim's min_effect is its bound in claims.csv and summary.md",
          "[claims][preregistration]") {
  RunPoints run = frozen_grid();
  run.preregistration.reset();
  run.claims[0].min_effect = 0.1;  // post-LN at depth 2 is about 0.2 worse
  ClaimsReport report = report_at_baseline(run);
  CHECK_THAT(lines_of(report.csv).at(1),
             Catch::Contains(",worse,0.1,5,paired_t,") && Catch::Contains(",agrees,") &&
                 Catch::Contains("worse by more than 0.1 (adjusted p = "));
  CHECK_THAT(report.markdown, Catch::Contains("| worse (by > 0.1) |") &&
                                  Catch::Contains("tested against e instead of 0"));
  run.claims[0].min_effect = 0.5;
  report = report_at_baseline(run);
  CHECK_THAT(lines_of(report.csv).at(1),
             Catch::Contains(",disagrees,") && Catch::Contains("not worse by 0.5 (adjusted p = "));
  // Frozen with the claim, and read back.
  const nlohmann::json j = claims_json(run.claims);
  CHECK(j[0]["min_effect"] == 0.5);
  CHECK(claims_from_json(j)[0].min_effect == std::optional<double>(0.5));
  CHECK_FALSE(claims_from_json(claims_json(placement_grid().claims))[0].min_effect);
}

// Protects the frozen baseline end to end: [report] baseline edited after the trials
// ran (every trial reused) leaves the claim's verdict computed against the new one,
// marked preregistered = no, with the verdict against the frozen one beside.
TEST_CASE("preregistration: a baseline changed after the data shows as not pre-registered",
          "[claims][preregistration][e2e]") {
  ScratchDir dir("claims_baseline");
  const std::string claim =
      "[[report.claims]]\nclaim = \"Sharing is no worse with batch norm.\"\n"
      "point = { \"model.attention.qk\" = \"shared\", \"model.norm.kind\" = \"batch\" }\n"
      "expect = \"not_worse\"\nmetric = \"loss\"\nmargin = 10\n";
  const std::string frozen_baseline = "baseline = { \"model.attention.qk\" = \"separate\" }\n";
  dir.file("exp.toml", sweep_experiment("moved") + "\n[report]\n" + frozen_baseline + claim);
  const std::string cli = "cd " + dir.str() + " && " + std::string(ABLATE_CLI);
  CommandResult r = run_command(cli + " run exp.toml --jobs 2 --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const std::string run_dir = dir.str() + "/runs/moved";
  CHECK_THAT(read_text(run_dir + "/claims.csv"), Catch::Contains(",agrees,yes,yes,,"));
  // Compared with separate Q/K at layer norm instead: two keys apart, both named.
  dir.file("exp.toml", sweep_experiment("moved") +
                           "\n[report]\nbaseline = { \"model.attention.qk\" = \"separate\", "
                           "\"model.norm.kind\" = \"layer\" }\n" +
                           claim);
  r = run_command(cli + " run exp.toml --jobs 2");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("8 trials (8 already done"));
  const auto lines = lines_of(read_text(run_dir + "/claims.csv"));
  REQUIRE(lines.size() == 2);
  CHECK_THAT(
      lines[1],
      Catch::Contains(",model.attention.qk=separate model.norm.kind=layer,not_worse,") &&
          Catch::Contains(",no,agrees,\"the design changed after results existed (frozen ") &&
          Catch::Contains("the baseline changed from {model.attention.qk=separate} to "
                          "{model.attention.qk=separate model.norm.kind=layer}"));
  CHECK_THAT(read_text(run_dir + "/summary.md"), Catch::Contains("(frozen version: agrees)"));
  // The record stays as frozen.
  CHECK(nlohmann::json::parse(read_text(run_dir + "/preregistration.json"))["baseline"] ==
        nlohmann::json{{"model.attention.qk", "separate"}});
}
