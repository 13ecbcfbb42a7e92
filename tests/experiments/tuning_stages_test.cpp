// A two-stage [tune] (tune.seeds; experiments/runner/tuned_sweep.h): every setting of
// every point runs on the tuning seeds, each point's setting is chosen there by
// validation loss, and only that setting runs on the sweep's seeds — which alone are
// compared. These tests protect what makes the protocol sound: the choice never sees a
// test metric, the tuning trials never enter a comparison, the seeds that choose are
// not the seeds that judge, and a rerun, a resume, an adaptive design and MPI ranks
// all reach the same second stage.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/build_paths.h"
#include "tests/experiments/check_refusals.h"
#include "tests/experiments/experiment_files.h"
#include "tests/experiments/mpiexec.h"

using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

namespace {

const std::string kCli = ABLATE_CLI;

// Two points; lr 1e-5 learns nothing in 30 steps, so both must choose 3e-3.
std::string two_stage(const std::string& name, const std::string& seeds = "[0, 1, 2]",
                      const std::string& extra = "") {
  return tiny_experiment(name) +
         "\n[sweep]\n\"model.attention.qk\" = [\"separate\", \"shared\"]\nseeds = " + seeds + "\n" +
         extra + "\n[tune]\n\"train.lr\" = [1e-5, 3e-3]\nseeds = [100, 101]\n";
}

// results.csv's rows as column name → value.
std::vector<std::map<std::string, std::string>> result_rows(const std::string& run_dir) {
  const auto rows = csv_rows(read_text(run_dir + "/results.csv"));
  std::vector<std::map<std::string, std::string>> out;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < rows[0].size() && c < rows[r].size(); ++c)
      row[rows[0][c]] = rows[r][c];
    out.push_back(row);
  }
  return out;
}

}  // namespace

TEST_CASE("two-stage tune: every setting on tune.seeds, then the chosen one on the sweep's seeds",
          "[tune][e2e]") {
  ScratchDir dir("tuning_stages");
  const std::string file = dir.file("staged.toml", two_stage("staged"));
  CommandResult check = run_command(kCli + " check " + file);
  INFO(check.output);
  REQUIRE(check.status == 0);
  CHECK_THAT(check.output,
             Catch::Contains("8 trials (model.attention.qk × train.lr (tuned) × 2 tuning seeds)") &&
                 Catch::Contains("tuning stage: listed (2 points × 2 settings × 2 tune.seeds); "
                                 "then each point's chosen setting on sweep.seeds 0, 1, 2 (6 "
                                 "trials)"));
  const std::string out = dir.str() + "/runs";
  CommandResult run = run_command(kCli + " run " + file + " --out " + out + " --jobs 2 --quiet");
  INFO(run.output);
  REQUIRE(run.status == 0);
  CHECK_THAT(run.output, Catch::Contains("14 trials (0 already done, 14 ok"));
  const std::string run_dir = out + "/staged";
  int tuning = 0, judged = 0;
  for (const auto& row : result_rows(run_dir)) {
    const bool in_tuning_stage = row.at("tuning_stage") == "1";
    tuning += in_tuning_stage;
    judged += !in_tuning_stage;
    CHECK(in_tuning_stage == (row.at("seed") == "100" || row.at("seed") == "101"));
    // The sweep's seeds ran the chosen setting only.
    if (!in_tuning_stage) CHECK(row.at("train.lr") == "0.003");
  }
  CHECK(tuning == 8);
  CHECK(judged == 6);
  // Compared on the sweep's 3 seeds, not the tuning stage's.
  const std::string comparisons = read_text(run_dir + "/comparisons.csv");
  CHECK_THAT(comparisons, Catch::Contains("model.attention.qk=separate,sequence_accuracy,test,3,"));
  const std::string summary = read_text(run_dir + "/summary.md");
  CHECK_THAT(summary, Catch::Contains("over the tuning stage's seeds, tune.seeds = 100, 101 (") &&
                          Catch::Contains("the trials that chose a setting do not judge it."));
  const auto frozen = nlohmann::json::parse(read_text(run_dir + "/preregistration.json"));
  CHECK(frozen["seeds"] == "0, 1, 2; tuned on 100, 101");
  // Nothing runs again, and the index lists both stages.
  CommandResult again = run_command(kCli + " run " + file + " --out " + out + " --quiet");
  CHECK_THAT(again.output, Catch::Contains("14 trials (14 already done, 0 ok"));
  CHECK(nlohmann::json::parse(read_text(run_dir + "/trials.json"))["trials"].size() == 14);
  CHECK(run_command(kCli + " check " + file + " --budget").output.find("seed 2") !=
        std::string::npos);
}

TEST_CASE(
    "two-stage tune: the choice never sees a test metric, and tuning trials are never compared",
    "[tune][e2e]") {
  ScratchDir dir("tuning_stages_blind");
  const std::string file = dir.file("blind.toml", two_stage("blind"));
  const std::string out = dir.str() + "/runs", run_dir = out + "/blind";
  REQUIRE(run_command(kCli + " run " + file + " --out " + out + " --jobs 2 --quiet").status == 0);
  const std::string comparisons = read_text(run_dir + "/comparisons.csv");
  const std::string summary_before = read_text(run_dir + "/summary.md");
  const std::string results = results_without_timings(read_text(run_dir + "/results.csv"));
  // Make every tuning trial's test metrics absurd, and lr 1e-5's test metrics perfect:
  // were the choice or the comparison to read them, the reports would change.
  for (const auto& row : result_rows(run_dir)) {
    if (row.at("tuning_stage") != "1") continue;
    const std::string path = run_dir + "/trials/" + row.at("trial") + "/summary.json";
    auto summary = nlohmann::json::parse(read_text(path));
    for (auto& [metric, value] : summary["test"].items())
      if (value.is_number()) value = row.at("train.lr") == "1e-05" ? 1.0 : 0.0;
    std::ofstream(path) << summary.dump(2);
  }
  REQUIRE(run_command(kCli + " report " + run_dir).status == 0);
  CHECK(read_text(run_dir + "/comparisons.csv") == comparisons);
  // No section of summary.md counts a tuning trial as a result of its point.
  CHECK(read_text(run_dir + "/summary.md") == summary_before);
  CHECK_THAT(summary_before, Catch::Contains("**train.lr=0.003: "));
  // results.csv lists the edited values, and nothing else moved.
  CHECK(results_without_timings(read_text(run_dir + "/results.csv")) != results);
}

TEST_CASE("two-stage tune: a resumed run and mpirun -np 3 reach the same second stage",
          "[tune][e2e][mpi][distributed]") {
  ScratchDir dir("tuning_stages_resume");
  const std::string file = dir.file("again.toml", two_stage("again"));
  const std::string local = dir.str() + "/local", mpi = dir.str() + "/mpi";
  REQUIRE(run_command(kCli + " run " + file + " --out " + local + " --jobs 1 --quiet").status == 0);
  // A second-stage trial lost (as if killed before it finished) runs again, alone.
  std::string lost;
  for (const auto& row : result_rows(local + "/again"))
    if (row.at("tuning_stage") == "0") lost = row.at("trial");
  REQUIRE(!lost.empty());
  const std::string before = results_without_timings(read_text(local + "/again/results.csv"));
  fs::remove_all(local + "/again/trials/" + lost);
  CommandResult resumed = run_command(kCli + " run " + file + " --out " + local + " --quiet");
  CHECK_THAT(resumed.output, Catch::Contains("14 trials (13 already done, 1 ok"));
  CHECK(results_without_timings(read_text(local + "/again/results.csv")) == before);
  CommandResult ranks = run_command(mpiexec() + " --allow-run-as-root --oversubscribe -np 3 " +
                                    kCli + " run " + file + " --out " + mpi + " --quiet");
  INFO(ranks.output);
  REQUIRE(ranks.status == 0);
  CHECK(results_without_timings(read_text(mpi + "/again/results.csv")) == before);
}

TEST_CASE("two-stage tune with an adaptive design: the rounds run the chosen setting only",
          "[tune][adaptive][e2e]") {
  ScratchDir dir("tuning_stages_adaptive");
  const std::string file =
      dir.file("rounds.toml",
               two_stage("rounds", "[0, 1, 2]", "[sweep.adaptive]\nmax_seeds = 6\nblock = 3\n"));
  // The budget `check` states counts both stages: 2 points × 6 seeds after 2 × 2 × 2.
  CommandResult check = run_command(kCli + " check " + file);
  INFO(check.output);
  CHECK_THAT(check.output,
             Catch::Contains("(at most 12 trials after the tuning stage's 8, 20 in all)"));
  const std::string out = dir.str() + "/runs", run_dir = out + "/rounds";
  CommandResult run = run_command(kCli + " run " + file + " --out " + out + " --jobs 2 --quiet");
  INFO(run.output);
  REQUIRE(run.status == 0);
  int judged = 0;
  for (const auto& row : result_rows(run_dir))
    if (row.at("tuning_stage") == "0") {
      ++judged;
      CHECK(row.at("train.lr") == "0.003");
      CHECK(std::stoi(row.at("seed")) < 6);  // the sweep's sequence: 0, 1, 2, then 3, 4, 5
    }
  CHECK(judged >= 6);
  CHECK_THAT(read_text(run_dir + "/comparisons.csv"), Catch::Contains("sequential_verdict"));
  const auto frozen = nlohmann::json::parse(read_text(run_dir + "/preregistration.json"));
  CHECK_THAT(frozen["seeds"].get<std::string>(),
             Catch::StartsWith("first block 0, 1, 2;") && Catch::EndsWith("; tuned on 100, 101"));
}

TEST_CASE("two-stage tune: seeds that would both choose and judge, and other mistakes, are exit 2",
          "[tune][e2e]") {
  ScratchDir dir("tuning_stages_errors");
  const std::string base = tiny_experiment("bad") +
                           "\n[sweep]\n\"model.attention.qk\" = "
                           "[\"separate\", \"shared\"]\n";
  const std::vector<RefusalCase> cases = {
      {"seeds = [0, 1]\n[tune]\n\"train.lr\" = [1e-3, 3e-3]\nseeds = [1, 2]\n",
       "tune.seeds: shares seed 1 with the sweep's seeds: the trials that choose a setting must "
       "not also judge it"},
      {"seeds = [0, 1]\n[sweep.adaptive]\nmax_seeds = 10\n[tune]\n\"train.lr\" = [1e-3]\n"
       "seeds = [7]\n",
       "shares seed 7 with the sweep's seeds (sweep.seeds and the adaptive design's later ones, "
       "0–9)"},
      {"seeds = [0, 1]\n[tune]\nseeds = [5]\n", "tune.seeds: needs a key to tune"},
      {"[tune]\n\"train.lr\" = [1e-3]\nseeds = [5]\n", "tune.seeds: needs sweep.seeds"},
      {"seeds = [0, 1]\n[tune]\n\"train.lr\" = [1e-3]\nseeds = [5, 5]\n",
       "tune.seeds: lists seed 5 twice"},
  };
  check_refusals(dir, base, cases);
}

TEST_CASE("run --only-ids: exactly the listed trials of the design, as one plain sweep",
          "[tune][e2e]") {
  ScratchDir dir("tuning_stages_only_ids");
  const std::string file = dir.file("only.toml", two_stage("only"));
  const std::string full = dir.str() + "/full", part = dir.str() + "/part";
  REQUIRE(run_command(kCli + " run " + file + " --out " + full + " --jobs 2 --quiet").status == 0);
  // The reproduce tier's choice: the chosen setting at the first tuning seed and at the
  // first judged seed — which a partial tuning stage could not be trusted to choose.
  std::string ids;
  for (const auto& row : result_rows(full + "/only"))
    if ((row.at("seed") == "100" && row.at("selected") == "1") || row.at("seed") == "0")
      ids += row.at("trial") + "\n";
  const std::string ids_file = dir.file("ids.txt", "# first seeds\n" + ids);
  CommandResult r = run_command(kCli + " run " + file + " --only-ids " + ids_file + " --out " +
                                part + " --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("4 trials (0 already done, 4 ok"));
  CommandResult compared = run_command("bash " + std::string(ABLATE_TEST_DATA_DIR) +
                                       "/../scripts/compare-results.sh --ignore-column selected " +
                                       full + "/only/results.csv " + part + "/only/results.csv");
  INFO(compared.output);
  CHECK(compared.status == 0);
  // An id the design does not have: exit 2, naming the ids file's line, nothing run.
  const std::string bad = dir.file("bad.txt", ids + "0123456789abcdef\n");
  CommandResult refused = run_command(kCli + " run " + file + " --only-ids " + bad + " --out " +
                                      dir.str() + "/bad --quiet");
  CHECK(refused.status == 2);
  CHECK_THAT(refused.output, Catch::Contains(bad + ":5:1: `0123456789abcdef` is not a trial of"));
  CHECK_FALSE(fs::exists(dir.str() + "/bad"));
}
