// Every replication (experiments/studies/replications/*.toml, and registered/*.toml)
// runs end to end in its quick variant (`--quick`, the file's [quick] table) cut
// further to smoke size (twenty
// steps, small evaluation sets; the quick variant's two seeds, so that every point is
// compared): every trial finishes — `ok`, or `diverged` where divergence is what a
// file studies; none fails — and summary.md's test table gives every point a verdict
// against its baseline. The full runs' results are committed in
// experiments/studies/results/replications/, and scripts/reproduce.sh (the reproduce tier)
// checks that the files still give them. The datasets come from the cache (scripts/
// test.sh fetches them before the suite). Not built under sanitizers.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <filesystem>
#include <set>
#include <sstream>

#include "experiments/config/experiment.h"
#include "experiments/runner/experiment_runner.h"
#include "experiments/runner/sweep_runner.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
namespace fs = std::filesystem;

namespace {

const std::string kReplications =
    std::string(ABLATE_TEST_DATA_DIR) + "/../experiments/studies/replications/";

// The rows of summary.md's first table of the primary test metric (an adaptive run's
// design verdicts come before it), header excluded; its last column the fixed-n verdict,
// a reference in an adaptive run.
std::vector<std::string> test_table_rows(const std::string& summary) {
  std::vector<std::string> rows;
  std::istringstream in(summary);
  std::string line;
  bool in_table = false;
  while (std::getline(in, line)) {
    if (!in_table) {
      in_table = line.rfind("| ", 0) == 0 && (line.ends_with("| verdict (exploratory) |") ||
                                              line.ends_with("| fixed-n verdict (reference only: "
                                                             "the seeds were not fixed in "
                                                             "advance) |"));
      continue;
    }
    if (line.rfind("|---", 0) == 0) continue;
    if (line.rfind("|", 0) != 0) break;
    rows.push_back(line);
  }
  return rows;
}

std::string last_cell(const std::string& row) {
  const std::size_t end = row.find_last_of('|');
  const std::size_t begin = row.find_last_of('|', end - 1);
  std::string cell = row.substr(begin + 1, end - begin - 1);
  return cell.substr(1, cell.size() - 2);
}

// The overrides that take a quick variant down to smoke size, after its [quick] table.
const std::vector<std::string> kSmokeLm = {"train.steps=20", "train.eval_every=20",
                                           "task.validation_tokens=1000", "task.test_tokens=2000"};
const std::vector<std::string> kSmokeCopy = {"train.steps=20", "train.eval_every=20",
                                             "task.validation_size=100", "task.test_size=120"};

void check_smoke_variant(const std::string& name, const std::vector<std::string>& smoke) {
  LoadOptions load;
  load.quick = true;
  load.overrides = smoke;
  Experiment e = load_experiment(kReplications + name + ".toml", load);
  REQUIRE(e.name == fs::path(name).filename().string() + "-quick");
  testing::ScratchDir dir("replication_" + fs::path(name).filename().string());
  RunOptions o;
  o.out = dir.str();
  o.jobs = 1;  // ctest runs the replications side by side
  o.progress = false;
  RunSummary s = run_experiment(e, o);
  // Divergence is an outcome some replications study (post-LN without warm-up): a
  // trial may diverge, none may fail.
  CHECK(s.failed == 0);
  CHECK(s.ok + s.diverged == s.total);
  // An adaptive design lists its first block, a two-stage [tune] its tuning stage;
  // later rounds and the second stage add trials.
  if (e.adaptive || !e.tune_seeds.empty())
    CHECK(s.total >= int(e.trials.size()));
  else
    CHECK(s.total == int(e.trials.size()));
  const std::vector<std::string> rows =
      test_table_rows(testing::read_text(s.run_dir + "/summary.md"));
  std::set<std::string> points;
  for (const Trial& t : e.trials)
    if (t.tune.empty() || t.tune == e.trials.front().tune) points.insert(t.point_label());
  CHECK(rows.size() == points.size());
  int baselines = 0;
  for (const std::string& row : rows) {
    INFO(row);
    const std::string verdict = last_cell(row);
    baselines += verdict == "baseline";
    // A verdict word (with "rests on normality" or a margin after it), or why there is
    // no test.
    const bool decided = verdict == "baseline" || verdict.starts_with("better") ||
                         verdict.starts_with("worse") ||
                         verdict.starts_with("equivalent within ±") ||
                         verdict.starts_with("no detectable difference (±") ||
                         verdict.starts_with("inconclusive: ") ||
                         (s.diverged > 0 && verdict == "too few seeds to compare");
    CHECK(decided);
  }
  CHECK(baselines >= 1);
}

}  // namespace

TEST_CASE("the replications are exactly the ones tested here", "[replications]") {
  std::set<std::string> files;
  for (const auto& f : fs::directory_iterator(kReplications))
    if (f.path().extension() == ".toml") files.insert(f.path().stem().string());
  CHECK(files == std::set<std::string>{"blog_projections", "blog_scale", "kazemnejad_nope",
                                       "press_alibi", "reformer_shared_qk", "shen_powernorm",
                                       "vaswani_table3", "wortsman_qk_norm", "xiong_warmup",
                                       "zhu_dyt"});
}

// A registered file (registered/README.md): claims and design fixed, its run to come.
TEST_CASE("the registered replications are exactly the ones tested here", "[replications]") {
  std::set<std::string> files;
  for (const auto& f : fs::directory_iterator(kReplications + "registered"))
    if (f.path().extension() == ".toml") files.insert(f.path().stem().string());
  // None waits: every registered file has been run and moved up (registered/README.md).
  CHECK(files.empty());
}

// blog_scale's premise: with unit-variance queries and keys the unscaled score variance
// grows as d_k. Its trials must carry the initialisation that gives it.
TEST_CASE("blog_scale trains W_q and W_k from the unit-variance initialisation", "[replications]") {
  const Experiment e = load_experiment(kReplications + "blog_scale.toml");
  REQUIRE(!e.trials.empty());
  for (const Trial& t : e.trials)
    CHECK_THAT(t.config_toml, Catch::Contains("init = \"unit_variance\""));
}

TEST_CASE("smoke: replication vaswani_table3 runs in its quick variant cut to smoke size",
          "[replications][smoke]") {
  check_smoke_variant("vaswani_table3", kSmokeLm);
}
TEST_CASE("smoke: replication reformer_shared_qk runs in its quick variant cut to smoke size",
          "[replications][smoke]") {
  check_smoke_variant("reformer_shared_qk", kSmokeLm);
}
TEST_CASE("smoke: replication press_alibi runs in its quick variant cut to smoke size",
          "[replications][smoke]") {
  check_smoke_variant("press_alibi", kSmokeLm);
}
TEST_CASE("smoke: replication kazemnejad_nope runs in its quick variant cut to smoke size",
          "[replications][smoke]") {
  check_smoke_variant("kazemnejad_nope", kSmokeCopy);
}
TEST_CASE("smoke: replication xiong_warmup runs in its quick variant cut to smoke size",
          "[replications][smoke]") {
  check_smoke_variant("xiong_warmup", kSmokeLm);
}
TEST_CASE("smoke: replication shen_powernorm runs in its quick variant cut to smoke size",
          "[replications][smoke]") {
  check_smoke_variant("shen_powernorm", kSmokeLm);
}
TEST_CASE("smoke: replication blog_projections runs in its quick variant cut to smoke size",
          "[replications][smoke]") {
  check_smoke_variant("blog_projections", kSmokeLm);
}
TEST_CASE("smoke: replication blog_scale runs in its quick variant cut to smoke size",
          "[replications][smoke]") {
  check_smoke_variant("blog_scale", kSmokeLm);
}
TEST_CASE("smoke: replication zhu_dyt runs in its quick variant cut to smoke size",
          "[replications][smoke]") {
  check_smoke_variant("zhu_dyt", kSmokeLm);
}
TEST_CASE("smoke: replication wortsman_qk_norm runs in its quick variant cut to smoke size",
          "[replications][smoke]") {
  check_smoke_variant("wortsman_qk_norm", kSmokeLm);
}
