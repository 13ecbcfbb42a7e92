// An experiment file edited and run again into the same run directory: trials still
// in the grid are reused, new ones run, the others stay on disk but out of the
// reports (and are counted once), and every earlier version of the file is kept.
#include <catch2/catch.hpp>

#include "tests/build_paths.h"

#include <filesystem>

#include "tests/experiments/experiment_files.h"

using namespace ablate::experiments::testing;
namespace fs = std::filesystem;

namespace {

const std::string kCli = ABLATE_CLI;

std::string version(const std::string& qk_values) {
  std::string t =
      tiny_experiment("incremental") + "\n[sweep]\n\"model.attention.qk\" = [" + qk_values + "]\n";
  t.replace(t.find("steps = 30"), 10, "steps = 10");
  return t;
}

int directories(const std::string& dir) {
  int n = 0;
  for (const auto& d : fs::directory_iterator(dir)) n += d.is_directory();
  return n;
}

}  // namespace

TEST_CASE(
    "an edited experiment file reuses, runs and sets aside trials, and keeps its earlier versions",
    "[incremental][e2e]") {
  ScratchDir dir("incremental_sweep");
  const std::string v1 = version("\"separate\", \"shared\""),
                    v2 = version("\"shared\", \"identity\"");
  const std::string file = dir.str() + "/exp.toml", out = " --out " + dir.str() + "/runs";
  const std::string run = dir.str() + "/runs/incremental";
  dir.file("exp.toml", v1);
  REQUIRE(run_command(kCli + " run " + file + out + " --quiet").status == 0);
  CHECK_FALSE(fs::exists(run + "/history"));

  dir.file("exp.toml", v2);
  CommandResult second = run_command(kCli + " run " + file + out + " --quiet");
  INFO(second.output);
  REQUIRE(second.status == 0);
  CHECK_THAT(second.output, Catch::Contains("2 trials (1 already done, 1 ok"));
  CHECK_THAT(second.output,
             Catch::Contains("1 trials from an earlier version of this file (or of the data or "
                             "plugins it reads) are not in this experiment"));
  CHECK(read_text(run + "/experiment.toml") == v2);
  CHECK(read_text(run + "/history/experiment-001.toml") == v1);
  CHECK(fs::exists(run + "/history/trials-001.json"));
  CHECK(directories(run + "/trials") == 3);  // separate's trial stays on disk
  // The reports describe exactly the current file.
  const std::string csv = read_text(run + "/results.csv"), md = read_text(run + "/summary.md");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 3);  // header + 2 trials
  CHECK_THAT(csv, Catch::Contains("identity") && !Catch::Contains("separate"));
  CHECK_THAT(md, Catch::Contains("2 of 2 trials finished") && !Catch::Contains("separate"));

  // Back to the first version: both its trials are on disk, so nothing runs.
  dir.file("exp.toml", v1);
  CommandResult third = run_command(kCli + " run " + file + out + " --quiet");
  REQUIRE(third.status == 0);
  CHECK_THAT(third.output, Catch::Contains("2 trials (2 already done") &&
                               Catch::Contains("1 trials from an earlier version"));
  CHECK(read_text(run + "/history/experiment-002.toml") == v2);
  CHECK_THAT(read_text(run + "/results.csv"),
             Catch::Contains("separate") && !Catch::Contains("identity"));

  // The same file again adds no history.
  REQUIRE(run_command(kCli + " run " + file + out + " --quiet").status == 0);
  CHECK_FALSE(fs::exists(run + "/history/experiment-003.toml"));
}

TEST_CASE(
    "an experiment file whose grid shrank to a subset of the sweep replaces the index, a trial's "
    "config.toml does not",
    "[incremental][e2e]") {
  ScratchDir dir("incremental_shrink");
  const std::string file = dir.str() + "/exp.toml", out = " --out " + dir.str() + "/runs";
  const std::string run = dir.str() + "/runs/incremental";
  dir.file("exp.toml", version("\"separate\", \"shared\", \"identity\""));
  REQUIRE(run_command(kCli + " run " + file + out + " --quiet").status == 0);

  // A trial's own config.toml run again: part of the sweep, whose index stays whole.
  std::string trial;
  for (const auto& d : fs::directory_iterator(run + "/trials")) trial = d.path().string();
  CommandResult again =
      run_command(kCli + " run " + trial + "/config.toml" + out + " --quiet --force");
  INFO(again.output);
  REQUIRE(again.status == 0);
  const std::string whole = read_text(run + "/results.csv");
  CHECK(std::count(whole.begin(), whole.end(), '\n') == 4);  // header + 3 trials

  // The experiment file with two of its three values: a new version (its trials are
  // all in the old index, but the file has a grid), so the report has two rows.
  const std::string shrunk = version("\"separate\", \"shared\"");
  dir.file("exp.toml", shrunk);
  CommandResult second = run_command(kCli + " run " + file + out + " --quiet");
  INFO(second.output);
  REQUIRE(second.status == 0);
  CHECK_THAT(second.output, Catch::Contains("2 trials (2 already done") &&
                                Catch::Contains("1 trials from an earlier version"));
  CHECK(read_text(run + "/experiment.toml") == shrunk);
  const std::string csv = read_text(run + "/results.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 3);  // header + 2 trials
  CHECK_THAT(csv, !Catch::Contains("identity"));
}
