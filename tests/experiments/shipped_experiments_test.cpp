// Every shipped experiment (experiments/studies/*.toml) runs end to end at reduced size — the
// smoke tier: seed 0 of every grid point, each [tune] key's first and last value, twenty
// steps and small evaluation sets — and each trial ends `ok` (not diverged, not failed) with
// finite losses and the files a user reads. Each file is its own test case so ctest
// runs them side by side. That the files at full size still give the committed
// results, bit for bit, is the reproduce tier's job (scripts/reproduce.sh).
// The real-data files read their dataset from the cache: scripts/test.sh fetches them
// (`ablate data get`) before the suite runs, so no test needs the network.
// Not built under sanitizers (the e2e tests cover the same code paths).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include "tests/build_paths.h"

#include "experiments/config/experiment.h"
#include "experiments/runner/trial_runner.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
namespace fs = std::filesystem;

namespace {

const std::string kShipped = std::string(ABLATE_TEST_DATA_DIR) + "/../experiments/studies/";

// Overrides shared by every file: twenty steps, one evaluation at the end. (A swept
// or tuned key keeps its swept values: the sweep wins over overrides.)
const std::vector<std::string> kFewSteps = {"train.steps=20", "train.eval_every=20"};

// What each task's evaluation sets shrink to.
struct SmokeCase {
  std::string name;
  std::vector<std::string> smaller_evaluation;
};
const std::vector<SmokeCase> kSmokeCases = {
    {"quickstart", {"task.validation_size=100", "task.test_size=100"}},
    {"attention", {"task.validation_size=100", "task.test_size=100"}},
    {"positions", {"task.validation_size=100", "task.test_size=100"}},
    {"norms", {"task.validation_size=100", "task.test_size=100"}},
    {"scaling_gradient", {"task.validation_size=100", "task.test_size=100"}},
    {"length_generalisation", {"task.validation_size=100", "task.test_size=210"}},
    {"forecasting", {}},
    {"real_forecasting", {}},
    {"g2p", {"task.validation_words=100", "task.test_words=100"}},
    {"lm", {"task.validation_tokens=2000", "task.test_tokens=2000"}},
};

void check_smoke_run(const std::string& name) {
  const auto it = std::find_if(kSmokeCases.begin(), kSmokeCases.end(),
                               [&](const SmokeCase& c) { return c.name == name; });
  REQUIRE(it != kSmokeCases.end());
  LoadOptions load;
  load.overrides = kFewSteps;
  load.overrides.insert(load.overrides.end(), it->smaller_evaluation.begin(),
                        it->smaller_evaluation.end());
  Experiment e = load_experiment(kShipped + name + ".toml", load);
  testing::ScratchDir dir("smoke_" + name);
  int ran = 0;
  // The seeds e.trials run at: the sweep's, or a two-stage [tune]'s tuning seeds.
  const std::vector<std::uint64_t>& listed = e.tune_seeds.empty() ? e.seeds : e.tune_seeds;
  // Each tuned key's values in grid order. Its first and last are what can break at
  // twenty steps (the largest learning rate diverging); the values between them add
  // minutes, not coverage — scaling_gradient's eight rates took 248 s of CI.
  std::map<std::string, std::vector<std::string>> grid;
  for (const Trial& t : e.trials)
    for (const auto& [key, value] : t.tune)
      if (std::find(grid[key].begin(), grid[key].end(), value) == grid[key].end())
        grid[key].push_back(value);
  const auto at_edges = [&](const Trial& t) {
    return std::all_of(t.tune.begin(), t.tune.end(), [&](const auto& kv) {
      return kv.second == grid[kv.first].front() || kv.second == grid[kv.first].back();
    });
  };
  for (const Trial& t : e.trials) {
    if (t.config.trial_seed != listed.front() || !at_edges(t)) continue;
    INFO(name << ": trial " << t.id << " " << t.point_label());
    const std::string trial_dir = dir.str() + "/" + t.id;
    fs::create_directories(trial_dir);
    TrialOutcome o = run_trial(t, e.base_dir, trial_dir);
    INFO(o.error);
    CHECK(o.status == "ok");
    CHECK(std::isfinite(o.final.train_loss));
    CHECK(std::isfinite(o.final.loss));
    // What a user reads of a sequence trial besides its metrics: the decoded test set.
    if (t.config.model.kind == "seq2seq") CHECK(fs::exists(trial_dir + "/predictions.tsv"));
    if (t.config.model.kind == "decoder") CHECK(fs::exists(trial_dir + "/samples.txt"));
    fs::remove_all(trial_dir);
    ++ran;
  }
  // Every point ran, at each tuned key's first and last value.
  std::set<std::string> points;
  for (const Trial& t : e.trials) points.insert(t.point_label());
  std::size_t edge_settings = 1;
  for (const auto& [key, values] : grid) edge_settings *= std::min<std::size_t>(values.size(), 2);
  CHECK(std::size_t(ran) == points.size() * edge_settings);
}

}  // namespace

TEST_CASE("the shipped experiments are exactly the ones tested here", "[shipped]") {
  std::set<std::string> files, tested;
  for (const auto& f : fs::directory_iterator(kShipped))
    if (f.path().extension() == ".toml") files.insert(f.path().stem().string());
  for (const SmokeCase& c : kSmokeCases) tested.insert(c.name);
  CHECK(files == tested);
}

TEST_CASE("smoke: shipped quickstart runs end to end", "[shipped][smoke]") {
  check_smoke_run("quickstart");
}
TEST_CASE("smoke: shipped attention runs end to end", "[shipped][smoke]") {
  check_smoke_run("attention");
}
TEST_CASE("smoke: shipped positions runs end to end", "[shipped][smoke]") {
  check_smoke_run("positions");
}
TEST_CASE("smoke: shipped norms runs end to end", "[shipped][smoke]") {
  check_smoke_run("norms");
}
TEST_CASE("smoke: shipped forecasting runs end to end", "[shipped][smoke]") {
  check_smoke_run("forecasting");
}
TEST_CASE("smoke: shipped scaling_gradient runs end to end", "[shipped][smoke]") {
  check_smoke_run("scaling_gradient");
}
TEST_CASE("smoke: shipped length_generalisation runs end to end", "[shipped][smoke]") {
  check_smoke_run("length_generalisation");
}
TEST_CASE("smoke: shipped real_forecasting runs end to end", "[shipped][smoke]") {
  check_smoke_run("real_forecasting");
}
TEST_CASE("smoke: shipped g2p runs end to end", "[shipped][smoke]") {
  check_smoke_run("g2p");
}
TEST_CASE("smoke: shipped lm runs end to end", "[shipped][smoke]") {
  check_smoke_run("lm");
}
