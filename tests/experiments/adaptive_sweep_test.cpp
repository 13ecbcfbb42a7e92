// Adaptive sweeps end to end ([sweep.adaptive], experiments/runner/adaptive_sweep.h):
// a clearly worse arm is decided in the first round and gets no more seeds, an arm
// that trains like its baseline never reports a difference (it runs to the budget, or
// stops at equivalence with a margin), and kill -9 and resume, shards taking turns or
// side by side, and MPI ranks all end with the trials and verdicts of one local run.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include "tests/build_paths.h"

#include "tests/experiments/check_refusals.h"
#include "tests/experiments/experiment_files.h"
#include "tests/experiments/mpiexec.h"

using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

namespace {

const std::string kCli = ABLATE_CLI;

// The tiny experiment on three learning rates: the baseline, one far too small (clearly
// worse) and one a hair above the baseline (it trains like it: near A/A). The primary
// metric is token accuracy, which varies over seeds at this size.
// The confidence sequence unless `design` says otherwise: the runner's machinery (rounds,
// resume, shards, MPI) is the same for both designs, and the sequence's verdicts are the
// ones these tests were written for.
std::string three_arms(const std::string& name, const std::string& report_extra = "",
                       int steps = 30, const std::string& design = "confidence_sequence") {
  return with_steps(tiny_experiment(name), steps) +
         "\n[sweep]\n\"train.lr\" = [3e-3, 1e-6, 0.003001]\nseeds = [0, 1, 2, 3, 4]\n"
         "[sweep.adaptive]\nmax_seeds = 15\nblock = 5\ndesign = \"" +
         design +
         "\"\n"
         "[report]\nbaseline = { \"train.lr\" = \"0.003\" }\nmetric = \"token_accuracy\"\n" +
         report_extra;
}

// comparisons.csv's row of `point` on the primary metric, by column name.
std::map<std::string, std::string> row_of(const std::string& run_dir, const std::string& point) {
  const auto rows = csv_rows(read_text(run_dir + "/comparisons.csv"));
  for (std::size_t r = 1; r < rows.size(); ++r)
    if (rows[r][2] == point && rows[r][5] == "token_accuracy") {
      std::map<std::string, std::string> out;
      for (std::size_t c = 0; c < rows[0].size() && c < rows[r].size(); ++c)
        out[rows[0][c]] = rows[r][c];
      return out;
    }
  return {};
}

std::string results_of(const std::string& run_dir) {
  return results_without_timings(read_text(run_dir + "/results.csv"));
}

// The run's sequential verdicts and seeds, the columns every way of running must agree on.
std::string verdicts_of(const std::string& run_dir) {
  std::string out;
  for (const char* point : {"train.lr=0.003", "train.lr=1e-06", "train.lr=0.003001"}) {
    auto r = row_of(run_dir, point);
    out += std::string(point) + " " + r["seeds"] + " " + r["sequential_verdict"] + " " +
           r["decided_round"] + " [" + r["sequential_low"] + ", " + r["sequential_high"] + "]\n";
  }
  return out;
}

}  // namespace

TEST_CASE(
    "adaptive sweep: a clearly worse arm is decided in round 0 and stops there, and an arm "
    "training like its baseline never reports a difference and runs to the budget",
    "[adaptive][e2e]") {
  ScratchDir dir("adaptive_arms");
  const std::string file = dir.file("arms.toml", three_arms("arms"));
  CommandResult r = run_command(kCli + " run " + file + " --out " + dir.str() + " --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output,
             Catch::Contains("35 trials (0 already done, 35 ok") &&
                 Catch::Contains("adaptive design: complete after round 2: 1 of 2 questions "
                                 "decided, 1 inconclusive at the budget"));
  const std::string run = dir.str() + "/arms";
  auto worse = row_of(run, "train.lr=1e-06"), same = row_of(run, "train.lr=0.003001"),
       base = row_of(run, "train.lr=0.003");
  CHECK(worse["sequential_verdict"] == "worse");
  CHECK(worse["decided_round"] == "0");
  CHECK(worse["seeds"] == "5");
  CHECK(same["sequential_verdict"] == "inconclusive at the budget (n = 15)");
  CHECK(same["seeds"] == "15");
  CHECK(std::stod(same["sequential_low"]) < 0);  // the sequence holds 0: no difference claimed
  CHECK(std::stod(same["sequential_high"]) > 0);
  CHECK(base["seeds"].empty());  // the baseline is asked nothing itself...
  CHECK(base["n"] == "15");      // ...and has the seeds of its open point
  const std::string summary = read_text(run + "/summary.md");
  CHECK_THAT(summary, Catch::Contains("### Adaptive design") &&
                          Catch::Contains("Seeds per point: train.lr=0.003 15; train.lr=1e-06 5; "
                                          "train.lr=0.003001 15.") &&
                          Catch::Contains("Trials: 35 (3 rounds); a fixed design at the budget "
                                          "runs 45"));
  // summary.md opens with the design's verdicts, before any table: each question's
  // verdict (bold), round, seeds (pairs) and sequence at its level, 1 − 0.05/2.
  const std::size_t design = summary.find("## Verdicts of the adaptive design");
  CHECK(design < summary.find("## Test "));
  CHECK(design < summary.find("| "));
  CHECK_THAT(summary,
             Catch::Contains("| differs from its baseline | train.lr=1e-06 vs train.lr=0.003 "
                             "| token_accuracy | **worse** | 0 | 5 (5) | [") &&
                 Catch::Contains("| **inconclusive at the budget (n = 15)** | — | 15 (15) | [") &&
                 Catch::Contains("] | 97.5% |\n"));
  // The headline table gives each point the design's verdict, then the fixed-n one,
  // labelled as a reference.
  CHECK_THAT(summary, Catch::Contains("| design verdict | fixed-n verdict (reference only: the "
                                      "seeds were not fixed in advance) |") &&
                          Catch::Contains("| worse (round 0) | worse") &&
                          Catch::Contains("| inconclusive at the budget (n = 15) | ") &&
                          Catch::Contains("| baseline | baseline |\n"));
  // Run again: every round's trials are there, nothing runs, the same verdicts.
  const std::string verdicts = verdicts_of(run);
  CommandResult again = run_command(kCli + " run " + file + " --out " + dir.str() + " --quiet");
  CHECK_THAT(again.output, Catch::Contains("35 trials (35 already done, 0 ok"));
  CHECK(verdicts_of(run) == verdicts);
}

TEST_CASE(
    "adaptive sweep: with an equivalence margin an arm training like its baseline stops "
    "early as equivalent, and the design's changes after the data are visible",
    "[adaptive][e2e]") {
  ScratchDir dir("adaptive_margin");
  const std::string file =
      dir.file("margin.toml", three_arms("margin", "equivalence_margin = 0.1\n"));
  CommandResult r = run_command(kCli + " run " + file + " --out " + dir.str() + " --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  auto same = row_of(dir.str() + "/margin", "train.lr=0.003001");
  CHECK(same["sequential_verdict"] == "equivalent within ±0.1");
  CHECK(std::stoi(same["seeds"]) < 15);
  // The design is frozen with the run: a larger budget afterwards is a changed design.
  const std::string frozen = read_text(dir.str() + "/margin/preregistration.json");
  CHECK_THAT(frozen, Catch::Contains("first block 0, 1, 2, 3, 4; adaptive: up to 15 seeds a "
                                     "point, 5 a round"));
}

TEST_CASE(
    "adaptive sweep: kill -9 mid-round, then run again, ends with the trials and verdicts "
    "of an uninterrupted run",
    "[adaptive][long]") {
  ScratchDir dir("adaptive_kill");
  // Trials long enough that the kill lands in round 1, after the first block.
  const std::string file = dir.file("killed.toml", three_arms("killed", "", 120));
  REQUIRE(run_command(kCli + " run " + file + " --out " + dir.str() + "/whole --quiet").status ==
          0);
  const std::string run = dir.str() + "/cut/killed";
  pid_t child = start_run(kCli, file, dir.str() + "/cut");
  const bool in_round_1 = wait_for([&] { return finished_trials(run) >= 17; }, child);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(in_round_1);
  REQUIRE(WIFSIGNALED(status));
  CHECK(finished_trials(run) < 35);
  CommandResult resumed =
      run_command(kCli + " run " + file + " --out " + dir.str() + "/cut --quiet");
  INFO(resumed.output);
  REQUIRE(resumed.status == 0);
  CHECK(results_of(run) == results_of(dir.str() + "/whole/killed"));
  CHECK(verdicts_of(run) == verdicts_of(dir.str() + "/whole/killed"));
  CHECK(summaries_differing(dir.str() + "/whole/killed", run).empty());
}

TEST_CASE(
    "adaptive sweep: two shards side by side meet at each round's end, and shards taking "
    "turns continue each other's rounds, both ending as a local run",
    "[adaptive][distributed][long]") {
  ScratchDir dir("adaptive_shards");
  const std::string file = dir.file("sharded.toml", three_arms("sharded"));
  REQUIRE(run_command(kCli + " run " + file + " --out " + dir.str() + "/local --quiet").status ==
          0);
  const std::string local = dir.str() + "/local/sharded";
  // Side by side in one directory.
  const std::string shard =
      kCli + " run " + file + " --out " + dir.str() + "/both --quiet --shard ";
  CommandResult both = run_command("(" + shard + "1/2 & " + shard + "2/2 & wait)");
  INFO(both.output);
  CHECK(results_of(dir.str() + "/both/sharded") == results_of(local));
  CHECK(verdicts_of(dir.str() + "/both/sharded") == verdicts_of(local));
  // One at a time: a shard stops when the round needs the other's trials (none running),
  // saying where the design stands; the other continues from there.
  const std::string turn =
      kCli + " run " + file + " --out " + dir.str() + "/turns --quiet --shard ";
  CommandResult first = run_command(turn + "1/2");
  CHECK_THAT(first.output, Catch::Contains("adaptive design: round 0: 0 of 2 questions decided"));
  int turns = 1;
  for (bool complete = false; !complete && turns < 8; ++turns)
    complete =
        run_command(turn + (turns % 2 ? "2/2" : "1/2")).output.find("adaptive design: complete") !=
        std::string::npos;
  CHECK(turns > 2);  // the rounds needed both shards in turn
  CHECK(results_of(dir.str() + "/turns/sharded") == results_of(local));
  CHECK(verdicts_of(dir.str() + "/turns/sharded") == verdicts_of(local));
}

TEST_CASE("adaptive sweep: mpirun -np 3 gives the local run's trials and verdicts",
          "[adaptive][distributed][mpi][e2e]") {
  ScratchDir dir("adaptive_mpi");
  const std::string file = dir.file("ranks.toml", three_arms("ranks"));
  REQUIRE(run_command(kCli + " run " + file + " --out " + dir.str() + "/local --quiet").status ==
          0);
  CommandResult r = run_command(mpiexec() + " --allow-run-as-root --oversubscribe -np 3 " + kCli +
                                " run " + file + " --out " + dir.str() + "/mpi --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("35 trials (0 already done, 35 ok"));
  CHECK(results_of(dir.str() + "/mpi/ranks") == results_of(dir.str() + "/local/ranks"));
  CHECK(verdicts_of(dir.str() + "/mpi/ranks") == verdicts_of(dir.str() + "/local/ranks"));
}

TEST_CASE(
    "adaptive sweep, group-sequential: check states the design's operating characteristics "
    "before any data, the clearly worse arm is decided in round 0, the arm training like its "
    "baseline stays undecided, and a rerun runs nothing (futility stops: sequential_design_test)",
    "[adaptive][e2e]") {
  ScratchDir dir("adaptive_group_sequential");
  const std::string file = dir.file("gs.toml", three_arms("gs", "", 30, "group_sequential"));
  CommandResult check = run_command(kCli + " check " + file);
  INFO(check.output);
  REQUIRE(check.status == 0);
  CHECK_THAT(check.output,
             Catch::Contains("group-sequential, power spending, non-binding futility") &&
                 Catch::Contains("before any data, at looks of 5, 10, 15 seeds") &&
                 Catch::Contains("each of 2 compared points, does it differ from its baseline "
                                 "(two-sided at α/2 = 0.025") &&
                 Catch::Contains("true effect +0.5 sd: decides (power) ") &&
                 Catch::Contains("true effect +1 sd: decides (power) "));
  CommandResult r = run_command(kCli + " run " + file + " --out " + dir.str() + " --quiet");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const std::string run = dir.str() + "/gs";
  auto worse = row_of(run, "train.lr=1e-06"), same = row_of(run, "train.lr=0.003001");
  CHECK(worse["sequential_verdict"] == "worse");
  CHECK(worse["decided_round"] == "0");
  CHECK(worse["sequential_method"] == "group-sequential t (power spending, futility)");
  // With three looks (5, 10, 15) the near-A/A arm's statistic stays above its futility
  // boundaries on these seeds: it runs to the budget and decides nothing.
  CHECK(same["sequential_verdict"] == "inconclusive at the budget (n = 15)");
  CHECK(std::stod(same["sequential_low"]) < 0);
  CHECK(std::stod(same["sequential_high"]) > 0);
  const std::string frozen = read_text(run + "/preregistration.json");
  CHECK_THAT(frozen, Catch::Contains("group-sequential, power spending, non-binding futility") &&
                         Catch::Contains("graphical procedure"));
  const std::string verdicts = verdicts_of(run);
  CommandResult again = run_command(kCli + " run " + file + " --out " + dir.str() + " --quiet");
  CHECK_THAT(again.output, Catch::Contains("0 ok"));
  CHECK(verdicts_of(run) == verdicts);
}

TEST_CASE("adaptive sweep: a design it cannot run is exit 2 naming the file, line and key",
          "[adaptive][e2e]") {
  ScratchDir dir("adaptive_errors");
  const std::string base = tiny_experiment("bad") + "\n[sweep]\n\"train.lr\" = [3e-3, 1e-3]\n";
  const std::vector<RefusalCase> cases = {
      {"[sweep.adaptive]\nmax_seeds = 10\n", "sweep.adaptive: needs sweep.seeds"},
      {"seeds = [0]\n[sweep.adaptive]\nmax_seeds = 10\n", "first block needs at least 2 seeds"},
      {"seeds = [0, 1, 2]\n[sweep.adaptive]\nmax_seeds = 2\n",
       "sweep.adaptive.max_seeds: is below the first block's 3 seeds"},
      {"seeds = [0, 1]\n[sweep.adaptive]\nblock = 2\n", "sweep.adaptive.max_seeds: is required"},
      {"seeds = [0, 1]\n[sweep.adaptive]\nmax_seeds = 10\nblocks = 2\n", "block"},
      {"seeds = [0, 1]\n[sweep.adaptive]\nmax_seeds = 5000\n", "sweep.adaptive.max_seeds"},
      {"seeds = [0, 1]\n[sweep.adaptive]\nmax_seeds = 10\n[tune]\n\"train.steps\" = [20, 30]\n",
       "needs tune.seeds with [tune]"},
      {"seeds = [0, 1]\n[sweep.adaptive]\nmax_seeds = 200\nblock = 1\n",
       "sweep.adaptive.block: plans 199 looks"},
      {"seeds = [0, 1]\n[sweep.adaptive]\nmax_seeds = 10\ndesign = \"confidence_sequence\"\n"
       "spending = \"pocock\"\n",
       "sweep.adaptive.spending: applies to design = \"group_sequential\" only"},
      {"seeds = [0, 1]\n[sweep.adaptive]\nmax_seeds = 10\ndesign = \"bayes\"\n",
       "sweep.adaptive.design"},
  };
  check_refusals(dir, base, cases);
}
