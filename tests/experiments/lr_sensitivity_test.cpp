// `[report] lr_sensitivity` (experiments/analysis/lr_sensitivity.h): Wortsman et al.
// 2023's LR sensitivity, the mean over a learning-rate grid of min(ℓ(η), ℓ0) − ℓ*, per
// sweep point and seed. These tests protect the definition (by hand on made-up
// summaries: the cap at the loss at initialisation, a diverged rate counted as ℓ0, a
// seed with a rate missing left out), that it reaches comparisons and claims from a
// real run, and that a file asking for it where it cannot be computed is exit 2.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>

#include "experiments/analysis/lr_sensitivity.h"
#include "experiments/reports/run_points.h"
#include "tests/build_paths.h"
#include "tests/experiments/check_refusals.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;
using json = nlohmann::json;

namespace {

TrialRow row(const std::string& qk, const std::string& lr, std::uint64_t seed, json summary) {
  TrialRow r;
  r.point = {{"model.attention.qk", qk}};
  r.tune = {{"train.lr", lr}};
  r.tune_label = "train.lr=" + lr;
  r.seed = seed;
  r.summary = std::move(summary);
  return r;
}

json finished(double final_val_loss, double init_loss) {
  return {{"status", "ok"}, {"final", {{"val_loss", final_val_loss}}}, {"init_loss", init_loss}};
}

}  // namespace

TEST_CASE("lr_sensitivity is the mean of min(final loss, initial loss) minus the best, by hand",
          "[lr_sensitivity]") {
  RunRows run;
  // separate, seed 0: losses 2.0, 1.5, 3.5 with ℓ0 = 3.0 → capped 2.0, 1.5, 3.0; ℓ* = 1.5;
  // mean(0.5, 0, 1.5) = 2/3.
  run.rows.push_back(row("separate", "0.001", 0, finished(2.0, 3.0)));
  run.rows.push_back(row("separate", "0.01", 0, finished(1.5, 3.0)));
  run.rows.push_back(row("separate", "0.1", 0, finished(3.5, 3.0)));
  // separate, seed 1: the largest rate diverged → ℓ0 = 3.0: mean(0.2, 0, 1.2) = 1.4/3.
  run.rows.push_back(row("separate", "0.001", 1, finished(2.0, 3.0)));
  run.rows.push_back(row("separate", "0.01", 1, finished(1.8, 3.0)));
  run.rows.push_back(row("separate", "0.1", 1, {{"status", "diverged"}, {"init_loss", 3.0}}));
  // shared, seed 0: one rate failed → no value for that seed.
  run.rows.push_back(row("shared", "0.001", 0, finished(2.0, 3.0)));
  run.rows.push_back(row("shared", "0.01", 0, {{"status", "failed"}}));
  run.rows.push_back(row("shared", "0.1", 0, finished(2.2, 3.0)));
  RunPoints points;
  points.points.resize(2);
  points.points[0].values = {{"model.attention.qk", "separate"}};
  points.points[1].values = {{"model.attention.qk", "shared"}};
  add_lr_sensitivity(run, "train.lr", points);
  CHECK(points.test_metrics == std::vector<std::string>{"lr_sensitivity"});
  CHECK(points.points[0].test.at(0).at("lr_sensitivity") == Approx(2.0 / 3.0));
  CHECK(points.points[0].test.at(1).at("lr_sensitivity") == Approx(1.4 / 3.0));
  CHECK(points.points[1].test.count(0) == 0);
  // Not asked for: nothing added.
  RunPoints none;
  none.points.resize(1);
  add_lr_sensitivity(run, "", none);
  CHECK(none.test_metrics.empty());
}

TEST_CASE(
    "lr_sensitivity from a run: every trial records its loss at initialisation, and a claim "
    "can name the metric",
    "[lr_sensitivity][e2e]") {
  ScratchDir dir("lr_sensitivity");
  const std::string file = dir.file(
      "sens.toml",
      tiny_experiment("sens") +
          "\n[sweep]\n\"model.attention.qk\" = [\"separate\", \"shared\"]\nseeds = [0, 1]\n"
          "[tune]\n\"train.lr\" = [1e-4, 1e-3, 1e-2]\n"
          "[report]\nlr_sensitivity = \"train.lr\"\n"
          "[[report.claims]]\nclaim = \"shared is less sensitive\"\n"
          "point = { \"model.attention.qk\" = \"shared\" }\nexpect = \"better\"\n"
          "metric = \"lr_sensitivity\"\n");
  const std::string cli = std::string(ABLATE_CLI);
  CommandResult r = run_command(cli + " run " + file + " --out " + dir.str() + " --jobs 2 --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const std::string run_dir = dir.str() + "/sens";
  // Recomputed here from the trials' summaries: the first point at seed 0.
  const auto index = json::parse(read_text(run_dir + "/trials.json"));
  std::vector<double> capped;
  for (const json& t : index["trials"]) {
    if (t["point"]["model.attention.qk"] != "separate" || t["seed"] != 0) continue;
    const json s =
        json::parse(read_text(run_dir + "/trials/" + t["id"].get<std::string>() + "/summary.json"));
    REQUIRE(s.contains("init_loss"));
    // Every learning rate starts from the same weights: the same initial loss.
    CHECK(s["init_loss"].get<double>() > 0);
    capped.push_back(std::min(s["final"]["val_loss"].get<double>(), s["init_loss"].get<double>()));
  }
  REQUIRE(capped.size() == 3);
  const double best = std::min({capped[0], capped[1], capped[2]});
  const double expected = (capped[0] + capped[1] + capped[2] - 3 * best) / 3;
  bool found = false;
  for (const auto& fields : csv_rows(read_text(run_dir + "/comparisons.csv")))
    if (fields.size() > 8 && fields[2] == "model.attention.qk=separate" &&
        fields[5] == "lr_sensitivity") {
      found = true;
      CHECK(fields[7] == "2");  // seeds
    }
  CHECK(found);
  CHECK_THAT(read_text(run_dir + "/claims.csv"), Catch::Contains(",lr_sensitivity,"));
  // The value itself, from the point's rows of the reports' own computation.
  RunPoints points = read_run_points(run_dir);
  for (const PointResults& p : points.points)
    if (p.values.at("model.attention.qk") == "separate")
      CHECK(p.test.at(0).at("lr_sensitivity") == Approx(expected));
}

TEST_CASE("lr_sensitivity where it cannot be computed is exit 2 naming the key",
          "[lr_sensitivity][e2e]") {
  ScratchDir dir("lr_sensitivity_errors");
  const std::string base = tiny_experiment("bad") +
                           "\n[sweep]\n\"model.attention.qk\" = [\"separate\", \"shared\"]\n"
                           "seeds = [0, 1]\n";
  const std::vector<RefusalCase> cases = {
      {"[report]\nlr_sensitivity = \"train.lr\"\n",
       "report.lr_sensitivity: \"train.lr\" is not a [tune] key"},
      {"[tune]\n\"train.lr\" = [1e-3, 1e-2]\n[report]\nlr_sensitivity = \"train.lr\"\n",
       "needs at least 3 settings"},
      {"[tune]\n\"train.lr\" = [1e-4, 1e-3, 1e-2]\nseeds = [7]\n[report]\n"
       "lr_sensitivity = \"train.lr\"\n",
       "needs every setting on every seed: remove tune.seeds"},
      {"[[report.claims]]\nclaim = \"x\"\npoint = { \"model.attention.qk\" = \"shared\" }\n"
       "expect = \"better\"\nmetric = \"lr_sensitivity\"\n",
       "\"lr_sensitivity\" is not a metric this run reports"},
  };
  check_refusals(dir, base, cases);
}
