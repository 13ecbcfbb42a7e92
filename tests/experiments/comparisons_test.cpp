// The comparison table of reports (experiments/analysis/comparisons.h): which point is
// each point's baseline, when seeds pair trials (paired t) and when they cannot
// (Welch), exploratory rows (unadjusted p, the permutation test and a bootstrap interval
// beside it, intervals inside the metric's range, no test and no "±0" where there is no
// spread or the test data differ), the verdict, and a run's comparisons.csv and
// summary.md built from its trials' test metrics. The tests
// themselves are checked against SciPy in stats_test.cpp; here the plumbing is.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <cmath>
#include <sstream>

#include "experiments/analysis/comparisons.h"
#include "experiments/analysis/curve_metrics.h"
#include "experiments/config/config_error.h"
#include "experiments/config/experiment.h"
#include "experiments/config/report_spec.h"
#include "experiments/reports/comparison_tables.h"
#include "experiments/stats/resampling.h"
#include "experiments/stats/verdicts.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;

namespace {

PointResults point(std::map<std::string, std::string> values, std::vector<double> accuracy,
                   std::uint64_t first_seed = 0) {
  PointResults p;
  p.run = "run";
  p.values = values;
  for (const auto& [k, v] : values) p.label += (p.label.empty() ? "" : " ") + k + "=" + v;
  p.point_id = p.label;
  for (std::size_t i = 0; i < accuracy.size(); ++i) {
    p.test[first_seed + i]["sequence_accuracy"] = accuracy[i];
    p.test_se[first_seed + i]["sequence_accuracy"] = 0.01;
  }
  p.trials = int(accuracy.size());
  return p;
}

}  // namespace

TEST_CASE("a point's baseline has the baseline's values and the point's own elsewhere",
          "[comparisons]") {
  std::vector<PointResults> points{point({{"qk", "separate"}, {"scale", "sqrt"}}, {}),
                                   point({{"qk", "separate"}, {"scale", "none"}}, {}),
                                   point({{"qk", "shared"}, {"scale", "sqrt"}}, {}),
                                   point({{"qk", "shared"}, {"scale", "none"}}, {})};
  // Only qk named: each scale keeps its own.
  auto partial = find_baselines(points, {{"qk", "separate"}});
  CHECK(!partial[0]);
  CHECK(!partial[1]);
  CHECK(partial[2] == std::optional<std::size_t>(0));
  CHECK(partial[3] == std::optional<std::size_t>(1));
  // Every axis named (the default): one baseline for all.
  auto full = find_baselines(points, {{"qk", "separate"}, {"scale", "sqrt"}});
  CHECK(!full[0]);
  CHECK(full[1] == std::optional<std::size_t>(0));
  CHECK(full[2] == std::optional<std::size_t>(0));
  CHECK(full[3] == std::optional<std::size_t>(0));
  // Points of another run are never a baseline of this run's points.
  points[0].run = "other";
  CHECK(!find_baselines(points, {{"qk", "separate"}})[2]);
}

TEST_CASE("seeds pair trials when every seed of both points finished, otherwise Welch",
          "[comparisons]") {
  const std::vector<double> base{0.50, 0.60, 0.55, 0.70}, better{0.58, 0.66, 0.61, 0.79};
  std::vector<PointResults> points{point({{"qk", "separate"}}, base),
                                   point({{"qk", "shared"}}, better)};
  ComparisonSettings settings{{"sequence_accuracy"}, std::nullopt};
  auto rows = compare_points(points, find_baselines(points, {{"qk", "separate"}}), settings);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].verdict == "baseline");
  REQUIRE(rows[1].comparison);
  const stats::Comparison paired = stats::paired_t(better, base);
  CHECK(rows[1].comparison->method == "paired_t");
  CHECK(rows[1].comparison->p_value == paired.p_value);
  CHECK(rows[1].comparison->diff == paired.diff);
  CHECK(rows[1].verdict == stats::exploratory_verdict(paired, true, std::nullopt));
  CHECK(rows[1].summary.n == 4);
  CHECK(rows[1].eval_se == Approx(0.01));

  // One diverged trial: the seeds no longer pair every trial, so Welch on what is there.
  points[1].test.erase(3);
  points[1].diverged = 1;
  rows = compare_points(points, find_baselines(points, {{"qk", "separate"}}), settings);
  REQUIRE(rows[1].comparison);
  CHECK(rows[1].comparison->method == "welch_t");
  const std::vector<double> three(better.begin(), better.begin() + 3);
  CHECK(rows[1].comparison->p_value == stats::welch_t(three, base).p_value);
  CHECK(rows[1].summary.n == 3);
  const std::string csv = comparisons_csv(points, rows);
  CHECK_THAT(csv, Catch::Contains(",welch_t,"));
  CHECK_THAT(lines_of(csv)[2],
             Catch::EndsWith(
                 ",4,1,0,0,,yes"));  // trials, diverged, failed, missing, tuned, same_test_data

  // A single seed cannot be compared.
  points[1].test = {{0, {{"sequence_accuracy", 0.9}}}};
  rows = compare_points(points, find_baselines(points, {{"qk", "separate"}}), settings);
  CHECK(!rows[1].comparison);
  CHECK(rows[1].verdict == "too few seeds to compare");
}

// Protects the exploratory table: unadjusted p-values (the confirmatory ones are the
// claims'), the permutation test and a bootstrap interval beside each, verdicts by
// stats/verdicts.h, and intervals inside the metric's range.
TEST_CASE(
    "table rows are exploratory: unadjusted p, permutation p, bootstrap interval, bounded "
    "intervals",
    "[comparisons]") {
  const std::vector<double> base{0.50, 0.60, 0.55, 0.70, 0.65};
  std::vector<PointResults> points{point({{"v", "a"}}, base),
                                   point({{"v", "b"}}, {0.60, 0.71, 0.64, 0.81, 0.74}),
                                   point({{"v", "c"}}, {0.49, 0.62, 0.54, 0.69, 0.66}),
                                   point({{"v", "d"}}, {0.40, 0.49, 0.46, 0.61, 0.55})};
  ComparisonSettings settings{{"sequence_accuracy"}, 0.05};
  auto rows = compare_points(points, find_baselines(points, {{"v", "a"}}), settings);
  REQUIRE(rows.size() == 4);
  for (std::size_t i = 1; i < 4; ++i) {
    const stats::Comparison& c = *rows[i].comparison;
    CHECK(c.p_value == stats::paired_t(c.a, c.b).p_value);  // as computed: no adjustment
    CHECK(rows[i].p_permutation == stats::permutation_p_two_sided(c));
    CHECK(rows[i].bootstrap.low == stats::bootstrap_interval(c, 0.025).low);
  }
  // 5 seeds: the sign-flip test cannot go below 2/32 two-sided, so a t finding rests on normality.
  CHECK(rows[1].p_permutation == 0.0625);
  CHECK(rows[1].verdict == "better (rests on normality, n = 5)");
  CHECK(rows[3].verdict == "worse (rests on normality, n = 5)");  // accuracy: lower is worse
  // c differs from a by noise around 0 within ±0.05: equivalent by two one-sided tests.
  CHECK(rows[2].verdict == "equivalent within ±0.05");
  // Without a margin, the same comparison only says what the design could not detect.
  settings.equivalence_margin.reset();
  rows = compare_points(points, find_baselines(points, {{"v", "a"}}), settings);
  CHECK_THAT(rows[2].verdict, Catch::StartsWith("no detectable difference (±"));

  // An accuracy near 1 with spread: its t interval is clipped to [0, 1].
  std::vector<PointResults> high{point({{"v", "a"}}, {0.99, 1.0, 0.90, 1.0}),
                                 point({{"v", "b"}}, {1.0, 0.95, 1.0, 1.0})};
  rows = compare_points(high, find_baselines(high, {{"v", "a"}}), settings);
  CHECK(stats::summarize(std::vector<double>{0.99, 1.0, 0.90, 1.0}).ci_high > 1);
  CHECK(rows[0].summary.ci_high == 1.0);
  CHECK(rows[1].summary.ci_high == 1.0);
  CHECK(rows[1].comparison->diff_ci_high <= 1.0);
}

// Protects comparisons across test data: no p-value and no verdict but inconclusive.
TEST_CASE("a point tested on other data than its baseline gets no test", "[comparisons]") {
  std::vector<PointResults> points{point({{"v", "a"}}, {0.50, 0.60, 0.55}),
                                   point({{"v", "b"}}, {0.60, 0.71, 0.64})};
  points[0].data_id = "data-1";
  points[1].data_id = "data-2";
  const auto rows = compare_points(points, find_baselines(points, {{"v", "a"}}),
                                   {{"sequence_accuracy"}, std::nullopt});
  REQUIRE(rows[1].comparison);
  CHECK_FALSE(rows[1].comparison->tested());
  CHECK_THAT(rows[1].verdict,
             Catch::StartsWith("inconclusive: tested on other data than its baseline"));
  const std::string csv = comparisons_csv(points, rows);
  CHECK_THAT(lines_of(csv)[2],
             Catch::Contains(",0.1,,,,,,,,,paired_t,\"inconclusive: tested on other data"));
}

TEST_CASE("[report] names swept keys and their values, anything else is an error at its line",
          "[comparisons]") {
  ScratchDir dir("comparisons_report_spec");
  const std::string sweep = sweep_experiment("spec");
  auto load = [&](const std::string& report) {
    return load_experiment(dir.file("exp.toml", sweep + report));
  };
  Experiment e = load("");
  CHECK(e.report.baseline == std::vector<std::pair<std::string, std::string>>{
                                 {"model.attention.qk", "separate"}, {"model.norm.kind", "layer"}});
  e = load(
      "\n[report]\nbaseline = { \"model.norm.kind\" = \"batch\" }\nequivalence_margin = 0.02\n");
  CHECK(e.report.baseline ==
        std::vector<std::pair<std::string, std::string>>{{"model.norm.kind", "batch"}});
  CHECK(e.report.equivalence_margin == std::optional<double>(0.02));
  auto problem = [&](const std::string& report) {
    try {
      load(report);
    } catch (const ConfigError& err) {
      return std::string(err.what());
    }
    return std::string("(loaded)");
  };
  CHECK_THAT(problem("\n[report]\nbaseline = { \"model.d_model\" = 8 }\n"),
             Catch::Contains("report.baseline.model.d_model: is not a swept key") &&
                 Catch::Contains("model.attention.qk, model.norm.kind"));
  CHECK_THAT(problem("\n[report]\nbaseline = { \"model.norm.kind\" = \"rms\" }\n"),
             Catch::Contains("exp.toml:30:14:") &&
                 Catch::Contains("\"rms\" is not one of the swept values: layer, batch"));
  CHECK_THAT(problem("\n[report]\nmetric = \"bleu\"\n"),
             Catch::Contains("report.metric: \"bleu\" is not a test metric of this task; allowed: "
                             "sequence_accuracy, token_accuracy, loss"));
  CHECK_THAT(problem("\n[report]\nequivalence_margin = -1\n"),
             Catch::Contains("report.equivalence_margin"));
  CHECK_THAT(problem("\n[report]\nbaselin = {}\n"), Catch::Contains("did you mean 'baseline'"));
  // Not part of any trial: the ids do not change.
  CHECK(load("\n[report]\nequivalence_margin = 0.5\n").trials[0].id == load("").trials[0].id);
}

TEST_CASE("a run writes comparisons.csv and a summary.md test table from its trials",
          "[comparisons][e2e]") {
  ScratchDir dir("comparisons_run");
  const std::string file = dir.file("exp.toml", sweep_experiment("cmp"));
  CommandResult r = run_command("cd " + dir.str() + " && " + std::string(ABLATE_CLI) +
                                " run exp.toml --jobs 2 --quiet");
  REQUIRE(r.status == 0);
  const std::string csv = read_text(dir.str() + "/runs/cmp/comparisons.csv");
  const auto lines = lines_of(csv);
  REQUIRE(lines.size() == 1 + 4 * 4);  // 4 points × (3 test metrics + the validation curve's mean)
  CHECK_THAT(lines[0],
             Catch::StartsWith(
                 "run,point_id,point,baseline_point_id,baseline_point,metric,split,n,mean,"));
  CHECK_THAT(csv, Catch::Contains(",paired_t,"));
  const std::string md = read_text(dir.str() + "/runs/cmp/summary.md");
  CHECK_THAT(md,
             Catch::Contains("## Test sequence_accuracy") && Catch::Contains("| baseline |") &&
                 Catch::Contains(
                     "Evaluation noise: a trial's test sequence_accuracy has a standard error of"));
  const std::string results = read_text(dir.str() + "/runs/cmp/results.csv");
  CHECK_THAT(
      lines_of(results)[0],
      Catch::StartsWith("trial,point_id,model.attention.qk,model.norm.kind,seed,status,steps,"
                        "test_sequence_accuracy,test_token_accuracy,test_loss,"));
}

TEST_CASE(
    "ablate compare compares the points of two files against one baseline, merging a shared point",
    "[comparisons][e2e]") {
  ScratchDir dir("comparisons_compare");
  // Two files sweeping qk: both hold the separate point (the same config, so the
  // same point_id), each adds one variant.
  dir.file(
      "a.toml",
      tiny_experiment("a") +
          "\n[sweep]\n\"model.attention.qk\" = [\"separate\", \"shared\"]\nseeds = [0, 1, 2]\n");
  dir.file(
      "b.toml",
      tiny_experiment("b") +
          "\n[sweep]\n\"model.attention.qk\" = [\"separate\", \"identity\"]\nseeds = [0, 1, 2]\n");
  const std::string cli = "cd " + dir.str() + " && " + std::string(ABLATE_CLI);
  REQUIRE(run_command(cli + " run a.toml --jobs 2 --quiet").status == 0);
  REQUIRE(run_command(cli + " run b.toml --jobs 2 --quiet").status == 0);
  CommandResult r = run_command(cli + " compare runs/a runs/b --out cmp");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const auto lines = lines_of(read_text(dir.str() + "/cmp/comparisons.csv"));
  REQUIRE(lines.size() == 1 + 3 * 4);  // separate (once), shared, identity × 4 metrics
  CHECK_THAT(lines[1], Catch::StartsWith("a,") && Catch::Contains(",baseline,"));
  CHECK_THAT(lines[5], Catch::StartsWith("a,") && Catch::Contains("model.attention.qk=shared") &&
                           Catch::Contains(",paired_t,"));
  CHECK_THAT(lines[9],
             Catch::StartsWith("b,") && Catch::Contains("model.attention.qk=identity") &&
                 Catch::Contains("model.attention.qk=separate,sequence_accuracy,test,3,"));
  CHECK_THAT(
      read_text(dir.str() + "/cmp/comparisons.md"),
      Catch::Contains("# Comparison of a, b") && Catch::Contains("| run | model.attention.qk |"));
  // Mistakes are usage errors (exit status 2) that say what is there.
  CommandResult unknown = run_command(cli + " compare runs/a --baseline ffff --out cmp2");
  CHECK(unknown.status == 2);
  CHECK_THAT(unknown.output, Catch::Contains("--baseline ffff names no point") &&
                                 Catch::Contains("a: model.attention.qk=shared"));
  CHECK(run_command(cli + " compare runs/a runs/nothing --out cmp2").status == 2);
  CHECK_THAT(read_text(dir.str() + "/cmp/comparisons.csv"),
             !Catch::Contains(",no\n"));  // same test data
  // Another data seed is another test set: the comparison says so.
  REQUIRE(run_command(cli + " run b.toml seed=4 --out other --jobs 2 --quiet").status == 0);
  REQUIRE(run_command(cli + " compare runs/a other/b --out cmp3").status == 0);
  CHECK_THAT(read_text(dir.str() + "/cmp3/comparisons.csv"),
             Catch::Contains("inconclusive: tested on other data than its baseline") &&
                 Catch::Contains(",no\n"));
  CHECK_THAT(read_text(dir.str() + "/cmp3/comparisons.md"),
             Catch::Contains("between points evaluated on different data"));
  CHECK(run_command(cli + " compare runs/a --metric mse --out cmp2").status == 2);
  CHECK_FALSE(std::filesystem::exists(dir.str() + "/cmp2"));
}

TEST_CASE(
    "[tune] searches its grid for every sweep point, each point is reported at its best setting",
    "[comparisons][tune][e2e]") {
  ScratchDir dir("comparisons_tune");
  // lr 1e-5 cannot learn anything in 30 steps: every point must choose 3e-3.
  const std::string base = tiny_experiment("tuned") +
                           "\n[sweep]\n\"model.attention.qk\" = [\"separate\", \"shared\"]\n"
                           "seeds = [0, 1]\n";
  const std::string file = dir.file("exp.toml", base + "\n[tune]\n\"train.lr\" = [1e-5, 3e-3]\n");
  Experiment e = load_experiment(file);
  REQUIRE(e.trials.size() == 8);  // 2 points × 2 settings × 2 seeds: ordinary trials
  CHECK(e.tune_keys == std::vector<std::string>{"train.lr"});
  CHECK(e.swept_keys == std::vector<std::string>{"model.attention.qk"});
  CHECK(e.trials[0].tune ==
        std::vector<std::pair<std::string, std::string>>{{"train.lr", "1e-05"}});
  CHECK(e.trials[0].point_id != e.trials[2].point_id);  // another setting, another config
  const std::string cli = "cd " + dir.str() + " && " + std::string(ABLATE_CLI);
  REQUIRE(run_command(cli + " run exp.toml --jobs 2 --quiet").status == 0);
  const auto lines = lines_of(read_text(dir.str() + "/runs/tuned/comparisons.csv"));
  REQUIRE(lines.size() == 1 + 2 * 4);
  for (std::size_t i = 1; i < lines.size(); ++i)
    CHECK_THAT(lines[i], Catch::Contains(",train.lr=0.003,"));
  const auto results = lines_of(read_text(dir.str() + "/runs/tuned/results.csv"));
  CHECK_THAT(results[0],
             Catch::StartsWith("trial,point_id,model.attention.qk,train.lr,selected,seed,"));
  int selected = 0;
  for (std::size_t i = 1; i < results.size(); ++i)
    selected += results[i].find(",0.003,1,") != std::string::npos;
  CHECK(selected == 4);
  CHECK_THAT(read_text(dir.str() + "/runs/tuned/summary.md"),
             Catch::Contains("### Tuning") && Catch::Contains("**train.lr=0.003: "));
  // Tuning trials are cached like any: a third setting runs only its own 4 trials.
  dir.file("exp.toml", base + "\n[tune]\n\"train.lr\" = [1e-5, 3e-3, 1e-3]\n");
  CommandResult again = run_command(cli + " run exp.toml --jobs 2");
  CHECK_THAT(again.output, Catch::Contains("12 trials (8 already done, 4 ok"));

  auto problem = [&](const std::string& tune) {
    try {
      load_experiment(dir.file("bad.toml", base + tune));
    } catch (const ConfigError& err) {
      return std::string(err.what());
    }
    return std::string("(loaded)");
  };
  CHECK_THAT(problem("\n[tune]\n\"model.attention.qk\" = [\"separate\"]\n"),
             Catch::Contains("tune.model.attention.qk: is also swept"));
  CHECK_THAT(problem("\n[tune]\n\"train.lr\" = []\n"),
             Catch::Contains("tune.train.lr: is an empty list: nothing to search"));
  CHECK_THAT(problem("\n[tune]\n\"train.lr\" = [-1.0]\n"),
             Catch::Contains("bad.toml:29:15: train.lr"));
  // tune.seeds is the tuning stage's seeds (tuning_stages_test.cpp), not a trial key.
  CHECK_THAT(problem("\n[tune]\nseeds = [1]\n"),
             Catch::Contains("tune.seeds: shares seed 1 with the sweep's seeds"));
}

TEST_CASE("curve metrics: the mean of the validation curve and the steps to a threshold",
          "[comparisons][curves]") {
  const std::string jsonl =
      "{\"step\":100,\"sequence_accuracy\":0.2,\"val_loss\":2.0}\n"
      "{\"step\":200,\"sequence_accuracy\":0.6,\"val_loss\":1.0}\n"
      "{\"step\":300,\"sequence_accuracy\":0.9,\"val_loss\":\"nan\"}\n";
  const Curve acc = read_curve(jsonl, "sequence_accuracy");
  REQUIRE(acc.size() == 3);
  // Trapezoids over 100..300: (0.2+0.6)/2·100 + (0.6+0.9)/2·100 = 115, over 200 steps.
  CHECK(curve_auc(acc, 300) == Approx(115.0 / 200.0));
  // Stopped early at 300 of 500: the last value is held to the end.
  CHECK(curve_auc(acc, 500) == Approx((115.0 + 0.9 * 200) / 400.0));
  CHECK(read_curve(jsonl, "val_loss").size() == 2);  // "nan" skipped
  CHECK(steps_to_threshold(acc, 0.6, true, 300).steps == 200);
  CHECK(steps_to_threshold(acc, 0.6, true, 300).reached);
  const StepsToThreshold never = steps_to_threshold(acc, 0.95, true, 300);
  CHECK_FALSE(never.reached);
  CHECK(never.steps == 300);  // censored at the training length
  CHECK(steps_to_threshold(read_curve(jsonl, "val_loss"), 1.5, false, 300).steps == 200);
  CHECK(std::isnan(curve_auc({}, 100)));
  CHECK(higher_is_better("auc_sequence_accuracy"));
  CHECK_FALSE(higher_is_better("steps_to_sequence_accuracy_0.9"));
  CHECK(metric_split("auc_mse") == "validation");
  CHECK(metric_split("mse") == "test");
}

TEST_CASE("a [report] threshold adds steps-to-threshold rows without changing any trial",
          "[comparisons][curves][e2e]") {
  ScratchDir dir("comparisons_threshold");
  const std::string sweep = sweep_experiment("curves");
  dir.file("exp.toml", sweep);
  const std::string cli = "cd " + dir.str() + " && " + std::string(ABLATE_CLI);
  REQUIRE(run_command(cli + " run exp.toml --jobs 2 --quiet").status == 0);
  std::string csv = read_text(dir.str() + "/runs/curves/comparisons.csv");
  CHECK_THAT(csv, Catch::Contains(",auc_sequence_accuracy,validation,"));
  CHECK_THAT(csv, !Catch::Contains("steps_to_"));
  dir.file("exp.toml", sweep + "\n[report]\nthreshold = 0.5\n");
  CommandResult again = run_command(cli + " run exp.toml --jobs 2");
  CHECK_THAT(again.output, Catch::Contains("8 already done"));
  csv = read_text(dir.str() + "/runs/curves/comparisons.csv");
  CHECK_THAT(csv, Catch::Contains(",steps_to_sequence_accuracy_0.5,validation,"));
  CHECK_THAT(read_text(dir.str() + "/runs/curves/summary.md"),
             Catch::Contains("### Validation curve: steps_to_sequence_accuracy_0.5"));
}

// Protects a new user's first small sweep: two seeds whose differences are equal (a
// discrete metric moved by one test example in both) give no p-value, no "±0" that
// reads as "this design detects anything", and the reason in words.
TEST_CASE("equal paired differences print no p-value and inconclusive with the reason, never ±0",
          "[comparisons]") {
  std::vector<PointResults> points{point({{"v", "a"}}, {0.800, 0.850}),
                                   point({{"v", "b"}}, {0.805, 0.855}),
                                   point({{"v", "c"}}, {0.800, 0.850})};
  const auto rows =
      compare_points(points, find_baselines(points, {{"v", "a"}}), {{"sequence_accuracy"}, 0.01});
  const std::string md = comparisons_markdown(points, rows, {"v"}, "sequence_accuracy");
  INFO(md);
  CHECK_THAT(md, Catch::Contains("inconclusive: all 2 paired seeds differ by the same +0.005"));
  CHECK_THAT(md, Catch::Contains(
                     "inconclusive: all 2 paired seeds differ by the same +0: with no spread"));
  CHECK_THAT(md, !Catch::Contains("±0 ") && !Catch::Contains("±0)") &&
                     !Catch::Contains("p 0.0e+00") && !Catch::Contains("| 0.0000 |"));
  for (const ComparisonRow& r : rows)
    if (r.comparison) CHECK_FALSE(r.comparison->tested());
}

TEST_CASE("a tuned point is at its grid's edge when one key chose the first or last value",
          "[comparisons]") {
  PointResults p = point({{"model.heads", "2"}}, {0.5});
  for (const char* lr : {"0.001", "0.002", "0.004"})
    p.settings.push_back({std::string("train.lr=") + lr, 0.1, 2});
  p.setting = "train.lr=0.002";
  CHECK_FALSE(p.chose_grid_edge());
  p.setting = "train.lr=0.001";
  CHECK(p.chose_grid_edge());
  p.setting = "train.lr=0.004";
  CHECK(p.chose_grid_edge());
  // Two tuned keys: the settings' order is no single grid's, so no edge is claimed.
  p.settings = {{"train.lr=0.001 train.warmup=0", 0.1, 2},
                {"train.lr=0.002 train.warmup=0", 0.1, 2}};
  p.setting = p.settings.front().label;
  CHECK_FALSE(p.chose_grid_edge());
  // Without [tune] there is no grid.
  CHECK_FALSE(point({{"model.heads", "2"}}, {0.5}).chose_grid_edge());
}
