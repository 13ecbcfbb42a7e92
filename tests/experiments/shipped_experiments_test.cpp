// Every shipped experiment (experiments/*.toml) trains in f32 at its own settings
// without a NaN: each grid point's first seed runs to the end as `ok` — not diverged,
// not failed — with a finite final loss. (The committed results in
// experiments/results/ cover every seed; this keeps it true as the code changes.)
// Each file is its own test case so ctest runs them side by side. Not built under
// sanitizers (minutes of training).
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <set>

#include "experiments/config/experiment.h"
#include "experiments/runner/trial_runner.h"
#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments;
namespace fs = std::filesystem;

namespace {

const std::string kShipped = std::string(ABLATE_TEST_DATA_DIR) + "/../experiments/";

void check_trains_without_nan(const std::string& name) {
  Experiment e = load_experiment(kShipped + name + ".toml");
  testing::ScratchDir dir("shipped_" + name);
  int ran = 0;
  for (const Trial& t : e.trials) {
    if (t.config.trial_seed != e.seeds.front()) continue;
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
  CHECK(ran == int(e.trials.size() / e.seeds.size()));
}

}  // namespace

TEST_CASE("the shipped experiments are exactly the ones tested here", "[shipped]") {
  std::set<std::string> files;
  for (const auto& f : fs::directory_iterator(kShipped))
    if (f.path().extension() == ".toml") files.insert(f.path().stem().string());
  CHECK(files == std::set<std::string>{"attention", "forecasting", "g2p", "length_generalisation", "lm", "norms",
                                       "positions", "quickstart", "real_forecasting", "scaling_gradient"});
}

TEST_CASE("shipped quickstart trains in f32 without NaN", "[shipped]") { check_trains_without_nan("quickstart"); }
TEST_CASE("shipped attention trains in f32 without NaN", "[shipped]") { check_trains_without_nan("attention"); }
TEST_CASE("shipped positions trains in f32 without NaN", "[shipped]") { check_trains_without_nan("positions"); }
TEST_CASE("shipped norms trains in f32 without NaN", "[shipped]") { check_trains_without_nan("norms"); }
TEST_CASE("shipped forecasting trains in f32 without NaN", "[shipped]") { check_trains_without_nan("forecasting"); }
TEST_CASE("shipped scaling_gradient sweep trains in f32 without NaN", "[shipped]") {
  check_trains_without_nan("scaling_gradient");
}
TEST_CASE("shipped length_generalisation trains in f32 without NaN", "[shipped]") {
  check_trains_without_nan("length_generalisation");
}

// The experiments on real data first make sure their dataset is in the cache, as a
// user would (`ablate data get`: from npm's registry or Debian's archive, so the first
// run on a machine needs the network; later ones are offline).
void ensure_dataset(const std::string& name) {
  testing::CommandResult r = testing::run_command(std::string(ABLATE_CLI) + " data get " + name);
  INFO(r.output);
  REQUIRE(r.status == 0);
}

TEST_CASE("shipped real_forecasting trains in f32 without NaN", "[shipped]") {
  ensure_dataset("statsmodels");
  check_trains_without_nan("real_forecasting");
}
TEST_CASE("shipped g2p trains in f32 without NaN", "[shipped]") {
  ensure_dataset("cmudict");
  check_trains_without_nan("g2p");
}
TEST_CASE("shipped lm trains in f32 without NaN", "[shipped]") {
  ensure_dataset("sotu");
  check_trains_without_nan("lm");
}
