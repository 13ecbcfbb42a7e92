// Sweeps split over shards (job arrays) and MPI ranks: the split is a partition,
// balanced by predicted work, and merged results equal a local run's.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include "tests/build_paths.h"

#include "experiments/runner/trial_order.h"
#include "tests/experiments/experiment_files.h"
#include "tests/experiments/mpiexec.h"

using namespace ablate::experiments;
using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

namespace {

const std::string kCli = ABLATE_CLI;

std::string results_of(const std::string& run_dir) {
  return results_without_timings(read_text(run_dir + "/results.csv"));
}

}  // namespace

TEST_CASE("shards partition the trials and balance predicted work", "[distributed]") {
  ScratchDir dir("shard_split");
  // Unequal trials: d_model 8 and 32, so balancing by count alone would be uneven.
  Experiment e = load_experiment(dir.file(
      "exp.toml", tiny_experiment("split") +
                      "\n[sweep]\n\"model.d_model\" = [8, 32]\nseeds = [0, 1, 2, 3, 4]\n"));
  REQUIRE(e.trials.size() == 10);
  for (int n : {1, 2, 3, 7, 12}) {
    std::set<std::size_t> seen;
    std::vector<double> work;
    for (int k = 1; k <= n; ++k) {
      double w = 0;
      for (std::size_t i : shard_trials(e.trials, k, n)) {
        CHECK(seen.insert(i).second);  // no trial in two shards
        w += predicted_cost(e.trials[i].config);
      }
      work.push_back(w);
    }
    CHECK(seen.size() == e.trials.size());  // every trial in one
    // Dealt longest-first to the least-loaded shard: no two shards differ by more
    // than one trial's work (with equal trials that is a split by count).
    double largest = 0;
    for (const Trial& t : e.trials) largest = std::max(largest, predicted_cost(t.config));
    CHECK(*std::max_element(work.begin(), work.end()) -
              *std::min_element(work.begin(), work.end()) <=
          largest);
  }
  CHECK_THROWS_WITH(shard_trials(e.trials, 0, 3), Catch::Contains("1 <= K <= N"));
  // Longest first: both d_model 32 trials come before any d_model 8 one.
  std::vector<std::size_t> order = longest_first(e.trials);
  for (std::size_t i = 0; i < 5; ++i)
    CHECK(e.trials[order[i]].config.model.transformer.d_model == 32);
}

TEST_CASE("three shards merged by ablate report equal a local run", "[distributed][e2e]") {
  ScratchDir dir("shard_merge");
  std::string file = dir.file("exp.toml", sweep_experiment("merge"));
  REQUIRE(run_command(kCli + " run " + file + " --out " + dir.str() + "/local --jobs 1 --quiet")
              .status == 0);
  // Each shard on "its own machine" (directory), then copied together as a user would.
  for (int k = 1; k <= 3; ++k) {
    std::string out = dir.str() + "/machine" + std::to_string(k);
    CommandResult r = run_command(kCli + " run " + file + " --shard " + std::to_string(k) +
                                  "/3 --out " + out + " --jobs 1 --quiet");
    REQUIRE(r.status == 0);
    fs::create_directories(dir.str() + "/merged/merge/trials");
    fs::copy(out + "/merge/trials", dir.str() + "/merged/merge/trials",
             fs::copy_options::recursive | fs::copy_options::skip_existing);
    fs::copy(out + "/merge/trials.json", dir.str() + "/merged/merge/trials.json",
             fs::copy_options::skip_existing);
    fs::copy(out + "/merge/experiment.toml", dir.str() + "/merged/merge/experiment.toml",
             fs::copy_options::skip_existing);
  }
  CommandResult partial = run_command(kCli + " report " + dir.str() + "/machine1/merge");
  CHECK_THAT(partial.output,
             Catch::Contains("missing"));  // one shard alone lists the others' trials
  CommandResult merged = run_command(kCli + " report " + dir.str() + "/merged/merge");
  REQUIRE(merged.status == 0);
  CHECK_THAT(merged.output, Catch::Contains("8 of 8 trials finished"));
  CHECK(results_of(dir.str() + "/merged/merge") == results_of(dir.str() + "/local/merge"));
  CHECK(summaries_differing(dir.str() + "/local/merge", dir.str() + "/merged/merge").empty());
}

TEST_CASE("shards share one run directory and a bad --shard is exit 2", "[distributed][e2e]") {
  ScratchDir dir("shard_same_dir");
  std::string file = dir.file("exp.toml", sweep_experiment("same"));
  for (int k = 1; k <= 2; ++k)
    REQUIRE(run_command(kCli + " run " + file + " --shard " + std::to_string(k) + "/2 --out " +
                        dir.str() + "/runs --jobs 1 --quiet")
                .status == 0);
  REQUIRE(run_command(kCli + " run " + file + " --out " + dir.str() + "/local --jobs 1 --quiet")
              .status == 0);
  CHECK(results_of(dir.str() + "/runs/same") == results_of(dir.str() + "/local/same"));
  for (const char* bad : {"0/3", "4/3", "2", "a/b", "1/0"}) {
    CommandResult r =
        run_command(kCli + " run " + file + " --shard " + bad + " --out " + dir.str() + "/bad");
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains("--shard"));
    CHECK_FALSE(fs::exists(dir.str() + "/bad"));
  }
}

namespace {

// mpirun as root, with more ranks than this machine's cores allowed.
std::string mpirun(int ranks) {
  return mpiexec() + " --allow-run-as-root --oversubscribe -np " + std::to_string(ranks) + " ";
}

}  // namespace

TEST_CASE("mpirun -np 3 gives the same results as a local run and skips finished trials",
          "[distributed][mpi][e2e]") {
  ScratchDir dir("mpi_three");
  std::string file = dir.file("exp.toml", sweep_experiment("mpi"));
  REQUIRE(run_command(kCli + " run " + file + " --out " + dir.str() + "/local --jobs 1 --quiet")
              .status == 0);
  CommandResult r =
      run_command(mpirun(3) + kCli + " run " + file + " --out " + dir.str() + "/mpi --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("8 trials (0 already done, 8 ok"));
  CHECK(results_of(dir.str() + "/mpi/mpi") == results_of(dir.str() + "/local/mpi"));
  // Every trial's summary.json too, timings aside.
  CHECK(summaries_differing(dir.str() + "/local/mpi", dir.str() + "/mpi/mpi").empty());
  CommandResult again =
      run_command(mpirun(3) + kCli + " run " + file + " --out " + dir.str() + "/mpi --quiet");
  CHECK_THAT(again.output, Catch::Contains("8 trials (8 already done, 0 ok"));
}

TEST_CASE("mpirun with one rank and with more ranks than trials", "[distributed][mpi][e2e]") {
  ScratchDir dir("mpi_ranks");
  std::string file = dir.file("exp.toml", tiny_experiment("few") + "\n[sweep]\nseeds = [0, 1]\n");
  REQUIRE(run_command(kCli + " run " + file + " --out " + dir.str() + "/local --jobs 1 --quiet")
              .status == 0);
  for (int ranks : {1, 5}) {
    std::string out = dir.str() + "/np" + std::to_string(ranks);
    CommandResult r =
        run_command(mpirun(ranks) + kCli + " run " + file + " --out " + out + " --quiet");
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(results_of(out + "/few") == results_of(dir.str() + "/local/few"));
  }
}

TEST_CASE("under mpirun a trial that throws is recorded as failed and the others finish",
          "[distributed][mpi][e2e]") {
  ScratchDir dir("mpi_fail");
  std::string file = dir.file("exp.toml", sweep_experiment("fail"));
  Experiment e = load_experiment(file);
  const std::string& victim = e.trials[3].id;
  CommandResult r = run_command(mpirun(3) + "-x ABLATE_FAIL_TRIAL=" + victim + " " + kCli +
                                " run " + file + " --out " + dir.str() + "/mpi --quiet");
  INFO(r.output);
  CHECK(r.status != 0);  // a failed trial makes `ablate run` exit 1
  CHECK_THAT(r.output, Catch::Contains("7 ok, 0 diverged, 1 failed"));
  std::string summary = read_text(dir.str() + "/mpi/fail/trials/" + victim + "/summary.json");
  CHECK_THAT(summary, Catch::Contains("\"failed\""));
  CHECK_THAT(summary, Catch::Contains("injected failure"));
  // The failed trial runs again on the next invocation (failed trials always rerun).
  CommandResult again =
      run_command(mpirun(3) + kCli + " run " + file + " --out " + dir.str() + "/mpi --quiet");
  CHECK(again.status == 0);
  CHECK_THAT(again.output, Catch::Contains("7 already done, 1 ok"));
}

TEST_CASE("under mpirun a bad file is exit 2 with no run directory", "[distributed][mpi][e2e]") {
  ScratchDir dir("mpi_bad");
  std::string file = dir.file("exp.toml", tiny_experiment("bad") + "nonsense = 1\n");
  CommandResult r =
      run_command(mpirun(3) + kCli + " run " + file + " --out " + dir.str() + "/runs --quiet");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("nonsense"));
  CHECK_FALSE(fs::exists(dir.str() + "/runs"));
}
